# Session 18's second H200 call (tree in the commit message of call2): the
# sm_90a GPU tier on the leaner wgmma softmax, then extend_bench over sm_90a
# k3v4 bundles: default (8 warps, block_n 64), block_n 128, 4 warps; k4v4
# default; then ncu source counters of the default (4K causal).
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge /tmp/gx; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest"
TIER_ARCH=sm_90a OUT= $G /tmp/ge tier 2>&1 | tail -3 > $OUT/eval.txt
grep -E "FAILED|Failure" /tmp/ge/gpu-test.txt | head -40 > $OUT/gpu-test-summary.txt
tail -3 /tmp/ge/gpu-test.txt >> $OUT/gpu-test-summary.txt
T=/tmp/tqc-gpu/tqc; W=/tmp/gx/work; mkdir -p $W
$T --arch sm_90a --preset k3v4 -o $W/k3v4 > $W/k3v4.txt 2>&1
$T --arch sm_90a --preset k3v4 --extend-block-n 128 -o $W/k3v4-bn128 > $W/bn128.txt 2>&1
$T --arch sm_90a --preset k3v4 --extend-warps 4 -o $W/k3v4-w4 > $W/w4.txt 2>&1
$T --arch sm_90a --preset k4v4 -o $W/k4v4 > $W/k4v4.txt 2>&1
python3 bench/extend_bench.py --tqrt build-gpu/runtime --bundles $W/k3v4 $W/k3v4-bn128 $W/k3v4-w4 $W/k4v4 \
  --json $OUT/extend.json > $OUT/extend.txt 2>&1
echo "extend_bench exit $?" >> $OUT/eval.txt
mkdir -p /tmp/gx/rep
NCU=$PWD/scripts/ncu-source.sh NCU_REP_DIR=/tmp/gx/rep BUNDLE_ARCH=sm_90a \
  NCU_EXTEND_SECTIONS="--section SpeedOfLight --section WarpStateStats --section SourceCounters --section InstructionStats" \
  OUT= $G /tmp/gx ncu-extend 2>&1 | tail -2 >> $OUT/eval.txt
cp /tmp/gx/ncu-extend.txt $OUT/ncu-extend.txt
gzip -c /tmp/gx/rep/*.sass.csv > $OUT/ncu-source-extend.csv.gz
tar czf $OUT/ge.tgz -C /tmp ge/gpu-test.txt ge/ctest-gpu.txt ge/log.txt ge/bundles.txt
