# Session 24's fourth GPU call: extend k3v4 with the query prefetch (default)
# and with TQ_EXTEND_SKIP_CHUNK_ZEROS=0 (A/B), k4v4 and k4v2 default, then
# the sm_90a tier on this tree.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
n=0
for v in "default:" "nozeroskip:TQ_EXTEND_SKIP_CHUNK_ZEROS=0"; do
  name=${v%%:*}; defs=${v#*:}; n=$((n+1))
  TQC_DEVICE_DEFINES="$defs" EXTEND_PRESETS="k3v4" EXTEND_CASES="0:4096 0:8192 28672:4096" BUNDLE_ARCH=sm_90a OUT= \
    timeout 100 $G /tmp/gx4-$n extend > $OUT/r/eval-extend-$name.txt 2>&1
  cp /tmp/gx4-$n/extend.txt $OUT/r/extend-$name.txt 2>/dev/null
  echo "== $name [$defs]"; grep -v "^#" /tmp/gx4-$n/extend.txt | cut -c1-110
done
EXTEND_PRESETS="k4v4 k4v2" EXTEND_CASES="0:4096 28672:4096" BUNDLE_ARCH=sm_90a OUT= \
  timeout 120 $G /tmp/gx4-3 extend > $OUT/r/eval-extend-others.txt 2>&1
cp /tmp/gx4-3/extend.txt $OUT/r/extend-others.txt 2>/dev/null
grep -v "^#" /tmp/gx4-3/extend.txt | cut -c1-110
tar czf $OUT/call4-perf.tgz -C $OUT r && rm -rf $OUT/r && mkdir -p $OUT/r
TIER_ARCH=sm_90a OUT= timeout 400 $G /tmp/ge4 tier > $OUT/r/tier.txt 2>&1
cp /tmp/ge4/*.txt $OUT/r/ 2>/dev/null
xz -f $OUT/r/gpu-test.txt 2>/dev/null
tail -3 $OUT/r/tier.txt
tar czf $OUT/call4-tier.tgz -C $OUT r && rm -rf $OUT/r
ls -la $OUT
