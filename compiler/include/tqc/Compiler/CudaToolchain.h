//===- CudaToolchain.h - NVRTC and nvJitLink, in process -------*- C++ -*-===//
#ifndef TQC_COMPILER_CUDATOOLCHAIN_H
#define TQC_COMPILER_CUDATOOLCHAIN_H

#include <map>
#include <string>
#include <vector>

namespace tqc {

/// ptxas's resource report for one kernel.
struct KernelResources {
  int registers = -1;
  int sharedBytes = 0;
  int stackBytes = 0;
  int spillStoreBytes = 0;
  int spillLoadBytes = 0;
  int localBytes = 0; ///< lmem, when ptxas reports it
};

struct CudaBuild {
  std::string error; ///< empty on success
  std::string ptx;
  std::vector<char> cubin;
  std::string compileLog, linkLog;
  std::map<std::string, KernelResources> resources; ///< by symbol
};

/// "13.0" for NVRTC and nvJitLink.
std::string nvrtcVersion();
std::string nvJitLinkVersion();

/// Whether `arch` is one the NVIDIA path builds (sm_XX, sm_XXa).
bool isNvidiaArch(const std::string &arch);

/// NVRTC compiles `source` (with the embedded templates as headers) to PTX
/// for compute_XX; unless `ptxOnly`, nvJitLink turns it into an sm_XX cubin
/// and reports each kernel's resources.
CudaBuild buildCuda(const std::string &source, const std::string &arch,
                    bool ptxOnly);

/// Parses nvJitLink's -verbose log (ptxas info lines) into per-kernel
/// resources. Exposed for tests.
std::map<std::string, KernelResources>
parsePtxasInfo(const std::string &log);

} // namespace tqc

#endif // TQC_COMPILER_CUDATOOLCHAIN_H
