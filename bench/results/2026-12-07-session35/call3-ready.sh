# Session 35 call 3: 2-bit Lloyd-Max values as two planes of subnormals
# (TQ_TC_VALUE_PLANES=1) against the pair table (=0, the default):
# k4v2 and k2v2 (k3v4 beside them as a control) at B {1, 8} x L=1K and
# B=32 L=32K, alternating processes (no device time left for the tier).
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
DB=autotune/databases/nvidia-h200-sm_90.json
L=${CALL_LIMIT:-585}
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
rm -rf /tmp/tqc-gpu /tmp/vp; tar xJf .carry/tqc-gpu.tar.xz -C /tmp
P="k4v2 k2v2 k3v4"
for p in $P; do
  TQC_DEVICE_DEFINES="TQ_TC_VALUE_PLANES=1" /tmp/tqc-gpu/tqc --arch sm_90 --preset $p --tuning-db $DB -o /tmp/vp/new/$p > /tmp/vp-new-$p.txt 2>&1 &
  TQC_DEVICE_DEFINES="TQ_TC_VALUE_PLANES=0" /tmp/tqc-gpu/tqc --arch sm_90 --preset $p --tuning-db $DB -o /tmp/vp/old/$p > /tmp/vp-old-$p.txt 2>&1 &
done
( cmake -S . -B build-gpu -DTQC_BUILD_COMPILER=OFF -DTQC_GTEST_SOURCE_DIR=$PWD/.carry/googletest > /dev/null 2>&1 && cmake --build build-gpu -j16 --target tqrt tqrt_python > $OUT/r/cmake.txt 2>&1 ) &
wait; echo "== built at ${SECONDS}s"; grep -h "tq_decode_p[0-3]_bf16" /tmp/vp-*-k4v2.txt
nb() { for p in $P; do echo /tmp/vp/$1/$p; done; }
for i in 1 2; do
  for v in new old; do
    echo "## $v (round $i)" >> $OUT/r/ab.txt
    timeout 100 python3 bench/decode_bench.py --tqrt build-gpu/runtime --bundles $(nb $v) --batch 1 8 --context 1024 --reps 50 >> $OUT/r/ab.txt 2>&1
    timeout 100 python3 bench/decode_bench.py --tqrt build-gpu/runtime --bundles $(nb $v) --batch 32 --context 32768 --reps 30 >> $OUT/r/ab.txt 2>&1
  done
done
echo "== ab at ${SECONDS}s"; grep -v "^#" $OUT/r/ab.txt
tar czf $OUT/call12-a.tgz -C $OUT r
echo "== end at ${SECONDS}s"
