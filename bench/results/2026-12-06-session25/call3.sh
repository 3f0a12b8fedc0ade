# Session 25's third GPU call (35517b9, the final tree: templates identical
# to edc39f5, whose sm_90a tier passed in run1): extend k3v4, k4v4, k4v2 on
# the causal 4K / 8K and 4K over 28K, then ncu source counters of the
# default k3v4 causal 4K (no rotation without a prefix).
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
EXTEND_PRESETS="k3v4 k4v4 k4v2" EXTEND_CASES="0:4096 0:8192 28672:4096" BUNDLE_ARCH=sm_90a OUT= \
  timeout 200 $G /tmp/gx1 extend > $OUT/r/eval-extend.txt 2>&1
cp /tmp/gx1/extend.txt /tmp/gx1/extend.json $OUT/r/ 2>/dev/null
grep -v "^#" /tmp/gx1/extend.txt | cut -c1-120
tar czf $OUT/call3-perf.tgz -C $OUT r && rm -rf $OUT/r && mkdir -p $OUT/r
mkdir -p /tmp/nrep
NCU_REP_DIR=/tmp/nrep timeout 120 bash scripts/ncu-source.sh --kernel-name regex:tq_extend_bf16 --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section SourceCounters \
  python3 bench/extend_bench.py --tqrt build-gpu/runtime --bundles /tmp/gx1/work/k3v4 \
  --cases 0:4096 --profile > $OUT/r/ncu-causal-source.txt 2>&1
for f in /tmp/nrep/*.sass.csv; do gzip -c $f > $OUT/r/causal-sass.csv.gz; done
timeout 60 /usr/local/cuda/bin/ncu --kernel-name regex:tq_extend_prep_bf16 --launch-count 1 --section SpeedOfLight \
  python3 bench/extend_bench.py --tqrt build-gpu/runtime --bundles /tmp/gx1/work/k3v4 \
  --cases 0:4096 --profile > $OUT/r/ncu-prep.txt 2>&1
tar czf $OUT/call3-ncu.tgz -C $OUT r && rm -rf $OUT/r
ls -la $OUT
