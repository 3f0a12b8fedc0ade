set -x
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
A="--warps-candidates 4,8 --heads-candidates 4 --stages-candidates 3 --block-n-candidates 64"
GRID="TUNE_PRESETS=k3v4 TUNE_GRID_ONLY=1"
env $GRID TUNE_MODES=b2b TUNE_ARGS="$A" TUNE_TAG=-base $G tuner
env $GRID TUNE_MODES=b2b TUNE_ARGS="$A" TUNE_TAG=-plain TQRT_PLAIN_LAUNCH=1 $G tuner
env $GRID TUNE_MODES=b2b TUNE_ARGS="$A" TUNE_TAG=-early TQC_DEVICE_DEFINES="TQ_DEPENDENT_LAUNCH_EARLY=1" $G tuner
env $GRID TUNE_MODES=b2b TUNE_ARGS="$A" TUNE_TAG=-lens TQC_DEVICE_DEFINES="TQ_EXPERIMENT_LENS_BEFORE_WAIT=1" $G tuner
env $GRID TUNE_MODES=isolate TUNE_ARGS="$A" TUNE_TAG=-base $G tuner
env $GRID TUNE_MODES=b2b TUNE_ARGS="$A" TUNE_TAG=-base2 $G tuner
NCU_DECODE_VARIANTS="s1:--splits,1 s2:--splits,2" NCU_DECODE_BATCH=32 NCU_DECODE_CONTEXT=1024 \
  NCU_DECODE_BASE="--block-n 64 --warps 4 --stages 3" NCU_DECODE_SECTIONS="--section SpeedOfLight --section LaunchStats --section Occupancy" $G ncu-decode
cd /tmp && tar czf $OUT/gpu-eval.tgz --exclude=work ge
