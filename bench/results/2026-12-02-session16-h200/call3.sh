# Session 16's third H200 call: ncu source counters (per SASS instruction)
# of the k3v4 store's 16K-token chunk, to see where its ~1440 instructions
# per warp-token go.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
NCU_STORE_SECTIONS="--section SourceCounters --section InstructionStats --section WarpStateStats" NCU=$PWD/scripts/ncu-source.sh $G ncu-store 2>&1 | tail -3 > $OUT/eval.txt
# ncu-store's sections plus the source counters, on the same launch.
ls /tmp/ge >> $OUT/eval.txt
for f in /tmp/ge/rep-*.sass.csv; do gzip -c "$f" > $OUT/store-sass.csv.gz; done
cp /tmp/ge/ncu-store.txt $OUT/ 2>/dev/null
