# Session 21's first H200 call: session 20's two extend knobs timed against
# the default (k3v4, k4v4; 4K over 0 and over a 28K prefix), 64-token tiles
# with and without overlapped consumers, then ncu of the default k3v4
# warp-specialized kernel at 4K over 28K.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
C="0:4096 28672:4096"
i=0
run_variant() { # name, defines, tqc args
  i=$((i+1)); rm -rf /tmp/gx$i
  TQC_DEVICE_DEFINES="$2" EXTEND_TQC_ARGS="$3" EXTEND_PRESETS="k3v4 k4v4" EXTEND_CASES="$C" \
    BUNDLE_ARCH=sm_90a OUT= timeout 120 $G /tmp/gx$i extend 2>&1 | tail -1 | sed "s/^/$1: /" >> $OUT/eval.txt
  mkdir -p $OUT/$1; cp /tmp/gx$i/extend.txt /tmp/gx$i/extend.json $OUT/$1/ 2>/dev/null
}
run_variant default "" ""
run_variant pairs4 "TQ_EXTEND_PAIR_TABLE_BITS=4" ""
run_variant pairs4-producer "TQ_EXTEND_PAIR_TABLE_BITS=4 TQ_EXTEND_PRODUCER_WARPS=4" ""
run_variant overlap "TQ_EXTEND_OVERLAP=1" ""
run_variant bn64 "" "--extend-block-n 64"
run_variant bn64-overlap "TQ_EXTEND_OVERLAP=1" "--extend-block-n 64"
rm -rf /tmp/gn1
NCU_EXTEND_CASES=28672:4096 NCU_EXTEND_SECTIONS="--section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section InstructionStats --section SchedulerStats" \
  BUNDLE_ARCH=sm_90a OUT= timeout 150 $G /tmp/gn1 ncu-extend 2>&1 | tail -1 >> $OUT/eval.txt
cp /tmp/gn1/ncu-extend.txt $OUT/ 2>/dev/null
tar czf $OUT/logs.tgz -C /tmp gx1/log.txt gx2/log.txt gx3/log.txt gx4/log.txt gx5/log.txt gx6/log.txt gn1/log.txt 2>/dev/null
