# Session 34, short call: ncu with the source page of k3v4 decode at B=32
# L=32K (shipped plan), then decode_bench k3v4 at B=32 L=32K and B=1 L=1K
# (SDPA in the same process), then a CTA trace of k3v4 at B=1 L=1K.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
DB=autotune/databases/nvidia-h200-sm_90.json
L=${CALL_LIMIT:-590}
mkdir -p $OUT/r /tmp/gf/work /tmp/gfn
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
cat $OUT/r/gpu.txt
tar xJf .carry/tqc-gpu.tar.xz -C /tmp
/tmp/tqc-gpu/tqc --arch sm_90 --preset k3v4 --tuning-db $DB -o /tmp/gf/work/k3v4 > /tmp/gf/work/k3v4.txt 2>&1 &
TQC_DEVICE_DEFINES="TQ_DEBUG_CTA_TRACE=67108864" /tmp/tqc-gpu/tqc --arch sm_90 --preset k3v4 --tuning-db $DB -o /tmp/tr-k3v4 > $OUT/r/tqc-tr-k3v4.txt 2>&1 &
wait; echo "== bundles at ${SECONDS}s"
NCU=$PWD/scripts/ncu-source.sh NCU_REP_DIR=/tmp/gfn NCU_DECODE_VARIANTS= \
  NCU_DECODE_SECTIONS="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section InstructionStats --section SchedulerStats --section SourceCounters" \
  OUT= timeout $((L - SECONDS - 10)) $G /tmp/gf ncu-decode > $OUT/r/eval-ncu-decode.txt 2>&1
cp /tmp/gf/ncu-decode-k3v4.txt $OUT/r/ 2>/dev/null
for f in /tmp/gfn/rep-*.ncu-rep; do /usr/local/cuda/bin/ncu -i $f --page details > $OUT/r/ncu-decode-details.txt 2>&1; done
gzip -c /tmp/gfn/rep-*.sass.csv > $OUT/r/decode-sass.csv.gz 2>/dev/null
echo "== ncu at ${SECONDS}s"; grep -E "Duration|DRAM Throughput|Issue Slots|Eligible Warps|Registers Per|Achieved Occ|Warp Cycles Per Issued|Executed Ipc" $OUT/r/ncu-decode-details.txt | head -12
tar czf $OUT/call7-a.tgz -C $OUT r
for pt in "32 32768" "1 1024"; do
  set -- $pt
  [ $((L - SECONDS)) -gt 40 ] || break
  timeout $((L - SECONDS - 10)) python3 bench/decode_bench.py --tqrt build-gpu/runtime --bundles /tmp/gf/work/k3v4 --batch $1 --context $2 > $OUT/r/decode-b$1-l$2.txt 2>&1
  echo "== decode B=$1 L=$2 at ${SECONDS}s"; cat $OUT/r/decode-b$1-l$2.txt
done
tar czf $OUT/call7-b.tgz -C $OUT r
if [ $((L - SECONDS)) -gt 30 ]; then
  timeout 25 python3 bench/cta_trace.py run --bundle /tmp/tr-k3v4 --batch 1 --context 1024 --tqrt build-gpu/runtime > $OUT/r/trace-k3v4-b1-l1k.txt 2>&1
  python3 bench/cta_trace.py analyze $OUT/r/trace-k3v4-b1-l1k.txt > $OUT/r/trace-k3v4-b1-l1k-analysis.txt 2>&1
  echo "== trace at ${SECONDS}s"; tail -25 $OUT/r/trace-k3v4-b1-l1k-analysis.txt
fi
tar czf $OUT/call7-c.tgz -C $OUT r
