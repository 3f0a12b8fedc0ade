set -x
tar xJf .carry/tqc-gpu.tar.xz -C /tmp 2>/dev/null; tqc=/tmp/tqc-gpu/tqc
W=/tmp/w6; rm -rf $W; mkdir -p $W
(cmake -S . -B build-gpu -DTQC_BUILD_COMPILER=OFF -DTQC_GTEST_SOURCE_DIR=$PWD/.carry/googletest >/dev/null 2>&1; cmake --build build-gpu -j16 --target tqrt tqrt_python 2>&1 | tail -2) &
for p in k8v4 k3v3 k2v2 bf16; do $tqc --arch sm_90 --preset $p --tuning-db autotune/databases/nvidia-h200-sm_90.json -o $W/$p > $W/$p.txt 2>&1 & done
wait
ls build-gpu/runtime | head
timeout 170 python3 bench/decode_bench.py --tqrt build-gpu/runtime --bundles $W/k8v4 $W/k3v3 $W/k2v2 $W/bf16 --json $OUT/decode-more.json > $OUT/decode-more.txt 2>&1
echo bench rc $?
