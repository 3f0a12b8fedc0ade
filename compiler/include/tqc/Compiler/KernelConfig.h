//===- KernelConfig.h - What the back end instantiates ---------*- C++ -*-===//
//
// The fused module (after tq-plan-launch) read back into plain values: each
// tensor's recipe, the cache layout, and the kernels' launch plans. The CUDA
// emitter and the bundle writer work from this, and extraction is where the
// back end checks that the IR is something its templates implement, with an
// error on the offending op when it is not.
//
//===----------------------------------------------------------------------===//
#ifndef TQC_COMPILER_KERNELCONFIG_H
#define TQC_COMPILER_KERNELCONFIG_H

#include "mlir/IR/BuiltinOps.h"

#include "tqc/numerics/layout.h"
#include "tqc/numerics/spec.h"

#include <string>
#include <vector>

namespace tqc {

/// One of K or V as the store kernel writes it.
struct TensorConfig {
  QuantSpec quant;          ///< kind, bits, norm correction, dist, qjl + seed
  RotationSpec rotation;    ///< None when the tensor is stored unrotated
  std::vector<double> levels; ///< Lloyd-Max levels (codeBits() of them)
};

struct LaunchConfig {
  bool present = false;
  int64_t blockN = 0, splits = 1, warps = 4, headsPerCta = 1, stages = 1;
  std::vector<std::string> grid; ///< three extents (formulas)
};

/// One decode launch plan and the batch buckets it serves (tq-plan-launch).
struct PlanConfig {
  std::string decodeName;       ///< the IR kernel ("decode_p0", ...)
  LaunchConfig decode;          ///< merges its own splits (no combine kernel)
  std::vector<int64_t> buckets; ///< ascending max_batch values
};

struct KernelConfig {
  std::string arch, preset;
  int headDim = 0, numQHeads = 0, numKVHeads = 0, blockSize = 0;
  double softmaxScale = 0;
  Layout layout;
  TensorConfig key, value;
  /// The rotation the decode kernel applies to queries (= the key's) and the
  /// one it undoes on outputs (= the value's); None when absent.
  RotationSpec queryRotation, outputRotation;
  LaunchConfig store;
  std::vector<PlanConfig> plans; ///< sorted by their first bucket
  /// The extend kernel's plan (one for every bucket); extend.present is
  /// false when the bundle has none, and extendNote then says why.
  LaunchConfig extend;
  std::string extendNote;
  /// The extend attention runs on Hopper's warpgroup mma (sm_90a,
  /// templates/tq/extend_wgmma.h) instead of warp mma.sync; its shared
  /// memory is then dynamic (extendWgmmaSharedBytes).
  bool extendWgmma = false;
  std::string planSource = "defaults"; ///< defaults, options, tuning DB
  /// SMs the plans are made for (tq.sm_count; the arch's usual count when
  /// the IR has none): the decode caps a batch's splits by it.
  int smCount = 0;

  int gqaRatio() const { return numQHeads / numKVHeads; }
  /// Chunk tokens per extend CTA: 16·warps query rows of G heads each.
  int extendTileTokens() const {
    return int(16 * extend.warps / gqaRatio());
  }
};

/// Dynamic shared memory of the warpgroup-mma extend CTA (extend_wgmma.h
/// ExtendWgmmaPlan::kSmemBytes: the queries and two key+value tiles, or
/// the output staging, plus 1024 bytes to align the swizzle atoms).
int64_t extendWgmmaSharedBytes(const KernelConfig &c);

/// Reads a module that went through the whole pipeline. Emits an error on the
/// op that the back end cannot instantiate and fails.
mlir::FailureOr<KernelConfig> extractKernelConfig(mlir::ModuleOp module);

} // namespace tqc

#endif // TQC_COMPILER_KERNELCONFIG_H
