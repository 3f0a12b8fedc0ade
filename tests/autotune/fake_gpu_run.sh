#!/bin/sh
# `tqc autotune` end to end on the fake driver (FakeCudaDriver.cpp): real
# candidate bundles (NVRTC/nvJitLink), the whole measurement loop on the
# CPU, then the database read back by `tqc --tuning-db`, the report, and the
# fake's counters: nothing left allocated or alive, every pointer and block
# table in range, no block read twice per replay, > 4x L2 read per replay.
# Usage: fake_gpu_run.sh TQC FAKE_LIBCUDA WORKDIR
set -u
tqc=$1 fake=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir" || exit 1
fail() { echo "FAIL: $*"; echo "--- stderr:"; cat "$dir/err.txt"; exit 1; }

# 8 warps (256 threads) fail to launch: those candidates are recorded as
# failed and the run goes on. k3v4, D=128, block size 16: 15104-byte blocks.
# The fake GPU is an sm_90 part and k3v4 takes the decode's copy ring there,
# so the default stages are {2, 3}: 12 candidates. 2048 is a report length:
# timed (timings.csv, weight 0) but not weighed in the choice.
TQRT_LIBCUDA=$fake FAKE_CUDA_STATS=$dir/stats.txt FAKE_CUDA_L2=1048576 \
FAKE_CUDA_BLOCK_STRIDE=15104 FAKE_CUDA_BLOCK_SIZE=16 FAKE_CUDA_FAIL_THREADS=256 \
  "$tqc" autotune --preset k3v4 --buckets 4,1 --contexts 256:8192 \
    --context-points 3 --report-lengths 2048 --block-n-candidates 64 \
    --split-candidates 1,4,16 --warps-candidates 4,8 --heads-candidates 4 \
    --reps 5 --jobs 2 -o "$dir/tune.json" --report "$dir/report" >"$dir/out.txt" 2>"$dir/err.txt" \
  || fail "tqc autotune exited with $?"

grep -q "device 0: Fake GPU, sm_90, 132 SMs, 1 MiB L2" "$dir/err.txt" || fail "no device line"
grep -q "compiling 12 candidates (.* x stages {2,3})" "$dir/err.txt" || fail "no compile line"
grep -q "bucket 1 (1/2)  L=8192 (1/4)  candidate 1/12" "$dir/err.txt" || fail "no progress line"
grep -q "contexts: log-uniform 256..8192, 3 points + 1 report length" "$dir/err.txt" || fail "no contexts line"
grep -q "failed: TQRT_CUDA_ERROR: tqrt_launch_decode: launching decode_p" "$dir/err.txt" || fail "8-warp candidates did not fail"
grep -q "^  bucket 1     BLOCK_N 64, .* 4 warps" "$dir/out.txt" || fail "no plan for bucket 1"
grep -q "^total time" "$dir/out.txt" || fail "no total time"
grep -q "bucket 4: the 3 leaders timed twice" "$dir/err.txt" || fail "no confirmation pass"
for f in report.md timings.csv heatmap_b1.svg heatmap_b4.svg; do
  test -s "$dir/report/$f" || fail "report/$f missing"
done
grep -q "failed" "$dir/report/report.md" || fail "report lacks the failures"
grep -q "^1,64,1,4,4,2,2048,0,[0-9]" "$dir/report/timings.csv" || fail "report length 2048 not timed with weight 0"

# Everything freed, nothing out of range, cold L2 on every replay.
for key in live_bytes modules streams events graphs execs context_refs \
           bad_ranges bad_blocks duplicate_blocks; do
  v=$(awk -v k=$key '$1 == k { print $2 }' "$dir/stats.txt")
  test "$v" = 0 || fail "fake driver: $key is '$v', expected 0"
done
awk '$1 == "allocs" { a = $2 } $1 == "frees" { f = $2 }
     END { exit !(a > 0 && a == f) }' "$dir/stats.txt" || fail "allocs != frees"
awk '$1 == "min_replay_bytes" { exit !($2 > 4 * 1048576) }' "$dir/stats.txt" \
  || fail "a replay read 4x L2 or less"

# The database is what `tqc --tuning-db` reads.
"$tqc" --emit=mlir --tuning-db "$dir/tune.json" >"$dir/mlir.txt" 2>>"$dir/err.txt" \
  || fail "tqc --tuning-db refused the database"
grep -q 'tq.plan_source = "tuning database tune.json (Fake GPU, 132 SMs)"' \
  "$dir/mlir.txt" || fail "plans not taken from the database"

# A kernel fault in bucket 4 (the second) stops the run with the candidate
# named; bucket 1, measured before, is still written, nothing leaks, and
# the exit status says it failed.
TQRT_LIBCUDA=$fake FAKE_CUDA_STATS=$dir/stats2.txt FAKE_CUDA_L2=1048576 \
FAKE_CUDA_BLOCK_STRIDE=15104 FAKE_CUDA_BLOCK_SIZE=16 FAKE_CUDA_FAULT_BATCH=4 \
  "$tqc" autotune --preset k3v4 --buckets 1,4 --contexts 1024 \
    --block-n-candidates 64 --split-candidates 1,4 --warps-candidates 4 \
    --heads-candidates 4 --reps 3 -o "$dir/partial.json" \
    >"$dir/out2.txt" 2>"$dir/err2.txt" && fail "a kernel fault did not fail the run"
