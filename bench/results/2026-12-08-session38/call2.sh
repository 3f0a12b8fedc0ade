# Session 38 call 2 (carry the packed tqc of the tree, googletest and this
# script as .carry/call2.sh): A/B at B=32 L=32K (two rounds, alternating
# processes): the default kernels (A: 4-bit keys by shift, mask, add; 2-bit
# keys by pair table), B: TQ_TC_LUT_BYTE_PERMUTE=1 (4-bit keys by byte
# permute and multiply-add) for k4v2 and k4v4, Q:
# TQ_TC_KEY_QUADS=1 (2-bit keys by quad table, and 2-bit values of the
# same codebook by the same table) for k2v2; then the GPU tier with both
# knobs on, then B=1 L=1K and
# B=8 L=8K of the same A/B in the time left.
#   CALL_LIMIT=590 bash .carry/call2.sh
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
L=${CALL_LIMIT:-590}
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt; cat $OUT/r/gpu.txt
tar xJf .carry/tqc-gpu.tar.xz -C /tmp
T="/tmp/tqc-gpu/tqc --arch sm_90 --tuning-db autotune/databases/nvidia-h200-sm_90.json"
for p in k4v2 k4v4 k2v2; do $T --preset $p -o /tmp/vA/$p > /tmp/vA-$p.txt 2>&1 & done
for p in k4v2 k4v4; do TQC_DEVICE_DEFINES="TQ_TC_LUT_BYTE_PERMUTE=1" $T --preset $p -o /tmp/vB/$p > /tmp/vB-$p.txt 2>&1 & done
TQC_DEVICE_DEFINES="TQ_TC_KEY_QUADS=1" $T --preset k2v2 -o /tmp/vQ/k2v2 > /tmp/vQ-k2v2.txt 2>&1 &
( cmake -S . -B build-gpu -DTQC_BUILD_COMPILER=OFF -DTQC_GTEST_SOURCE_DIR=$PWD/.carry/googletest > /dev/null 2>&1 && cmake --build build-gpu -j16 --target tqrt tqrt_python > $OUT/r/cmake.txt 2>&1 ) &
wait; echo "== bundles at ${SECONDS}s"
ab() { # batch context output
  for round in 1 2; do
    echo "## A (default)" >> $OUT/r/$3
    timeout 60 python3 bench/decode_bench.py --tqrt build-gpu/runtime --bundles /tmp/vA/k4v2 /tmp/vA/k4v4 /tmp/vA/k2v2 --batch $1 --context $2 --reps 30 >> $OUT/r/$3 2>&1
    echo "## B (TQ_TC_LUT_BYTE_PERMUTE=1)" >> $OUT/r/$3
    timeout 60 python3 bench/decode_bench.py --tqrt build-gpu/runtime --bundles /tmp/vB/k4v2 /tmp/vB/k4v4 --batch $1 --context $2 --reps 30 >> $OUT/r/$3 2>&1
    echo "## Q (TQ_TC_KEY_QUADS=1)" >> $OUT/r/$3
    timeout 60 python3 bench/decode_bench.py --tqrt build-gpu/runtime --bundles /tmp/vQ/k2v2 --batch $1 --context $2 --reps 30 >> $OUT/r/$3 2>&1
  done
  grep -v "^#  " $OUT/r/$3 | grep -v "^preset"
}
ab 32 32768 ab-b32-l32k.txt; echo "== A/B at ${SECONDS}s"; tar czf $OUT/c.tgz -C $OUT r
left=$((L - SECONDS - 70)); echo "== ${left}s left for the tier"
if [ $left -gt 200 ]; then
  G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
  TQC_DEVICE_DEFINES="TQ_TC_KEY_QUADS=1 TQ_TC_LUT_BYTE_PERMUTE=1" OUT= timeout $left $G /tmp/gt tier > $OUT/r/eval-tier.txt 2>&1
  cp /tmp/gt/gpu-test.txt /tmp/gt/ctest-gpu.txt /tmp/gt/log.txt $OUT/r/ 2>/dev/null; xz -f $OUT/r/gpu-test.txt $OUT/r/log.txt
  grep -hE "PASSED|FAILED|exit" /tmp/gt/log.txt | head
fi
tar czf $OUT/c.tgz -C $OUT r
if [ $((L - SECONDS)) -gt 70 ]; then ab 1 1024 ab-b1-l1k.txt; fi
if [ $((L - SECONDS)) -gt 70 ]; then ab 8 8192 ab-b8-l8k.txt; fi
echo "== end at ${SECONDS}s"; tar czf $OUT/c.tgz -C $OUT r
