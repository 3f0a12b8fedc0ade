# Session 25's first GPU call (edc39f5): the sm_90a tier (sequences without
# a prefix unrotated, the prep's loads batched, the attention's programmatic
# launch), then k3v4 extend: default, TQRT_PLAIN_LAUNCH=1 (A/B of the
# programmatic launch), TQ_EXTEND_ROTATE_UNPREFIXED=1 (A/B of the rotation).
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
TIER_ARCH=sm_90a OUT= timeout 330 $G /tmp/ge1 tier > $OUT/r/tier.txt 2>&1
cp /tmp/ge1/*.txt $OUT/r/ 2>/dev/null
xz -f $OUT/r/gpu-test.txt 2>/dev/null; rm -f $OUT/r/cmake.txt
tail -3 $OUT/r/tier.txt
tar czf $OUT/call1-tier.tgz -C $OUT r && rm -rf $OUT/r && mkdir -p $OUT/r
EXTEND_PRESETS="k3v4" EXTEND_CASES="0:4096 0:8192 28672:4096" BUNDLE_ARCH=sm_90a OUT= \
  timeout 70 $G /tmp/gx1 extend > $OUT/r/eval-extend.txt 2>&1
cp /tmp/gx1/extend.txt $OUT/r/extend-default.txt 2>/dev/null
grep -v "^#" /tmp/gx1/extend.txt | cut -c1-110
TQRT_PLAIN_LAUNCH=1 EXTEND_PRESETS="k3v4" EXTEND_CASES="0:4096 0:8192" BUNDLE_ARCH=sm_90a OUT= \
  timeout 60 $G /tmp/gx2 extend > $OUT/r/eval-extend-plain.txt 2>&1
cp /tmp/gx2/extend.txt $OUT/r/extend-plain.txt 2>/dev/null
grep -v "^#" /tmp/gx2/extend.txt | cut -c1-110
TQC_DEVICE_DEFINES="TQ_EXTEND_ROTATE_UNPREFIXED=1" EXTEND_PRESETS="k3v4" EXTEND_CASES="0:4096 0:8192" BUNDLE_ARCH=sm_90a OUT= \
  timeout 60 $G /tmp/gx3 extend > $OUT/r/eval-extend-rot.txt 2>&1
cp /tmp/gx3/extend.txt $OUT/r/extend-rotated.txt 2>/dev/null
grep -v "^#" /tmp/gx3/extend.txt | cut -c1-110
tar czf $OUT/call1-perf.tgz -C $OUT r && rm -rf $OUT/r
ls -la $OUT
