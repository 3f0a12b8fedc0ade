# Session 13 call 2 (half path default + queries before the branch):
# exhaustive b2b grids and re-tune of k3v4/k4v4 (tuner stage, b2b only).
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
TUNE_MODES=b2b $G tuner
for p in k3v4 k4v4; do
  python3 bench/tuner_quality.py /tmp/ge/grid-$p-b2b/timings.csv /tmp/ge/db-b2b.json --preset $p | tail -13
  python3 bench/tuner_quality.py /tmp/ge/grid-$p-b2b/timings.csv --hindsight | tail -1
done
cd /tmp && tar czf $OUT/gpu-eval.tgz --exclude=work ge
