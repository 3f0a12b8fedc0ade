# Session 36 call 2 (short of device time): the GPU tier on the final
# kernels of 9e2cedd (the packed tqc of aa8f0e8 differs from them only in
# TQ_MERGE_EARLY_LOADS's default, so the tier sets it to 9e2cedd's 0), then
# the merge order's A/B (1 vs 0) at B {1, 8} x L=1K if time is left.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
DB=autotune/databases/nvidia-h200-sm_90.json
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
TQC_DEVICE_DEFINES="TQ_MERGE_EARLY_LOADS=0" OUT= timeout 320 $G /tmp/gt tier > $OUT/r/eval-tier.txt 2>&1
cp /tmp/gt/gpu-test.txt /tmp/gt/ctest-gpu.txt /tmp/gt/log.txt $OUT/r/ 2>/dev/null; xz -f $OUT/r/gpu-test.txt
grep -hE "PASSED|FAILED|exit" /tmp/gt/log.txt | head
grep -E "FAILED|Failure" $OUT/r/eval-tier.txt | head -20
echo "== tier done at ${SECONDS}s"
tar czf $OUT/tier.tgz -C $OUT r
P="k3v4 k4v2 k2v2 k4v4"
for p in $P; do
  TQC_DEVICE_DEFINES="TQ_MERGE_EARLY_LOADS=1" /tmp/tqc-gpu/tqc --arch sm_90 --preset $p --tuning-db $DB -o /tmp/vp/early/$p > /dev/null 2>&1 &
  TQC_DEVICE_DEFINES="TQ_MERGE_EARLY_LOADS=0" /tmp/tqc-gpu/tqc --arch sm_90 --preset $p --tuning-db $DB -o /tmp/vp/late/$p > /dev/null 2>&1 &
done
wait; echo "== built at ${SECONDS}s"
nb() { for p in $P; do echo /tmp/vp/$1/$p; done; }
for v in early late early late; do
  echo "## $v" >> $OUT/r/ab.txt
  timeout 60 python3 bench/decode_bench.py --tqrt build-gpu/runtime --bundles $(nb $v) --batch 1 8 --context 1024 --reps 50 >> $OUT/r/ab.txt 2>&1
  tar czf $OUT/ab.tgz -C $OUT r
done
grep -v "^#" $OUT/r/ab.txt | grep -v "preset\|^$"
echo "== end at ${SECONDS}s"
