# Session 24's fifth GPU call: the sm_90a tier on the final tree (9161385:
# rotate.h's single-vector forms restored, the mma.sync extend kernel back
# to one row per batch), then k3v4 extend once more.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
TIER_ARCH=sm_90a OUT= timeout 330 $G /tmp/ge5 tier > $OUT/r/tier.txt 2>&1
cp /tmp/ge5/*.txt $OUT/r/ 2>/dev/null
xz -f $OUT/r/gpu-test.txt 2>/dev/null; rm -f $OUT/r/cmake.txt
tail -3 $OUT/r/tier.txt
tar czf $OUT/call5-tier.tgz -C $OUT r && rm -rf $OUT/r && mkdir -p $OUT/r
EXTEND_PRESETS="k3v4" EXTEND_CASES="0:4096 28672:4096" BUNDLE_ARCH=sm_90a OUT= \
  timeout 60 $G /tmp/gx5 extend > $OUT/r/eval-extend.txt 2>&1
cp /tmp/gx5/extend.txt $OUT/r/ 2>/dev/null
grep -v "^#" /tmp/gx5/extend.txt | cut -c1-110
tar czf $OUT/call5-perf.tgz -C $OUT r && rm -rf $OUT/r
ls -la $OUT
