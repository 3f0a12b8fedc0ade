# Session 16's second H200 call: the pair tables from immediates (B=1/8 x
# L=1K/8K, every preset), the store bench (fixed) and ncu of the 16K-token
# store chunk.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
tqc=/tmp/tqc-gpu/tqc; db=autotune/databases/nvidia-h200-sm_90.json; dirs=
$G store ncu-store 2>&1 | tail -4 > $OUT/eval.txt
for p in k3v4 k4v4 k8v4 k3v3 k4v2 k2v2; do
  $tqc --arch sm_90 --preset $p --tuning-db $db -o /tmp/b/$p > /dev/null 2>&1 & dirs="$dirs /tmp/b/$p"
done; wait
timeout 200 python3 bench/decode_bench.py --tqrt build-gpu/runtime --bundles $dirs \
  --batch 1 8 --context 1024 8192 --json $OUT/decode-short.json > $OUT/decode-short.txt 2>&1
echo "decode_bench: exit $?" >> $OUT/decode-short.txt
