#!/usr/bin/env bash
# Builds the bundles the GPU tier loads: every preset (and k3v4 with QJL keys)
# x head_dim {64, 128, 256} x GQA {1, 4, 8} with 8 KV splits, plus one-split
# k3v4 and k4v2, two bundles with the per-bucket plans, the vLLM layout's
# four presets x head_dim (GQA 4), and plans of 3+ stages, for 2 KV heads and
# 16-token pages, one directory each
# (<preset>[_qjl][-vllm]-d<D>-g<G>-s<splits>[-st<stages>]). The list matches GpuKernelTest.cpp.
#   tests/gpu/make-bundles.sh <tqc> <out-dir> [arch]
# JOBS=N compiles N bundles at a time (default 1; each tqc is one thread).
set -euo pipefail
tqc=${1:?usage: make-bundles.sh <tqc> <out-dir> [arch]}
out=${2:?usage: make-bundles.sh <tqc> <out-dir> [arch]}
arch=${3:-sm_90}
mkdir -p "$out"
jobs=${JOBS:-1}
pids=()
build() { # preset qjl d g splits [vllm] [stages]
  local name="$1$([ "$2" = 1 ] && echo _qjl)${6:+-vllm}-d$3-g$4-s$5${7:+-st$7}"
  "$tqc" --arch "$arch" --preset "$1" $([ "$2" = 1 ] && echo --qjl) \
    --head-dim "$3" --num-kv-heads 2 --num-q-heads $((2 * $4)) \
    --block-size 16 --splits "$5" ${6:+--layout vllm} ${7:+--stages $7} \
    -o "$out/$name" > /dev/null &
  pids+=($!)
  if ((${#pids[@]} >= jobs)); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
}
n=0
for d in 64 128 256; do
  for g in 1 4 8; do
    for p in k8v4 k4v4 k3v4 k3v3 k4v2 k2v2 bf16; do
      build "$p" 0 "$d" "$g" 8; n=$((n + 1))
    done
    build k3v4 1 "$d" "$g" 8; n=$((n + 1))
  done
done
# The vLLM layout (FORMATS.md) for its four presets.
for d in 64 128 256; do
  for p in k8v4 k4v4 k3v4 k3v3; do build "$p" 0 "$d" 4 8 vllm; n=$((n + 1)); done
done
build k3v4 0 128 4 1; build k4v2 0 128 4 1; n=$((n + 2))
# Plans of 3+ stages (the decode's copy ring where the recipe takes it).
for d in 64 128 256; do
  for p in k8v4 k4v4 k3v4 k3v3 k4v2 k2v2 bf16; do build "$p" 0 "$d" 4 8 "" 4; n=$((n + 1)); done
done
build k3v4 0 128 4 1 "" 3; build k4v4 0 64 8 1 "" 6; build k2v2 0 128 1 2 "" 8; n=$((n + 3))
build k3v4 0 128 4 8 "" 1; n=$((n + 1)) # one stage: no step loaded ahead
# The built-in per-bucket plans (--splits 0: 32 splits for one sequence
# down to one split from 32 sequences on).
build k3v4 0 128 4 0; build k4v2 0 64 8 0; n=$((n + 2))
for p in "${pids[@]}"; do wait "$p"; done
echo "built $n bundles for $arch in $out"
