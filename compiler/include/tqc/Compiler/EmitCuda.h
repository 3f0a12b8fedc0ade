//===- EmitCuda.h - The generated CUDA translation unit --------*- C++ -*-===//
#ifndef TQC_COMPILER_EMITCUDA_H
#define TQC_COMPILER_EMITCUDA_H

#include "tqc/Compiler/KernelConfig.h"

#include <string>
#include <vector>

namespace tqc {

/// One kernel of a bundle, as the runtime launches it.
struct KernelEntry {
  std::string name;   ///< store_bf16, decode_f16, ...
  std::string kind;   ///< store, decode
  std::string dtype;  ///< bf16, f16: keys/values/queries/outputs
  std::string symbol; ///< extern "C" name in the image
  std::string args;   ///< the abi.h struct it takes
  int blockThreads = 0;
  std::vector<std::string> grid;
  int plan = -1; ///< index into KernelConfig::plans; -1 for the others
  /// The template instantiated (tq::<function><spec, dtype>) and the spec
  /// member holding its warps.
  std::string function, spec, warpsMember;
  /// Chunk tokens per CTA (extend; its grid's query_tiles), else 0.
  int tileTokens = 0;
  /// CTAs per SM the compiler must fit (__launch_bounds__'s second
  /// argument: a register cap), 0 for none.
  int minBlocks = 0;
  /// The kernel waits with griddepcontrol.wait before it reads what its
  /// predecessor wrote (decode and extend on sm_90+), so the runtime may
  /// launch it with programmatic stream serialization (manifest
  /// "programmatic_launch").
  bool programmaticLaunch = false;
  /// Dynamic shared memory the launch passes (manifest
  /// "dynamic_shared_bytes"): a decode plan's copy ring, else 0.
  int64_t dynamicSharedBytes = 0;
};

/// Whether `arch` (sm_XX[a]) has programmatic dependent launch: sm_90+.
bool archHasProgrammaticLaunch(const std::string &arch);

/// Dynamic shared memory of a decode plan: the copy ring of decode_tc.h
/// (stages >= 3, in slots of two steps: stages rounded up to even x warps x
/// one (page, head) region) for the plans whose recipe, layout and arch
/// take it, else 0.
int64_t decodeRingBytes(const KernelConfig &c, const LaunchConfig &plan);

/// Producer warps of the warpgroup-mma extend (extend_wgmma.h's warp
/// specialization: a warpgroup that loads and dequantizes the K/V tiles
/// beside the kExtendWarps consumer warps), 0 where every warp does both:
/// 4 unless the keys are Lloyd-Max codes wider than the pair tables
/// (TQ_EXTEND_PAIR_TABLE_BITS, default 4: none of the presets; measured;
/// TQC_DEVICE_DEFINES TQ_EXTEND_PRODUCER_WARPS=0|4 overrides).
int extendProducerWarps(const KernelConfig &c);

/// Consecutive prefix units a thread of the warpgroup-mma extend stages
/// (extend.h KvTileStream's Group): 4, or TQ_EXTEND_UNIT_GROUP=1|4.
int extendUnitGroup();

/// The kernels a configuration produces, in launch order per dtype.
std::vector<KernelEntry> kernelEntries(const KernelConfig &c);

/// Template knobs a developer sets for an experiment without rebuilding tqc:
/// the environment variable TQC_DEVICE_DEFINES, "NAME=VALUE ..." (names
/// TQ_ identifiers, values of letters, digits and _ . + -). Each becomes a
/// #define at the top of every generated translation unit, so a bundle's
/// kernels.cu records it. Empty when unset; `error` names a bad entry and
/// what is accepted.
std::vector<std::pair<std::string, std::string>>
deviceDefinesFromEnv(std::string &error);

/// The translation unit of templates/README.md: specialization constants,
/// the TqSpec struct, the template includes and one extern "C" entry point
/// per kernel.
std::string emitCudaSource(const KernelConfig &c, const std::string &version);

} // namespace tqc

#endif // TQC_COMPILER_EMITCUDA_H
