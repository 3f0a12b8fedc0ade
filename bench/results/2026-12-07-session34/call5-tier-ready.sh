# The GPU tier (sm_90a bundles: the wgmma extend too) on the packed tree:
# required once on the final kernels after ce42abd (k3v3's values as fp16
# subnormals, kTcNarrow). ~220 s on an H100 (session 33).
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
TIER_ARCH=sm_90a OUT= timeout $((${CALL_LIMIT:-590} - SECONDS - 10)) $G /tmp/gt tier > $OUT/r/eval-tier.txt 2>&1
cp /tmp/gt/gpu-test.txt /tmp/gt/ctest-gpu.txt /tmp/gt/log.txt $OUT/r/ 2>/dev/null; xz -f $OUT/r/gpu-test.txt
grep -hE "PASSED|FAILED|exit" /tmp/gt/log.txt | head
grep -E "FAILED|Failure" $OUT/r/eval-tier.txt | head -20
tar czf $OUT/call4.tgz -C $OUT r
