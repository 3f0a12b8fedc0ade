# Session 20's fourth H200 call, on the new defaults (grouped units; a
# producer warpgroup unless the keys are 4-bit Lloyd-Max; setmaxnreg
# 112/184, fp8 keys 104/184): the sm_90a GPU tier, then extend_bench over
# k3v4 and k4v4 (every case).
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
rm -rf /tmp/ge3 /tmp/gx7
TIER_ARCH=sm_90a OUT= timeout 300 $G /tmp/ge3 tier 2>&1 | tail -3 > $OUT/eval.txt
grep -E "FAILED|Failure" /tmp/ge3/gpu-test.txt | head -30 > $OUT/gpu-test-summary.txt
tail -3 /tmp/ge3/gpu-test.txt >> $OUT/gpu-test-summary.txt
BUNDLE_ARCH=sm_90a OUT= timeout 150 $G /tmp/gx7 extend 2>&1 | tail -1 >> $OUT/eval.txt
cp /tmp/gx7/extend.txt /tmp/gx7/extend.json $OUT/
tar czf $OUT/logs.tgz -C /tmp ge3/gpu-test.txt ge3/log.txt ge3/ctest-gpu.txt gx7/log.txt 2>/dev/null
