//===- Toolchain.cpp - The back end for an arch ----------------------------===//
#include "tqc/Compiler/CudaToolchain.h"
#include "tqc/Compiler/HipToolchain.h"

namespace tqc {

KernelBuild buildKernels(const std::string &source, const std::string &arch,
                         bool ptxOnly) {
  if (isAmdArch(arch))
    return buildHip(source, arch);
  return buildCuda(source, arch, ptxOnly);
}

} // namespace tqc
