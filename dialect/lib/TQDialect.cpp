//===- TQDialect.cpp - Dialect registration and attribute verifiers -------===//

#include "tqc/Dialect/TQ/TQDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include "tqc/numerics/layout.h"
#include "tqc/Dialect/TQ/TQSpec.h"

using namespace mlir;
using namespace mlir::tq;

#include "tqc/Dialect/TQ/TQDialect.cpp.inc"
#include "tqc/Dialect/TQ/TQEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tqc/Dialect/TQ/TQAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tqc/Dialect/TQ/TQTypes.cpp.inc"

void TQDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tqc/Dialect/TQ/TQOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tqc/Dialect/TQ/TQAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "tqc/Dialect/TQ/TQTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Attribute verifiers
//===----------------------------------------------------------------------===//

LogicalResult
RotationAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     RotationKind kind, uint64_t seed, int64_t rounds) {
  if (kind != RotationKind::None && (rounds < 1 || rounds > 4))
    return emitError() << "rotation rounds " << rounds
                       << " is out of range; accepted: 1..4";
  return success();
}

LogicalResult
QuantizerAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      QuantKind kind, int64_t bits, BoolAttr normCorrection,
                      CodebookDist dist, BoolAttr qjl,
                      ArrayAttr levels) {
  bool hasQjl = qjl && qjl.getValue();
  switch (kind) {
  case QuantKind::LloydMax:
  case QuantKind::Uniform:
    if (bits < 1 || bits > 8)
      return emitError() << stringifyQuantKind(kind) << " bits " << bits
                         << " is out of range; accepted: 1..8";
    break;
  case QuantKind::Fp8E4M3:
    if (bits != 8)
      return emitError() << "fp8_e4m3 bits " << bits
                         << " is not supported; accepted: 8";
    break;
  case QuantKind::None:
    if (bits != 16)
      return emitError() << "an uncompressed (none) quantizer has bits "
                         << bits << "; accepted: 16";
    break;
  }
  if (hasQjl && kind != QuantKind::LloydMax)
    return emitError() << "qjl needs a lloyd_max quantizer, not "
                       << stringifyQuantKind(kind);
  if (hasQjl && bits < 2)
    return emitError() << "qjl with bits " << bits
                       << " leaves no codebook bits; accepted: 2..8";
  if (normCorrection && normCorrection.getValue() &&
      kind != QuantKind::LloydMax)
    return emitError() << "norm_correction applies to lloyd_max only, not "
                       << stringifyQuantKind(kind);
  if (levels) {
    if (kind != QuantKind::LloydMax)
      return emitError() << "levels apply to lloyd_max only, not "
                         << stringifyQuantKind(kind);
    int64_t codeBits = hasQjl ? bits - 1 : bits;
    int64_t expected = int64_t(1) << codeBits;
    if (int64_t(levels.size()) != expected)
      return emitError() << "codebook has " << levels.size()
                         << " levels; a " << codeBits
                         << "-bit codebook needs " << expected;
    SmallVector<double> l;
    for (Attribute a : levels) {
      auto f = dyn_cast<FloatAttr>(a);
      if (!f || !f.getType().isF64())
        return emitError() << "codebook level " << a << " is not an f64";
      l.push_back(f.getValueAsDouble());
    }
    for (size_t i = 1; i < l.size(); ++i)
      if (!(l[i - 1] < l[i]))
        return emitError() << "codebook levels must ascend strictly; level "
                           << i << " (" << l[i] << ") follows " << l[i - 1];
  }
  return success();
}

SmallVector<double> QuantizerAttr::getLevelValues() const {
  SmallVector<double> out;
  if (getLevels())
    for (Attribute a : getLevels())
      out.push_back(cast<FloatAttr>(a).getValueAsDouble());
  return out;
}

LogicalResult FieldAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                FieldKind kind, FieldDType dtype, int64_t bytes,
                                int64_t offset, int64_t tokenStride) {
  if (bytes <= 0)
    return emitError() << "field " << stringifyFieldKind(kind) << " has "
                       << bytes << " bytes; accepted: > 0";
  if (offset < 0)
    return emitError() << "field " << stringifyFieldKind(kind)
                       << " has offset " << offset << "; accepted: >= 0";
  if (tokenStride < bytes)
    return emitError() << "field " << stringifyFieldKind(kind)
                       << " has token_stride " << tokenStride
                       << " below its " << bytes << " bytes";
  return success();
}

