# Session 37 call (carry the packed tqc of the tree, googletest and this
# script): A/B with explicit defines on both sides: the merge's early partial
# loads (TQ_MERGE_EARLY_LOADS=1 vs 0) at B {1, 8} x L=1K for k3v4, k4v2,
# k2v2, k4v4, two rounds in alternating processes; the value planes
# (TQ_TC_VALUE_PLANES=1 vs 0, early loads off in both) at B=32 L=32K for
# k4v2 and k2v2, two rounds. On an H200 only: every preset at B=32 L=32K
# with SDPA in one process (issue 7 items 1, 2) and store_bench (item 4).
# Last: the GPU tier with both knobs on, in what time is left.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
DB=autotune/databases/nvidia-h200-sm_90.json
L=${CALL_LIMIT:-590}
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
cat $OUT/r/gpu.txt
H200=0; grep -q H200 $OUT/r/gpu.txt && H200=1
rm -rf /tmp/tqc-gpu /tmp/vp; tar xJf .carry/tqc-gpu.tar.xz -C /tmp
T=/tmp/tqc-gpu/tqc
P="k3v4 k4v2 k2v2 k4v4"
for p in $P; do
  TQC_DEVICE_DEFINES="TQ_MERGE_EARLY_LOADS=1" $T --arch sm_90 --preset $p --tuning-db $DB -o /tmp/vp/early/$p > /tmp/vp-early-$p.txt 2>&1 &
  TQC_DEVICE_DEFINES="TQ_MERGE_EARLY_LOADS=0" $T --arch sm_90 --preset $p --tuning-db $DB -o /tmp/vp/late/$p > /tmp/vp-late-$p.txt 2>&1 &
done
for p in k4v2 k2v2; do
  TQC_DEVICE_DEFINES="TQ_MERGE_EARLY_LOADS=0 TQ_TC_VALUE_PLANES=1" $T --arch sm_90 --preset $p --tuning-db $DB -o /tmp/vp/planes/$p > /tmp/vp-planes-$p.txt 2>&1 &
done
if [ $H200 = 1 ]; then
  for p in k8v4 k3v3 bf16; do
    $T --arch sm_90 --preset $p --tuning-db $DB -o /tmp/vp/late/$p > /tmp/vp-late-$p.txt 2>&1 &
  done
fi
( cmake -S . -B build-gpu -DTQC_BUILD_COMPILER=OFF -DTQC_GTEST_SOURCE_DIR=$PWD/.carry/googletest > /dev/null 2>&1 && cmake --build build-gpu -j16 --target tqrt tqrt_python > $OUT/r/cmake.txt 2>&1 ) &
wait; echo "== built at ${SECONDS}s"
nb() { for p in $P; do echo /tmp/vp/$1/$p; done; }
for v in early late early late; do
  echo "## $v" >> $OUT/r/ab.txt
  timeout 60 python3 bench/decode_bench.py --tqrt build-gpu/runtime --bundles $(nb $v) --batch 1 8 --context 1024 --reps 50 >> $OUT/r/ab.txt 2>&1
done
echo "== merge ab at ${SECONDS}s"; tar czf $OUT/ab.tgz -C $OUT r
for v in late planes late planes; do
  echo "## $v" >> $OUT/r/planes.txt
  timeout 60 python3 bench/decode_bench.py --tqrt build-gpu/runtime --bundles /tmp/vp/$v/k4v2 /tmp/vp/$v/k2v2 --batch 32 --context 32768 --reps 30 >> $OUT/r/planes.txt 2>&1
done
echo "== planes ab at ${SECONDS}s"; grep -v "^#" $OUT/r/ab.txt $OUT/r/planes.txt | grep -v "preset\|^$"
tar czf $OUT/ab.tgz -C $OUT r
if [ $H200 = 1 ]; then
  timeout 120 python3 bench/decode_bench.py --tqrt build-gpu/runtime --bundles /tmp/vp/late/{k3v4,k4v4,k8v4,k3v3,k4v2,k2v2,bf16} /tmp/vp/planes/{k4v2,k2v2} --batch 32 --context 32768 --reps 30 --json $OUT/r/h200-b32-l32k.json > $OUT/r/h200-b32-l32k.txt 2>&1
  timeout 60 python3 bench/store_bench.py --tqrt build-gpu/runtime --bundles /tmp/vp/late/k3v4 /tmp/vp/late/k4v4 /tmp/vp/late/bf16 --json $OUT/r/h200-store.json > $OUT/r/h200-store.txt 2>&1
  echo "== h200 at ${SECONDS}s"; cat $OUT/r/h200-b32-l32k.txt $OUT/r/h200-store.txt | grep -v "^#"
  tar czf $OUT/ab.tgz -C $OUT r
fi
left=$((L - SECONDS - 8)); echo "== tier with ${left}s"
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
TQC_DEVICE_DEFINES="TQ_MERGE_EARLY_LOADS=1 TQ_TC_VALUE_PLANES=1" OUT= timeout $left $G /tmp/gt tier > $OUT/r/eval-tier.txt 2>&1
cp /tmp/gt/gpu-test.txt /tmp/gt/ctest-gpu.txt /tmp/gt/log.txt $OUT/r/ 2>/dev/null; xz -f $OUT/r/gpu-test.txt
grep -hE "PASSED|FAILED|exit" /tmp/gt/log.txt | head
tar czf $OUT/ab.tgz -C $OUT r
echo "== end at ${SECONDS}s"
