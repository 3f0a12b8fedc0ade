# Session 33 call 2 (kernels of 5fa8db5, default knobs): extend_bench k3v4
# on sm_90a bundles for causal 4K, causal 8K and 4K over a 28K prefix (issue 8
# items 2-4, each row checked against the float64 reference first), the
# sm_90a GPU tier (issue 8 item 1: extend against float64, fused-store bytes
# against the store kernel's), then ncu of the k3v4 store kernel on a 16K
# chunk with the source page (stall samples per SASS instruction: issue 7
# item 4's limiter).
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
cat $OUT/r/gpu.txt
EXTEND_PRESETS="k3v4" EXTEND_CASES="0:4096 0:8192 28672:4096" BUNDLE_ARCH=sm_90a OUT= timeout 200 $G /tmp/gx-def extend > $OUT/r/eval-extend-def.txt 2>&1
cp /tmp/gx-def/extend.txt $OUT/r/extend-def.txt; cp /tmp/gx-def/extend.json $OUT/r/extend-def.json
echo "== extend at ${SECONDS}s"; grep -v "^#" /tmp/gx-def/extend.txt | cut -c1-170; grep -o "fused store: [^;]*" /tmp/gx-def/extend.txt
tar czf $OUT/call2-ext.tgz -C $OUT r
TIER_ARCH=sm_90a OUT= timeout 330 $G /tmp/ge1 tier > $OUT/r/eval-tier.txt 2>&1
cp /tmp/ge1/*.txt $OUT/r/ 2>/dev/null; echo "== tier at ${SECONDS}s"; grep -hE "tests passed|PASSED|FAILED|exit" /tmp/ge1/log.txt $OUT/r/eval-tier.txt | head
tar czf $OUT/call2-tier.tgz -C $OUT r
left=$((${CALL_LIMIT:-590} - SECONDS)); echo "== ncu-store with ${left}s left"
mkdir -p /tmp/gn
[ $left -gt 60 ] && NCU=$PWD/scripts/ncu-source.sh NCU_REP_DIR=/tmp/gn \
  NCU_STORE_SECTIONS="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section InstructionStats --section SchedulerStats --section SourceCounters" \
  OUT= timeout $((left - 15)) $G /tmp/gn ncu-store > $OUT/r/eval-ncu-store.txt 2>&1
for f in /tmp/gn/rep-*.ncu-rep; do /usr/local/cuda/bin/ncu -i $f --page details > $OUT/r/ncu-store-details.txt 2>&1; done
gzip -c /tmp/gn/rep-*.sass.csv > $OUT/r/store-sass.csv.gz 2>/dev/null
grep -E "Duration|Throughput|Issue Slots|Eligible|No Eligible|Registers|Achieved Occ|Warp Cycles" $OUT/r/ncu-store-details.txt | head -30
tar czf $OUT/call2-ncu.tgz -C $OUT r
