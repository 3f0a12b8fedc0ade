# Session 11 call 3 (tqc packed at d0881b7): GPU tier and store bench with the reworked store.
set -x
[ -d .carry/googletest ] || tar xzf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
TQC_COMMIT=d0881b7 $G tier store ncu-store
tail -3 /tmp/ge/gpu-test.txt; grep -i "tied\|ties" /tmp/ge/gpu-test.txt | head -5; cat /tmp/ge/store.txt
grep -E "Duration|DRAM Throughput|Issue Slots|Executed Ipc A|Registers Per|Achieved Occ|Theoretical Occ" /tmp/ge/ncu-store.txt | head -12
cd /tmp && tar czf $OUT/gpu-eval.tgz --exclude=work ge
