set -x
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
GRID="TUNE_PRESETS=k3v4 TUNE_MODES=b2b TUNE_GRID_ONLY=1"
env $GRID TQC_DEVICE_DEFINES="TQ_SPLIT_ORDER_REVERSED=1" TUNE_TAG=-rev $G tuner
env $GRID $G tuner
env $GRID TQC_DEVICE_DEFINES="TQ_SPLIT_ORDER_REVERSED=1 TQ_SPLIT_IDLE_WARPS_PER_SM=4 TQ_SPLIT_DEEP_MIN_TOKENS=2048" TUNE_TAG=-revA $G tuner
cd /tmp && tar czf $OUT/gpu-eval.tgz --exclude=work ge
