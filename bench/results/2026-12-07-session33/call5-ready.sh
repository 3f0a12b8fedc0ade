# Session 34 call (ready in session 33, kernels of the commit packed): the
# store under store_bench's paged chunk, default (t1), with session 16's
# load order (late: TQ_STORE_EARLY_LOADS=0, the A/B of c391e09), and with
# TQ_STORE_TILE_TOKENS = 2, 4 (session 17 measured 2-8 flat, but with every
# token in a random slot); then ncu of the bf16 preset's store (a copy at
# 1.96 TB/s, unexplained).
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
cat $OUT/r/gpu.txt
for v in t1: late:TQ_STORE_EARLY_LOADS=0 t2:TQ_STORE_TILE_TOKENS=2 t4:TQ_STORE_TILE_TOKENS=4; do
  n=${v%%:*}
  TQC_DEVICE_DEFINES="${v#*:}" OUT= timeout 150 $G /tmp/gs-$n store > $OUT/r/eval-store-$n.txt 2>&1
  cp /tmp/gs-$n/store.txt $OUT/r/store-$n.txt; cp /tmp/gs-$n/store.json $OUT/r/store-$n.json
  echo "== $v at ${SECONDS}s"; cat /tmp/gs-$n/store.txt
  tar czf $OUT/call5-$n.tgz -C $OUT r
done
# bf16's store under ncu (the bundle store_bench just used; the first launch
# is its 16K-token correctness chunk, whole pages).
mkdir -p /tmp/gn5
NCU_REP_DIR=/tmp/gn5 timeout 120 scripts/ncu-source.sh --kernel-name regex:tq_store_bf16 --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
  --section MemoryWorkloadAnalysis --section SchedulerStats --section SourceCounters \
  python3 bench/store_bench.py --tqrt build-gpu/runtime --bundles /tmp/gs-t1/work/bf16 > $OUT/r/ncu-bf16-run.txt 2>&1
for f in /tmp/gn5/rep-*.ncu-rep; do /usr/local/cuda/bin/ncu -i $f --page details > $OUT/r/ncu-bf16-store.txt 2>&1; done
gzip -c /tmp/gn5/rep-*.sass.csv > $OUT/r/bf16-store-sass.csv.gz 2>/dev/null
grep -E "Duration|DRAM Throughput|Issue Slots|Eligible Warps|Registers Per|Achieved Occ|Warp Cycles Per Issued" $OUT/r/ncu-bf16-store.txt | head
tar czf $OUT/call5-ncu.tgz -C $OUT r
