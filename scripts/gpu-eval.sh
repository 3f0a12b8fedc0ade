#!/usr/bin/env bash
# The H200 evaluation in one command, for a GPU machine without LLVM/MLIR:
# tqc comes packed (scripts/pack-tqc-for-gpu.sh), the runtime and the GPU
# tests are built here, and every stage writes its output under OUT_DIR and
# tars OUT_DIR into $OUT (the device tool's return folder) when it ends, so a
# run cut short still returns what finished.
#
#   scripts/gpu-eval.sh PACKED_TQC.tar.xz GTEST_SOURCE_DIR OUT_DIR [stage ...]
#
# Stages (default: all, in this order):
#   tier      tests/gpu bundles + the GPU tier (tqc-gpu-test) + ctest -L gpu
#   decode    bench/decode_bench.py: k3v4, k4v4 (shipped tuned plans) and
#             k3v4 --layout vllm, B {1,8,32,64} x L {1K,8K,32K}, vs SDPA;
#             DECODE_PRESETS replaces the list (every preset: "k3v4 k4v4
#             k8v4 k3v3 k4v2 k2v2 bf16"; a -vllm suffix for that layout)
#   store     bench/store_bench.py: k3v4, k4v4, bf16
#   extend    bench/extend_bench.py: k3v4, k4v4 (EXTEND_PRESETS; EXTEND_CASES
#             picks prefix:chunk cases, EXTEND_TQC_ARGS adds tqc options
#             such as --extend-block-n 64; default causal 4K and 1K chunks,
#             4K over a 28K prefix, 1K over 8K) vs SDPA
#   ncu-extend  ncu sections of the k3v4 extend kernel, causal 4K chunk
#             (NCU_EXTEND_SECTIONS replaces the sections; NCU_EXTEND_CASES
#             the extend_bench cases, e.g. 28672:4096; NCU a wrapper)
#   ncu-store   ncu sections of the k3v4 store kernel, a 16K-token chunk
#             (NCU_STORE_SECTIONS replaces the sections; NCU a wrapper)
#   ncu-decode  ncu sections of k3v4 decode variants at B=32, L=32K: the
#             shipped plan, then 2-split BLOCK_N-64 plans of 4 and 8 warps
#             with 2 and 4 stages (4: the copy ring); NCU_DECODE_EXTRA adds
#             "name:tqc-args" variants (commas for spaces, e.g.
#             w8-st6:--warps,8,--stages,6), NCU_DECODE_VARIANTS replaces
#             the four (set and empty: the shipped plan only);
#             NCU_DECODE_SECTIONS replaces the sections (e.g. with
#             --metrics lists); NCU_DECODE_BATCH and
#             NCU_DECODE_CONTEXT the shape (default 32, 32768),
#             NCU_DECODE_BASE the variants' common plan options (default
#             "--splits 2 --block-n 64"); NCU a wrapper, e.g.
#             scripts/ncu-source.sh (keeps the report, exports the stall
#             samples per SASS instruction)
#   tuner     tqc autotune --no-prune over L {1K,8K,32K} for k3v4 and k4v4,
#             back to back and --isolate, and the shipped-database run
#             (bench/tuner_quality.py reads the timings afterwards)
#   vllmtune  tqc autotune --layout vllm --isolate for k3v4 (plans for the
#             vLLM layout, which has none yet)
#   demo      bench/e2e_demo.py over k3v4, k4v4, k8v4, k3v4 --layout vllm, bf16
# Environment: JOBS (bundle compiles at once, default 16), TIER_ARCH (the
# tier's bundles, default sm_90; sm_90a: the wgmma extend), BUNDLE_ARCH (the
# benches' bundles, default sm_90; use a fresh OUT_DIR), TUNE_PRESETS
# (the tuner stage's presets, default "k3v4 k4v4"), TUNE_MODES (default
# "b2b isolate"), TUNE_TAG (a suffix for the tuner's output names, to keep
# variants apart: e.g. TQC_DEVICE_DEFINES experiments), TUNE_GRID_ONLY=1
# (the exhaustive grids only), TUNE_ARGS (more options for the grids, e.g.
# "--stages-candidates 2,4"), TQC_COMMIT (the tree, recorded by the demo
# when the copy's git metadata is stale).
set -uo pipefail
packed=${1:?usage: gpu-eval.sh PACKED_TQC.tar.xz GTEST_SOURCE_DIR OUT_DIR [stage ...]}
gtest=${2:?usage: gpu-eval.sh PACKED_TQC.tar.xz GTEST_SOURCE_DIR OUT_DIR [stage ...]}
res=${3:?usage: gpu-eval.sh PACKED_TQC.tar.xz GTEST_SOURCE_DIR OUT_DIR [stage ...]}
shift 3
stages=${*:-tier decode store tuner demo}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
mkdir -p "$res"
work=$res/work
mkdir -p "$work"
db=autotune/databases/nvidia-h200-sm_90.json

