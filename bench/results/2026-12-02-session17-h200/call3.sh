# Session 17's third H200 call: the GPU tier with sm_90a bundles (the wgmma
# extend in every extend test), then extend_bench over sm_90a bundles.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge /tmp/gx; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
TIER_ARCH=sm_90a OUT= $G /tmp/ge tier 2>&1 | tail -3 > $OUT/eval.txt
grep -E "FAILED|PASSED|Failure|rel|error" /tmp/ge/gpu-test.txt | head -60 > $OUT/gpu-test-summary.txt
tail -5 /tmp/ge/gpu-test.txt >> $OUT/gpu-test-summary.txt
BUNDLE_ARCH=sm_90a OUT= $G /tmp/gx extend 2>&1 | tail -2 >> $OUT/eval.txt
cp /tmp/gx/extend.txt $OUT/extend.txt
tar czf $OUT/ge.tgz -C /tmp ge/gpu-test.txt ge/ctest-gpu.txt ge/log.txt ge/bundles.txt
