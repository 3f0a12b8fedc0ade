set -x
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
A="--warps-candidates 4,8 --heads-candidates 4 --stages-candidates 3 --block-n-candidates 64"
GRID="TUNE_PRESETS=k3v4 TUNE_GRID_ONLY=1 TUNE_MODES=b2b"
env $GRID TUNE_ARGS="$A" TUNE_TAG=-base $G tuner
env $GRID TUNE_ARGS="$A" TUNE_TAG=-use TQC_DEVICE_DEFINES="TQ_SPLIT_DEEP_MIN_TOKENS=128 TQ_SPLIT_IDLE_WARPS_PER_SM=16" $G tuner
env $GRID TUNE_ARGS="$A" TUNE_TAG=-base2 $G tuner
TQC_COMMIT=6796a20 $G tier
DECODE_PRESETS="k3v4-vllm k8v4 k3v3 k2v2 bf16" $G decode
cd /tmp && tar czf $OUT/gpu-eval.tgz --exclude=work ge
