//===- TQSpec.h - Bridge between the tq IR and the host numerics -*- C++ -*-===//
//
// The tq dialect carries the recipe and layout as attributes; the host
// numerics library (no MLIR) computes with plain structs. These functions
// convert between the two, so both sides share one definition of presets,
// layouts and the set of supported targets.
//
//===----------------------------------------------------------------------===//
#ifndef TQC_DIALECT_TQ_TQSPEC_H
#define TQC_DIALECT_TQ_TQSPEC_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include "tqc/numerics/layout.h"
#include "tqc/numerics/spec.h"

#include <string>

namespace mlir::tq {

class SpecOp;
class FieldAttr;
class LayoutAttr;
class RotationAttr;
class QuantizerAttr;
enum class LayoutKind : uint32_t;

/// GPU architectures the compiler accepts.
bool isSupportedArch(llvm::StringRef arch);
std::string acceptedArchs();

/// The multiprocessor count of a typical GPU of `arch` (H200: 132), used
/// by tq-plan-launch's built-in split choice and the decode's split cap
/// (tq.sm_count); 132 for an arch without a listed part.
int64_t defaultSmCount(llvm::StringRef arch);

/// Launch-grid factors. A grid extent is a '*'-joined product of these and
/// integer literals. The length-dependent ones are representable so that
/// tq-plan-launch can name and reject them.
std::string acceptedGridFactors();
/// The first factor of `extent` that is neither known nor an integer, or "".
std::string firstUnknownGridFactor(llvm::StringRef extent);
/// Whether a factor changes with sequence lengths (forbidden in decode grids).
bool isLengthDependentGridFactor(llvm::StringRef factor);

/// The recipe a tq.spec asks for, after its overrides; on failure emits an
/// error on the op that names the bad value and what is accepted.
FailureOr<tqc::CacheSpec> resolveSpec(SpecOp op);

/// The same resolution without an op: shared with the driver's flags.
/// Returns "" or an error message.
struct SpecOverrides {
  std::optional<int64_t> kBits, vBits, rotationRounds, seed;
  std::optional<std::string> kQuant, vQuant, layout;
  bool qjl = false;
};
std::string applyOverrides(tqc::CacheSpec &spec, const SpecOverrides &o);

/// The element type of the codes a quantizer produces: i<code bits> for
/// lloyd_max and uniform, f8E4M3FN for fp8, bf16 for none. Shared by the
/// quantize/dequantize verifiers and tq-expand-preset.
Type codeElementType(QuantizerAttr q);

// Attribute <-> numerics conversions.
RotationAttr toRotationAttr(MLIRContext *ctx, const tqc::RotationSpec &r);
QuantizerAttr toQuantizerAttr(MLIRContext *ctx, const tqc::QuantSpec &q,
                              ArrayRef<double> levels = {});
tqc::Layout toNumericsLayout(LayoutKind kind, int64_t blockSize,
                             int64_t numKVHeads, int64_t regionBytes,
                             int64_t headStride, int64_t blockStride,
                             int64_t alignment, ArrayRef<FieldAttr> fields);
tqc::Layout toNumericsLayout(LayoutAttr layout);
LayoutAttr toLayoutAttr(MLIRContext *ctx, const tqc::Layout &layout);

} // namespace mlir::tq

#endif // TQC_DIALECT_TQ_TQSPEC_H
