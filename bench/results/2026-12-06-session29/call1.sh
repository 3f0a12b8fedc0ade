# Session 29 call 1 (81a3cd7): the chunk-only CTAs'
# producer storing its own tokens from its last tiles, and their raw
# epilogue (rows in T through shared memory, a bulk copy per row):
# extend_bench k3v4 by default (causal 4K, 8K, 4K over 28K), then causal 4K
# with each change off (TQ_EXTEND_RAW_EPILOGUE=0, TQ_EXTEND_CHUNK_ONLY_STORES=0).
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
cat $OUT/r/gpu.txt
for v in "def:0:4096 0:8192 28672:4096:" "noraw:0:4096:TQ_EXTEND_RAW_EPILOGUE=0" "nostore:0:4096:TQ_EXTEND_CHUNK_ONLY_STORES=0"; do
  n=${v%%:*}; rest=${v#*:}; cases=${rest%:*}; defs=${rest##*:}
  TQC_DEVICE_DEFINES="$defs" EXTEND_PRESETS="k3v4" EXTEND_CASES="$cases" BUNDLE_ARCH=sm_90a OUT= timeout 150 $G /tmp/gx-$n extend > $OUT/r/eval-extend-$n.txt 2>&1
  cp /tmp/gx-$n/extend.txt $OUT/r/extend-$n.txt 2>/dev/null; cp /tmp/gx-$n/extend.json $OUT/r/extend-$n.json 2>/dev/null
  echo "== $n ($defs)"; grep -v "^#" /tmp/gx-$n/extend.txt | cut -c1-150; tail -2 $OUT/r/eval-extend-$n.txt
  tar czf $OUT/call1-$n.tgz -C $OUT r
done
