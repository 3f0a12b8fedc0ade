# Session 23's second GPU call: the sm_90a tier on the tree (centered
# uniform codes, outlier test with small outlier keys), then k3v4 extend
# variants: early scores (S(i+1) issued behind O += P(i)V(i)), FA3
# ping-pong, each at 128- and 64-token tiles.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
TIER_ARCH=sm_90a OUT= timeout 240 $G /tmp/ge2 tier > $OUT/r/tier.txt 2>&1
cp /tmp/ge2/*.txt $OUT/r/ 2>/dev/null
tail -2 $OUT/r/tier.txt
tar czf $OUT/call2-tier.tgz -C $OUT r && rm -rf $OUT/r && mkdir -p $OUT/r
n=0
for v in "default::" "bn64-pingpong:TQ_EXTEND_EARLY_SCORES=1 TQ_EXTEND_PINGPONG=1:--extend-block-n 64" \
         "pingpong:TQ_EXTEND_EARLY_SCORES=1 TQ_EXTEND_PINGPONG=1:" "bn64::--extend-block-n 64"; do
  name=${v%%:*}; rest=${v#*:}; defs=${rest%%:*}; args=${rest#*:}
  n=$((n+1))
  TQC_DEVICE_DEFINES="$defs" EXTEND_TQC_ARGS="$args" EXTEND_PRESETS="k3v4" EXTEND_CASES="0:4096 28672:4096" \
    BUNDLE_ARCH=sm_90a OUT= timeout 70 $G /tmp/gx2-$n extend > $OUT/r/eval-extend-$name.txt 2>&1
  cp /tmp/gx2-$n/extend.txt $OUT/r/extend-$name.txt 2>/dev/null
  echo "== $name [$defs] [$args]"; grep -v "^#" /tmp/gx2-$n/extend.txt | cut -c1-100
  cat $OUT/r/extend-*.txt > $OUT/extend-variants.txt
done
tar czf $OUT/call2.tgz -C $OUT r && rm -rf $OUT/r
ls -la $OUT
