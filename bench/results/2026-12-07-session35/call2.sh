# Session 35 call 2: the pair tables filled before the programmatic wait
# (TQ_TC_FILL_BEFORE_WAIT=1, the new default) against after it (=0, as
# before), decode_bench at B=1 and B=8, L=1K (issue 7 item 3's misses),
# alternating processes; B=32 L=32K of the new default; then the GPU tier.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
DB=autotune/databases/nvidia-h200-sm_90.json
L=${CALL_LIMIT:-585}
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
rm -rf /tmp/tqc-gpu; tar xJf .carry/tqc-gpu.tar.xz -C /tmp
P="k3v4 k4v4 k3v3 k4v2 k2v2 k8v4"
for p in $P; do
  /tmp/tqc-gpu/tqc --arch sm_90 --preset $p --tuning-db $DB -o /tmp/fb/new/$p > /tmp/fb-new-$p.txt 2>&1 &
  TQC_DEVICE_DEFINES="TQ_TC_FILL_BEFORE_WAIT=0" /tmp/tqc-gpu/tqc --arch sm_90 --preset $p --tuning-db $DB -o /tmp/fb/old/$p > /tmp/fb-old-$p.txt 2>&1 &
done
( cmake -S . -B build-gpu -DTQC_BUILD_COMPILER=OFF -DTQC_GTEST_SOURCE_DIR=$PWD/.carry/googletest > /dev/null 2>&1 && cmake --build build-gpu -j16 --target tqrt tqrt_python > $OUT/r/cmake.txt 2>&1 ) &
wait; echo "== built at ${SECONDS}s"; grep -h "tq_decode_p[01]_bf16" /tmp/fb-*-k4v2.txt
nb() { for p in $P; do echo /tmp/fb/$1/$p; done; }
for i in 1 2; do
  for v in new old; do
    echo "## $v (round $i)" >> $OUT/r/short.txt
    timeout 120 python3 bench/decode_bench.py --tqrt build-gpu/runtime --bundles $(nb $v) --batch 1 8 --context 1024 --reps 50 >> $OUT/r/short.txt 2>&1
  done
done
echo "== short at ${SECONDS}s"; grep -v "^#" $OUT/r/short.txt
timeout 120 python3 bench/decode_bench.py --tqrt build-gpu/runtime --bundles $(nb new) --batch 32 --context 32768 --reps 50 > $OUT/r/long-new.txt 2>&1
echo "== long at ${SECONDS}s"; grep -v "^#" $OUT/r/long-new.txt
tar czf $OUT/call11-a.tgz -C $OUT r
left=$((L - SECONDS)); echo "== tier with ${left}s left"
if [ $left -gt 230 ]; then
  OUT= timeout $((left - 8)) $G /tmp/gt tier > $OUT/r/eval-tier.txt 2>&1
  cp /tmp/gt/gpu-test.txt /tmp/gt/ctest-gpu.txt /tmp/gt/log.txt $OUT/r/ 2>/dev/null; xz -f $OUT/r/gpu-test.txt
  grep -hE "PASSED|FAILED|exit" /tmp/gt/log.txt | head
  grep -E "FAILED|Failure" $OUT/r/eval-tier.txt | head -20
fi
echo "== end at ${SECONDS}s"
tar czf $OUT/call11-b.tgz -C $OUT r
