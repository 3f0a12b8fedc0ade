# Session 24's second GPU call (the tree named in the README): k3v4 extend
# (causal 4K, 8K; 4K over 28K), then ncu source counters of the causal 4K
# main kernel (stall samples per SASS instruction).
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
EXTEND_PRESETS="k3v4" EXTEND_CASES="0:4096 0:8192 28672:4096" BUNDLE_ARCH=sm_90a OUT= \
  timeout 120 $G /tmp/gx2 extend > $OUT/r/eval-extend.txt 2>&1
cp /tmp/gx2/extend.txt /tmp/gx2/extend.json $OUT/r/ 2>/dev/null
cut -c1-110 /tmp/gx2/extend.txt
tar czf $OUT/call2-perf.tgz -C $OUT r
mkdir -p /tmp/nrep
NCU_REP_DIR=/tmp/nrep timeout 200 bash scripts/ncu-source.sh --kernel-name regex:tq_extend_bf16 --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section SourceCounters --section ComputeWorkloadAnalysis \
  python3 bench/extend_bench.py --tqrt build-gpu/runtime --bundles /tmp/gx2/work/k3v4 \
  --cases 0:4096 --profile > $OUT/r/ncu-causal-source.txt 2>&1
echo "ncu rc $?"
for f in /tmp/nrep/*.sass.csv; do gzip -c $f > $OUT/r/causal-sass.csv.gz; done
ls -la /tmp/nrep
tar czf $OUT/call2-ncu.tgz -C $OUT r && rm -rf $OUT/r
ls -la $OUT
