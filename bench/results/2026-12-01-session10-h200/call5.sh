set -x
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
A="--warps-candidates 4,8 --heads-candidates 4 --stages-candidates 3 --block-n-candidates 64"
GRID="TUNE_PRESETS=k3v4 TUNE_GRID_ONLY=1 TUNE_MODES=b2b"
env $GRID TUNE_ARGS="$A" TUNE_TAG=-base $G tuner
env $GRID TUNE_ARGS="$A" TUNE_TAG=-plain TQRT_PLAIN_LAUNCH=1 $G tuner
env $GRID TUNE_ARGS="$A" TUNE_TAG=-late TQC_DEVICE_DEFINES="TQ_LATE_DEPENDENT_LAUNCH=1" $G tuner
tqc=/tmp/tqc-gpu/tqc; T=/tmp/ge/trace; mkdir -p $T
[ -f build-gpu/runtime/libtqrt.so ] || (cmake -S . -B build-gpu -DTQC_BUILD_COMPILER=OFF -DTQC_GTEST_SOURCE_DIR=$PWD/.carry/googletest >/dev/null 2>&1; cmake --build build-gpu -j16 --target tqrt tqrt_python 2>&1 | tail -1)
D="TQ_DEBUG_CTA_TRACE=67108864"
for v in "s2w8:$D:--splits 2 --warps 8" "s4w8:$D:--splits 4 --warps 8" "s4w8late:$D TQ_LATE_DEPENDENT_LAUNCH=1:--splits 4 --warps 8" "s8w8:$D:--splits 8 --warps 8"; do
  n=${v%%:*}; r=${v#*:}; defs=${r%%:*}; o=${r#*:}
  TQC_DEVICE_DEFINES="$defs" $tqc --arch sm_90 --preset k3v4 --block-n 64 --stages 3 $o -o /tmp/tb-$n > $T/build-$n.txt 2>&1 &
done; wait
tr() { n=$1; python3 bench/cta_trace.py run --bundle /tmp/tb-$n --batch 8 --context 1024 --launches 12 --tqrt build-gpu/runtime > $T/raw-$n$TAG.txt 2>&1; python3 bench/cta_trace.py analyze $T/raw-$n$TAG.txt > $T/trace-$n$TAG.txt 2>&1; echo "== $n$TAG"; grep -E "sharing|median time" $T/trace-$n$TAG.txt | tail -4; }
for n in s2w8 s4w8 s4w8late s8w8; do TAG= tr $n; done
TQRT_PLAIN_LAUNCH=1 TAG=-plain tr s4w8
TQRT_PLAIN_LAUNCH=1 TAG=-plain tr s2w8
cd /tmp && tar czf $OUT/gpu-eval.tgz --exclude=work ge
