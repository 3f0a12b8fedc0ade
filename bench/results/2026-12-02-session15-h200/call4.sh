# Session 15's fourth H200 call (~7 min): the GPU tier on the final kernels
# of this session (the pair tables select their levels from uniform addresses, 8608f52, 0ed7dc8), then
# the decode bench of every preset at the short points, where the tables'
# fill sat in the prologue (run3: B=1 L=1K k8v4, no table, 7.0 us; k3v4 7.9,
# k4v4 8.9, k4v2 9.2; SDPA 7.6).
# Carry .carry/tqc-gpu.tar.xz, .carry/googletest.tgz and this file as
# .carry/call4.sh; bench/results moved out of the tree for the call.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
$G tier 2>&1 | tail -3 | tee $OUT/tier.txt
cp /tmp/ge/gpu-test.txt $OUT/ 2>/dev/null
tqc=/tmp/tqc-gpu/tqc; db=autotune/databases/nvidia-h200-sm_90.json; dirs=
for p in k3v4 k4v4 k8v4 k3v3 k4v2 k2v2 bf16; do
  $tqc --arch sm_90 --preset $p --tuning-db $db -o /tmp/b/$p > /dev/null 2>&1 & dirs="$dirs /tmp/b/$p"
done; wait
timeout 200 python3 bench/decode_bench.py --tqrt build-gpu/runtime --bundles $dirs \
  --batch 1 8 32 --context 1024 8192 --json $OUT/decode-short.json > $OUT/decode-short.txt 2>&1
echo "decode_bench: exit $?" >> $OUT/decode-short.txt
