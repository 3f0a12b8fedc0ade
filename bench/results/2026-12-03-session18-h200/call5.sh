# Session 18's fifth H200 call (tree 10f5f0c): the GPU tier with sm_90a
# bundles (wgmma extend, prefix dequantization to fp16 pairs), extend_bench over sm_90a k3v4/k4v4
# defaults.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge /tmp/ge90 /tmp/gx; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
TIER_ARCH=sm_90a OUT= $G /tmp/ge tier 2>&1 | tail -3 > $OUT/eval.txt
grep -E "FAILED|Failure" /tmp/ge/gpu-test.txt | head -20 > $OUT/gpu-test-summary.txt
tail -1 /tmp/ge/gpu-test.txt >> $OUT/gpu-test-summary.txt
BUNDLE_ARCH=sm_90a OUT= $G /tmp/gx extend 2>&1 | tail -2 >> $OUT/eval.txt
cp /tmp/gx/extend.txt $OUT/extend.txt; cp /tmp/gx/extend.json $OUT/extend.json
tar czf $OUT/ge.tgz -C /tmp ge/gpu-test.txt ge/ctest-gpu.txt ge/log.txt ge/bundles.txt
