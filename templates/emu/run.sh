#!/bin/bash
# CPU check of the decode templates without a GPU: tqc emits the
# translation unit for a config, g++ compiles it against the host emulation
# of the target layer (tq/target_cuda.h here: one fiber per CUDA thread, warp
# collectives and barriers as rendezvous, mma/movmatrix/prmt by their PTX
# definitions, sm_90's shared window starting at 0x400), and the program
# decodes the GPU tier's ragged batch and compares with the float64
# reference (tests/gpu/GpuKernelTest.cpp's data and bound, bf16 activations),
# after running the store kernel on every token and comparing its bytes with
# the host codec's (ties below 1e-3 of the token-heads).
# With `extend`, the extend kernels instead (emu_extend.cpp: prep +
# attention over a ragged batch against the float64 reference over the
# dequantized prefix and the exact chunk).
#   templates/emu/run.sh <preset> <head_dim> <gqa> <splits> [qjl] [vllm] [bn<BLOCK_N>] [st<STAGES>] [w<WARPS>] [extend]
#   (BS=<page>; TQC, TQC_NUMERICS_LIB: tqc and libtqc_numerics.a, default
#   the build/ tree's; EMU_OUT: where the programs go; TQC_ARGS: more tqc
#   options, e.g. "--v-bits 2", which also name the program's folder)
set -e
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
tqc=${TQC:-$root/build/bin/tqc}; lib=${TQC_NUMERICS_LIB:-$root/build/numerics/libtqc_numerics.a}
p=$1; d=$2; g=$3; s=$4; shift 4
qjl=; bn=; st=; w=; vllm=; ext=
for x in "$@"; do case $x in qjl) qjl=1;; vllm) vllm=1;; extend) ext=1;; bn*) bn=${x#bn};; st*) st=${x#st};; w*) w=${x#w};; *) echo "run.sh: unknown option $x" >&2; exit 2;; esac; done
qjl=${qjl:-$QJL}
name=$p${qjl:+q}${vllm:+-vllm}-d$d-g$g-s$s${bn:+-bn$bn}${st:+-st$st}${w:+-w$w}${ext:+-extend}$(echo ${TQC_ARGS:-} | tr -c 'a-z0-9\n' _); out=${EMU_OUT:-/tmp/tq-emu}/$name
mkdir -p "$out"
nkv=${NKV:-2} # KV heads (NKV: more than a warp's 8 lane groups takes rounds)
"$tqc" --preset "$p" ${qjl:+--qjl} --head-dim "$d" --num-kv-heads "$nkv" \
  --num-q-heads $((nkv * g)) --block-size "${BS:-16}" --splits "$s" ${bn:+--block-n $bn} ${st:+--stages $st} ${w:+--warps $w} \
  ${vllm:+--layout vllm} ${TQC_ARGS:-} \
  --emit=cuda -o "$out" > /dev/null
plan=$(grep -o "struct TqPlan_decode_p0" "$out/kernels.cu" | head -1 | awk '{print $2}')
if [ -n "$ext" ]; then
  eplan=$(grep -o "struct TqPlan_extend" "$out/kernels.cu" | head -1 | awk '{print $2}')
  g++ -std=c++20 -O1 -w -I"$here" -I"$root/templates" -I"$root/numerics/include" \
    -DKERNELS_TU="\"$out/kernels.cu\"" ${eplan:+-DEXTEND_SPEC=$eplan} -DPRESET="\"$p\"" \
    "$here/emu_extend.cpp" "$lib" -o "$out/run"
  exec "$out/run"
fi
g++ -std=c++20 -O1 -w -I"$here" -I"$root/templates" -I"$root/numerics/include" \
  -DKERNELS_TU="\"$out/kernels.cu\"" -DPLAN=${plan:-TqSpec} -DPRESET="\"$p\"" -DVLLM_LAYOUT=${vllm:-0} \
  "$here/emu_decode.cpp" "$lib" -o "$out/run"
"$out/run"
