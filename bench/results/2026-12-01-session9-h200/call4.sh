set -x
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
A="--warps-candidates 4,8 --heads-candidates 4 --stages-candidates 3 --block-n-candidates 64"
GRID="TUNE_PRESETS=k3v4 TUNE_GRID_ONLY=1 TUNE_MODES=b2b"
env $GRID TUNE_ARGS="$A" TUNE_TAG=-new $G tuner
env $GRID TUNE_ARGS="$A" TUNE_TAG=-old TQC_DEVICE_DEFINES="TQ_TC_RING_WARP_SUMS=0 TQ_TC_QUERY_LOADS_FIRST=0" $G tuner
env $GRID TUNE_ARGS="$A" TUNE_TAG=-sums TQC_DEVICE_DEFINES="TQ_TC_QUERY_LOADS_FIRST=0" $G tuner
env $GRID TUNE_ARGS="$A" TUNE_TAG=-new2 $G tuner
TQC_COMMIT=5590fc7 $G tier
cd /tmp && tar czf $OUT/gpu-eval.tgz --exclude=work ge
