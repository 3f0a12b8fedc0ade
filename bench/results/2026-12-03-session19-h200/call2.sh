# Session 19's second H200 call (tree: see README.txt): extend_bench over
# sm_90a k3v4/k4v4 defaults (deferred code alignment, S before the next
# loads) and with TQ_EXTEND_PRODUCER_WARPS=4 (warp specialization); then
# the sm_90a GPU tier with the producer warpgroup, then the default tier.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge /tmp/gew /tmp/gx /tmp/gxw; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
BUNDLE_ARCH=sm_90a OUT= timeout 150 $G /tmp/gx extend 2>&1 | tail -2 > $OUT/eval.txt
cp /tmp/gx/extend.txt $OUT/extend.txt
TQC_DEVICE_DEFINES="TQ_EXTEND_PRODUCER_WARPS=4" BUNDLE_ARCH=sm_90a OUT= timeout 150 $G /tmp/gxw extend 2>&1 | tail -2 >> $OUT/eval.txt
cp /tmp/gxw/extend.txt $OUT/extend-ws.txt
grep -h "tq_extend_bf16" /tmp/gx/work/*/*.txt /tmp/gxw/work/*/*.txt /tmp/gx/log.txt /tmp/gxw/log.txt 2>/dev/null | head -8 >> $OUT/eval.txt
TQC_DEVICE_DEFINES="TQ_EXTEND_PRODUCER_WARPS=4" TIER_ARCH=sm_90a OUT= timeout 240 $G /tmp/gew tier 2>&1 | tail -3 >> $OUT/eval.txt
grep -E "FAILED|Failure" /tmp/gew/gpu-test.txt | head -30 > $OUT/gpu-test-ws-summary.txt
tail -3 /tmp/gew/gpu-test.txt >> $OUT/gpu-test-ws-summary.txt
tar czf $OUT/ge.tgz -C /tmp ge/gpu-test.txt gew/gpu-test.txt ge/log.txt gew/log.txt gx/log.txt gxw/log.txt 2>/dev/null
