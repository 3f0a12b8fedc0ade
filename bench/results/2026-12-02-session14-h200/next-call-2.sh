# Session 15's second H200 call (~6 min): fresh `tqc autotune` runs of
# k3v4 and k4v4 (the normal pruned tuner) scored against session 14's
# exhaustive tables (issue 5/9 item 2, --reference fixed and point). Copy
# bench/results/2026-12-02-session14-h200/run3/exhaustive-{k3v4,k4v4}/timings.csv
# to .carry/ex-k3v4.csv and .carry/ex-k4v4.csv and carry them with
# .carry/tqc-gpu.tar.xz and this file.
tar xJf .carry/tqc-gpu.tar.xz -C /tmp; tqc=/tmp/tqc-gpu/tqc
mkdir -p /tmp/t
for P in k3v4 k4v4; do
  timeout 170 $tqc autotune --arch native --preset $P --buckets 1,8,32,64 \
    -o /tmp/t/tune-$P.json --report /tmp/t/tune-$P > /tmp/t/tune-$P.txt 2>&1
  grep -v 'candidate [0-9]*/' /tmp/t/tune-$P.txt | tail -7
  for r in fixed point; do
    python3 bench/tuner_quality.py .carry/ex-$P.csv /tmp/t/tune-$P.json --preset $P \
      --reference $r | tee /tmp/t/quality-$r-$P.txt | tail -1
  done
  (cd /tmp && tar czf $OUT/t.tgz t)
done
