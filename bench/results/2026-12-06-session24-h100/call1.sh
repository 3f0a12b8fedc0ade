# Session 24's first GPU call (e74f427: batched query staging / epilogue
# un-rotation): k3v4 extend over chunk sizes (per-CTA overhead fit), ncu of
# the causal 4K (prep and main kernel), then the sm_90a tier.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
EXTEND_PRESETS="k3v4" EXTEND_CASES="0:2048 0:4096 0:8192 28672:4096" BUNDLE_ARCH=sm_90a OUT= \
  timeout 120 $G /tmp/gx1 extend > $OUT/r/eval-extend.txt 2>&1
cp /tmp/gx1/extend.txt /tmp/gx1/extend.json $OUT/r/ 2>/dev/null
cut -c1-110 /tmp/gx1/extend.txt
timeout 90 /usr/local/cuda/bin/ncu --kernel-name regex:tq_extend --launch-count 4 \
  --section SpeedOfLight --section WarpStateStats --section Occupancy \
  python3 bench/extend_bench.py --tqrt build-gpu/runtime --bundles /tmp/gx1/work/k3v4 \
  --cases 0:4096 --profile > $OUT/r/ncu-causal.txt 2>&1
grep -E "tq_extend|Duration|Elapsed Cycles" $OUT/r/ncu-causal.txt | head -20
tar czf $OUT/call1-perf.tgz -C $OUT r && rm -rf $OUT/r && mkdir -p $OUT/r
TIER_ARCH=sm_90a OUT= timeout 240 $G /tmp/ge1 tier > $OUT/r/tier.txt 2>&1
cp /tmp/ge1/*.txt $OUT/r/ 2>/dev/null
xz -f $OUT/r/gpu-test.txt 2>/dev/null
tail -3 $OUT/r/tier.txt
grep -E "FAILED|^\[  PASSED" /tmp/ge1/gpu-test.txt | head -20
tar czf $OUT/call1-tier.tgz -C $OUT r && rm -rf $OUT/r
ls -la $OUT
