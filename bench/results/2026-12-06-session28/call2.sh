# Session 28 call 2: chunk-only CTAs by default (reading the chunk's raw
# rows, and storing their own tokens when asked: storeTileRows; the prep
# stores them for k4v4 / k4v2). The sm_90a GPU tier as built (default),
# then extend_bench k3v4 and k4v4 by default and with
# TQ_EXTEND_CHUNK_ONLY_CTAS=0 (every CTA the general body).
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
cat $OUT/r/gpu.txt
for v in "co:" "off:TQ_EXTEND_CHUNK_ONLY_CTAS=0"; do
  n=${v%%:*}; TQC_DEVICE_DEFINES="${v#*:}" EXTEND_PRESETS="k3v4 k4v4" EXTEND_CASES="0:4096 0:8192 28672:4096" \
    BUNDLE_ARCH=sm_90a OUT= timeout 140 $G /tmp/gx-$n extend > $OUT/r/eval-extend-$n.txt 2>&1
  cp /tmp/gx-$n/extend.txt $OUT/r/extend-$n.txt 2>/dev/null; cp /tmp/gx-$n/extend.json $OUT/r/extend-$n.json 2>/dev/null
  echo "== $n"; grep -v "^#" /tmp/gx-$n/extend.txt | cut -c1-140; tail -2 $OUT/r/eval-extend-$n.txt
  tar czf $OUT/call2-$n.tgz -C $OUT r
done
TIER_ARCH=sm_90a OUT= timeout 300 $G /tmp/ge1 tier > $OUT/r/eval-tier.txt 2>&1
cp /tmp/ge1/*.txt $OUT/r/ 2>/dev/null; tail -5 $OUT/r/eval-tier.txt; grep -hE "tests passed|FAILED" /tmp/ge1/*.txt | head
tar czf $OUT/call2-tier.tgz -C $OUT r
