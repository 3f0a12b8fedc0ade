# Session 15's third H200 call (~8 min): tunes of k4v2 and k2v2 with ring
# plans (3 stages) merged into the shipped database (which holds call 2's
# k8v4 and k3v3 tunes), then the decode bench of every preset on it (issue
# 6/9 items 2 and 3).
# Carry .carry/tqc-gpu.tar.xz, .carry/googletest.tgz and this file as
# .carry/call3.sh; bench/results moved out of the tree for the call.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
tar xJf .carry/tqc-gpu.tar.xz -C /tmp; tqc=/tmp/tqc-gpu/tqc
db=autotune/databases/nvidia-h200-sm_90.json
for p in k4v2 k2v2; do
  timeout 150 $tqc autotune --arch native --preset $p --buckets 1,8,32,64 \
    --stages-candidates 3 -o $db --report /tmp/tune-$p > /tmp/tune-$p.txt 2>&1
  echo "$p: exit $?" >> $OUT/tune.txt
  grep -v 'candidate [0-9]*/' /tmp/tune-$p.txt | tail -9 >> $OUT/tune.txt
  cp /tmp/tune-$p/timings.csv $OUT/timings-$p.csv 2>/dev/null
done
cp $db $OUT/db.json
DECODE_PRESETS="k3v4 k4v4 k8v4 k3v3 k4v2 k2v2 bf16" timeout 300 $G decode 2>&1 | tail -2
cp /tmp/ge/decode.txt /tmp/ge/decode.json $OUT/ 2>/dev/null; cp /tmp/ge/log.txt $OUT/log.txt
