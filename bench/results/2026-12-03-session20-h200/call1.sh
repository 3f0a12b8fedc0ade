# Session 20's first H200 call: extend_bench (CUDA-graph timing) over the
# sm_90a default (k3v4, k4v4, every case), then k3v4 with each extend knob:
# TQ_EXTEND_UNIT_GROUP=4, TQ_EXTEND_PRODUCER_WARPS=4, both.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
rm -rf /tmp/gx0 /tmp/gx1 /tmp/gx2 /tmp/gx3
BUNDLE_ARCH=sm_90a OUT= timeout 200 $G /tmp/gx0 extend 2>&1 | tail -2 > $OUT/eval.txt
cp /tmp/gx0/extend.txt $OUT/extend.txt
n=1
for d in "TQ_EXTEND_UNIT_GROUP=4" "TQ_EXTEND_PRODUCER_WARPS=4" "TQ_EXTEND_UNIT_GROUP=4 TQ_EXTEND_PRODUCER_WARPS=4"; do
  echo "== $d" >> $OUT/eval.txt
  TQC_DEVICE_DEFINES="$d" EXTEND_PRESETS=k3v4 EXTEND_CASES="0:4096 28672:4096 8192:1024" \
    BUNDLE_ARCH=sm_90a OUT= timeout 100 $G /tmp/gx$n extend 2>&1 | tail -1 >> $OUT/eval.txt
  { echo "== TQC_DEVICE_DEFINES=$d"; cat /tmp/gx$n/extend.txt; } >> $OUT/extend-knobs.txt
  n=$((n+1))
done
tar czf $OUT/logs.tgz -C /tmp gx0/log.txt gx1/log.txt gx2/log.txt gx3/log.txt 2>/dev/null
