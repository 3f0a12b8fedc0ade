# Session 18's first H200 call (tree 03e6ccf = 93afb90 kernels): the GPU tier
# with sm_90a bundles (wgmma extend after 4cc3370's softmax and 93afb90's
# KvTileStream fold), extend_bench over sm_90a bundles, ncu of the wgmma
# extend (4K causal) with source counters, and the kernel's SASS.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge /tmp/gx; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
TIER_ARCH=sm_90a OUT= $G /tmp/ge tier 2>&1 | tail -3 > $OUT/eval.txt
grep -E "FAILED|Failure" /tmp/ge/gpu-test.txt | head -40 > $OUT/gpu-test-summary.txt
tail -3 /tmp/ge/gpu-test.txt >> $OUT/gpu-test-summary.txt
BUNDLE_ARCH=sm_90a OUT= $G /tmp/gx extend 2>&1 | tail -2 >> $OUT/eval.txt
cp /tmp/gx/extend.txt $OUT/extend.txt
mkdir -p /tmp/gx/rep
NCU=$PWD/scripts/ncu-source.sh NCU_REP_DIR=/tmp/gx/rep BUNDLE_ARCH=sm_90a \
  NCU_EXTEND_SECTIONS="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SourceCounters --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section InstructionStats --section SchedulerStats" \
  OUT= $G /tmp/gx ncu-extend 2>&1 | tail -2 >> $OUT/eval.txt
cp /tmp/gx/ncu-extend.txt $OUT/ncu-extend.txt
gzip -c /tmp/gx/rep/*.sass.csv > $OUT/ncu-source-extend.csv.gz
/usr/local/cuda/bin/cuobjdump -sass -fun tq_extend_bf16 /tmp/gx/work/k3v4/kernels.cubin | gzip > $OUT/extend-sass.txt.gz
tar czf $OUT/ge.tgz -C /tmp ge/gpu-test.txt ge/ctest-gpu.txt ge/log.txt ge/bundles.txt gx/log.txt
ls -la $OUT >> $OUT/eval.txt
