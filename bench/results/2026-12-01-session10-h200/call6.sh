rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
TQC_COMMIT=ee11601 timeout 250 $G tier
grep -E "PASSED|FAILED|tests ran" /tmp/ge/gpu-test.txt | tail -5
cd /tmp && tar czf $OUT/gpu-eval.tgz --exclude=work ge
