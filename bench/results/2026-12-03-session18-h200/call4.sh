# Session 18's fourth H200 call (same pack as call3): the GPU tier with sm_90
# bundles (the mma.sync extend after the chunk-copy refactor).
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge90; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
TIER_ARCH=sm_90 OUT= $G /tmp/ge90 tier 2>&1 | tail -3 > $OUT/eval.txt
grep -E "FAILED|Failure" /tmp/ge90/gpu-test.txt | head -20 > $OUT/gpu-test-summary.txt
tail -1 /tmp/ge90/gpu-test.txt >> $OUT/gpu-test-summary.txt
tar czf $OUT/ge90.tgz -C /tmp ge90/gpu-test.txt ge90/ctest-gpu.txt ge90/log.txt ge90/bundles.txt
