# Session 34 acceptance call for issue 7 (tree packed; kernels as in
# session 33's final runs): decode_bench over every preset (B {1,8,32,64} x
# L {1K,8K,32K}, SDPA in the same process; shipped tuned plans), store_bench
# (k3v4, k4v4, bf16), ncu with the source page of k3v4 decode at B=32
# L=32K, CTA traces of k3v4 and k8v4 at B=1 L=1K, then the GPU tier if the
# time allows.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
DB=autotune/databases/nvidia-h200-sm_90.json
L=${CALL_LIMIT:-590}
mkdir -p $OUT/r /tmp/gf/work /tmp/gfn
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
cat $OUT/r/gpu.txt
# Every bundle compiled at once (gpu-eval's bundle() keeps a bundle that
# exists; it unpacks tqc again itself).
tar xJf .carry/tqc-gpu.tar.xz -C /tmp
for p in k3v4 k4v4 k8v4 k3v3 k4v2 k2v2 bf16; do
  /tmp/tqc-gpu/tqc --arch sm_90 --preset $p --tuning-db $DB -o /tmp/gf/work/$p > /tmp/gf/work/$p.txt 2>&1 &
done
for p in k3v4 k8v4; do
  TQC_DEVICE_DEFINES="TQ_DEBUG_CTA_TRACE=67108864" /tmp/tqc-gpu/tqc --arch sm_90 --preset $p --tuning-db $DB -o /tmp/tr-$p > $OUT/r/tqc-tr-$p.txt 2>&1 &
done
wait; echo "== bundles at ${SECONDS}s"; tail -n 12 /tmp/gf/work/k3v4.txt
DECODE_PRESETS="k3v4 k4v4 k8v4 k3v3 k4v2 k2v2 bf16" OUT= timeout $((L - SECONDS - 10)) $G /tmp/gf decode > $OUT/r/eval-decode.txt 2>&1
cp /tmp/gf/decode.txt /tmp/gf/decode.json $OUT/r/ 2>/dev/null
echo "== decode at ${SECONDS}s"; cat $OUT/r/decode.txt
tar czf $OUT/call6-a.tgz -C $OUT r
OUT= timeout $((L - SECONDS - 10)) $G /tmp/gf store > $OUT/r/eval-store.txt 2>&1
cp /tmp/gf/store.txt /tmp/gf/store.json $OUT/r/ 2>/dev/null; echo "== store at ${SECONDS}s"; cat $OUT/r/store.txt
tar czf $OUT/call6-b.tgz -C $OUT r
NCU=$PWD/scripts/ncu-source.sh NCU_REP_DIR=/tmp/gfn NCU_DECODE_VARIANTS= \
  NCU_DECODE_SECTIONS="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section InstructionStats --section SchedulerStats --section SourceCounters" \
  OUT= timeout $((L - SECONDS - 10)) $G /tmp/gf ncu-decode > $OUT/r/eval-ncu-decode.txt 2>&1
cp /tmp/gf/ncu-decode-k3v4.txt $OUT/r/ 2>/dev/null
for f in /tmp/gfn/rep-*.ncu-rep; do /usr/local/cuda/bin/ncu -i $f --page details > $OUT/r/ncu-decode-details.txt 2>&1; done
gzip -c /tmp/gfn/rep-*.sass.csv > $OUT/r/decode-sass.csv.gz 2>/dev/null
echo "== ncu at ${SECONDS}s"; grep -E "Duration|DRAM Throughput|Issue Slots|Eligible Warps|Registers Per|Achieved Occ|Warp Cycles Per Issued|Executed Ipc" $OUT/r/ncu-decode-details.txt | head -12
tar czf $OUT/call6-c.tgz -C $OUT r
for p in k3v4 k8v4; do
  [ $((L - SECONDS)) -gt 40 ] || break
  timeout 30 python3 bench/cta_trace.py run --bundle /tmp/tr-$p --batch 1 --context 1024 --tqrt build-gpu/runtime > $OUT/r/trace-$p-b1-l1k.txt 2>&1
  python3 bench/cta_trace.py analyze $OUT/r/trace-$p-b1-l1k.txt > $OUT/r/trace-$p-b1-l1k-analysis.txt 2>&1
  echo "== trace $p at ${SECONDS}s"; tail -25 $OUT/r/trace-$p-b1-l1k-analysis.txt
done
tar czf $OUT/call6-d.tgz -C $OUT r
left=$((L - SECONDS)); echo "== tier with ${left}s left"
if [ $left -gt 230 ]; then
  OUT= timeout $((left - 8)) $G /tmp/gt tier > $OUT/r/eval-tier.txt 2>&1
  cp /tmp/gt/gpu-test.txt /tmp/gt/ctest-gpu.txt /tmp/gt/log.txt $OUT/r/ 2>/dev/null; xz -f $OUT/r/gpu-test.txt
  grep -hE "PASSED|FAILED|exit" /tmp/gt/log.txt | head
fi
echo "== end at ${SECONDS}s"
tar czf $OUT/call6-e.tgz -C $OUT r
