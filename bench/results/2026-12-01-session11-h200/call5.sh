# Session 11 call 5 (tqc packed at 3a668b2): tier + store + extend with keys and values in separate store warps.
set -x
[ -d .carry/googletest ] || tar xzf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
TQC_COMMIT=3a668b2 $G tier store extend
tail -1 /tmp/ge/gpu-test.txt; cat /tmp/ge/store.txt; cut -c1-140 /tmp/ge/extend.txt
cd /tmp && tar czf $OUT/gpu-eval.tgz --exclude=work ge
