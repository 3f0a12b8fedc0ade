# Session 20's third H200 call: the sm_90a GPU tier with grouped units in
# step (TQ_EXTEND_UNIT_GROUP=4, no producer warpgroup), then extend_bench
# (causal 4K, 4K over 28K) per preset: grouped in step for k4v4 k8v4 k4v2
# k3v3 k2v2, warp-specialized + grouped for k3v3 k2v2 k8v4 k4v2.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
rm -rf /tmp/ge2 /tmp/gx5 /tmp/gx6
TQC_DEVICE_DEFINES="TQ_EXTEND_UNIT_GROUP=4" TIER_ARCH=sm_90a OUT= timeout 300 $G /tmp/ge2 tier 2>&1 | tail -3 > $OUT/eval.txt
grep -E "FAILED|Failure" /tmp/ge2/gpu-test.txt | head -30 > $OUT/gpu-test-summary.txt
tail -3 /tmp/ge2/gpu-test.txt >> $OUT/gpu-test-summary.txt
TQC_DEVICE_DEFINES="TQ_EXTEND_UNIT_GROUP=4" EXTEND_PRESETS="k4v4 k8v4 k4v2 k3v3 k2v2" EXTEND_CASES="0:4096 28672:4096" \
  BUNDLE_ARCH=sm_90a OUT= timeout 150 $G /tmp/gx5 extend 2>&1 | tail -1 >> $OUT/eval.txt
{ echo "== TQC_DEVICE_DEFINES=TQ_EXTEND_UNIT_GROUP=4"; cat /tmp/gx5/extend.txt; } > $OUT/extend-knobs.txt
TQC_DEVICE_DEFINES="TQ_EXTEND_UNIT_GROUP=4 TQ_EXTEND_PRODUCER_WARPS=4" EXTEND_PRESETS="k3v3 k2v2 k8v4 k4v2" EXTEND_CASES="0:4096 28672:4096" \
  BUNDLE_ARCH=sm_90a OUT= timeout 130 $G /tmp/gx6 extend 2>&1 | tail -1 >> $OUT/eval.txt
{ echo "== TQC_DEVICE_DEFINES=TQ_EXTEND_UNIT_GROUP=4 TQ_EXTEND_PRODUCER_WARPS=4"; cat /tmp/gx6/extend.txt; } >> $OUT/extend-knobs.txt
tar czf $OUT/logs.tgz -C /tmp ge2/gpu-test.txt ge2/log.txt ge2/ctest-gpu.txt gx5/log.txt gx6/log.txt 2>/dev/null
