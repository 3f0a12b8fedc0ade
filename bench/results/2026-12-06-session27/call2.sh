# Session 27's second GPU call, written but not run (no device time left):
# the sm_90a tier with the chunk-only CTAs' ping-pong consumers
# (TQ_EXTEND_CHUNK_ONLY_CTAS=1), then extend_bench with and without it for
# k3v4, k4v4, k4v2 (causal 4K / 8K, 4K over 28K). If the tier passes, the
# knob becomes the default (ExtendWgmmaPlan::kChunkOnlyCtas).
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
TQC_DEVICE_DEFINES=TQ_EXTEND_CHUNK_ONLY_CTAS=1 TIER_ARCH=sm_90a OUT= timeout 330 $G /tmp/ge1 tier > $OUT/r/eval-tier.txt 2>&1
cp /tmp/ge1/gpu.txt $OUT/r/tier.txt 2>/dev/null; tail -5 $OUT/r/eval-tier.txt; grep -E "tests passed|FAILED" /tmp/ge1/*.txt | head
tar czf $OUT/call2-tier.tgz -C $OUT r && rm -rf $OUT/r && mkdir -p $OUT/r
for v in "base:" "co:TQ_EXTEND_CHUNK_ONLY_CTAS=1"; do
  n=${v%%:*}; TQC_DEVICE_DEFINES="${v#*:}" EXTEND_PRESETS="k3v4 k4v4 k4v2" EXTEND_CASES="0:4096 0:8192 28672:4096" \
    BUNDLE_ARCH=sm_90a OUT= timeout 200 $G /tmp/gx-$n extend > $OUT/r/eval-extend-$n.txt 2>&1
  cp /tmp/gx-$n/extend.txt $OUT/r/extend-$n.txt 2>/dev/null
  echo "== $n"; grep -v "^#" /tmp/gx-$n/extend.txt | cut -c1-120
  tar czf $OUT/call2-$n.tgz -C $OUT r
done
