# Session 11 call 2 (tqc packed at 31b0a24): the GPU tier with the new store
# and trigger-with-work decode, the store bench, ncu of the store, the decode bench.
set -x
[ -d .carry/googletest ] || tar xzf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
TQC_COMMIT=31b0a24 $G tier store ncu-store
DECODE_PRESETS="k3v4 k4v4" $G decode
tail -5 /tmp/ge/gpu-test.txt; cat /tmp/ge/store.txt; grep -E "Duration|DRAM Throughput|Memory Throughput|Issue Slots|Executed Ipc A|Registers|Achieved Occ|Theoretical Occ" /tmp/ge/ncu-store.txt | head -20
cat /tmp/ge/decode.txt | tail -40
cd /tmp && tar czf $OUT/gpu-eval.tgz --exclude=work ge
