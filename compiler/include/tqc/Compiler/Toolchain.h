//===- Toolchain.h - Source to GPU code object, per vendor ------*- C++ -*-===//
//
// The back ends behind one interface: the generated translation unit goes in,
// a code object (an NVIDIA cubin, or an AMD HSACO) and each kernel's
// resources come out. buildKernels picks the toolchain from the arch.
//
//===----------------------------------------------------------------------===//
#ifndef TQC_COMPILER_TOOLCHAIN_H
#define TQC_COMPILER_TOOLCHAIN_H

#include <map>
#include <string>
#include <vector>

namespace tqc {

/// One kernel's resources as the toolchain reports them: ptxas's report on
/// NVIDIA, the code object's metadata note on AMD.
struct KernelResources {
  int registers = -1; ///< NVIDIA registers / AMD VGPRs (arch + acc)
  int sgprs = -1;     ///< AMD scalar registers; -1 on NVIDIA
  int sharedBytes = 0;
  int stackBytes = 0; ///< NVIDIA stack frame / AMD private segment (scratch)
  int spillStoreBytes = 0;
  int spillLoadBytes = 0;
  int localBytes = 0; ///< lmem, when ptxas reports it
  int vgprSpills = 0; ///< AMD: VGPRs spilled (to scratch)
  int sgprSpills = 0; ///< AMD: SGPRs spilled (into VGPR lanes, no scratch)
};

struct KernelBuild {
  std::string error; ///< empty on success
  std::string ptx;   ///< NVIDIA only: the PTX for the driver's JIT
  std::vector<char> image; ///< the code object: cubin or HSACO
  std::string imageName;   ///< "kernels.cubin" or "kernels.hsaco"
  std::string compileLog, linkLog;
  std::map<std::string, KernelResources> resources; ///< by symbol
};

/// Whether `arch` is one the NVIDIA path builds (sm_XX, sm_XXa).
bool isNvidiaArch(const std::string &arch);
/// Whether `arch` is one the AMD path builds (gfx90a, gfx942, gfx950).
bool isAmdArch(const std::string &arch);
/// The compute capability of an NVIDIA arch (sm_90a: 90), 0 for others.
int cudaArchNumber(const std::string &arch);

/// The translation unit for `arch`, compiled by its vendor's toolchain
/// (`ptxOnly`: the NVIDIA path stops after PTX).
KernelBuild buildKernels(const std::string &source, const std::string &arch,
                         bool ptxOnly);

} // namespace tqc

#endif // TQC_COMPILER_TOOLCHAIN_H
