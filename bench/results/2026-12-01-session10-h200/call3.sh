set -x
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
DECODE_PRESETS="k3v4 k4v4 k8v4 k3v3 k4v2 k2v2 bf16" $G decode
tqc=/tmp/tqc-gpu/tqc
T=/tmp/ge/trace; mkdir -p $T
for v in "s2w8:--splits 2 --warps 8" "s4w8:--splits 4 --warps 8" "s1w8:--splits 1 --warps 8" "s4w4:--splits 4 --warps 4" "s8w4:--splits 8 --warps 4"; do
  n=${v%%:*}; o=${v#*:}
  TQC_DEVICE_DEFINES="TQ_DEBUG_CTA_TRACE=1" $tqc --arch sm_90 --preset k3v4 --block-n 64 --stages 3 $o -o /tmp/tb-$n > $T/build-$n.txt 2>&1 &
done; wait
for v in s2w8:2 s4w8:4 s1w8:1 s4w4:4 s8w4:8; do
  n=${v%%:*}; s=${v#*:}
  python3 bench/cta_trace.py run --bundle /tmp/tb-$n --batch 8 --context 1024 --launches 8 --tqrt build-gpu/runtime > $T/raw-$n.txt 2>&1
  python3 bench/cta_trace.py analyze $T/raw-$n.txt --ctas $((64*s)) > $T/trace-$n.txt 2>&1
  head -c 3000 $T/trace-$n.txt
done
cd /tmp && tar czf $OUT/gpu-eval.tgz --exclude=work ge
