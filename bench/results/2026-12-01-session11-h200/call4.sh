# Session 11 call 4 (tqc packed at 11b8001): tier + store bench, the store with a
# register cap for 32 resident warps per SM, and the extend bench (4K chunk store vs SDPA).
set -x
[ -d .carry/googletest ] || tar xzf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge /tmp/ge-cap; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
TQC_COMMIT=11b8001 $G /tmp/ge tier store
TQC_DEVICE_DEFINES="TQ_STORE_MIN_WARPS_PER_SM=32" $G /tmp/ge-cap store
$G /tmp/ge extend
tail -1 /tmp/ge/gpu-test.txt; cat /tmp/ge/store.txt /tmp/ge-cap/store.txt; cat /tmp/ge/extend.txt
cd /tmp && tar czf $OUT/gpu-eval.tgz --exclude=work ge ge-cap
