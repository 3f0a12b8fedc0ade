# The first H200 call of the next session (docs/NOTES.md, "Next on the H200
# (after session 11)"), ~13 min: the GPU tier, then re-tune k3v4 and k4v4 now that only CTAs
# with work trigger the next launch (the shipped entries predate it), the
# exhaustive b2b grids for bench/tuner_quality.py, and the decode bench of
# every preset on the new database. Copy to .carry/call1.sh; carry
# .carry/tqc-gpu.tar.xz (packed from the current tree), .carry/googletest.tgz
# (tar czf of /usr/src/googletest's copy: the tree and tqc leave little of
# the tool's 64 MiB), .carry/call1.sh. Output: $OUT/gpu-eval.tgz.
set -x
[ -d .carry/googletest ] || tar xzf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
$G tier # be9f588's store change has not run on the GPU tier yet (docs/NOTES.md)
[ -x /tmp/tqc-gpu/tqc ] || tar xJf .carry/tqc-gpu.tar.xz -C /tmp; tqc=/tmp/tqc-gpu/tqc
mkdir -p /tmp/ge/db && cp autotune/databases/nvidia-h200-sm_90.json /tmp/ge/db/db.json
for p in k3v4 k4v4; do
  /usr/bin/time -f "$p autotune %e s" $tqc autotune --arch native --preset $p --buckets 1,8,32,64 \
    -o /tmp/ge/db/db.json --report /tmp/ge/db/tune-$p > /tmp/ge/db/tune-$p.txt 2>&1
  echo "$p exit $?"; tail -3 /tmp/ge/db/tune-$p.txt
done
env TUNE_GRID_ONLY=1 TUNE_MODES=b2b $G tuner
for p in k3v4 k4v4; do
  python3 bench/tuner_quality.py /tmp/ge/grid-$p-b2b/timings.csv /tmp/ge/db/db.json --preset $p | tail -14
  python3 bench/tuner_quality.py /tmp/ge/grid-$p-b2b/timings.csv --hindsight --what-if free-splits | tail -1
done
cp /tmp/ge/db/db.json autotune/databases/nvidia-h200-sm_90.json # this copy only
DECODE_PRESETS="k3v4 k4v4 k8v4 k3v3 k4v2 k2v2 bf16" $G decode
tail -40 /tmp/ge/decode.txt
cd /tmp && tar czf $OUT/gpu-eval.tgz --exclude=work ge
