# The first H200 call of the next session (docs/NOTES.md, "Run-time head
# split (session 12)"): where a 4-heads decode CTA spends the ~1 us it takes
# more than a 2-heads one over the same tokens. CTA traces with phase marks
# (decode.h CtaTrace: prologue barrier, main loop done, ticket drawn) of
# k3v4, BLOCK_N 64, 16 splits, 8 warps, 3 stages, 4 and 2 heads per CTA,
# at B=1 and B=8, L=1K; then the half-group path (decode.h
# TQ_SHORT_HALF_HEADS=1, an experiment): the GPU tier with it on, and the
# k3v4/k4v4 exhaustive grids with it on, scored against run1's (off) by
# bench/tuner_quality.py --hindsight (run1 what-if: 10/12, 9/12). ~10 min.
# Before the call, on the build machine: pack tqc (scripts/pack-tqc-for-gpu.sh
# build .carry/tqc-gpu.tar.xz), move bench/results out of the tree (mv
# bench/results /tmp/hold && mkdir bench/results; back afterwards: the
# tree would not fit the device tool's 64 MiB), copy this file to
# .carry/call1.sh; carry .carry/tqc-gpu.tar.xz, .carry/googletest.tgz
# (googletest without docs/samples/tests, tar cJf) and .carry/call1.sh.
set -x
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
tar xJf .carry/tqc-gpu.tar.xz -C /tmp; tqc=/tmp/tqc-gpu/tqc; T=$OUT/trace; mkdir -p $T
(cmake -S . -B build-trace -DTQC_BUILD_COMPILER=OFF -DTQC_GTEST_SOURCE_DIR=$PWD/.carry/googletest >/dev/null 2>&1
 cmake --build build-trace -j16 --target tqrt tqrt_python 2>&1 | tail -1) &
for h in 2 4; do
  python3 - $h <<'PY'
import json, sys
h = int(sys.argv[1])
e = [{"gpu": "NVIDIA H200", "arch": "sm_90", "sm_count": 132, "preset": "k3v4",
      "head_dim": 128, "gqa_ratio": 4, "bucket": b,
      "plan": {"block_n": 64, "splits": 16, "warps": 8, "heads_per_cta": h, "stages": 3},
      "expected_us": 1.0, "contexts": "trace"} for b in (1, 8, 32, 64)]
json.dump({"schema": "tqc.tuning", "schema_version": 1, "entries": e}, open(f"/tmp/db-h{h}.json", "w"))
PY
  TQC_DEVICE_DEFINES="TQ_DEBUG_CTA_TRACE=67108864" $tqc --arch sm_90 --preset k3v4 \
    --tuning-db /tmp/db-h$h.json -o /tmp/tb-h$h > $T/build-h$h.txt 2>&1 &
done; wait
for B in 1 8; do for h in 4 2; do
  python3 bench/cta_trace.py run --bundle /tmp/tb-h$h --batch $B --context 1024 --launches 12 \
    --tqrt build-trace/runtime > $T/raw-h$h-b$B.txt 2>&1
  python3 bench/cta_trace.py analyze $T/raw-h$h-b$B.txt > $T/trace-h$h-b$B.txt 2>&1
  echo "== heads/CTA $h, B=$B"; grep -E "phases|median time" $T/trace-h$h-b$B.txt | tail -3
done; done

# The half-group path: correctness on the GPU, then the grids.
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
TQC_DEVICE_DEFINES="TQ_SHORT_HALF_HEADS=1" $G tier 2>&1 | tail -25 | tee $OUT/tier.txt
TQC_DEVICE_DEFINES="TQ_SHORT_HALF_HEADS=1" TUNE_GRID_ONLY=1 TUNE_MODES=b2b TUNE_TAG=-half $G tuner
for p in k3v4 k4v4; do
  python3 bench/tuner_quality.py /tmp/ge/grid-half-$p-b2b/timings.csv --hindsight | tee -a $OUT/quality.txt | tail -13
done
cd /tmp && tar czf $OUT/gpu-eval.tgz --exclude=work ge
