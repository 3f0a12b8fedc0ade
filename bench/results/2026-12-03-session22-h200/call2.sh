# Session 22's second H200 call: the producer's lookups batched before its
# stores (producer 128 registers), the producer loading while the consumers
# stage the queries: extend bench (k3v4 k4v4 k4v2), ncu source counters of
# k3v4 (28K prefix, causal), then the sm_90a GPU tier.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
EXTEND_PRESETS="k3v4 k4v4 k4v2" EXTEND_CASES="0:4096 28672:4096" BUNDLE_ARCH=sm_90a OUT= \
  timeout 150 $G /tmp/gx2 extend > $OUT/r/eval-extend.txt 2>&1
cp /tmp/gx2/extend.txt /tmp/gx2/extend.json $OUT/r/ 2>/dev/null
cat /tmp/gx2/extend.txt
for c in 28672:4096 0:4096; do
  rm -rf /tmp/gn1
  NCU=$PWD/scripts/ncu-source.sh NCU_REP_DIR=$OUT/r NCU_EXTEND_CASES=$c \
    NCU_EXTEND_SECTIONS="--section SpeedOfLight --section WarpStateStats --section SourceCounters" \
    BUNDLE_ARCH=sm_90a OUT= timeout 150 $G /tmp/gn1 ncu-extend 2>&1 | tail -2 > $OUT/r/eval-ncu-${c%%:*}.txt
  cp /tmp/gn1/ncu-extend.txt $OUT/r/ncu-extend-${c%%:*}.txt 2>/dev/null
done
gzip $OUT/r/*.sass.csv 2>/dev/null; rm -f $OUT/r/*.ncu-rep
TIER_ARCH=sm_90a OUT= timeout 240 $G /tmp/ge2 tier > $OUT/r/tier.txt 2>&1
cp /tmp/ge2/*.txt $OUT/r/ 2>/dev/null
tar czf $OUT/call2.tgz -C $OUT r && rm -rf $OUT/r
ls -la $OUT
