# Session 20's second H200 call: the sm_90a GPU tier with both extend knobs
# (TQ_EXTEND_UNIT_GROUP=4 TQ_EXTEND_PRODUCER_WARPS=4; the producer's fp16
# tables now filled by lane), then extend_bench (k3v4, k4v4, every case)
# with them.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
rm -rf /tmp/ge1 /tmp/gx4
export TQC_DEVICE_DEFINES="TQ_EXTEND_UNIT_GROUP=4 TQ_EXTEND_PRODUCER_WARPS=4"
TIER_ARCH=sm_90a OUT= timeout 330 $G /tmp/ge1 tier 2>&1 | tail -3 > $OUT/eval.txt
grep -E "FAILED|Failure" /tmp/ge1/gpu-test.txt | head -30 > $OUT/gpu-test-summary.txt
tail -3 /tmp/ge1/gpu-test.txt >> $OUT/gpu-test-summary.txt
BUNDLE_ARCH=sm_90a OUT= timeout 200 $G /tmp/gx4 extend 2>&1 | tail -1 >> $OUT/eval.txt
cp /tmp/gx4/extend.txt $OUT/extend.txt
tar czf $OUT/logs.tgz -C /tmp ge1/gpu-test.txt ge1/log.txt ge1/ctest-gpu.txt gx4/log.txt 2>/dev/null
