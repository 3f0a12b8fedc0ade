# Session 25's fourth GPU call (838cf06): chunk-only CTAs as
# their own instantiation (producer 56 / consumers 224 registers, pipelined,
# keys and values handed over apart, first and last tiles peeled
# consumers). k3v4 extend default and TQ_EXTEND_CHUNK_ONLY_CTAS=0, then the
# sm_90a tier, then (time allowing) ncu source counters of the causal 4K.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
EXTEND_PRESETS="k3v4" EXTEND_CASES="0:4096 0:8192 28672:4096" BUNDLE_ARCH=sm_90a OUT= \
  timeout 90 $G /tmp/gx1 extend > $OUT/r/eval-extend.txt 2>&1
cp /tmp/gx1/extend.txt $OUT/r/extend-default.txt 2>/dev/null
grep -v "^#" /tmp/gx1/extend.txt | cut -c1-120
TQC_DEVICE_DEFINES="TQ_EXTEND_CHUNK_ONLY_CTAS=0" EXTEND_PRESETS="k3v4" EXTEND_CASES="0:4096 0:8192" BUNDLE_ARCH=sm_90a OUT= \
  timeout 70 $G /tmp/gx2 extend > $OUT/r/eval-extend-knob0.txt 2>&1
cp /tmp/gx2/extend.txt $OUT/r/extend-knob0.txt 2>/dev/null
grep -v "^#" /tmp/gx2/extend.txt | cut -c1-120
tar czf $OUT/call4-perf.tgz -C $OUT r && rm -rf $OUT/r && mkdir -p $OUT/r
TIER_ARCH=sm_90a OUT= timeout 300 $G /tmp/ge1 tier > $OUT/r/tier.txt 2>&1
cp /tmp/ge1/*.txt $OUT/r/ 2>/dev/null
xz -f $OUT/r/gpu-test.txt 2>/dev/null; rm -f $OUT/r/cmake.txt
tail -3 $OUT/r/tier.txt
xzcat $OUT/r/gpu-test.txt.xz 2>/dev/null | grep -E "FAILED|^\[  PASSED" | head -20
tar czf $OUT/call4-tier.tgz -C $OUT r && rm -rf $OUT/r && mkdir -p $OUT/r
echo "elapsed $SECONDS s"
if false; then
mkdir -p /tmp/nrep
NCU_REP_DIR=/tmp/nrep timeout 100 bash scripts/ncu-source.sh --kernel-name regex:tq_extend_bf16 --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section SourceCounters \
  python3 bench/extend_bench.py --tqrt build-gpu/runtime --bundles /tmp/gx1/work/k3v4 \
  --cases 0:4096 --profile > $OUT/r/ncu-causal-source.txt 2>&1
for f in /tmp/nrep/*.sass.csv; do gzip -c $f > $OUT/r/causal-sass.csv.gz; done
tar czf $OUT/call4-ncu.tgz -C $OUT r && rm -rf $OUT/r
fi
ls -la $OUT
