# Session 21's second H200 call (a98d0dd: a barrier pair per tensor, 4-bit
# Lloyd-Max on pair tables by default so k4v4 takes the producer): the
# sm_90a GPU tier with TQ_EXTEND_PINGPONG=1 (every default path plus the
# turn-taking), then extend_bench (k3v4, k4v4; 4K over 0 and over a 28K
# prefix) for the default, ping-pong, and 64-token tiles with overlapped
# consumers without and with ping-pong.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
rm -rf /tmp/ge1
TQC_DEVICE_DEFINES="TQ_EXTEND_PINGPONG=1" TIER_ARCH=sm_90a OUT= timeout 300 $G /tmp/ge1 tier 2>&1 | tail -3 > $OUT/eval.txt
grep -E "FAILED|Failure" /tmp/ge1/gpu-test.txt | head -30 > $OUT/gpu-test-summary.txt
tail -3 /tmp/ge1/gpu-test.txt >> $OUT/gpu-test-summary.txt
C="0:4096 28672:4096"
i=0; mkdir -p /tmp/res
run_variant() { # name, defines, tqc args
  i=$((i+1)); rm -rf /tmp/gx$i
  TQC_DEVICE_DEFINES="$2" EXTEND_TQC_ARGS="$3" EXTEND_PRESETS="k3v4 k4v4" EXTEND_CASES="$C" \
    BUNDLE_ARCH=sm_90a OUT= timeout 100 $G /tmp/gx$i extend 2>&1 | tail -1 | sed "s/^/$1: /" >> $OUT/eval.txt
  mkdir -p /tmp/res/$1; cp /tmp/gx$i/extend.txt /tmp/gx$i/extend.json /tmp/res/$1/ 2>/dev/null
  echo "== $1"; grep -E "^k[0-9]v" /tmp/res/$1/extend.txt
}
run_variant default "" ""
run_variant pingpong "TQ_EXTEND_PINGPONG=1" ""
run_variant bn64-overlap "TQ_EXTEND_OVERLAP=1" "--extend-block-n 64"
run_variant bn64-overlap-pingpong "TQ_EXTEND_OVERLAP=1 TQ_EXTEND_PINGPONG=1" "--extend-block-n 64"
tar czf $OUT/results.tgz -C /tmp res ge1/gpu-test.txt ge1/log.txt ge1/ctest-gpu.txt gx1/log.txt gx2/log.txt gx3/log.txt gx4/log.txt 2>/dev/null
