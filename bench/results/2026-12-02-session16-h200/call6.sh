# Session 16's sixth H200 call (the session's last): the store with its
# rows loaded before the slot: store bench, the extend bench's store row
# (4K chunk vs SDPA causal), the GPU tier on the final kernels, the store
# with a register cap for 32 warps per SM, the decode at the short points.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
$G store 2>&1 | tail -2 > $OUT/eval.txt; cp /tmp/ge/store.txt $OUT/store.txt
timeout 200 $G extend 2>&1 | tail -1 >> $OUT/eval.txt; cp /tmp/ge/extend.txt $OUT/ 2>/dev/null
$G tier 2>&1 | tail -3 >> $OUT/eval.txt
cp /tmp/ge/gpu-test.txt $OUT/ 2>/dev/null; tail -5 /tmp/ge/ctest-gpu.txt > $OUT/ctest-gpu-tail.txt 2>/dev/null
rm -rf /tmp/ge/work/k3v4 /tmp/ge/work/k4v4 /tmp/ge/work/bf16
TQC_DEVICE_DEFINES="TQ_STORE_MIN_WARPS_PER_SM=32" $G store 2>&1 | tail -1 >> $OUT/eval.txt; cp /tmp/ge/store.txt $OUT/store-w32.txt
tqc=/tmp/tqc-gpu/tqc; db=autotune/databases/nvidia-h200-sm_90.json; dirs=
for p in k3v4 k4v4 k8v4 k3v3 k4v2 k2v2; do
  $tqc --arch sm_90 --preset $p --tuning-db $db -o /tmp/b/$p > /dev/null 2>&1 & dirs="$dirs /tmp/b/$p"
done; wait
timeout 150 python3 bench/decode_bench.py --tqrt build-gpu/runtime --bundles $dirs \
  --batch 1 8 --context 1024 8192 --json $OUT/decode-short.json > $OUT/decode-short.txt 2>&1
echo "decode_bench: exit $?" >> $OUT/decode-short.txt
