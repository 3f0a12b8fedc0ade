#!/usr/bin/env bash
# Installs what tqc builds and tests against, at pinned Debian versions.
# Idempotent: when every package is already at its pinned version it only
# checks and returns (no apt-get update).
#
# The CUDA 13 toolkit is not a Debian package here; it is expected under
# /usr/local/cuda (or CUDAToolkit_ROOT), and this script says so if absent.
set -euo pipefail

LLVM=1:22.1.8-1~deb12u1
PACKAGES=(
  "libmlir-22-dev=$LLVM"
  "mlir-22-tools=$LLVM"
  "llvm-22-dev=$LLVM"
  "llvm-22-tools=$LLVM"
  "clang-22=$LLVM"
  "lld-22=$LLVM"
  "nlohmann-json3-dev=3.11.2-2"
  "libgtest-dev=1.12.1-0.2"
  "libamdhip64-dev=5.2.3-8"
  "ninja-build=1.11.1-2~deb12u1"
  "cmake=3.25.1-1"
)

missing=()
for spec in "${PACKAGES[@]}"; do
  name=${spec%%=*}
  want=${spec#*=}
  have=$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null || true)
  if [[ "$have" != "install ok installed $want" ]]; then
    missing+=("$spec")
  fi
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "install-deps: all ${#PACKAGES[@]} pinned packages present"
fi

CUDA_ROOT=${CUDAToolkit_ROOT:-/usr/local/cuda}
if [[ ! -x "$CUDA_ROOT/bin/nvcc" || ! -e "$CUDA_ROOT/lib64/libnvrtc.so" ]]; then
  echo "install-deps: the CUDA 13 toolkit was not found under $CUDA_ROOT." >&2
  echo "  Install NVIDIA's CUDA 13 toolkit (it installs to /usr/local/cuda)," >&2
  echo "  or set CUDAToolkit_ROOT to where it is." >&2
  exit 1
fi
echo "install-deps: CUDA $("$CUDA_ROOT/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p') at $CUDA_ROOT"
