# Session 21's third H200 call (7c07bb7: one barrier pair per buffer as in
# session 20; 4-bit Lloyd-Max on pair tables by default, k4v4 on the
# producer at 120 registers): the sm_90a GPU tier on the defaults,
# extend_bench (k3v4, k4v4, k4v2), then ncu durations of the causal 4K
# chunk's kernels (prep and attention; k3v4).
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
rm -rf /tmp/ge1 /tmp/gx1 /tmp/gn1
TIER_ARCH=sm_90a OUT= timeout 280 $G /tmp/ge1 tier 2>&1 | tail -3 > $OUT/eval.txt
grep -E "FAILED|Failure" /tmp/ge1/gpu-test.txt | head -30 > $OUT/gpu-test-summary.txt
tail -3 /tmp/ge1/gpu-test.txt >> $OUT/gpu-test-summary.txt
EXTEND_PRESETS="k3v4 k4v4 k4v2" EXTEND_CASES="0:4096 28672:4096 8192:1024" \
  BUNDLE_ARCH=sm_90a OUT= timeout 100 $G /tmp/gx1 extend 2>&1 | tail -1 >> $OUT/eval.txt
cp /tmp/gx1/extend.txt /tmp/gx1/extend.json $OUT/ 2>/dev/null
grep -E "^k[0-9]v" /tmp/gx1/extend.txt
timeout 70 /usr/local/cuda/bin/ncu --kernel-name regex:tq_extend --launch-count 4 --section SpeedOfLight \
  --section LaunchStats python3 bench/extend_bench.py --tqrt build-gpu/runtime --bundles /tmp/gx1/work/k3v4 \
  --cases 0:4096 --profile > $OUT/ncu-causal.txt 2>&1
grep -E "tq_extend|Duration|Grid Size|Block Size" $OUT/ncu-causal.txt
tar czf $OUT/logs.tgz -C /tmp ge1/gpu-test.txt ge1/log.txt ge1/ctest-gpu.txt gx1/log.txt 2>/dev/null
