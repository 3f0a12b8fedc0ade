# Session 16's first H200 call: time the pair tables' bank-conflict fix
# (019c0ac) at the short points, every preset; store bench and ncu of the
# 16K-token store chunk (issue 6/9 item 4 baseline).
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
$G store ncu-store 2>&1 | tail -4 > $OUT/eval.txt

tqc=/tmp/tqc-gpu/tqc; db=autotune/databases/nvidia-h200-sm_90.json; dirs=
for p in k3v4 k4v4 k8v4 k3v3 k4v2 k2v2 bf16; do
  $tqc --arch sm_90 --preset $p --tuning-db $db -o /tmp/b/$p > /dev/null 2>&1 & dirs="$dirs /tmp/b/$p"
done; wait
timeout 240 python3 bench/decode_bench.py --tqrt build-gpu/runtime --bundles $dirs \
  --batch 1 8 32 --context 1024 8192 --json $OUT/decode-short.json > $OUT/decode-short.txt 2>&1
echo "decode_bench: exit $?" >> $OUT/decode-short.txt
