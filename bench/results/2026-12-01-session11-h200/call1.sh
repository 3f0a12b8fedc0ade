# The first H200 call of the next session (docs/NOTES.md, "Next on the H200
# (after session 10)"): the two knobs against the default, in one call of
# ~3 min. Copy to .carry/call1.sh; carry .carry/tqc-gpu.tar.xz (packed from
# the current tree), .carry/googletest, .carry/call1.sh; the output is
# $OUT/gpu-eval.tgz (the device tool returns few loose files).
set -x
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
A="--warps-candidates 4,8 --heads-candidates 4 --stages-candidates 3 --block-n-candidates 64"
GRID="TUNE_PRESETS=k3v4 TUNE_GRID_ONLY=1 TUNE_MODES=b2b"
env $GRID TUNE_ARGS="$A" TUNE_TAG=-base $G tuner
env $GRID TUNE_ARGS="$A" TUNE_TAG=-work TQC_DEVICE_DEFINES="TQ_TRIGGER_WITH_WORK=1" $G tuner
# Deepening only from 2048 tokens per split: session 10's base grid has B=1
# at 32K best with 16 splits of 8 warps (20.1 us) where the policy takes 32
# (22.9), and B=8 at 8K best with 2 (29.2) where it takes 4 (30.1).
env $GRID TUNE_ARGS="$A" TUNE_TAG=-deep2k TQC_DEVICE_DEFINES="TQ_SPLIT_DEEP_MIN_TOKENS=2048" $G tuner
env $GRID TUNE_ARGS="$A" TUNE_TAG=-work-deep2k \
  TQC_DEVICE_DEFINES="TQ_TRIGGER_WITH_WORK=1 TQ_SPLIT_DEEP_MIN_TOKENS=2048" $G tuner
# TQ_SM_CLAIM needs a workspace larger than the tuner's: traces only.
tqc=/tmp/tqc-gpu/tqc; T=/tmp/ge/trace; mkdir -p $T
[ -f build-gpu/runtime/libtqrt.so ] || (cmake -S . -B build-gpu -DTQC_BUILD_COMPILER=OFF \
  -DTQC_GTEST_SOURCE_DIR=$PWD/.carry/googletest >/dev/null 2>&1; \
  cmake --build build-gpu -j16 --target tqrt tqrt_python 2>&1 | tail -1)
D="TQ_DEBUG_CTA_TRACE=67108864"; W="TQ_TRIGGER_WITH_WORK=1"; C="TQ_SM_CLAIM=33554432"
for v in "s2w8:$D:--splits 2" "s4w8:$D:--splits 4" "s4w8work:$D $W:--splits 4" \
         "s4w8claim:$D $C:--splits 4" "s4w8both:$D $W $C:--splits 4" \
         "s16w8:$D:--splits 16" "s16w8claim:$D $C:--splits 16"; do
  n=${v%%:*}; r=${v#*:}; defs=${r%%:*}; o=${r#*:}
  TQC_DEVICE_DEFINES="$defs" $tqc --arch sm_90 --preset k3v4 --block-n 64 --stages 3 --warps 8 $o \
    -o /tmp/tb-$n > $T/build-$n.txt 2>&1 &
done; wait
tr() { n=$1; tag=$2; shift 2
  python3 bench/cta_trace.py run --bundle /tmp/tb-$n --launches 12 --tqrt build-gpu/runtime "$@" \
    > $T/raw-$n$tag.txt 2>&1
  python3 bench/cta_trace.py analyze $T/raw-$n$tag.txt > $T/trace-$n$tag.txt 2>&1
  echo "== $n$tag $*"; grep -E "sharing|median time" $T/trace-$n$tag.txt | tail -3; }
for n in s2w8 s4w8 s4w8work s4w8claim s4w8both; do tr $n -b8l1k --batch 8 --context 1024; done
for n in s4w8 s4w8claim; do tr $n -b8l32k --batch 8 --context 32768; done
for n in s16w8 s16w8claim; do tr $n -b1l1k --batch 1 --context 1024; tr $n -b1l32k --batch 1 --context 32768; done
cd /tmp && tar czf $OUT/gpu-eval.tgz --exclude=work ge