LogicalResult LayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 LayoutKind kind, int64_t blockSize,
                                 int64_t numKVHeads, int64_t regionBytes,
                                 int64_t headStride, int64_t blockStride,
                                 int64_t bytesPerTokenHead, int64_t alignment,
                                 ArrayAttr fieldArray) {
  if (blockSize < 1 || numKVHeads < 1 || regionBytes < 1)
    return emitError() << "layout needs positive block_size, num_kv_heads "
                          "and region_bytes (got "
                       << blockSize << ", " << numKVHeads << ", "
                       << regionBytes << ")";
  SmallVector<FieldAttr> fields;
  for (Attribute a : fieldArray) {
    auto f = dyn_cast<FieldAttr>(a);
    if (!f)
      return emitError() << "layout field " << a << " is not a #tq.field";
    fields.push_back(f);
  }
  if (fields.empty())
    return emitError() << "layout has no fields";
  tqc::Layout l = toNumericsLayout(kind, blockSize, numKVHeads, regionBytes,
                                   headStride, blockStride, alignment, fields);
  std::string overlap = l.checkDisjoint();
  if (!overlap.empty())
    return emitError() << "layout is invalid: " << overlap;
  if (l.bytesPerTokenHead() != bytesPerTokenHead)
    return emitError() << "bytes_per_token_head " << bytesPerTokenHead
                       << " disagrees with the fields' "
                       << l.bytesPerTokenHead();
  for (FieldAttr f : fields) {
    if (alignment > 1 && kind == LayoutKind::Native &&
        f.getOffset() % alignment != 0)
      return emitError() << "field " << stringifyFieldKind(f.getKind())
                         << " at offset " << f.getOffset()
                         << " breaks the " << alignment
                         << "-byte plane alignment";
  }
  for (size_t a = 0; a < fields.size(); ++a)
    for (size_t b = a + 1; b < fields.size(); ++b)
      if (fields[a].getKind() == fields[b].getKind())
        return emitError() << "field "
                           << stringifyFieldKind(fields[a].getKind())
                           << " appears twice";
  return success();
}

SmallVector<FieldAttr> LayoutAttr::getFieldList() const {
  SmallVector<FieldAttr> fields;
  for (Attribute a : getFields())
    fields.push_back(cast<FieldAttr>(a));
  return fields;
}

FieldAttr LayoutAttr::lookup(FieldKind kind) const {
  for (FieldAttr f : getFieldList())
    if (f.getKind() == kind)
      return f;
  return {};
}

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef arch) {
  if (!isSupportedArch(arch))
    return emitError() << "unknown arch '" << arch
                       << "'; accepted: " << acceptedArchs();
  return success();
}

LogicalResult LaunchAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t blockN, int64_t splits, int64_t warps,
                                 int64_t headsPerCta, int64_t stages,
                                 ArrayAttr grid) {
  if (blockN < 1 || blockN > 1024 || (blockN & (blockN - 1)))
    return emitError() << "block_n " << blockN
                       << " is not supported; accepted: a power of two in "
                          "1..1024";
  if (splits < 1 || splits > 1024)
    return emitError() << "splits " << splits
                       << " is out of range; accepted: 1..1024";
  if (warps < 1 || warps > 32)
    return emitError() << "warps " << warps
                       << " is out of range; accepted: 1..32";
  if (headsPerCta < 1 || headsPerCta > 64)
    return emitError() << "heads_per_cta " << headsPerCta
                       << " is out of range; accepted: 1..64";
  if (stages < 1 || stages > 8)
    return emitError() << "stages " << stages
                       << " is out of range; accepted: 1..8";
  if (grid.size() < 1 || grid.size() > 3)
    return emitError() << "grid has " << grid.size()
                       << " dimensions; accepted: 1..3";
  for (Attribute dim : grid) {
    auto s = dyn_cast<StringAttr>(dim);
    if (!s)
      return emitError() << "grid dimension " << dim
                         << " is not a string; accepted: a product of "
                         << acceptedGridFactors() << " or integers, joined by '*'";
    std::string bad = firstUnknownGridFactor(s.getValue());
    if (!bad.empty())
      return emitError() << "grid factor '" << bad
                         << "' is unknown; accepted: "
                         << acceptedGridFactors() << ", or an integer";
  }
  return success();
}

LogicalResult CacheType::verify(function_ref<InFlightDiagnostic()> emitError,
                                int64_t headDim, int64_t numKVHeads,
                                int64_t blockSize) {
  if (headDim < 1 || numKVHeads < 1 || blockSize < 1)
    return emitError() << "cache needs positive head_dim, num_kv_heads and "
                          "block_size (got "
                       << headDim << ", " << numKVHeads << ", " << blockSize
                       << ")";
  return success();
}
