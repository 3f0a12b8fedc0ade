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

/// The C header embedding the manifest, the cubin and the PTX.
std::string bundleHeader(const std::string &manifest,
                         const std::vector<char> &cubin,
                         const std::string &ptx);

} // namespace tqc

#endif // TQC_COMPILER_BUNDLE_H
