# Session 16's fourth H200 call: the store's cheaper codes (uniform codes
# in one floor, Lloyd-Max cells from FSET masks): store bench, ncu source
# counters of the 16K-token chunk, then the GPU tier (every kernel against
# the float64 reference, the store's goldens).
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
$G store 2>&1 | tail -2 > $OUT/eval.txt; cp /tmp/ge/store.txt $OUT/
NCU_STORE_SECTIONS="--section SourceCounters --section InstructionStats --section WarpStateStats --section ComputeWorkloadAnalysis --section SpeedOfLight" NCU=$PWD/scripts/ncu-source.sh $G ncu-store 2>&1 | tail -1 >> $OUT/eval.txt
for f in /tmp/ge/rep-*.sass.csv; do gzip -c "$f" > $OUT/store-sass.csv.gz; done
cp /tmp/ge/ncu-store.txt $OUT/ 2>/dev/null
$G tier 2>&1 | tail -3 >> $OUT/eval.txt
cp /tmp/ge/gpu-test.txt $OUT/ 2>/dev/null; tail -5 /tmp/ge/ctest-gpu.txt > $OUT/ctest-gpu-tail.txt 2>/dev/null
ls /tmp/ge >> $OUT/eval.txt
