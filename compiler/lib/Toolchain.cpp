//===- Toolchain.cpp - The back end for an arch ----------------------------===//
#include "tqc/Compiler/CudaToolchain.h"
#include "tqc/Compiler/HipToolchain.h"

namespace tqc {

int cudaArchNumber(const std::string &arch) {
  if (arch.rfind("sm_", 0) != 0)
    return 0;
  int number = 0;
  for (char ch : arch.substr(3)) {
    if (ch < '0' || ch > '9')
      break;
    number = number * 10 + (ch - '0');
  }
  return number;
}

KernelBuild buildKernels(const std::string &source, const std::string &arch,
                         bool ptxOnly) {
  if (isAmdArch(arch))
    return buildHip(source, arch);
  return buildCuda(source, arch, ptxOnly);
}

} // namespace tqc
