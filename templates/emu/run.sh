#!/bin/bash
# CPU check of the decode/combine templates without a GPU: tqc emits the
# translation unit for a config, g++ compiles it against the host emulation
# of the target layer (tq/target_cuda.h here: one fiber per CUDA thread, warp
# collectives and barriers as rendezvous, mma/movmatrix/prmt by their PTX
# definitions, sm_90's shared window starting at 0x400), and the program
# decodes the GPU tier's ragged batch and compares with the float64
# reference (tests/gpu/GpuKernelTest.cpp's data and bound, bf16 activations).
#   templates/emu/run.sh <preset> <head_dim> <gqa> <splits>   (QJL=1, BS=<page>)
set -e
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
p=$1; d=$2; g=$3; s=$4; name=$p${QJL:+q}-d$d-g$g-s$s; out=${EMU_OUT:-/tmp/tq-emu}/$name
mkdir -p "$out"
"$root/build/bin/tqc" --preset "$p" ${QJL:+--qjl} --head-dim "$d" --num-kv-heads 2 \
  --num-q-heads $((2 * g)) --block-size "${BS:-16}" --splits "$s" --emit=cuda -o "$out" > /dev/null
plan=$(grep -o "struct TqPlan_decode_p0" "$out/kernels.cu" | head -1 | awk '{print $2}')
g++ -std=c++20 -O1 -w -I"$here" -I"$root/templates" -I"$root/numerics/include" \
  -DKERNELS_TU="\"$out/kernels.cu\"" -DPLAN=${plan:-TqSpec} -DPRESET="\"$p\"" \
  "$here/emu_decode.cpp" "$root/build/numerics/libtqc_numerics.a" -o "$out/run"
"$out/run"
