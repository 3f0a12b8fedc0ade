# Session 23's first GPU call: the tree with the prefix fold reverted (chunk
# unit-scale skip and the prep's as-is rows kept): extend bench (k3v4 k4v4
# k4v2), store bench, ncu of the k3v4 store (16K chunk), then the sm_90a tier.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
EXTEND_PRESETS="k3v4 k4v4 k4v2" EXTEND_CASES="0:4096 28672:4096" BUNDLE_ARCH=sm_90a OUT= \
  timeout 150 $G /tmp/gx1 extend > $OUT/r/eval-extend.txt 2>&1
cp /tmp/gx1/extend.txt /tmp/gx1/extend.json $OUT/r/ 2>/dev/null
cat /tmp/gx1/extend.txt
OUT= timeout 90 $G /tmp/gs1 store ncu-store > $OUT/r/eval-store.txt 2>&1
cp /tmp/gs1/store.txt /tmp/gs1/store.json /tmp/gs1/ncu-store.txt $OUT/r/ 2>/dev/null
cat /tmp/gs1/store.txt
TIER_ARCH=sm_90a OUT= timeout 240 $G /tmp/ge1 tier > $OUT/r/tier.txt 2>&1
cp /tmp/ge1/*.txt $OUT/r/ 2>/dev/null
tail -3 $OUT/r/tier.txt
tar czf $OUT/call1.tgz -C $OUT r && rm -rf $OUT/r
ls -la $OUT
