# Session 34 call: (1) store_bench (k3v4, k4v4, bf16; paged 16K chunk) on
# the shipped kernels; (2) k3v4 alone with session 16's load order
# (TQ_STORE_EARLY_LOADS=0) and with TQ_STORE_TILE_TOKENS = 2, 4; (3) CTA
# traces of k3v4, k8v4, k4v2 decode at B=1 L=1K (shipped plans); (4) ncu
# with the source page of k3v4 decode, B=32 L=32K, shipped plan.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
DB=autotune/databases/nvidia-h200-sm_90.json
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
cat $OUT/r/gpu.txt
OUT= timeout 150 $G /tmp/gs-t1 store > $OUT/r/eval-store-t1.txt 2>&1
cp /tmp/gs-t1/store.txt $OUT/r/store-t1.txt; cp /tmp/gs-t1/store.json $OUT/r/store-t1.json
echo "== t1 at ${SECONDS}s"; cat /tmp/gs-t1/store.txt
tar czf $OUT/call5-a.tgz -C $OUT r
for v in late:TQ_STORE_EARLY_LOADS=0 t2:TQ_STORE_TILE_TOKENS=2 t4:TQ_STORE_TILE_TOKENS=4; do
  n=${v%%:*}
  TQC_DEVICE_DEFINES="${v#*:}" timeout 60 /tmp/tqc-gpu/tqc --arch sm_90 --preset k3v4 --tuning-db $DB -o /tmp/st-$n > $OUT/r/tqc-st-$n.txt 2>&1
  timeout 60 python3 bench/store_bench.py --tqrt build-gpu/runtime --bundles /tmp/st-$n --json $OUT/r/store-$n.json > $OUT/r/store-$n.txt 2>&1
  echo "== $v at ${SECONDS}s"; cat $OUT/r/store-$n.txt
done
tar czf $OUT/call5-b.tgz -C $OUT r
left=$((${CALL_LIMIT:-590} - SECONDS)); echo "== ncu-decode with ${left}s left"
mkdir -p /tmp/gd5
[ $left -gt 60 ] && NCU=$PWD/scripts/ncu-source.sh NCU_REP_DIR=/tmp/gd5 NCU_DECODE_VARIANTS= \
  NCU_DECODE_SECTIONS="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section InstructionStats --section SchedulerStats --section SourceCounters" \
  OUT= timeout $((left - 10)) $G /tmp/gd5 ncu-decode > $OUT/r/eval-ncu-decode.txt 2>&1
for f in /tmp/gd5/rep-*.ncu-rep; do /usr/local/cuda/bin/ncu -i $f --page details > $OUT/r/ncu-decode-details.txt 2>&1; done
gzip -c /tmp/gd5/rep-*.sass.csv > $OUT/r/decode-sass.csv.gz 2>/dev/null
grep -E "Duration|DRAM Throughput|Issue Slots|Eligible Warps|Registers Per|Achieved Occ|Warp Cycles Per Issued|Executed Ipc" $OUT/r/ncu-decode-details.txt | head -12
echo "== ncu end at ${SECONDS}s"
tar czf $OUT/call5-d.tgz -C $OUT r
for p in k3v4 k8v4 k4v2; do
  [ $((${CALL_LIMIT:-590} - SECONDS)) -gt 60 ] || break
  TQC_DEVICE_DEFINES="TQ_DEBUG_CTA_TRACE=67108864" timeout 60 /tmp/tqc-gpu/tqc --arch sm_90 --preset $p --tuning-db $DB -o /tmp/tr-$p > $OUT/r/tqc-tr-$p.txt 2>&1
  timeout 40 python3 bench/cta_trace.py run --bundle /tmp/tr-$p --batch 1 --context 1024 --tqrt build-gpu/runtime > $OUT/r/trace-$p-b1-l1k.txt 2>&1
  python3 bench/cta_trace.py analyze $OUT/r/trace-$p-b1-l1k.txt > $OUT/r/trace-$p-b1-l1k-analysis.txt 2>&1
  echo "== trace $p at ${SECONDS}s"; tail -25 $OUT/r/trace-$p-b1-l1k-analysis.txt
done
tar czf $OUT/call5-c.tgz -C $OUT r
