#!/usr/bin/env bash
# Packs tqc for a GPU machine that has the NVIDIA driver and the CUDA 13
# toolkit but no LLVM/MLIR: bin/tqc, lib/libtqrt.so and every shared
# library tqc loads (ldd) except glibc's and CUDA's, plus a wrapper that
# sets LD_LIBRARY_PATH, into one xz-compressed tar that fits the device
# tool's 64 MiB transfer.
#
#   scripts/pack-tqc-for-gpu.sh [BUILD_DIR] [OUT.tar.xz]
#   (defaults: build-tune, BUILD_DIR/tqc-gpu.tar.xz)
#
# On the GPU machine:
#   tar xJf tqc-gpu.tar.xz && tqc-gpu/tqc autotune --arch native ...
#
# glibc: Debian 12's libLLVM and libstdc++ need GLIBC_2.36. glibc cannot be
# mixed with another one in a process, so it is packed apart (lib/glibc/:
# the loader, libc, libm, libpthread, libdl, librt) and the wrapper uses it
# only when the machine's glibc is older than the package needs: it then
# starts tqc through the packed loader (ld-linux --library-path ...), so
# the whole process runs on the packed glibc, which still loads the
# machine's libcuda and CUDA toolkit (older glibc builds run on newer).
# TQC_GPU_GLIBC=packed|system forces the choice.
#
# Left out on purpose:
# - libcuda (the driver must be the machine's own) and NVRTC / nvJitLink
#   (200 MB; the machine's CUDA 13 toolkit has them, and NVRTC loads its
#   builtins library from its own directory): the wrapper puts
#   $CUDA_HOME/lib64 (default /usr/local/cuda) on the path.
set -euo pipefail

build=${1:-build-tune}
out=${2:-$build/tqc-gpu.tar.xz}
tqc=$build/bin/tqc
tqrt=$build/runtime/libtqrt.so
for f in "$tqc" "$tqrt"; do
  [[ -f $f ]] || { echo "pack-tqc-for-gpu: $f not found; build first (nice ninja -C $build tqc)" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pkg=$work/tqc-gpu
mkdir -p "$pkg/bin" "$pkg/lib"
cp "$tqc" "$pkg/bin/tqc"
cp "$tqrt" "$pkg/lib/"

mkdir -p "$pkg/lib/glibc"
skip='^(linux-vdso|libcuda\.so|libnvrtc|libnvJitLink|libtqrt\.so)'
glibcLibs='^(ld-linux|libc\.so|libm\.so|libpthread\.so|libdl\.so|librt\.so)'
while read -r line; do
  # "name => /path (addr)", or "/lib64/ld-linux-x86-64.so.2 (addr)".
  set -- $line
  if [[ ${2:-} == "=>" ]]; then name=$1 path=${3:-}; else name=$(basename "$1") path=$1; fi
  [[ $path == /* ]] || continue
  [[ $name =~ $skip ]] && continue
  if [[ $name =~ $glibcLibs ]]; then
    cp -L "$path" "$pkg/lib/glibc/$name"
  else
    cp -L "$path" "$pkg/lib/$name"
  fi
done < <(ldd "$tqc")
[[ -f $pkg/lib/glibc/ld-linux-x86-64.so.2 ]] ||
  { echo "pack-tqc-for-gpu: no ld-linux-x86-64.so.2 in ldd's output" >&2; exit 1; }

# The newest glibc symbol version anything in the package needs.
glibc=$(objdump -T "$pkg/bin/tqc" "$pkg"/lib/*.so* 2>/dev/null |
        grep -o 'GLIBC_[0-9.]*' | sort -V | tail -1)
echo "${glibc#GLIBC_}" > "$pkg/GLIBC_NEEDED"

cat > "$pkg/tqc" <<'WRAP'
#!/bin/sh
# Runs the packed tqc with its libraries and the machine's CUDA toolkit
# ($CUDA_HOME/lib64, default /usr/local/cuda): on the machine's glibc when
# it is new enough, else on the packed one (see pack-tqc-for-gpu.sh).
here=$(cd "$(dirname "$0")" && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
libs="$here/lib:$cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
need=$(cat "$here/GLIBC_NEEDED")
have=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
mode=${TQC_GPU_GLIBC:-}
if [ -z "$mode" ]; then
  mode=packed
  if [ -n "$have" ] &&
     [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -1)" = "$need" ]; then
    mode=system
  fi
fi
if [ "$mode" = system ]; then
  LD_LIBRARY_PATH=$libs exec "$here/bin/tqc" "$@"
fi
# The packed loader; the system's library directories stay searched after
# these, so dlopen("libcuda.so.1") finds the machine's driver.
exec "$here/lib/glibc/ld-linux-x86-64.so.2" \
  --library-path "$here/lib/glibc:$libs:/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu" \
  "$here/bin/tqc" "$@"
WRAP
chmod +x "$pkg/tqc"

tar -C "$work" -cf - tqc-gpu | xz -9 -T0 > "$out"
size=$(stat -c %s "$out")
echo "pack-tqc-for-gpu: $out: $((size / 1048576)) MiB ($(du -sh "$pkg" | cut -f1) unpacked); on a machine with glibc < ${glibc#GLIBC_} it runs on the packed glibc"
if (( size > 64 * 1048576 )); then
  echo "pack-tqc-for-gpu: warning: above the 64 MiB a device-tool transfer carries" >&2
fi
