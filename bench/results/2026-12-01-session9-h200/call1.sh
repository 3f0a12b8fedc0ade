set -x
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
GRID="TUNE_PRESETS=k3v4 TUNE_MODES=b2b TUNE_GRID_ONLY=1"
env $GRID $G tuner
env $GRID TQC_DEVICE_DEFINES="TQ_SPLIT_MIN_TOKENS=64" TUNE_TAG=-min64 $G tuner
env $GRID TQC_DEVICE_DEFINES="TQ_SPLIT_IDLE_WARPS_PER_SM=4 TQ_SPLIT_DEEP_MIN_TOKENS=2048" TUNE_TAG=-policyA $G tuner
for s in "1 1024" "8 1024"; do set -- $s
  NCU=$PWD/scripts/ncu-source.sh NCU_DECODE_VARIANTS= NCU_DECODE_BATCH=$1 NCU_DECODE_CONTEXT=$2 \
  NCU_DECODE_SECTIONS="--section SpeedOfLight --section LaunchStats --section WarpStateStats --section SourceCounters" $G ncu-decode
  mv /tmp/ge/ncu-decode-k3v4.txt /tmp/ge/ncu-decode-k3v4-b$1-l$2.txt
  for f in /tmp/ge/rep-*.sass.csv; do [ -e "$f" ] && mv "$f" /tmp/ge/src-b$1-l$2.csv; done
  rm -f /tmp/ge/rep-*.ncu-rep
done
cd /tmp && tar czf $OUT/gpu-eval.tgz --exclude=work ge
