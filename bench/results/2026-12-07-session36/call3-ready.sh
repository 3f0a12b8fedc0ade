# Ready for session 37 (copy to .carry/call5.sh; carry the packed tqc of
# the tree, googletest and the script; ~450 s): A/B with explicit defines
# on both sides: the merge's early partial loads
# (TQ_MERGE_EARLY_LOADS=1 vs 0, sign immediates on in both) at B {1, 8} x
# L=1K for k3v4, k4v2, k2v2, k4v4; the value planes (TQ_TC_VALUE_PLANES=1
# vs 0, early loads off in both) at B=32 L=32K for k4v2 and k2v2.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
DB=autotune/databases/nvidia-h200-sm_90.json
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
rm -rf /tmp/tqc-gpu /tmp/vp; tar xJf .carry/tqc-gpu.tar.xz -C /tmp
P="k3v4 k4v2 k2v2 k4v4"
for p in $P; do
  TQC_DEVICE_DEFINES="TQ_MERGE_EARLY_LOADS=1" /tmp/tqc-gpu/tqc --arch sm_90 --preset $p --tuning-db $DB -o /tmp/vp/early/$p > /tmp/vp-early-$p.txt 2>&1 &
  TQC_DEVICE_DEFINES="TQ_MERGE_EARLY_LOADS=0" /tmp/tqc-gpu/tqc --arch sm_90 --preset $p --tuning-db $DB -o /tmp/vp/late/$p > /tmp/vp-late-$p.txt 2>&1 &
done
for p in k4v2 k2v2; do
  TQC_DEVICE_DEFINES="TQ_MERGE_EARLY_LOADS=0 TQ_TC_VALUE_PLANES=1" /tmp/tqc-gpu/tqc --arch sm_90 --preset $p --tuning-db $DB -o /tmp/vp/planes/$p > /tmp/vp-planes-$p.txt 2>&1 &
done
( cmake -S . -B build-gpu -DTQC_BUILD_COMPILER=OFF -DTQC_GTEST_SOURCE_DIR=$PWD/.carry/googletest > /dev/null 2>&1 && cmake --build build-gpu -j16 --target tqrt tqrt_python > $OUT/r/cmake.txt 2>&1 ) &
wait; echo "== built at ${SECONDS}s"
nb() { for p in $P; do echo /tmp/vp/$1/$p; done; }
for v in early late early late; do  # two rounds
  echo "## $v" >> $OUT/r/ab.txt
  timeout 60 python3 bench/decode_bench.py --tqrt build-gpu/runtime --bundles $(nb $v) --batch 1 8 --context 1024 --reps 50 >> $OUT/r/ab.txt 2>&1
done
echo "== merge ab at ${SECONDS}s"; tar czf $OUT/ab.tgz -C $OUT r
for v in late planes; do
  echo "## $v" >> $OUT/r/planes.txt
  timeout 60 python3 bench/decode_bench.py --tqrt build-gpu/runtime --bundles /tmp/vp/$v/k4v2 /tmp/vp/$v/k2v2 --batch 32 --context 32768 --reps 30 >> $OUT/r/planes.txt 2>&1
done
echo "== planes ab at ${SECONDS}s"; grep -v "^#" $OUT/r/ab.txt $OUT/r/planes.txt | grep -v "preset\|^$"
tar czf $OUT/ab.tgz -C $OUT r
# The GPU tier with both knobs on (every kernel either would change).
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
TQC_DEVICE_DEFINES="TQ_MERGE_EARLY_LOADS=1 TQ_TC_VALUE_PLANES=1" OUT= timeout 320 $G /tmp/gt tier > $OUT/r/eval-tier.txt 2>&1
cp /tmp/gt/gpu-test.txt /tmp/gt/ctest-gpu.txt /tmp/gt/log.txt $OUT/r/ 2>/dev/null; xz -f $OUT/r/gpu-test.txt
grep -hE "PASSED|FAILED|exit" /tmp/gt/log.txt | head
tar czf $OUT/ab.tgz -C $OUT r
echo "== end at ${SECONDS}s"