say() { echo "[gpu-eval $(date +%H:%M:%S)] $*" | tee -a "$res/log.txt"; }
pack() { [ -n "${OUT:-}" ] && tar czf "$OUT/gpu-eval.tgz" -C "$(dirname "$res")" \
  --exclude=work "$(basename "$res")"; }
trap pack EXIT

# A machine can keep /tmp between calls (and sessions): unpack whenever the
# packed tqc differs from the one unpacked there, never run a stale one.
tqc=/tmp/tqc-gpu/tqc
sum=$(md5sum <"$packed" | cut -d' ' -f1)
if [ ! -x "$tqc" ] || [ "$(cat /tmp/tqc-gpu/.packed-md5 2>/dev/null)" != "$sum" ]; then
  rm -rf /tmp/tqc-gpu
  tar xJf "$packed" -C /tmp || { say "cannot unpack $packed"; exit 1; }
  echo "$sum" >/tmp/tqc-gpu/.packed-md5
fi
say "tqc: $("$tqc" --version 2>&1 | head -1); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"

# Configured once per machine; built every time (a warm machine keeps the
# previous call's build-gpu, whose runtime may be older than this tree).
if [ ! -f build-gpu/CMakeCache.txt ]; then
  cmake -S . -B build-gpu -DTQC_BUILD_COMPILER=OFF -DTQC_GTEST_SOURCE_DIR="$gtest" \
    -DTQC_GPU_BUNDLES_DIR="$work/bundles" >"$res/cmake.txt" 2>&1 ||
    { say "runtime configure failed (cmake.txt)"; exit 1; }
fi
cmake --build build-gpu -j"$(nproc)" >>"$res/cmake.txt" 2>&1 ||
  { say "runtime build failed (cmake.txt)"; exit 1; }

# The ncu sections every profiling stage reports.
ncu_sections="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis"

bundle() { # name tqc-args...
  local name=$1; shift
  [ -d "$work/$name" ] || "$tqc" --arch "${BUNDLE_ARCH:-sm_90}" "$@" -o "$work/$name" >"$work/$name.txt" 2>&1
}

