# Session 30 call 2 (the kernels of afb3cb6): the
# chunk-only CTAs walk their key tiles from the diagonal down, and two of
# the producer's four warps stage the CTA's own rows out of the diagonal
# tile and store them while the consumers compute. extend_bench k3v4
# (causal 4K, 8K, 4K over 28K) on the default kernels, then the sm_90a GPU
# tier (extend correctness against float64, fused store bytes).
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
cat $OUT/r/gpu.txt
for v in "def:0:4096 0:8192 28672:4096:"; do
  n=${v%%:*}; rest=${v#*:}; cases=${rest%:*}; defs=${rest##*:}
  TQC_DEVICE_DEFINES="$defs" EXTEND_PRESETS="k3v4" EXTEND_CASES="$cases" BUNDLE_ARCH=sm_90a OUT= timeout 200 $G /tmp/gx-$n extend > $OUT/r/eval-extend-$n.txt 2>&1
  cp /tmp/gx-$n/extend.txt $OUT/r/extend-$n.txt 2>/dev/null; cp /tmp/gx-$n/extend.json $OUT/r/extend-$n.json 2>/dev/null
  echo "== $n ($defs)"; grep -v "^#" /tmp/gx-$n/extend.txt | cut -c1-160; tail -2 $OUT/r/eval-extend-$n.txt
  tar czf $OUT/call2-$n.tgz -C $OUT r
done
TIER_ARCH=sm_90a OUT= timeout 340 $G /tmp/ge1 tier > $OUT/r/eval-tier.txt 2>&1
cp /tmp/ge1/*.txt $OUT/r/ 2>/dev/null; tail -5 $OUT/r/eval-tier.txt; grep -hE "tests passed|FAILED" /tmp/ge1/*.txt | head
tar czf $OUT/call2-tier.tgz -C $OUT r
