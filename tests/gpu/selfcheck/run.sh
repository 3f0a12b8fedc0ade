#!/usr/bin/env bash
# Selfcheck of the CUDA device templates (templates/tq) against the host
# numerics. Run from the repository root:
#
#   bash tests/gpu/selfcheck/run.sh            # everything
#   bash tests/gpu/selfcheck/run.sh --no-gpu   # builds and compile checks only
#
# Needs nvcc (CUDA 12.4+), g++ and cmake; no MLIR. Steps:
#  1. builds numerics (the oracle), gen_spec (writes generated TUs exactly as
#     templates/README.md specifies) and nvrtc_check;
#  2. functional tests on the GPU: per configuration, one selfcheck binary
#     (store bytes vs HostCodec, decode vs float64 referenceDecode; bf16 and
#     fp16), printing PASS/FAIL lines;
#  3. resource check: every preset (and k3v4+qjl) x head_dim {64,128,256} x
#     GQA {4,8} at kWarps=4, compiled for sm_90 and sm_80 by nvcc and, the
#     way tqc does, by NVRTC with the headers handed in memory (no include
#     path: proves the templates need no other header) to a cubin, to LTO-IR
#     linked by nvJitLink, and to PTX linked by nvJitLink; store and decode
#     must have 0 spill bytes and a 0-byte stack frame everywhere.
# Environment: JOBS (parallel compiles, default nproc), ARCH (default sm_90),
# NVCC, BUILD (default build-selfcheck).
set -u
cd "$(dirname "$0")/../../.." || exit 2
ROOT=$PWD
[ -f templates/tq/abi.h ] || { echo "run from the repository root"; exit 2; }

GPU=1
[ "${1:-}" = "--no-gpu" ] && GPU=0
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
ARCH=${ARCH:-sm_90}
B=${BUILD:-build-selfcheck}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$NVCC")")}
SC=tests/gpu/selfcheck
mkdir -p "$B/gen" "$B/bin" "$B/log"
LOG=$B/log
FAILS=0
fail() { echo "FAIL $*"; FAILS=$((FAILS + 1)); }

echo "== tqc template selfcheck: $(git rev-parse --short HEAD 2>/dev/null || echo '?') $(git status --porcelain templates tests/gpu 2>/dev/null | grep -q . && echo '(+local changes)')"
echo "== nvcc: $("$NVCC" --version | tail -1)"
if [ $GPU = 1 ]; then
  if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    echo "== gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
  else
    echo "== no GPU found: compile checks only"
    GPU=0
  fi
fi

