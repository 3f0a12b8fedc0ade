# Session 25's fifth GPU call: ncu source counters of 838cf06's pipelined
# chunk-only CTAs (the tree packed with extend_wgmma.h as of 838cf06; main
# has it reverted), causal 4K k3v4, for the next session.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
EXTEND_PRESETS="k3v4" EXTEND_CASES="0:4096" BUNDLE_ARCH=sm_90a OUT= \
  timeout 80 $G /tmp/gx1 extend > $OUT/r/eval-extend.txt 2>&1
cp /tmp/gx1/extend.txt $OUT/r/extend.txt 2>/dev/null
grep -v "^#" /tmp/gx1/extend.txt | cut -c1-120
mkdir -p /tmp/nrep
NCU_REP_DIR=/tmp/nrep timeout 120 bash scripts/ncu-source.sh --kernel-name regex:tq_extend_bf16 --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section SourceCounters \
  python3 bench/extend_bench.py --tqrt build-gpu/runtime --bundles /tmp/gx1/work/k3v4 \
  --cases 0:4096 --profile > $OUT/r/ncu-causal-source.txt 2>&1
for f in /tmp/nrep/*.sass.csv; do gzip -c $f > $OUT/r/causal-sass.csv.gz; done
tar czf $OUT/call5-ncu.tgz -C $OUT r && rm -rf $OUT/r
ls -la $OUT
