# Session 16's fifth H200 call: the store's sign-bit cells and biased
# packing: store bench, ncu source counters of the 16K-token chunk, the
# extend bench (its store row: a 4K chunk against SDPA's causal time).
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
$G store 2>&1 | tail -2 > $OUT/eval.txt; cp /tmp/ge/store.txt $OUT/
NCU_STORE_SECTIONS="--section SourceCounters --section InstructionStats --section WarpStateStats --section ComputeWorkloadAnalysis --section SpeedOfLight" NCU=$PWD/scripts/ncu-source.sh $G ncu-store 2>&1 | tail -1 >> $OUT/eval.txt
for f in /tmp/ge/rep-*.sass.csv; do gzip -c "$f" > $OUT/store-sass.csv.gz; done
for f in /tmp/ge/rep-*.ncu-rep; do /usr/local/cuda/bin/ncu -i "$f" --page details > $OUT/ncu-store-details.txt 2>&1; done
timeout 240 $G extend 2>&1 | tail -2 >> $OUT/eval.txt; cp /tmp/ge/extend.txt $OUT/ 2>/dev/null
