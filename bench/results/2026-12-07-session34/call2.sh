# Session 34, last short call: k3v3 decode after ce42abd (values as fp16
# subnormals) and k3v4 beside it, B=32 L=32K, SDPA in the same process.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
DB=autotune/databases/nvidia-h200-sm_90.json
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/r/gpu.txt
tar xJf .carry/tqc-gpu.tar.xz -C /tmp
for p in k3v3 k3v4; do /tmp/tqc-gpu/tqc --arch sm_90 --preset $p --tuning-db $DB -o /tmp/b-$p > $OUT/r/tqc-$p.txt 2>&1 & done
( cmake -S . -B build-gpu -DTQC_BUILD_COMPILER=OFF -DTQC_GTEST_SOURCE_DIR=$PWD/.carry/googletest > /dev/null 2>&1 && cmake --build build-gpu -j16 --target tqrt tqrt_python > $OUT/r/cmake.txt 2>&1 ) &
wait; echo "== built at ${SECONDS}s"; ls build-gpu/runtime | head -3
timeout $((${CALL_LIMIT:-120} - SECONDS - 5)) python3 bench/decode_bench.py --tqrt build-gpu/runtime --bundles /tmp/b-k3v3 /tmp/b-k3v4 --batch 32 --context 32768 --reps 20 > $OUT/r/decode.txt 2>&1
echo "== decode at ${SECONDS}s"; cat $OUT/r/decode.txt
