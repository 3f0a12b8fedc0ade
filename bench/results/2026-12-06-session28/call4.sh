# Session 28 call 4 (69890d3's kernels; call3 found no machine): the k3v4
# causal 4K by default (extend_bench), then ncu source counters of its
# attention kernel.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r $OUT/n
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
cat $OUT/r/gpu.txt
EXTEND_PRESETS="k3v4" EXTEND_CASES="0:4096" BUNDLE_ARCH=sm_90a OUT= timeout 80 $G /tmp/gx extend > $OUT/r/eval-extend.txt 2>&1
cp /tmp/gx/extend.txt /tmp/gx/extend.json $OUT/r/ 2>/dev/null
grep -v "^#" /tmp/gx/extend.txt | cut -c1-140; tail -2 $OUT/r/eval-extend.txt
tar czf $OUT/call4-extend.tgz -C $OUT r
mkdir -p /tmp/nrep
NCU_REP_DIR=/tmp/nrep timeout 75 bash scripts/ncu-source.sh --kernel-name regex:tq_extend_bf16 --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section SourceCounters \
  python3 bench/extend_bench.py --tqrt build-gpu/runtime --bundles /tmp/gx/work/k3v4 \
  --cases 0:4096 --profile > $OUT/n/ncu-causal.txt 2>&1
for f in /tmp/nrep/*.sass.csv; do gzip -c $f > $OUT/n/causal-sass.csv.gz; done
tail -3 $OUT/n/ncu-causal.txt
tar czf $OUT/call4-ncu.tgz -C $OUT n
