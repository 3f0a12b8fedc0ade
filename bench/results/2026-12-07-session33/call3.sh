# Session 33 call 3 (working tree after c3d03e0: the store kernel loads its
# first round's rows before the slot's padding test and the tables' fill;
# the split extend store removed; store_bench times the chunk with paged
# slots, and the old scattered slots beside it): store_bench (sm_90
# bundles), ncu of the k3v4 store kernel on a 16K chunk with the source
# page (against run2's 38.02 us), then the sm_90a GPU tier.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
cat $OUT/r/gpu.txt
OUT= timeout 150 $G /tmp/gs store > $OUT/r/eval-store.txt 2>&1
cp /tmp/gs/store.txt /tmp/gs/store.json $OUT/r/ 2>/dev/null; echo "== store at ${SECONDS}s"; cat /tmp/gs/store.txt; tail -2 $OUT/r/eval-store.txt
tar czf $OUT/call3-store.tgz -C $OUT r
mkdir -p /tmp/gn3
NCU=$PWD/scripts/ncu-source.sh NCU_REP_DIR=/tmp/gn3 \
  NCU_STORE_SECTIONS="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section InstructionStats --section SchedulerStats --section SourceCounters" \
  OUT= timeout 120 $G /tmp/gn3 ncu-store > $OUT/r/eval-ncu-store.txt 2>&1
for f in /tmp/gn3/rep-*.ncu-rep; do /usr/local/cuda/bin/ncu -i $f --page details > $OUT/r/ncu-store-details.txt 2>&1; done
gzip -c /tmp/gn3/rep-*.sass.csv > $OUT/r/store-sass.csv.gz 2>/dev/null
echo "== ncu at ${SECONDS}s"; grep -E "Duration|DRAM Throughput|Issue Slots|Eligible Warps|Registers Per|Achieved Occ|Warp Cycles Per Issued" $OUT/r/ncu-store-details.txt | head -12
tar czf $OUT/call3-ncu.tgz -C $OUT r
left=$((${CALL_LIMIT:-590} - SECONDS)); echo "== tier with ${left}s left"
[ $left -gt 200 ] && TIER_ARCH=sm_90a OUT= timeout $((left - 8)) $G /tmp/ge3 tier > $OUT/r/eval-tier.txt 2>&1
cp /tmp/ge3/*.txt $OUT/r/ 2>/dev/null; echo "== tier at ${SECONDS}s"; grep -hE "PASSED|FAILED|exit" /tmp/ge3/log.txt | head
tar czf $OUT/call3-tier.tgz -C $OUT r
