# Session 33 call 1 (kernels of 5fa8db5): extend_bench k3v4 on sm_90a bundles
# with the split store on (TQ_EXTEND_CONSUMER_VALUE_STORES=1: producer keys,
# consumer warpgroup 0 values) for causal 4K, causal 8K and 4K over a 28K
# prefix; then (last, if time is left) causal 4K with the default (session 29's form) as the same-
# machine baseline; every row checked against the float64 reference first.
# Between them the sm_90a GPU tier with the split on (fused-store bytes against the
# store kernel's, extend against float64).
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
cat $OUT/r/gpu.txt
git rev-parse HEAD > $OUT/r/commit.txt 2>/dev/null
ext() {
  v=$1
  n=${v%%:*}; rest=${v#*:}; cases=${rest%:*}; defs=${rest##*:}
  TQC_DEVICE_DEFINES="$defs" EXTEND_PRESETS="k3v4" EXTEND_CASES="$cases" BUNDLE_ARCH=sm_90a OUT= timeout 180 $G /tmp/gx-$n extend > $OUT/r/eval-extend-$n.txt 2>&1
  cp /tmp/gx-$n/extend.txt $OUT/r/extend-$n.txt 2>/dev/null; cp /tmp/gx-$n/extend.json $OUT/r/extend-$n.json 2>/dev/null
  echo "== $n ($defs) at ${SECONDS}s"; grep -v "^#" /tmp/gx-$n/extend.txt | cut -c1-170; tail -2 $OUT/r/eval-extend-$n.txt
  tar czf $OUT/call1-$n.tgz -C $OUT r
}
ext "split:0:4096 0:8192 28672:4096:TQ_EXTEND_CONSUMER_VALUE_STORES=1"
left=$((${CALL_LIMIT:-590} - SECONDS)); echo "== tier with ${left}s left"
[ $left -gt 240 ] && TQC_DEVICE_DEFINES="TQ_EXTEND_CONSUMER_VALUE_STORES=1" TIER_ARCH=sm_90a OUT= timeout $((left - 8)) $G /tmp/ge1 tier > $OUT/r/eval-tier.txt 2>&1
cp /tmp/ge1/*.txt $OUT/r/ 2>/dev/null; echo "== tier at ${SECONDS}s"; tail -5 $OUT/r/eval-tier.txt; grep -hE "tests passed|FAILED|overrides" /tmp/ge1/*.txt $OUT/r/eval-tier.txt | head
tar czf $OUT/call1-tier.tgz -C $OUT r
left=$((${CALL_LIMIT:-590} - SECONDS)); echo "== baseline with ${left}s left"
[ $left -gt 45 ] && ext "def:0:4096:"
cp -r /tmp/gx-def/*.txt $OUT/r/ 2>/dev/null
tar czf $OUT/call1-def.tgz -C $OUT r
# Last: store_bench (default kernels, sm_90 bundles) to time session 32's two
# store cuts against session 16's 40.7 us (16K chunk) / 3.68 us (B=32 step).
left=$((${CALL_LIMIT:-590} - SECONDS)); echo "== store with ${left}s left"
[ $left -gt 50 ] && OUT= timeout $((left - 5)) $G /tmp/gs store > $OUT/r/eval-store.txt 2>&1
cp /tmp/gs/store.txt /tmp/gs/store.json $OUT/r/ 2>/dev/null; grep -v "^#" /tmp/gs/store.txt | head -20; tail -3 $OUT/r/eval-store.txt
tar czf $OUT/call1-store.tgz -C $OUT r
