# Session 12 call 2 (df9d35a, run-time head split): the GPU tier, the
# exhaustive b2b grids of k3v4/k4v4 (tuner_quality's per-point best), a
# fresh tune of both into the shipped database's copy, and the quality table.
set -x
[ -d .carry/googletest ] || tar xzf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
save() { (cd /tmp && tar czf $OUT/gpu-eval.tgz --exclude=work ge); }
$G tier; save
env TUNE_GRID_ONLY=1 TUNE_MODES=b2b $G tuner; save
[ -x /tmp/tqc-gpu/tqc ] || tar xJf .carry/tqc-gpu.tar.xz -C /tmp; tqc=/tmp/tqc-gpu/tqc
mkdir -p /tmp/ge/db && cp autotune/databases/nvidia-h200-sm_90.json /tmp/ge/db/db.json
for p in k3v4 k4v4; do
  /usr/bin/time -f "$p autotune %e s" $tqc autotune --arch native --preset $p --buckets 1,8,32,64 \
    -o /tmp/ge/db/db.json --report /tmp/ge/db/tune-$p > /tmp/ge/db/tune-$p.txt 2>&1
  echo "$p exit $?"; tail -3 /tmp/ge/db/tune-$p.txt
done
save
for p in k3v4 k4v4; do
  python3 bench/tuner_quality.py /tmp/ge/grid-$p-b2b/timings.csv /tmp/ge/db/db.json --preset $p | tail -14
  python3 bench/tuner_quality.py /tmp/ge/grid-$p-b2b/timings.csv --hindsight | tail -1
done
