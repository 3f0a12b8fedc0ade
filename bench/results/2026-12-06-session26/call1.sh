# Session 26's first GPU call (02cfedc: the extend prep in the store's lane
# groups, tiles of 8 rows, and the chunk's store fused into it): extend k3v4
# causal 4K / 8K and 4K over 28K (plain, and fused minus plain), then the
# prep knobs on the causal 4K (1 row per warp; 8 warps of 2 rows), then ncu
# SpeedOfLight of the plain prep (causal 4K).
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
EXTEND_PRESETS="k3v4" EXTEND_CASES="0:4096 0:8192 28672:4096" BUNDLE_ARCH=sm_90a OUT= \
  timeout 150 $G /tmp/gx1 extend > $OUT/r/eval-extend.txt 2>&1
cp /tmp/gx1/extend.txt /tmp/gx1/extend.json $OUT/r/ 2>/dev/null
grep -v "^#" /tmp/gx1/extend.txt | cut -c1-120; grep -o "fused store:.*" /tmp/gx1/extend.txt
tar czf $OUT/call1-perf.tgz -C $OUT r && rm -rf $OUT/r && mkdir -p $OUT/r
for v in "rows1:TQ_EXTEND_PREP_ROWS_PER_WARP=1" "warps8:TQ_EXTEND_PREP_WARPS=8"; do
  n=${v%%:*}; TQC_DEVICE_DEFINES="${v#*:}" EXTEND_PRESETS="k3v4" EXTEND_CASES="0:4096" BUNDLE_ARCH=sm_90a OUT= \
    timeout 80 $G /tmp/gx-$n extend > $OUT/r/eval-extend-$n.txt 2>&1
  cp /tmp/gx-$n/extend.txt $OUT/r/extend-$n.txt 2>/dev/null
  echo "== $n"; grep -v "^#" /tmp/gx-$n/extend.txt | cut -c1-120; grep -o "fused store:.*" /tmp/gx-$n/extend.txt
done
tar czf $OUT/call1-knobs.tgz -C $OUT r && rm -rf $OUT/r && mkdir -p $OUT/r
timeout 60 /usr/local/cuda/bin/ncu --kernel-name regex:tq_extend_prep_bf16 --launch-count 1 --section SpeedOfLight \
  python3 bench/extend_bench.py --tqrt build-gpu/runtime --bundles /tmp/gx1/work/k3v4 \
  --cases 0:4096 --profile > $OUT/r/ncu-prep.txt 2>&1
grep -E "Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)" $OUT/r/ncu-prep.txt
tar czf $OUT/call1-ncu.tgz -C $OUT r && rm -rf $OUT/r
ls -la $OUT
