# Session 26's third GPU call (02cfedc's kernels): the prep's shape knobs
# A/B on the causal 4K (k3v4): 4 warps x 2 rows (default) and 4 x 1;
# each the extend bench (plain and fused rounds) and ncu SpeedOfLight
# of the plain and the fused prep.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
N="/usr/local/cuda/bin/ncu --nvtx --kernel-name regex:tq_extend_prep_bf16 --section SpeedOfLight"
for v in "w4r2:TQ_EXTEND_PREP_WARPS=4" "w4r1:TQ_EXTEND_PREP_ROWS_PER_WARP=1"; do
  n=${v%%:*}; d=${v#*:}; d=${d//,/ }
  TQC_DEVICE_DEFINES="$d" EXTEND_PRESETS="k3v4" EXTEND_CASES="0:4096" BUNDLE_ARCH=sm_90a OUT= \
    timeout 80 $G /tmp/gx-$n extend > $OUT/r/eval-extend-$n.txt 2>&1
  cp /tmp/gx-$n/extend.txt $OUT/r/extend-$n.txt; cp /tmp/gx-$n/extend.json $OUT/r/extend-$n.json
  echo "== $n ($d)"; grep -v "^#" /tmp/gx-$n/extend.txt | cut -c1-100 | tail -1; grep -o "fused store:.*" /tmp/gx-$n/extend.txt
  for k in plain fused; do
    timeout 60 $N --nvtx-include "tqc_$k/" python3 bench/extend_bench.py --tqrt build-gpu/runtime \
      --bundles /tmp/gx-$n/work/k3v4 --profile --cases 0:4096 > $OUT/r/ncu-prep-$k-$n.txt 2>&1
    echo "$k prep: $(grep -E ' Duration' $OUT/r/ncu-prep-$k-$n.txt | tr -s ' ')"
  done
done
tar czf $OUT/call3.tgz -C $OUT r && rm -rf $OUT/r
ls -la $OUT
