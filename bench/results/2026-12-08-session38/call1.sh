# Session 38 call 1 (carry the packed tqc of the tree, googletest and this
# script as .carry/call1.sh): A/B at B=32 L=32K of k3v4, k4v2, k2v2 (two
# rounds, alternating processes): the default kernels (A), 4 score chains
# (C: TQ_TC_SCORE_CHAINS=4) and the lookups' right shifts on the FMA pipe
# (F: TQ_TC_SHIFT_ON_FMA=1); then the GPU tier on the default kernels if
# the time allows; with GRID=1 the whole grid (every preset, B {1,8,32,64}
# x L {1K,8K,32K}, SDPA in the same process) in the time left.
#   CALL_LIMIT=590 bash .carry/call1.sh            (A/B + tier)
#   CALL_LIMIT=590 SKIP_TIER=1 GRID=1 bash ...      (A/B + grid)
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
L=${CALL_LIMIT:-590}
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt; cat $OUT/r/gpu.txt
git log -1 --format="tree commit %h %s" > $OUT/r/commit.txt 2>&1
tar xJf .carry/tqc-gpu.tar.xz -C /tmp
declare -A DEF=([A]="" [C]="TQ_TC_SCORE_CHAINS=4" [F]="TQ_TC_SHIFT_ON_FMA=1")
for v in A C F; do
  for p in k3v4 k4v2 k2v2; do
    TQC_DEVICE_DEFINES="${DEF[$v]}" /tmp/tqc-gpu/tqc --arch sm_90 --preset $p --tuning-db autotune/databases/nvidia-h200-sm_90.json -o /tmp/v$v/$p > /tmp/v$v-$p.txt 2>&1 &
  done
done
( cmake -S . -B build-gpu -DTQC_BUILD_COMPILER=OFF -DTQC_GTEST_SOURCE_DIR=$PWD/.carry/googletest > /dev/null 2>&1 && cmake --build build-gpu -j16 --target tqrt tqrt_python > $OUT/r/cmake.txt 2>&1 ) &
wait; echo "== bundles at ${SECONDS}s"
for v in A C F A C F; do
  echo "## variant $v (${DEF[$v]:-default})" >> $OUT/r/ab.txt
  timeout 60 python3 bench/decode_bench.py --tqrt build-gpu/runtime --bundles /tmp/v$v/k3v4 /tmp/v$v/k4v2 /tmp/v$v/k2v2 --batch 32 --context 32768 --reps 30 >> $OUT/r/ab.txt 2>&1
done
grep -v "^#  " $OUT/r/ab.txt; echo "== A/B at ${SECONDS}s"; tar czf $OUT/c.tgz -C $OUT r
left=$((L - SECONDS - 8)); echo "== ${left}s left"
if [ "${SKIP_TIER:-0}" != 1 ] && [ $left -gt 230 ]; then
  G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
  OUT= timeout $left $G /tmp/gt tier > $OUT/r/eval-tier.txt 2>&1
  cp /tmp/gt/gpu-test.txt /tmp/gt/ctest-gpu.txt /tmp/gt/log.txt $OUT/r/ 2>/dev/null; xz -f $OUT/r/gpu-test.txt
  grep -hE "PASSED|FAILED|exit" /tmp/gt/log.txt | head
fi
left=$((L - SECONDS - 10))
if [ "${GRID:-0}" = 1 ] && [ $left -gt 60 ]; then
  mkdir -p /tmp/gf/work
  for p in k3v4 k4v4 k8v4 k3v3 k4v2 k2v2 bf16; do
    TQC_DEVICE_DEFINES="${GRID_DEFINES:-}" /tmp/tqc-gpu/tqc --arch sm_90 --preset $p --tuning-db autotune/databases/nvidia-h200-sm_90.json -o /tmp/gf/work/$p > /tmp/gf/work/$p.txt 2>&1 &
  done
  wait; left=$((L - SECONDS - 10))
  G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
  DECODE_PRESETS="k3v4 k4v4 k8v4 k3v3 k4v2 k2v2 bf16" OUT= timeout $left $G /tmp/gf decode > $OUT/r/eval-decode.txt 2>&1
  cp /tmp/gf/decode.txt /tmp/gf/decode.json $OUT/r/ 2>/dev/null
  echo "== decode at ${SECONDS}s"; cat $OUT/r/decode.txt
fi
echo "== end at ${SECONDS}s"; tar czf $OUT/c.tgz -C $OUT r
