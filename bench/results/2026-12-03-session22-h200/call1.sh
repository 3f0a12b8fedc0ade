# Session 22's first H200 call (6097721): ncu source counters of the
# default k3v4 warp-specialized extend (4K over a 28K prefix, and the causal
# 4K chunk), then the sm_90a GPU tier (the NaN store fix's first GPU run).
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
for c in 28672:4096 0:4096; do
  rm -rf /tmp/gn1
  NCU=$PWD/scripts/ncu-source.sh NCU_REP_DIR=$OUT/r NCU_EXTEND_CASES=$c \
    NCU_EXTEND_SECTIONS="--section SpeedOfLight --section WarpStateStats --section SourceCounters" \
    BUNDLE_ARCH=sm_90a OUT= timeout 150 $G /tmp/gn1 ncu-extend 2>&1 | tail -2 > $OUT/r/eval-ncu-${c%%:*}.txt
  cp /tmp/gn1/ncu-extend.txt $OUT/r/ncu-extend-${c%%:*}.txt 2>/dev/null
done
gzip $OUT/r/*.sass.csv 2>/dev/null; rm -f $OUT/r/*.ncu-rep
TIER_ARCH=sm_90a OUT= timeout 320 $G /tmp/ge1 tier > $OUT/r/tier.txt 2>&1
cp /tmp/ge1/*.txt $OUT/r/ 2>/dev/null
tar czf $OUT/call1.tgz -C $OUT r && rm -rf $OUT/r
ls -la $OUT
