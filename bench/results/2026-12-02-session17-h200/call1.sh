# Session 17's first H200 call: the GPU tier on the final tree (d587006),
# then the store and extend benches with TQ_STORE_TILE_TOKENS = 1, 2, 4, 8.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge /tmp/gs*; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
$G /tmp/ge tier 2>&1 | tail -3 > $OUT/eval.txt
for n in 1 2 4 8; do
  TQC_DEVICE_DEFINES="TQ_STORE_TILE_TOKENS=$n" OUT= $G /tmp/gs$n store extend 2>&1 | tail -2 >> $OUT/eval.txt
  { echo "== TQ_STORE_TILE_TOKENS=$n"; cat /tmp/gs$n/store.txt; echo "== extend"; cat /tmp/gs$n/extend.txt; } > $OUT/tile$n.txt
done
