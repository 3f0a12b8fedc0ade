# Session 26's second GPU call (02cfedc's kernels; extend_bench.py with the
# NVTX profile ranges and the timing rounds in the JSON): extend k3v4 4K over
# 28K and causal 4K again (the fused store's cost), ncu of the plain and the
# fused prep (causal 4K: SpeedOfLight, memory, warp states, occupancy;
# 4K over 28K: SpeedOfLight), then the sm_90a tier.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
EXTEND_PRESETS="k3v4" EXTEND_CASES="28672:4096 0:4096" BUNDLE_ARCH=sm_90a OUT= \
  timeout 120 $G /tmp/gx5 extend > $OUT/r/eval-extend.txt 2>&1
cp /tmp/gx5/extend.txt /tmp/gx5/extend.json $OUT/r/ 2>/dev/null
grep -v "^#" /tmp/gx5/extend.txt | cut -c1-120; grep -o "fused store:.*" /tmp/gx5/extend.txt
python3 -c "
import json
for r in json.load(open('/tmp/gx5/extend.json'))['results']:
    print(r['P'], r['C'], 'plain', [round(x,1) for x in r['tqc_plain_rounds_us']], 'fused', [round(x,1) for x in r['tqc_fused_rounds_us']])"
tar czf $OUT/call2-perf.tgz -C $OUT r && rm -rf $OUT/r && mkdir -p $OUT/r
N="/usr/local/cuda/bin/ncu --nvtx --kernel-name regex:tq_extend_prep_bf16"
B="python3 bench/extend_bench.py --tqrt build-gpu/runtime --bundles /tmp/gx5/work/k3v4 --profile"
for k in plain fused; do
  timeout 90 $N --nvtx-include "tqc_$k/" --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section WarpStateStats --section LaunchStats --section Occupancy $B --cases 0:4096 > $OUT/r/ncu-prep-$k-causal.txt 2>&1
  timeout 90 $N --nvtx-include "tqc_$k/" --section SpeedOfLight $B --cases 28672:4096 > $OUT/r/ncu-prep-$k-28k.txt 2>&1
  for c in causal 28k; do echo "== $k $c"; grep -E " Duration|DRAM Throughput|L2 Cache Throughput|Registers Per|Achieved Occupancy|Warp Cycles Per Issued" $OUT/r/ncu-prep-$k-$c.txt; done
done
tar czf $OUT/call2-ncu.tgz -C $OUT r && rm -rf $OUT/r && mkdir -p $OUT/r
TIER_ARCH=sm_90a OUT= timeout 330 $G /tmp/ge1 tier > $OUT/r/tier.txt 2>&1
cp /tmp/ge1/*.txt $OUT/r/ 2>/dev/null
xz -f $OUT/r/gpu-test.txt 2>/dev/null; rm -f $OUT/r/cmake.txt
tail -3 $OUT/r/tier.txt; grep -i "FusedStore" $OUT/r/tier.txt | head -3
tar czf $OUT/call2-tier.tgz -C $OUT r && rm -rf $OUT/r
ls -la $OUT
