# Session 27 call 1 (see README.txt for the commit): extend k3v4, the default against FA3's
# ping-pong consumers (TQ_EXTEND_PINGPONG=1) at three register splits.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/r/gpu.txt
cat $OUT/r/gpu.txt
for v in "base::0:4096 0:8192" \
         "co:TQ_EXTEND_CHUNK_ONLY_CTAS=1:0:4096 0:8192" \
         "pp200:TQ_EXTEND_PINGPONG=1 TQ_EXTEND_PRODUCER_REGS=104 TQ_EXTEND_CONSUMER_REGS=200:0:4096"; do
  n=${v%%:*}; rest=${v#*:}; defs=${rest%%:*}; cases=${rest#*:}
  TQC_DEVICE_DEFINES="$defs" EXTEND_PRESETS="k3v4" EXTEND_CASES="$cases" BUNDLE_ARCH=sm_90a OUT= \
    timeout 110 $G /tmp/gx-$n extend > $OUT/r/eval-extend-$n.txt 2>&1
  cp /tmp/gx-$n/extend.txt $OUT/r/extend-$n.txt 2>/dev/null; cp /tmp/gx-$n/extend.json $OUT/r/extend-$n.json 2>/dev/null
  echo "== $n ($defs)"; grep -v "^#" /tmp/gx-$n/extend.txt | cut -c1-120; tail -3 $OUT/r/eval-extend-$n.txt
  tar czf $OUT/call1-$n.tgz -C $OUT r
done
ls -la $OUT
# ncu source counters of the ping-pong kernel (co) on the causal 4K
mkdir -p /tmp/nrep $OUT/n
NCU_REP_DIR=/tmp/nrep timeout 120 bash scripts/ncu-source.sh --kernel-name regex:tq_extend_bf16 --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section SourceCounters \
  python3 bench/extend_bench.py --tqrt build-gpu/runtime --bundles /tmp/gx-co/work/k3v4 \
  --cases 0:4096 --profile > $OUT/n/ncu-co-causal.txt 2>&1
for f in /tmp/nrep/*.sass.csv; do gzip -c $f > $OUT/n/co-causal-sass.csv.gz; done
grep -E "Duration|Compute \(SM\)|Issue Slots|Eligible" $OUT/n/ncu-co-causal.txt | head
tar czf $OUT/call1-ncu.tgz -C $OUT n
ls -la $OUT
