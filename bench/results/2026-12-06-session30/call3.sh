# Session 30 call 3 (afb3cb6): A/B on causal 4K (k3v4, sm_90a):
# TQ_EXTEND_CHUNK_TILES_DOWN=0 (forward key order; the prep stores) and
# TQ_EXTEND_CHUNK_ONLY_STORES=0 (diagonal first; the prep stores), then the
# default again (same machine, for the spread).
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
cat $OUT/r/gpu.txt
for v in "fwd:0:4096:TQ_EXTEND_CHUNK_TILES_DOWN=0" "nostore:0:4096:TQ_EXTEND_CHUNK_ONLY_STORES=0" "def2:0:4096:"; do
  n=${v%%:*}; rest=${v#*:}; cases=${rest%:*}; defs=${rest##*:}
  TQC_DEVICE_DEFINES="$defs" EXTEND_PRESETS="k3v4" EXTEND_CASES="$cases" BUNDLE_ARCH=sm_90a OUT= timeout 150 $G /tmp/gx-$n extend > $OUT/r/eval-extend-$n.txt 2>&1
  cp /tmp/gx-$n/extend.txt $OUT/r/extend-$n.txt 2>/dev/null; cp /tmp/gx-$n/extend.json $OUT/r/extend-$n.json 2>/dev/null
  echo "== $n ($defs)"; grep -v "^#" /tmp/gx-$n/extend.txt | cut -c1-160; tail -2 $OUT/r/eval-extend-$n.txt
  tar czf $OUT/call3-$n.tgz -C $OUT r
done
