# Session 16's seventh H200 call: the store bench alone on the final tree
# (call6's default store table did not come back: a file too many).
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
$G store 2>&1 | tail -1 > $OUT/eval.txt; cp /tmp/ge/store.txt $OUT/store.txt
