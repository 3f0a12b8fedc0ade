//===- CudaToolchain.h - NVRTC and nvJitLink, in process -------*- C++ -*-===//
#ifndef TQC_COMPILER_CUDATOOLCHAIN_H
#define TQC_COMPILER_CUDATOOLCHAIN_H

#include "tqc/Compiler/Toolchain.h"

#include <map>
#include <string>

namespace tqc {

/// "13.0" for NVRTC and nvJitLink.
std::string nvrtcVersion();
std::string nvJitLinkVersion();

/// NVRTC compiles `source` (with the embedded templates as headers) to PTX
/// for compute_XX; unless `ptxOnly`, nvJitLink turns it into an sm_XX cubin
/// and reports each kernel's resources.
KernelBuild buildCuda(const std::string &source, const std::string &arch,
                    bool ptxOnly);

/// Parses nvJitLink's -verbose log (ptxas info lines) into per-kernel
/// resources. Exposed for tests.
std::map<std::string, KernelResources>
parsePtxasInfo(const std::string &log);

} // namespace tqc

#endif // TQC_COMPILER_CUDATOOLCHAIN_H
