set -x
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
TUNE_PRESETS="k3v4 k4v4" TUNE_MODES=b2b $G tuner
python3 -c "import json; d=json.load(open('/tmp/ge/db-b2b.json')); print(len(d.get('entries', d)))"
cp /tmp/ge/db-b2b.json autotune/databases/nvidia-h200-sm_90.json
TQC_COMMIT=5590fc7 $G decode
cd /tmp && tar czf $OUT/gpu-eval.tgz --exclude=work ge
