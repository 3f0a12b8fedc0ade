# Session 16's first H200 call (~7 min): the GPU tier on 019c0ac (the pair
# tables written without bank conflicts: each lane starts at piece lane % 8),
# then the decode bench of every preset at the short points (session 15
# run4 before it, same bench: B=1 L=1K k3v4 7.9, k4v4 9.1, k8v4 7.0, k3v3
# 8.4, k4v2 9.6, k2v2 8.0 us; SDPA 7.6). Expected if the conflicts were the
# cost: k4v4/k4v2 ~1 us faster, k3v4/k3v3 ~0.2-0.5.
# Carry .carry/tqc-gpu.tar.xz, .carry/googletest.tgz and this file as
# .carry/call1.sh; bench/results moved out of the tree for the call.
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