grep -q "tqc: error: running BLOCK_N 64, .* (bucket 4, 1024 tokens): CUDA_ERROR_ILLEGAL_ADDRESS (fake driver); the CUDA context is unusable after this, so the run stops .* (the buckets measured before it were written)" \
  "$dir/err2.txt" || fail "no clear error for the fault: $(tail -1 "$dir/err2.txt")"
grep -q '"bucket":1,' "$dir/partial.json" || fail "bucket 1 was not written"
grep -q '"bucket":4,' "$dir/partial.json" && fail "bucket 4 was written"
for key in live_bytes modules streams events graphs execs context_refs; do
  v=$(awk -v k=$key '$1 == k { print $2 }' "$dir/stats2.txt")
  test "$v" = 0 || fail "after the fault: $key is '$v', expected 0"
done
# --isolate: a memset node before every timed decode, its time measured
# alone and subtracted; the run completes, nothing leaks.
TQRT_LIBCUDA=$fake FAKE_CUDA_STATS=$dir/stats3.txt FAKE_CUDA_L2=1048576 \
FAKE_CUDA_BLOCK_STRIDE=15104 FAKE_CUDA_BLOCK_SIZE=16 \
  "$tqc" autotune --preset k3v4 --buckets 1 --contexts 1024 --isolate \
    --block-n-candidates 64 --split-candidates 1,4 --warps-candidates 4 \
    --heads-candidates 4 --reps 3 -o "$dir/isolated.json" \
    >"$dir/out3.txt" 2>"$dir/err3.txt" || fail "--isolate run exited with $?"
grep -q "isolated timing: a 4-byte memset before every decode" "$dir/err3.txt" \
  || fail "no isolated-timing line"
awk '$1 == "memsets" { exit !($2 > 0) }' "$dir/stats3.txt" || fail "no separator memsets"
for key in live_bytes modules streams events graphs execs context_refs bad_ranges; do
  v=$(awk -v k=$key '$1 == k { print $2 }' "$dir/stats3.txt")
  test "$v" = 0 || fail "--isolate: $key is '$v', expected 0"
done
grep -q '"bucket":1,' "$dir/isolated.json" || fail "--isolate wrote no plan"

# --layout vllm: the vLLM-layout bundles are tuned and their entries carry
# the layout; merged into the same database, next to the native ones, and
# read back only by a --layout vllm compilation.
cp "$dir/isolated.json" "$dir/both.json"
TQRT_LIBCUDA=$fake FAKE_CUDA_STATS=$dir/stats4.txt FAKE_CUDA_L2=1048576 \
FAKE_CUDA_BLOCK_STRIDE=15104 FAKE_CUDA_BLOCK_SIZE=16 \
  "$tqc" autotune --preset k3v4 --layout vllm --buckets 1 --contexts 1024 \
    --block-n-candidates 64 --split-candidates 16 --warps-candidates 4 \
    --heads-candidates 4 --reps 3 -o "$dir/both.json" \
    >"$dir/out4.txt" 2>"$dir/err4.txt" || fail "--layout vllm run exited with $?"
grep -q 'layout vllm; 1 other entries kept' "$dir/out4.txt" || fail "no vllm write line: $(cat "$dir/out4.txt")"
# The vLLM layout has no copy ring: no 3-stage candidates (duplicates).
grep -q "compiling 1 candidates (.* x stages {2})" "$dir/err4.txt" || fail "vllm candidates: $(grep compiling "$dir/err4.txt")"
grep -q '"layout":"vllm"' "$dir/both.json" || fail "the vllm entry lacks its layout"
"$tqc" --emit=mlir --layout vllm --tuning-db "$dir/both.json" >"$dir/mlir4.txt" 2>>"$dir/err4.txt" \
  || fail "tqc --layout vllm --tuning-db refused the database"
# The vLLM entry's plan (16 splits, a candidate the native run did not have)
# serves --layout vllm and only it.
grep -q 'splits = 16, warps' "$dir/mlir4.txt" || fail "the vllm plan was not taken"
grep -q 'tq.plan_source = "tuning database both.json' "$dir/mlir4.txt" || fail "vllm plans not from the database"
"$tqc" --emit=mlir --tuning-db "$dir/both.json" >"$dir/mlir5.txt" 2>>"$dir/err4.txt" \
  || fail "tqc --tuning-db (native) refused the database"
grep -q 'splits = 16, warps' "$dir/mlir5.txt" && fail "native took the vllm plan"
not_layout=$("$tqc" autotune --preset k3v4 --layout paged 2>&1)
echo "$not_layout" | grep -q "unknown layout 'paged'; accepted: native, vllm" || fail "no error for --layout paged: $not_layout"
echo "PASS"
