# Session 29 call 2: the sm_90a GPU tier (extend correctness against the
# float64 reference, fused store bytes against the store kernel's) on the
# kernels of call 1.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
TIER_ARCH=sm_90a OUT= timeout 330 $G /tmp/ge1 tier > $OUT/r/eval-tier.txt 2>&1
cp /tmp/ge1/*.txt $OUT/r/ 2>/dev/null; tail -5 $OUT/r/eval-tier.txt; grep -hE "tests passed|FAILED" /tmp/ge1/*.txt | head
tar czf $OUT/call2-tier.tgz -C $OUT r