for stage in $stages; do
  say "stage $stage"
  case $stage in
  tier)
    JOBS=${JOBS:-16} tests/gpu/make-bundles.sh "$tqc" "$work/bundles" "${TIER_ARCH:-sm_90}" >"$res/bundles.txt" 2>&1
    # This stage's bundles, not the ones the runtime was first configured
    # with (a warm machine's build-gpu may name an earlier OUT_DIR's).
    export TQC_GPU_BUNDLES="$work/bundles"
    ./build-gpu/tests/gpu/tqc-gpu-test >"$res/gpu-test.txt" 2>&1
    say "tqc-gpu-test: exit $?, $(tail -1 "$res/gpu-test.txt")"
    (cd build-gpu && ctest -L gpu -E gpu_kernels) >"$res/ctest-gpu.txt" 2>&1
    say "ctest -L gpu: exit $?"
    ;;
  decode)
    dirs=
    for p in ${DECODE_PRESETS:-k3v4 k4v4 k3v4-vllm}; do
      case $p in
      *-vllm) bundle "$p" --preset "${p%-vllm}" --layout vllm ;;
      *) bundle "$p" --preset "$p" --tuning-db "$db" ;; # built-in plans where it has none
      esac
      dirs="$dirs $work/$p"
    done
    python3 bench/decode_bench.py --tqrt build-gpu/runtime --bundles $dirs \
      --json "$res/decode.json" >"$res/decode.txt" 2>&1
    say "decode_bench: exit $?"
    ;;
  store)
    bundle k3v4 --preset k3v4 --tuning-db "$db"
    bundle k4v4 --preset k4v4 --tuning-db "$db"
    bundle bf16 --preset bf16
    python3 bench/store_bench.py --tqrt build-gpu/runtime \
      --bundles "$work/k3v4" "$work/k4v4" "$work/bf16" \
      --json "$res/store.json" >"$res/store.txt" 2>&1
    say "store_bench: exit $?"
    ;;
  extend)
    dirs=
    for p in ${EXTEND_PRESETS:-k3v4 k4v4}; do
      # shellcheck disable=SC2086 # EXTEND_TQC_ARGS: more tqc options
      bundle "$p" --preset "$p" --tuning-db "$db" ${EXTEND_TQC_ARGS:-}
      dirs="$dirs $work/$p"
    done
    # shellcheck disable=SC2086 # EXTEND_CASES is a list of prefix:chunk
    python3 bench/extend_bench.py --tqrt build-gpu/runtime --bundles $dirs \
      ${EXTEND_CASES:+--cases $EXTEND_CASES} \
      --json "$res/extend.json" >"$res/extend.txt" 2>&1
    say "extend_bench: exit $?"
    ;;
  ncu-store)
    bundle k3v4 --preset k3v4 --tuning-db "$db"
    S="${NCU_STORE_SECTIONS:-$ncu_sections --section InstructionStats}"
    # The first store launch is store_bench's 16K-token correctness chunk.
    ${NCU:-/usr/local/cuda/bin/ncu} --kernel-name regex:tq_store_bf16 --launch-count 1 $S \
      python3 bench/store_bench.py --tqrt build-gpu/runtime --bundles "$work/k3v4" \
      >"$res/ncu-store.txt" 2>&1
    say "ncu store: exit $?"
    ;;
  ncu-extend)
    bundle k3v4 --preset k3v4 --tuning-db "$db"
    S="${NCU_EXTEND_SECTIONS:-$ncu_sections}"
    ${NCU:-/usr/local/cuda/bin/ncu} --kernel-name regex:tq_extend_bf16 --launch-skip 2 --launch-count 1 $S \
      python3 bench/extend_bench.py --tqrt build-gpu/runtime --bundles "$work/k3v4" \
      --cases "${NCU_EXTEND_CASES:-0:4096}" --profile >"$res/ncu-extend.txt" 2>&1
    say "ncu extend: exit $?"
    ;;
  ncu-decode)
    bundle k3v4 --preset k3v4 --tuning-db "$db"
    variants=k3v4
    for v in ${NCU_DECODE_VARIANTS-w4-st2:--warps,4,--stages,2 w4-st4:--warps,4,--stages,4 \
        w8-st2:--warps,8,--stages,2 w8-st4:--warps,8,--stages,4} ${NCU_DECODE_EXTRA:-}; do
      bundle "k3v4-${v%%:*}" --preset k3v4 ${NCU_DECODE_BASE:---splits 2 --block-n 64} \
        $(echo "${v#*:}" | tr , ' ')
      variants="$variants k3v4-${v%%:*}"
    done
    S="${NCU_DECODE_SECTIONS:-$ncu_sections --section InstructionStats --section SchedulerStats}"
    for v in $variants; do
      ${NCU:-/usr/local/cuda/bin/ncu} --kernel-name regex:decode --launch-skip 3 --launch-count 1 $S \
        python3 bench/profile_decode.py --bundle "$work/$v" --batch "${NCU_DECODE_BATCH:-32}" \
        --context "${NCU_DECODE_CONTEXT:-32768}" \
        --tqrt build-gpu/runtime >"$res/ncu-decode-$v.txt" 2>&1
      say "ncu decode $v: exit $?"
    done
    ;;
  tuner)
    printf '1024 1\n8192 1\n32768 1\n' >"$work/grid.txt"
    t=${TUNE_TAG:-}
    for p in ${TUNE_PRESETS:-k3v4 k4v4}; do
      for mode in ${TUNE_MODES:-b2b isolate}; do
        flag=; [ $mode = isolate ] && flag=--isolate
        "$tqc" autotune --arch native --preset $p --buckets 1,8,32,64 \
          --context-hist "$work/grid.txt" --no-prune $flag ${TUNE_ARGS:-} \
          -o "$work/grid$t-$p-$mode.json" --report "$res/grid$t-$p-$mode" \
          >"$res/grid$t-$p-$mode.txt" 2>&1
        say "autotune grid$t $p $mode: exit $?"
        [ -n "${TUNE_GRID_ONLY:-}" ] && continue
        "$tqc" autotune --arch native --preset $p --buckets 1,8,32,64 $flag \
          -o "$res/db$t-$mode.json" --report "$res/tune$t-$p-$mode" \
          >"$res/tune$t-$p-$mode.txt" 2>&1
        say "autotune$t $p $mode: exit $?"
      done
    done
    ;;
  vllmtune)
    "$tqc" autotune --arch native --preset k3v4 --layout vllm --isolate \
      --buckets 1,8,32,64 -o "$res/db-vllm.json" --report "$res/tune-k3v4-vllm" \
      >"$res/tune-k3v4-vllm.txt" 2>&1
    say "autotune k3v4 --layout vllm: exit $?"
    ;;
  demo)
    bundle k3v4 --preset k3v4 --tuning-db "$db"
    bundle k4v4 --preset k4v4 --tuning-db "$db"
    bundle k8v4 --preset k8v4
    bundle k3v4-vllm --preset k3v4 --layout vllm
    bundle bf16 --preset bf16
    python3 bench/e2e_demo.py --tqrt build-gpu/runtime \
      --bundles "$work/k3v4" "$work/k4v4" "$work/k8v4" "$work/k3v4-vllm" "$work/bf16" \
      --json "$res/e2e.json" >"$res/e2e.txt" 2>&1
    say "e2e_demo: exit $?"
    ;;
  *)
    say "unknown stage '$stage'; accepted: tier decode store extend ncu-store ncu-extend ncu-decode tuner vllmtune demo"
    exit 2
    ;;
  esac
  pack
done
say "done"
