# Session 37 call 3 (carry the packed tqc of the tree, googletest and this
# script): score chains A/B at B=32 L=32K (k3v4, k4v2, k2v2; TQ_TC_SCORE_
# CHAINS 4 vs 2, explicit, two rounds alternating), then the GPU tier on the
# final default kernels if the time allows; with GRID=1 (CALL_LIMIT=590
# GRID=1 bash .carry/call2.sh, ~590 s) then decode_bench's grid (every
# preset, B {1,8,32,64} x L {1K,8K,32K}, SDPA in the same process) in the
# time left: on an H200, issue 7's numbers of record.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
L=${CALL_LIMIT:-590}
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt; cat $OUT/r/gpu.txt
tar xJf .carry/tqc-gpu.tar.xz -C /tmp
for p in k3v4 k4v2 k2v2; do
  for c in 2 4; do
    TQC_DEVICE_DEFINES="TQ_TC_SCORE_CHAINS=$c" /tmp/tqc-gpu/tqc --arch sm_90 --preset $p --tuning-db autotune/databases/nvidia-h200-sm_90.json -o /tmp/ch$c/$p > /tmp/ch$c-$p.txt 2>&1 &
  done
done
( cmake -S . -B build-gpu -DTQC_BUILD_COMPILER=OFF -DTQC_GTEST_SOURCE_DIR=$PWD/.carry/googletest > /dev/null 2>&1 && cmake --build build-gpu -j16 --target tqrt tqrt_python > $OUT/r/cmake.txt 2>&1 ) &
wait; echo "== bundles at ${SECONDS}s"
for c in 2 4 2 4; do
  echo "## chains $c" >> $OUT/r/chains.txt
  timeout 60 python3 bench/decode_bench.py --tqrt build-gpu/runtime --bundles /tmp/ch$c/k3v4 /tmp/ch$c/k4v2 /tmp/ch$c/k2v2 --batch 32 --context 32768 --reps 30 >> $OUT/r/chains.txt 2>&1
done
grep -v "^#" $OUT/r/chains.txt | grep -v "preset"; echo "== chains at ${SECONDS}s"; tar czf $OUT/c.tgz -C $OUT r
left=$((L - SECONDS - 8)); echo "== ${left}s left"
if [ $left -gt 230 ]; then
  G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
  OUT= timeout $left $G /tmp/gt tier > $OUT/r/eval-tier.txt 2>&1
  cp /tmp/gt/gpu-test.txt /tmp/gt/ctest-gpu.txt /tmp/gt/log.txt $OUT/r/ 2>/dev/null; xz -f $OUT/r/gpu-test.txt
  grep -hE "PASSED|FAILED|exit" /tmp/gt/log.txt | head
fi
left=$((L - SECONDS - 10))
if [ "${GRID:-0}" = 1 ] && [ $left -gt 60 ]; then
  # Every grid bundle at once (gpu-eval's bundle() keeps one that exists).
  mkdir -p /tmp/gf/work
  for p in k3v4 k4v4 k8v4 k3v3 k4v2 k2v2 bf16; do
    /tmp/tqc-gpu/tqc --arch sm_90 --preset $p --tuning-db autotune/databases/nvidia-h200-sm_90.json -o /tmp/gf/work/$p > /tmp/gf/work/$p.txt 2>&1 &
  done
  wait; left=$((L - SECONDS - 10))
  G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
  DECODE_PRESETS="k3v4 k4v4 k8v4 k3v3 k4v2 k2v2 bf16" OUT= timeout $left $G /tmp/gf decode > $OUT/r/eval-decode.txt 2>&1
  cp /tmp/gf/decode.txt /tmp/gf/decode.json $OUT/r/ 2>/dev/null
  echo "== decode at ${SECONDS}s"; cat $OUT/r/decode.txt
fi
echo "== end at ${SECONDS}s"; tar czf $OUT/c.tgz -C $OUT r
