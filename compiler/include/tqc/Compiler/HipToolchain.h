//===- HipToolchain.h - clang's AMDGPU back end → HSACO ---------*- C++ -*-===//
#ifndef TQC_COMPILER_HIPTOOLCHAIN_H
#define TQC_COMPILER_HIPTOOLCHAIN_H

#include "tqc/Compiler/Toolchain.h"

#include <map>
#include <string>
#include <vector>

namespace tqc {

/// The clang that builds HSACO: $TQC_CLANG, else the one found at configure
/// time (clang++-22).
std::string hipClangPath();

/// clang (-x hip, device only, no ROCm device libraries) compiles `source`
/// with the embedded templates into a code object for `arch` and reads each
/// kernel's resources from its metadata note.
KernelBuild buildHip(const std::string &source, const std::string &arch);

/// The AMDGPU metadata note (NT_AMDGPU_METADATA, msgpack, amdhsa.kernels):
/// per kernel symbol, VGPRs, SGPRs, LDS bytes, private segment (scratch)
/// bytes and spill counts. `error` is set for anything that is not such a
/// code object. Exposed for tests.
std::map<std::string, KernelResources>
readHsacoResources(const std::vector<char> &image, std::string &error);

} // namespace tqc

#endif // TQC_COMPILER_HIPTOOLCHAIN_H
