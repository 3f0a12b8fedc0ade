# Session 11 call 6 (tqc packed at 1460b6a, the final tree): the GPU tier only.
set -x
[ -d .carry/googletest ] || tar xzf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
TQC_COMMIT=1460b6a $G tier
tail -1 /tmp/ge/gpu-test.txt
cd /tmp && tar czf $OUT/gpu-eval.tgz --exclude=work ge
