# Session 24's third GPU call: extend k3v4/k4v4 on the tree with the leaner
# softmax (tree max, split sums, limit mask, lazy rescale), ncu source
# counters of the causal 4K, then the sm_90a tier.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
EXTEND_PRESETS="k3v4 k4v4" EXTEND_CASES="0:4096 0:8192 28672:4096" BUNDLE_ARCH=sm_90a OUT= \
  timeout 150 $G /tmp/gx3 extend > $OUT/r/eval-extend.txt 2>&1
cp /tmp/gx3/extend.txt /tmp/gx3/extend.json $OUT/r/ 2>/dev/null
cut -c1-110 /tmp/gx3/extend.txt
tar czf $OUT/call3-perf.tgz -C $OUT r && rm -rf $OUT/r && mkdir -p $OUT/r
TIER_ARCH=sm_90a OUT= timeout 420 $G /tmp/ge3 tier > $OUT/r/tier.txt 2>&1
cp /tmp/ge3/*.txt $OUT/r/ 2>/dev/null
xz -f $OUT/r/gpu-test.txt 2>/dev/null
tail -3 $OUT/r/tier.txt
grep -E "FAILED|^\[  PASSED" /tmp/ge3/gpu-test.txt | head -20
tar czf $OUT/call3-tier.tgz -C $OUT r && rm -rf $OUT/r && mkdir -p $OUT/r
mkdir -p /tmp/nrep3
NCU_REP_DIR=/tmp/nrep3 timeout 100 bash scripts/ncu-source.sh --kernel-name regex:tq_extend_bf16 --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section SourceCounters \
  python3 bench/extend_bench.py --tqrt build-gpu/runtime --bundles /tmp/gx3/work/k3v4 \
  --cases 0:4096 --profile > $OUT/r/ncu-causal-source.txt 2>&1
for f in /tmp/nrep3/*.sass.csv; do gzip -c $f > $OUT/r/causal-sass.csv.gz; done
tar czf $OUT/call3-ncu.tgz -C $OUT r && rm -rf $OUT/r
ls -la $OUT
