# Session 28 call 1: the chunk-only CTAs reading the chunk's raw 16-bit
# rows (TQ_EXTEND_CHUNK_ONLY_CTAS=1: queries, keys and values by cp.async
# from the inputs, bf16/fp16 products, no prep rows for them): the sm_90a
# GPU tier with the knob, then extend_bench k3v4 with and without it.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
cat $OUT/r/gpu.txt
for v in "co:TQ_EXTEND_CHUNK_ONLY_CTAS=1" "base:"; do
  n=${v%%:*}; TQC_DEVICE_DEFINES="${v#*:}" EXTEND_PRESETS="k3v4" EXTEND_CASES="0:4096 0:8192" \
    BUNDLE_ARCH=sm_90a OUT= timeout 110 $G /tmp/gx-$n extend > $OUT/r/eval-extend-$n.txt 2>&1
  cp /tmp/gx-$n/extend.txt $OUT/r/extend-$n.txt 2>/dev/null; cp /tmp/gx-$n/extend.json $OUT/r/extend-$n.json 2>/dev/null
  echo "== $n"; grep -v "^#" /tmp/gx-$n/extend.txt | cut -c1-140; tail -2 $OUT/r/eval-extend-$n.txt
  tar czf $OUT/call1-$n.tgz -C $OUT r
done
TQC_DEVICE_DEFINES=TQ_EXTEND_CHUNK_ONLY_CTAS=1 TIER_ARCH=sm_90a OUT= timeout 330 $G /tmp/ge1 tier > $OUT/r/eval-tier.txt 2>&1
cp /tmp/ge1/*.txt $OUT/r/ 2>/dev/null; tail -5 $OUT/r/eval-tier.txt; grep -hE "tests passed|FAILED" /tmp/ge1/*.txt | head
tar czf $OUT/call1-tier.tgz -C $OUT r