# ---- 1. host tools ---------------------------------------------------------
echo "== building numerics, gen_spec, nvrtc_check"
NUMLIB=$B/numerics/libtqc_numerics.a
if ! { cmake -S numerics -B "$B/numerics" -DCMAKE_BUILD_TYPE=Release >"$LOG/numerics.log" 2>&1 &&
       cmake --build "$B/numerics" --target tqc_numerics -j "$JOBS" >>"$LOG/numerics.log" 2>&1; }; then
  # numerics' own CMakeLists requires GoogleTest for its tests; without it,
  # build the library directly.
  echo "   (cmake build failed, see $LOG/numerics.log; compiling numerics directly)"
  mkdir -p "$B/numerics/obj"
  ls numerics/src/*.cpp | xargs -P "$JOBS" -I{} sh -c \
    'g++ -O2 -std=c++17 -Inumerics/include -c {} -o '"$B"'/numerics/obj/$(basename {} .cpp).o' \
    || { echo "FAIL numerics build"; exit 1; }
  ar rcs "$NUMLIB" "$B"/numerics/obj/*.o
fi
g++ -O2 -std=c++17 -Inumerics/include -I$SC $SC/gen_spec.cpp "$NUMLIB" -o "$B/gen_spec" \
  || { echo "FAIL gen_spec build"; exit 1; }
HAVE_NVRTC=1
g++ -O1 -std=c++17 -I"$CUDA_HOME/include" $SC/nvrtc_check.cpp -L"$CUDA_HOME/lib64" \
  -lnvrtc -lnvJitLink -Wl,-rpath,"$CUDA_HOME/lib64" -o "$B/nvrtc_check" 2>"$LOG/nvrtc_check.log" \
  || { echo "   (nvrtc_check did not build: $LOG/nvrtc_check.log)"; HAVE_NVRTC=0; }

# gen <name> <gen_spec args...>: writes $B/gen/<name>.cu
gen() {
  local name=$1; shift
  "$B/gen_spec" "$@" >"$B/gen/$name.cu" || { fail "gen_spec $name: $*"; return 1; }
}

# ---- 2. functional tests ---------------------------------------------------
# name | extra nvcc flags | gen_spec arguments (recipe, geometry, plan; the
# binary gets the same arguments and rebuilds the recipe from them).
# "-gencode arch=compute_80,code=compute_80" runs the sm_80 code paths (e.g.
# the software fp8 conversion) through the driver's PTX JIT on a newer GPU.
G4="--q-heads 8 --kv-heads 2"
FUNC=(
  "k3v4_d128_g4_s1||--preset k3v4 --head-dim 128 $G4 --block-size 16 --block-n 64 --splits 1 --warps 4 --heads-per-cta 4"
  "k3v4_d128_g4_s4||--preset k3v4 --head-dim 128 $G4 --block-size 16 --block-n 64 --splits 4 --warps 4 --heads-per-cta 4"
  "k3v4_d128_g8_hpc4_s2||--preset k3v4 --head-dim 128 --q-heads 16 --kv-heads 2 --block-size 16 --block-n 64 --splits 2 --warps 4 --heads-per-cta 4"
  "k3v4_d128_g4_bs256_s2||--preset k3v4 --head-dim 128 $G4 --block-size 256 --block-n 256 --splits 2 --warps 4 --heads-per-cta 4"
  "k3v4qjl_d128_g4_s1||--preset k3v4 --qjl --head-dim 128 $G4 --block-size 16 --block-n 64 --splits 1 --warps 4 --heads-per-cta 4"
  "k3v4qjl_d128_g4_s4||--preset k3v4 --qjl --head-dim 128 $G4 --block-size 16 --block-n 64 --splits 4 --warps 4 --heads-per-cta 4"
  "k3v4qjl_d64_g8_s2||--preset k3v4 --qjl --head-dim 64 --q-heads 16 --kv-heads 2 --block-size 16 --block-n 32 --splits 2 --warps 4 --heads-per-cta 8"
  "k3v4qjl_d256_g4_s2||--preset k3v4 --qjl --head-dim 256 $G4 --block-size 16 --block-n 64 --splits 2 --warps 4 --heads-per-cta 4"
  "k3v4qjl_d32_g4_s2||--preset k3v4 --qjl --head-dim 32 $G4 --block-size 16 --block-n 32 --splits 2 --warps 4 --heads-per-cta 4"
  "k8v4_d128_g4_s1||--preset k8v4 --head-dim 128 $G4 --block-size 16 --block-n 64 --splits 1 --warps 4 --heads-per-cta 4"
  "k8v4_d128_g4_s2_sm80jit|-gencode arch=compute_80,code=compute_80|--preset k8v4 --head-dim 128 $G4 --block-size 16 --block-n 64 --splits 2 --warps 4 --heads-per-cta 4"
  "k8v4_d256_g4_s3||--preset k8v4 --head-dim 256 $G4 --block-size 32 --block-n 64 --splits 3 --warps 4 --heads-per-cta 4"
  "k4v4_d64_g8_s2||--preset k4v4 --head-dim 64 --q-heads 16 --kv-heads 2 --block-size 32 --block-n 32 --splits 2 --warps 4 --heads-per-cta 8"
  "k3v3_d256_g2_s2||--preset k3v3 --head-dim 256 --q-heads 4 --kv-heads 2 --block-size 8 --block-n 128 --splits 2 --warps 4 --heads-per-cta 2 --store-warps 2"
  "k4v2_d128_g4_s1||--preset k4v2 --head-dim 128 $G4 --block-size 16 --block-n 64 --splits 1 --warps 4 --heads-per-cta 4"
  "k4v2_d128_g4_s3_r2||--preset k4v2 --rounds 2 --head-dim 128 $G4 --block-size 16 --block-n 64 --splits 3 --warps 4 --heads-per-cta 4"
  "k2v2_d64_g1_s1||--preset k2v2 --head-dim 64 --q-heads 2 --kv-heads 2 --block-size 64 --block-n 64 --splits 1 --warps 2 --heads-per-cta 1 --store-warps 1"
  "k2v2_d256_g8_s4||--preset k2v2 --head-dim 256 --q-heads 16 --kv-heads 2 --block-size 16 --block-n 64 --splits 4 --warps 4 --heads-per-cta 8"
  "bf16_d128_g4_s1||--preset bf16 --head-dim 128 $G4 --block-size 16 --block-n 64 --splits 1 --warps 4 --heads-per-cta 4"
  "bf16_d64_g8_s2||--preset bf16 --head-dim 64 --q-heads 16 --kv-heads 2 --block-size 16 --block-n 32 --splits 2 --warps 8 --heads-per-cta 8"
  # Recipes beyond the presets (flag overrides): uniform keys (zero plane),
  # rotated uniform / fp8 / bf16 tensors, 1- and 5..8-bit codes (funnel loads).
  "ku4_v4_d128_s2||--preset k4v4 --k-quant uniform --k-bits 4 --k-rot none --head-dim 128 $G4 --block-size 16 --block-n 64 --splits 2 --warps 4 --heads-per-cta 4"
  "ku3rot_v4_d64_s1||--preset k4v4 --k-quant uniform --k-bits 3 --head-dim 64 $G4 --block-size 16 --block-n 32 --splits 1 --warps 4 --heads-per-cta 4"
  "k3_vu4rot_d128_s1||--preset k3v4 --v-rot hadamard --head-dim 128 $G4 --block-size 16 --block-n 64 --splits 1 --warps 4 --heads-per-cta 4"
  "k8rot_v4rot_d64_s2||--preset k8v4 --k-rot hadamard --v-rot hadamard --head-dim 64 $G4 --block-size 16 --block-n 32 --splits 2 --warps 4 --heads-per-cta 4"
  "bf16rot_d128_s2||--preset bf16 --k-rot hadamard --v-rot hadamard --head-dim 128 $G4 --block-size 16 --block-n 64 --splits 2 --warps 4 --heads-per-cta 4"
  "k5_vu7_d128_s1||--preset k4v4 --k-bits 5 --v-bits 7 --head-dim 128 $G4 --block-size 16 --block-n 64 --splits 1 --warps 4 --heads-per-cta 4"
  "k6_v1lm_d64_s2||--preset k4v2 --k-bits 6 --v-bits 1 --head-dim 64 $G4 --block-size 16 --block-n 32 --splits 2 --warps 4 --heads-per-cta 4"
  "k8lm_vu5_d256_s2||--preset k4v4 --k-bits 8 --v-bits 5 --head-dim 256 $G4 --block-size 16 --block-n 64 --splits 2 --warps 4 --heads-per-cta 4"
  "k7qjl_vu2_d128_s1||--preset k4v4 --qjl --k-bits 8 --v-bits 2 --head-dim 128 $G4 --block-size 16 --block-n 64 --splits 1 --warps 4 --heads-per-cta 4"
  # Codebook levels emitted as double (README: allowed): the store's cell
  # search and norm correction then match numerics exactly.
  "k3v4qjl_dbl_d128_s2||--preset k3v4 --qjl --double-levels --head-dim 128 $G4 --block-size 16 --block-n 64 --splits 2 --warps 4 --heads-per-cta 4"
  "k4v2_dbl_d64_g8_s1||--preset k4v2 --double-levels --head-dim 64 --q-heads 16 --kv-heads 2 --block-size 16 --block-n 32 --splits 1 --warps 4 --heads-per-cta 8"
)

build_func() { # one FUNC entry -> $B/bin/<name>
  local name flags args
  IFS='|' read -r name flags args <<<"$1"
  # shellcheck disable=SC2086
  "$B/gen_spec" $args >"$B/gen/$name.cu" 2>"$LOG/build_$name.log" || return 1
  [ -n "$flags" ] || flags="-arch=$ARCH"
  # shellcheck disable=SC2086
  "$NVCC" -std=c++17 -O2 $flags -I templates -I numerics/include -I $SC \
    -DTQ_TU="\"$ROOT/$B/gen/$name.cu\"" \
    $SC/selfcheck.cu "$NUMLIB" -o "$B/bin/$name" >"$LOG/build_$name.log" 2>&1
}
export -f build_func
export B ARCH NVCC ROOT SC NUMLIB LOG

echo "== building ${#FUNC[@]} selfcheck binaries ($ARCH, $JOBS jobs)"
rm -f "$B"/bin/*
printf '%s\n' "${FUNC[@]}" | xargs -P "$JOBS" -I{} bash -c 'build_func "$@" || echo "build failed: ${1%%|*}" >&2' _ {} 2>"$LOG/build_errors.log"
if [ -s "$LOG/build_errors.log" ]; then
  while read -r l; do fail "$l (see $LOG/build_<name>.log)"; done <"$LOG/build_errors.log"
fi

if [ $GPU = 1 ]; then
  echo "== functional tests (store bytes vs numerics HostCodec, decode vs float64 referenceDecode)"
  for e in "${FUNC[@]}"; do
    IFS='|' read -r name flags args <<<"$e"
    [ -x "$B/bin/$name" ] || continue
    # shellcheck disable=SC2086
    "$B/bin/$name" $args >"$LOG/run_$name.log" 2>&1
    rc=$?
    grep -E '^(PASS|FAIL)|^  ' "$LOG/run_$name.log"
    if [ $rc -ne 0 ]; then
      n=$(grep -c '^FAIL' "$LOG/run_$name.log")
      if [ "$n" = 0 ]; then fail "$name exited with $rc:"; tail -5 "$LOG/run_$name.log"; fi
      FAILS=$((FAILS + n))
    fi
  done
  if [ "${SANITIZE:-1}" = 1 ] && command -v compute-sanitizer >/dev/null; then
    echo "== compute-sanitizer (memcheck, racecheck, synccheck) on two configurations"
    for name in k3v4qjl_d128_g4_s4 k4v2_d128_g4_s3_r2; do
      e=$(printf '%s\n' "${FUNC[@]}" | grep "^$name|")
      IFS='|' read -r name flags args <<<"$e"
      for tool in memcheck racecheck synccheck; do
        # shellcheck disable=SC2086
        if compute-sanitizer --tool $tool --error-exitcode 99 "$B/bin/$name" $args >"$LOG/san_${tool}_$name.log" 2>&1; then
          echo "PASS sanitize $tool $name"
        else
          fail "sanitize $tool $name:"; grep -v '^PASS' "$LOG/san_${tool}_$name.log" | head -15
        fi
      done
    done
  fi
fi

# ---- 3. resources: registers, spills, stack --------------------------------
echo "== ptxas resources: 8 recipes x head_dim {64,128,256} x GQA {4,8}, kWarps=4, store warps 4; spills and stack must be 0 for store and decode"
RES=$LOG/resources.txt
: >"$RES"
res_one() { # preset qjl D G arch
  local preset=$1 qjl=$2 d=$3 g=$4 arch=$5
  local name q=""
  name="res_${preset}$([ "$qjl" = 1 ] && echo qjl)_d${d}_g${g}"
  [ "$qjl" = 1 ] && q=--qjl
  if [ ! -f "$B/gen/$name.cu" ]; then
    # shellcheck disable=SC2086
    "$B/gen_spec" --preset "$preset" $q --head-dim "$d" --q-heads $((g * 2)) \
      --kv-heads 2 --block-size 16 --block-n 64 --splits 4 --warps 4 --heads-per-cta "$g" \
      --store-warps 4 >"$B/gen/$name.cu.$arch.tmp" && mv "$B/gen/$name.cu.$arch.tmp" "$B/gen/$name.cu"
  fi
  # nvcc, and (the path tqc takes) NVRTC + nvJitLink: their code can differ.
  "$NVCC" -std=c++17 -cubin -arch="$arch" -Xptxas -v -I templates "$B/gen/$name.cu" \
    -o "$B/gen/$name.$arch.cubin" >"$LOG/$name.$arch.ptxas" 2>&1 || { echo "$name $arch COMPILE-ERROR"; return; }
  res_table "$name" "$arch" "$LOG/$name.$arch.ptxas"
  if [ "$HAVE_NVRTC" = 1 ]; then
    "$B/nvrtc_check" templates "$B/gen/$name.cu" "$arch" >"$LOG/$name.$arch.nvrtc" 2>&1 \
      || { echo "$name link-$arch COMPILE-ERROR"; return; }
    res_table "$name" "link-${arch#sm_}" "$LOG/$name.$arch.nvrtc"
    TQ_NVRTC_CUBIN=1 "$B/nvrtc_check" templates "$B/gen/$name.cu" "$arch" >"$LOG/$name.$arch.rtccubin" 2>&1 \
      || { echo "$name rtc-$arch COMPILE-ERROR"; return; }
    res_table "$name" "rtc-${arch#sm_}" "$LOG/$name.$arch.rtccubin"
    TQ_NVRTC_LTO=1 "$B/nvrtc_check" templates "$B/gen/$name.cu" "$arch" >"$LOG/$name.$arch.lto" 2>&1 \
      || { echo "$name lto-$arch COMPILE-ERROR"; return; }
    res_table "$name" "lto-${arch#sm_}" "$LOG/$name.$arch.lto"
  fi
}
res_table() { # config label, compiler/arch label, ptxas -v log
  awk -v cfg="$1" -v arch="$2" '
    function num(line, tail,   s) { s = line; sub(tail ".*", "", s); sub(/.*[ ,]/, "", s); return s }
    /Compiling entry function/ { k = $0; sub(/.*entry function ./, "", k); sub(/. for .*/, "", k) }
    /bytes stack frame/ { st = num($0, " bytes stack frame"); ss = num($0, " bytes spill stores"); sl = num($0, " bytes spill loads") }
    /Used [0-9]+ registers/ { r = num($0, " registers");
                              printf "%-24s %-6s %-16s regs %3d  stack %4d  spill st %4d ld %4d\n", cfg, arch, k, r, st, ss, sl }
  ' "$3"
}
export -f res_one res_table
export HAVE_NVRTC
{
  for preset in k8v4 k4v4 k3v4 k3v3 k4v2 k2v2 bf16 k3v4+qjl; do
    for d in 64 128 256; do for g in 4 8; do for arch in sm_90 sm_80; do
      p=${preset%+qjl}; qjl=0; [ "$preset" != "$p" ] && qjl=1
      echo "$p $qjl $d $g $arch"
    done; done; done
  done
} | xargs -P "$JOBS" -L1 bash -c 'res_one "$@"' _ | sort >"$RES"
# Full table in $RES; here the range of registers and the worst spill/stack
# per kernel and compiler path: nvcc (sm_*), NVRTC straight to a cubin
# (rtc-*), NVRTC LTO-IR + nvJitLink -lto (lto-*), NVRTC PTX + nvJitLink
# (link-*: ptxas in relocatable mode, which needs far more registers for the
# same PTX, on sm_80 especially; prefer one of the others in tqc).
echo "   registers min-max / max spill+stack bytes over the 48 configurations (full table: $RES)"
awk '$4 == "regs" { split($3, p, "_"); k = p[2] "_" p[3]; c = $2; key = k SUBSEP c;
       if (!(key in lo) || $5 < lo[key]) lo[key] = $5; if (!(key in hi) || $5 > hi[key]) hi[key] = $5;
       b = $7 + $10 + $12; if (b > bad[key]) bad[key] = b; ks[k] = 1; cs[c] = 1 }
     END { nc = asort_keys(cs, cl); printf "   %-14s", "kernel"; for (i = 1; i <= nc; i++) printf " %-13s", cl[i]; printf "\n";
           nk = asort_keys(ks, kl);
           for (j = 1; j <= nk; j++) { printf "   %-14s", kl[j];
             for (i = 1; i <= nc; i++) { key = kl[j] SUBSEP cl[i]; printf " %-13s", (key in hi) ? lo[key] "-" hi[key] "/" bad[key] + 0 : "-" } printf "\n" } }
     function asort_keys(a, out,   n, x, i, j, t) { n = 0; for (x in a) out[++n] = x;
       for (i = 2; i <= n; i++) for (j = i; j > 1 && out[j-1] > out[j]; j--) { t = out[j]; out[j] = out[j-1]; out[j-1] = t } return n }' "$RES"
if grep -q COMPILE-ERROR "$RES"; then fail "resource compile errors (see $LOG/*.ptxas)"; fi
BAD=$(awk '($3 ~ /tq_(store|decode)_/) && ($7 != 0 || $10 != 0 || $12 != 0)' "$RES")
NK=$(grep -c 'regs' "$RES")
if [ -n "$BAD" ]; then
  echo "$BAD"
  fail "resources: store/decode kernels with spills or stack (above)"
else
  echo "PASS resources: $NK kernels compiled; store/decode: 0 spill bytes, 0 stack bytes"
fi

echo "== summary: $FAILS failure(s)$([ $GPU = 0 ] && echo '; GPU tests NOT run')"
[ $FAILS = 0 ]
