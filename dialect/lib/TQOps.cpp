//===- TQOps.cpp - Verifiers of the tq ops ---------------------------------===//
//
// Each verifier rejects what cannot be compiled with a message that names
// the bad value and what is accepted.
//
//===----------------------------------------------------------------------===//

#include "tqc/Dialect/TQ/TQDialect.h"
#include "tqc/Dialect/TQ/TQSpec.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::tq;

#define GET_OP_CLASSES
#include "tqc/Dialect/TQ/TQOps.cpp.inc"

namespace {

int64_t length(Type t) { return cast<VectorType>(t).getDimSize(0); }

bool isPow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

/// Scalars a quantizer produces next to its codes (tq.quantize results).
int64_t quantizeScalars(QuantizerAttr q) {
  switch (q.getKind()) {
  case QuantKind::LloydMax: return 1;
  case QuantKind::Uniform: return 2;
  default: return 0;
  }
}

const char *scalarNames(QuantizerAttr q, bool withGamma) {
  switch (q.getKind()) {
  case QuantKind::LloydMax: return withGamma ? "scale, gamma" : "scale";
  case QuantKind::Uniform: return "scale, zero";
  default: return "none";
  }
}

template <typename OpT>
LogicalResult verifyCodes(OpT op, QuantizerAttr q, Type codesType,
                          int64_t expectedLength) {
  Type expected = codeElementType(q);
  auto codes = cast<VectorType>(codesType);
  if (codes.getElementType() != expected)
    return op.emitOpError() << "codes have element type "
                            << codes.getElementType() << " but a "
                            << stringifyQuantKind(q.getKind()) << " quantizer"
                            << (q.hasQjl() ? " with qjl" : "") << " of "
                            << q.getBits() << " bits needs " << expected;
  if (codes.getDimSize(0) != expectedLength)
    return op.emitOpError() << "has " << codes.getDimSize(0)
                            << " codes for a vector of " << expectedLength
                            << " coordinates";
  return success();
}

/// Size in cache bytes of a value written to / read from a field.
FailureOr<int64_t> fieldBytes(Operation *op, FieldKind field, Type t) {
  bool codes = field == FieldKind::KeyCodes || field == FieldKind::ValueCodes;
  bool signs = field == FieldKind::KeySigns;
  if (codes || signs) {
    auto v = dyn_cast<VectorType>(t);
    Type e = v ? v.getElementType() : Type();
    if (v && v.getRank() == 1 && e.isInteger(8))
      return v.getDimSize(0);
    if (codes && v && v.getRank() == 1 && isa<Float8E4M3FNType>(e))
      return v.getDimSize(0);
    if (codes && v && v.getRank() == 1 && e.isBF16())
      return 2 * v.getDimSize(0);
    return op->emitOpError()
           << "field " << stringifyFieldKind(field) << " holds "
           << (codes ? "vector<Nxi8>, vector<Nxf8E4M3FN> or vector<Nxbf16>"
                     : "vector<Nxi8>")
           << ", not " << t;
  }
  if (!t.isF32())
    return op->emitOpError() << "field " << stringifyFieldKind(field)
                             << " holds an f32 (stored as fp16), not " << t;
  return 2;
}

/// Checks a field access against the module's layout, when it has one.
LogicalResult verifyFieldAccess(Operation *op, FieldKind field, Type t,
                                CacheType cache) {
  FailureOr<int64_t> bytes = fieldBytes(op, field, t);
  if (failed(bytes))
    return failure();
  auto module = op->getParentOfType<ModuleOp>();
  auto layout =
      module ? module->getAttrOfType<LayoutAttr>("tq.layout") : LayoutAttr();
  if (!layout)
    return success();
  FieldAttr f = layout.lookup(field);
  if (!f)
    return op->emitOpError() << "field " << stringifyFieldKind(field)
                             << " is not in the module's layout";
  if (f.getBytes() != *bytes)
    return op->emitOpError() << "writes " << *bytes << " bytes to field "
                             << stringifyFieldKind(field)
                             << " but the layout gives it " << f.getBytes();
  if (layout.getBlockSize() != cache.getBlockSize() ||
      layout.getNumKvHeads() != cache.getNumKvHeads())
    return op->emitOpError()
           << "cache has block_size " << cache.getBlockSize()
           << " and num_kv_heads " << cache.getNumKvHeads()
           << " but the layout has " << layout.getBlockSize() << " and "
           << layout.getNumKvHeads();
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//

LogicalResult SpecOp::verify() { return failure(failed(resolveSpec(*this))); }

LogicalResult RotateOp::verify() {
  int64_t n = length(getInput().getType());
  if (length(getResult().getType()) != n)
    return emitOpError() << "rotates " << n << " coordinates into "
                         << length(getResult().getType());
  RotationKind kind = getRotation().getKind();
  if ((kind == RotationKind::RandomizedHadamard ||
       kind == RotationKind::PlainHadamard) &&
      !isPow2(n))
    return emitOpError() << "head_dim " << n << " cannot take a "
                         << stringifyRotationKind(kind)
                         << " rotation; accepted: a power of two";
  return success();
}

LogicalResult QuantizeOp::verify() {
  QuantizerAttr q = getQuantizer();
  bool lloyd = q.getKind() == QuantKind::LloydMax;
  if (lloyd && !getNorm())
    return emitOpError() << "a lloyd_max quantizer needs the `norm` operand "
                            "(its input is the unit direction)";
  if (!lloyd && getNorm())
    return emitOpError() << "a " << stringifyQuantKind(q.getKind())
                         << " quantizer takes no `norm` operand";
  if (failed(verifyCodes(*this, q, getCodes().getType(),
                         length(getInput().getType()))))
    return failure();
  int64_t expected = quantizeScalars(q);
  if (int64_t(getParams().size()) != expected)
    return emitOpError() << "produces " << getParams().size()
                         << " scalars but a "
                         << stringifyQuantKind(q.getKind())
                         << " quantizer produces " << expected << " ("
                         << scalarNames(q, false) << ")";
  return success();
}

LogicalResult DequantizeOp::verify() {
  QuantizerAttr q = getQuantizer();
  if (failed(verifyCodes(*this, q, getCodes().getType(),
                         length(getResult().getType()))))
    return failure();
  if (q.hasQjl() != bool(getSigns()))
    return emitOpError() << (q.hasQjl()
                                 ? "a qjl quantizer needs the `signs` operand"
                                 : "`signs` needs a qjl quantizer");
  if (getSigns() &&
      length(getSigns().getType()) != length(getResult().getType()))
    return emitOpError() << "has " << length(getSigns().getType())
                         << " signs for " << length(getResult().getType())
                         << " coordinates";
  if (getUnscaled()) {
    if (q.hasQjl() || (q.getKind() != QuantKind::LloydMax &&
                       q.getKind() != QuantKind::Uniform))
      return emitOpError() << "`unscaled` applies to lloyd_max and uniform "
                              "quantizers without qjl, not "
                           << stringifyQuantKind(q.getKind())
                           << (q.hasQjl() ? " with qjl" : "");
    if (!getParams().empty())
      return emitOpError() << "is `unscaled` but takes "
                           << getParams().size() << " scalars";
    return success();
  }
  int64_t expected = quantizeScalars(q) + (q.hasQjl() ? 1 : 0);
  if (int64_t(getParams().size()) != expected)
    return emitOpError() << "takes " << getParams().size()
                         << " scalars but a "
                         << stringifyQuantKind(q.getKind())
                         << " quantizer needs " << expected << " ("
                         << scalarNames(q, q.hasQjl()) << ")";
  return success();
}

LogicalResult QjlOp::verify() {
  int64_t n = length(getInput().getType());
  if (length(getApprox().getType()) != n || length(getSigns().getType()) != n)
    return emitOpError() << "input, approx and signs must have the same "
                            "length; got "
                         << n << ", " << length(getApprox().getType()) << ", "
                         << length(getSigns().getType());
  return success();
}

static LogicalResult verifyPacking(Operation *op, VectorType codes,
                                   VectorType bytes) {
  unsigned bits = codes.getElementType().getIntOrFloatBitWidth();
  if (bits < 1 || bits > 8)
    return op->emitOpError() << "codes of " << bits
                             << " bits cannot be packed; accepted: 1..8";
  int64_t expected = (codes.getDimSize(0) * bits + 7) / 8;
  if (bytes.getDimSize(0) != expected)
    return op->emitOpError() << codes.getDimSize(0) << " codes of " << bits
                             << " bits take " << expected << " bytes, not "
                             << bytes.getDimSize(0);
  return success();
}

LogicalResult PackOp::verify() {
  return verifyPacking(*this, getCodes().getType(), getBytes().getType());
}

LogicalResult UnpackOp::verify() {
  return verifyPacking(*this, getCodes().getType(), getBytes().getType());
}

LogicalResult CacheWriteOp::verify() {
  return verifyFieldAccess(*this, getField(), getValue().getType(),
                           getCache().getType());
}

LogicalResult CacheReadOp::verify() {
  return verifyFieldAccess(*this, getField(), getResult().getType(),
                           getCache().getType());
}

LogicalResult AttentionOp::verifyRegions() {
  int64_t d = length(getQuery().getType());
  if (length(getResult().getType()) != d)
    return emitOpError() << "output has " << length(getResult().getType())
                         << " coordinates for a query of " << d;
  CacheType cache = getCache().getType();
  if (cache.getHeadDim() != d)
    return emitOpError() << "query has " << d
                         << " coordinates but the cache's head_dim is "
                         << cache.getHeadDim();
  int64_t hq = getNumQHeads(), hkv = getNumKvHeads();
  if (hq < 1 || hkv < 1 || hq % hkv != 0)
    return emitOpError() << "num_q_heads " << hq
                         << " is not a positive multiple of num_kv_heads "
                         << hkv;
  if (hkv != cache.getNumKvHeads())
    return emitOpError() << "num_kv_heads " << hkv
                         << " disagrees with the cache's "
                         << cache.getNumKvHeads();
  if (!(getScale().convertToDouble() > 0.0))
    return emitOpError() << "scale " << getScale().convertToDouble()
                         << " must be positive";
  Block &body = getBody().front();
  if (body.getNumArguments() != 1 || !body.getArgument(0).getType().isIndex())
    return emitOpError() << "body must take one index argument (the token "
                            "position), got "
                         << body.getNumArguments() << " arguments";
  auto yield = cast<YieldOp>(body.getTerminator());
  if (length(yield.getKey().getType()) != d ||
      length(yield.getValue().getType()) != d)
    return emitOpError() << "body yields a key of "
                         << length(yield.getKey().getType())
                         << " and a value of "
                         << length(yield.getValue().getType())
                         << " coordinates for a head_dim of " << d;
  return success();
}

LogicalResult KernelOp::verify() {
  if (getKind() != KernelKind::Combine && getBody().front().empty())
    return emitOpError() << "@" << getSymName() << " has an empty body";
  return success();
}
