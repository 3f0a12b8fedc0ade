# Session 36 call: the sign masks as immediates (TQ_DECODE_SIGN_IMMEDIATES,
# default 1) against the __constant__ array (=0), and the value planes
# (TQ_TC_VALUE_PLANES=1, with immediates), at B {1, 8} x L=1K for k3v4,
# k4v2, k2v2, k4v4 (alternating processes, two rounds), B=32 L=32K for
# k3v4 and k4v2 once each; then the GPU tier on the default kernels.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
DB=autotune/databases/nvidia-h200-sm_90.json
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
rm -rf /tmp/tqc-gpu /tmp/vp; tar xJf .carry/tqc-gpu.tar.xz -C /tmp
P="k3v4 k4v2 k2v2 k4v4"
for p in $P; do
  TQC_DEVICE_DEFINES="TQ_DECODE_SIGN_IMMEDIATES=1" /tmp/tqc-gpu/tqc --arch sm_90 --preset $p --tuning-db $DB -o /tmp/vp/imm/$p > /tmp/vp-imm-$p.txt 2>&1 &
  TQC_DEVICE_DEFINES="TQ_DECODE_SIGN_IMMEDIATES=0" /tmp/tqc-gpu/tqc --arch sm_90 --preset $p --tuning-db $DB -o /tmp/vp/const/$p > /tmp/vp-const-$p.txt 2>&1 &
  TQC_DEVICE_DEFINES="TQ_TC_VALUE_PLANES=1" /tmp/tqc-gpu/tqc --arch sm_90 --preset $p --tuning-db $DB -o /tmp/vp/planes/$p > /tmp/vp-planes-$p.txt 2>&1 &
done
( cmake -S . -B build-gpu -DTQC_BUILD_COMPILER=OFF -DTQC_GTEST_SOURCE_DIR=$PWD/.carry/googletest > /dev/null 2>&1 && cmake --build build-gpu -j16 --target tqrt tqrt_python > $OUT/r/cmake.txt 2>&1 ) &
wait; echo "== built at ${SECONDS}s"; grep -h "tq_decode_p[0-3]_bf16" /tmp/vp-*-k4v2.txt /tmp/vp-*-k3v4.txt > $OUT/r/regs.txt; cat /tmp/vp-*.txt > $OUT/r/tqc.txt
nb() { for p in $P; do echo /tmp/vp/$1/$p; done; }
for i in 1 2; do
  for v in imm const planes; do
    echo "## $v (round $i)" >> $OUT/r/ab.txt
    timeout 100 python3 bench/decode_bench.py --tqrt build-gpu/runtime --bundles $(nb $v) --batch 1 8 --context 1024 --reps 50 >> $OUT/r/ab.txt 2>&1
  done
done
for v in imm const; do
  echo "## $v B=32 L=32K" >> $OUT/r/ab.txt
  timeout 100 python3 bench/decode_bench.py --tqrt build-gpu/runtime --bundles /tmp/vp/$v/k3v4 /tmp/vp/$v/k4v2 --batch 32 --context 32768 --reps 30 >> $OUT/r/ab.txt 2>&1
done
echo "== ab at ${SECONDS}s"; grep -v "^#" $OUT/r/ab.txt | grep -v "^$"
tar czf $OUT/ab.tgz -C $OUT r
left=$(( ${CALL_LIMIT:-590} - SECONDS )); echo "== tier with ${left}s left"
if [ $left -gt 230 ]; then
  OUT= timeout $((left - 8)) $G /tmp/gt tier > $OUT/r/eval-tier.txt 2>&1
  cp /tmp/gt/gpu-test.txt /tmp/gt/ctest-gpu.txt /tmp/gt/log.txt $OUT/r/ 2>/dev/null; xz -f $OUT/r/gpu-test.txt
  grep -hE "PASSED|FAILED|exit" /tmp/gt/log.txt | head
  grep -E "FAILED|Failure" $OUT/r/eval-tier.txt | head -20
fi
echo "== end at ${SECONDS}s"
tar czf $OUT/ab-b.tgz -C $OUT r
