#!/usr/bin/env bash
# An ncu wrapper for gpu-eval.sh's ncu-decode stage (NCU=$PWD/scripts/ncu-source.sh):
# profiles with the stage's arguments, keeps the report under NCU_REP_DIR
# (default /tmp/ge, gpu-eval's usual output folder, so it comes back with
# the rest), and exports ncu's source page beside it as CSV: the stall
# samples and executed instructions of every SASS instruction, what shows
# where a kernel's loop spends its time (bench/results/2026-12-01-session8-h200).
out=${NCU_REP_DIR:-/tmp/ge}/rep-$(date +%s%N)
ncu=${NCU_BIN:-/usr/local/cuda/bin/ncu}
"$ncu" -o "$out" "$@"
rc=$?
"$ncu" -i "$out.ncu-rep" --page source --csv --print-source sass >"$out.sass.csv" 2>&1
exit $rc
