# Session 14 call 3: issue 5/9 item 2 against the exhaustive best fixed
# plan. Per preset, `tqc autotune --no-prune` times every candidate at the
# tuner's 5 weighted lengths (log-uniform 256..131072) plus the grid
# lengths 1K/8K/32K as report lengths (weight 0); bench/tuner_quality.py
# then scores the shipped database's plans at the grid lengths against the
# bucket's plan of lowest expected latency (--reference fixed) and against
# each point's fastest plan (--reference point).
tar xJf .carry/tqc-gpu.tar.xz -C /tmp; tqc=/tmp/tqc-gpu/tqc
db=autotune/databases/nvidia-h200-sm_90.json
q=/tmp/q; rm -rf $q; mkdir -p $q
for P in k3v4 k4v4; do
  timeout 285 $tqc autotune --arch native --preset $P --buckets 1,8,32,64 --no-prune \
    --report-lengths 1024,8192,32768 -o $q/exhaustive-$P.json --report $q/exhaustive-$P \
    > $q/exhaustive-$P.txt 2>&1
  echo "$P autotune exit $?"; grep -v 'candidate [0-9]*/' $q/exhaustive-$P.txt | tail -8
  for r in fixed point; do
    python3 bench/tuner_quality.py $q/exhaustive-$P/timings.csv $db --preset $P \
      --reference $r > $q/quality-$r-$P.txt 2>&1; tail -1 $q/quality-$r-$P.txt
  done
  (cd /tmp && tar czf $OUT/q.tgz q)
done
