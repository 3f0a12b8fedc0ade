# Session 15's second H200 call (~9 min): the GPU tier on the k8v4 ring
# (fp8 keys take the shared-memory ring at head_dim <= 128 now:
# TQ_TC_RING_WORDS, decode_tc.h), then tunes of k8v4 and k3v3 (ring plans,
# 3 stages; neither preset had been tuned with the ring) merged into a copy
# of the shipped database (tqc autotune -o merges).
# Carry .carry/tqc-gpu.tar.xz, .carry/googletest.tgz and this file as
# .carry/call2.sh; bench/results moved out of the tree for the call.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
$G tier 2>&1 | tail -3 | tee $OUT/tier.txt
cp /tmp/ge/gpu-test.txt $OUT/ 2>/dev/null
tqc=/tmp/tqc-gpu/tqc
cp autotune/databases/nvidia-h200-sm_90.json /tmp/db.json
for p in k8v4 k3v3; do
  timeout 170 $tqc autotune --arch native --preset $p --buckets 1,8,32,64 \
    --stages-candidates 3 -o /tmp/db.json --report /tmp/tune-$p > /tmp/tune-$p.txt 2>&1
  echo "$p: exit $?" >> $OUT/tune.txt
  grep -v 'candidate [0-9]*/' /tmp/tune-$p.txt | tail -12 >> $OUT/tune.txt
  cp /tmp/tune-$p/timings.csv $OUT/timings-$p.csv 2>/dev/null
done
cp /tmp/db.json $OUT/db.json
