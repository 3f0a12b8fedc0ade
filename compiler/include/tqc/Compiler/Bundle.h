//===- Bundle.h - What an engine embeds: manifest, PTX, cubin, header -*- C++ -*-===//
#ifndef TQC_COMPILER_BUNDLE_H
#define TQC_COMPILER_BUNDLE_H

#include "tqc/Compiler/CudaToolchain.h"
#include "tqc/Compiler/EmitCuda.h"
#include "tqc/Compiler/KernelConfig.h"

#include <string>

namespace tqc {

constexpr int kManifestSchemaVersion = 2;

/// manifest.json (docs/MANIFEST.md) for a built configuration.
std::string manifestJson(const KernelConfig &c, const KernelBuild &build,
                         const std::string &version);

/// "" when every kernel's static plus dynamic shared memory fits one block
/// of the arch (its opt-in maximum: 227 KiB on sm_90/sm_100, 99 KiB on
/// sm_120), else the error naming the first kernel that does not, its
/// plan and what is accepted; a launch of it would only fail at run time.
std::string checkSharedMemory(const KernelConfig &c, const KernelBuild &build);

/// The C header embedding the manifest, the cubin and the PTX.
std::string bundleHeader(const std::string &manifest,
                         const std::vector<char> &cubin,
                         const std::string &ptx);

} // namespace tqc

#endif // TQC_COMPILER_BUNDLE_H
