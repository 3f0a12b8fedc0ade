# Session 19's first H200 call (tree: commit after 5223f5d, ncu-extend cases
# knob): the GPU tier with sm_90a bundles (prefix dequantization to fp16
# pairs with the fixed 4-bit selectors, a417e00/49d3657), extend_bench over
# sm_90a k3v4/k4v4 defaults, ncu source counters of the k3v4 extend over a
# 28K prefix (4K chunk), and the kernel's SASS.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge /tmp/gx; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
TIER_ARCH=sm_90a OUT= $G /tmp/ge tier 2>&1 | tail -3 > $OUT/eval.txt
grep -E "FAILED|Failure" /tmp/ge/gpu-test.txt | head -40 > $OUT/gpu-test-summary.txt
tail -3 /tmp/ge/gpu-test.txt >> $OUT/gpu-test-summary.txt
BUNDLE_ARCH=sm_90a OUT= $G /tmp/gx extend 2>&1 | tail -2 >> $OUT/eval.txt
cp /tmp/gx/extend.txt $OUT/extend.txt; cp /tmp/gx/extend.json $OUT/extend.json
mkdir -p /tmp/gx/rep
NCU=$PWD/scripts/ncu-source.sh NCU_REP_DIR=/tmp/gx/rep BUNDLE_ARCH=sm_90a NCU_EXTEND_CASES=28672:4096 \
  NCU_EXTEND_SECTIONS="--section SpeedOfLight --section WarpStateStats --section SourceCounters --section InstructionStats --section SchedulerStats" \
  OUT= $G /tmp/gx ncu-extend 2>&1 | tail -2 >> $OUT/eval.txt
cp /tmp/gx/ncu-extend.txt $OUT/ncu-extend.txt
gzip -c /tmp/gx/rep/*.sass.csv > $OUT/ncu-source-extend.csv.gz
/usr/local/cuda/bin/cuobjdump -sass -fun tq_extend_bf16 /tmp/gx/work/k3v4/kernels.cubin | gzip > $OUT/extend-sass.txt.gz
tar czf $OUT/ge.tgz -C /tmp ge/gpu-test.txt ge/ctest-gpu.txt ge/log.txt ge/bundles.txt gx/log.txt
