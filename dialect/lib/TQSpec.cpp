//===- TQSpec.cpp - Bridge between the tq IR and the host numerics --------===//

#include "tqc/Dialect/TQ/TQSpec.h"

#include "llvm/ADT/StringSwitch.h"
#include "tqc/Dialect/TQ/TQDialect.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <sstream>

using namespace mlir;
using namespace mlir::tq;

// The IR enums and the numerics enums list the same cases in the same order.
#define TQ_SAME_ENUM(A, B)                                                     \
  static_assert(uint32_t(A) == uint32_t(B), "enum order drifted: " #A)
TQ_SAME_ENUM(RotationKind::Dense, tqc::RotationKind::DenseHaar);
TQ_SAME_ENUM(QuantKind::Fp8E4M3, tqc::QuantKind::Fp8E4M3);
TQ_SAME_ENUM(CodebookDist::Vllm, tqc::CodebookDist::Vllm);
TQ_SAME_ENUM(LayoutKind::VLLM, tqc::LayoutKind::VLLM);
TQ_SAME_ENUM(FieldKind::KeyZero, tqc::FieldKind::KeyZero);
TQ_SAME_ENUM(FieldKind::ValueZero, tqc::FieldKind::ValueZero);
TQ_SAME_ENUM(FieldDType::Fp8E4M3, tqc::FieldDType::Fp8E4M3);
#undef TQ_SAME_ENUM

namespace {

const char *const kArchs[] = {"sm_80",   "sm_86",  "sm_89",   "sm_90",
                              "sm_90a",  "sm_100", "sm_100a", "sm_120",
                              "sm_120a", "gfx90a", "gfx942",  "gfx950"};

// query_tiles: ceil(max_tokens / tile_tokens) + max_batch, the extend
// kernel's query tiles over any batch of chunks within max_tokens rows;
// token_tiles: ceil(max_tokens / tile_tokens), a kernel's CTAs when each
// takes tile_tokens consecutive tokens.
const char *const kFixedGridFactors[] = {"max_batch",    "max_tokens",
                                         "num_kv_heads", "num_q_heads",
                                         "head_groups",  "splits",
                                         "query_tiles",  "token_tiles"};
const char *const kLengthGridFactors[] = {"seq_len", "max_seq_len",
                                          "num_tokens"};

} // namespace

int64_t mlir::tq::defaultSmCount(StringRef arch) {
  // One representative part per arch: A100, A10/RTX 3090 class, L40S/RTX
  // 4090 class, H100/H200, B200, RTX 5090, MI250X (per GCD), MI300X, MI355X.
  return llvm::StringSwitch<int64_t>(arch)
      .Case("sm_80", 108)
      .Case("sm_86", 84)
      .Case("sm_89", 128)
      .Case("sm_90", 132)
      .Case("sm_90a", 132)
      .Case("sm_100", 148)
      .Case("sm_100a", 148)
      .Case("sm_120", 170)
      .Case("sm_120a", 170)
      .Case("gfx90a", 110)
      .Case("gfx942", 304)
      .Case("gfx950", 256)
      .Default(132); // an arch without a listed part: the H100/H200 count
}

bool mlir::tq::isSupportedArch(StringRef arch) {
  return llvm::is_contained(kArchs, arch);
}

std::string mlir::tq::acceptedArchs() {
  return llvm::join(ArrayRef<const char *>(kArchs), ", ");
}

std::string mlir::tq::acceptedGridFactors() {
  SmallVector<StringRef> all(std::begin(kFixedGridFactors),
                             std::end(kFixedGridFactors));
  all.append(std::begin(kLengthGridFactors), std::end(kLengthGridFactors));
  return llvm::join(all, ", ");
}

bool mlir::tq::isLengthDependentGridFactor(StringRef factor) {
  return llvm::is_contained(kLengthGridFactors, factor);
}

std::string mlir::tq::firstUnknownGridFactor(StringRef extent) {
  SmallVector<StringRef> factors;
  extent.split(factors, '*');
  for (StringRef f : factors) {
    f = f.trim();
    uint64_t literal;
    if (!f.empty() && !f.getAsInteger(10, literal))
      continue;
    if (llvm::is_contained(kFixedGridFactors, f) ||
        llvm::is_contained(kLengthGridFactors, f))
      continue;
    return f.empty() ? std::string("<empty>") : f.str();
  }
  return {};
}

std::string mlir::tq::applyOverrides(tqc::CacheSpec &s,
                                     const SpecOverrides &o) {
  auto quantKind = [](const std::string &name, const char *which,
                      std::string &err) -> std::optional<tqc::QuantKind> {
    std::optional<tqc::QuantKind> k = tqc::parseQuantKind(name);
    if (!k)
      err = std::string("unknown ") + which + " quantizer '" + name +
            "'; accepted: lloyd_max, uniform, fp8_e4m3, none";
    return k;
  };
  // Bits that a kind implies, for a kind set without explicit bits.
  auto retarget = [](tqc::TensorSpec &t, tqc::QuantKind kind,
                     uint64_t seed) {
    t.quant.kind = kind;
    if (kind == tqc::QuantKind::Fp8E4M3)
      t.quant.bits = 8;
    else if (kind == tqc::QuantKind::None)
      t.quant.bits = 16;
    else if (t.quant.bits > 8)
      t.quant.bits = 4;
    if (kind == tqc::QuantKind::LloydMax) {
      if (t.rotation.kind == tqc::RotationKind::None)
        t.rotation = {tqc::RotationKind::RandomizedHadamard, seed, 1};
    } else {
      t.rotation.kind = tqc::RotationKind::None;
      t.quant.normCorrect = false;
    }
  };
  std::string err;
  if (o.kQuant) {
    std::optional<tqc::QuantKind> k = quantKind(*o.kQuant, "key", err);
    if (!k)
      return err;
    retarget(s.key, *k, tqc::kKeyRotationSeed);
  }
  if (o.vQuant) {
    std::optional<tqc::QuantKind> k = quantKind(*o.vQuant, "value", err);
    if (!k)
      return err;
    retarget(s.value, *k, tqc::kValueRotationSeed);
  }
  if (o.kBits)
    s.key.quant.bits = int(*o.kBits);
  if (o.vBits)
    s.value.quant.bits = int(*o.vBits);
  if (o.rotationRounds) {
    for (tqc::TensorSpec *t : {&s.key, &s.value})
      if (t->rotation.kind != tqc::RotationKind::None)
        t->rotation.rounds = int(*o.rotationRounds);
  }
  if (o.seed) {
    // One user seed derives distinct streams for K, V and the QJL sketch.
    s.key.rotation.seed = uint64_t(*o.seed) * 3 + 1;
    s.value.rotation.seed = uint64_t(*o.seed) * 3 + 2;
    s.key.quant.qjlSeed = uint64_t(*o.seed) * 3 + 3;
  }
  if (o.qjl)
    s.key.quant.qjl = true;
  if (o.layout) {
    std::optional<tqc::LayoutKind> l = tqc::parseLayoutKind(*o.layout);
    if (!l)
      return "unknown layout '" + *o.layout + "'; accepted: native, vllm";
    tqc::useLayout(s, *l);
  }
  return tqc::validate(s);
}

FailureOr<tqc::CacheSpec> mlir::tq::resolveSpec(SpecOp op) {
  std::string preset = op.getPreset().str();
  std::optional<tqc::CacheSpec> spec =
      tqc::presetSpec(preset, int(op.getHeadDim()), int(op.getNumQHeads()),
                      int(op.getNumKvHeads()), int(op.getBlockSize()));
  if (!spec)
    return op.emitOpError() << "unknown preset '" << preset
                            << "'; accepted: " << tqc::acceptedPresets();
  SpecOverrides o;
  o.kBits = op.getKBits();
  o.vBits = op.getVBits();
  o.rotationRounds = op.getRotationRounds();
  o.seed = op.getSeed();
  if (op.getKQuant())
    o.kQuant = op.getKQuant()->str();
  if (op.getVQuant())
    o.vQuant = op.getVQuant()->str();
  if (op.getLayout())
    o.layout = op.getLayout()->str();
  o.qjl = op.getQjl();
  std::string err = applyOverrides(*spec, o);
  if (!err.empty())
    return op.emitOpError() << err;
  return *spec;
}

Type mlir::tq::codeElementType(QuantizerAttr q) {
  MLIRContext *ctx = q.getContext();
  switch (q.getKind()) {
  case QuantKind::LloydMax:
  case QuantKind::Uniform:
    return IntegerType::get(ctx, q.getCodeBits());
  case QuantKind::Fp8E4M3:
    return Float8E4M3FNType::get(ctx);
  case QuantKind::None:
    return BFloat16Type::get(ctx);
  }
  return {};
}

RotationAttr mlir::tq::toRotationAttr(MLIRContext *ctx,
                                      const tqc::RotationSpec &r) {
  if (r.kind == tqc::RotationKind::None)
    return RotationAttr::get(ctx, RotationKind::None, 0, 1);
  return RotationAttr::get(ctx, RotationKind(uint32_t(r.kind)), r.seed,
                           r.rounds);
}

QuantizerAttr mlir::tq::toQuantizerAttr(MLIRContext *ctx,
                                        const tqc::QuantSpec &q,
                                        ArrayRef<double> levels) {
  Builder b(ctx);
  return QuantizerAttr::get(
      ctx, QuantKind(uint32_t(q.kind)), q.bits,
      q.normCorrect ? b.getBoolAttr(true) : BoolAttr(),
      CodebookDist(uint32_t(q.dist)), q.qjl ? b.getBoolAttr(true) : BoolAttr(),
      levels.empty() ? ArrayAttr() : b.getF64ArrayAttr(levels));
}

tqc::Layout mlir::tq::toNumericsLayout(LayoutKind kind, int64_t blockSize,
                                       int64_t numKVHeads, int64_t regionBytes,
                                       int64_t headStride, int64_t blockStride,
                                       int64_t alignment,
                                       ArrayRef<FieldAttr> fields) {
  tqc::Layout l;
  l.kind = tqc::LayoutKind(uint32_t(kind));
  l.blockSize = int(blockSize);
  l.numKVHeads = int(numKVHeads);
  l.regionBytes = regionBytes;
  l.headStride = headStride;
  l.blockStride = blockStride;
  l.alignment = int(alignment);
  for (FieldAttr f : fields)
    l.fields.push_back({tqc::FieldKind(uint32_t(f.getKind())),
                        tqc::FieldDType(uint32_t(f.getDtype())), f.getBytes(),
                        f.getOffset(), f.getTokenStride()});
  return l;
}

tqc::Layout mlir::tq::toNumericsLayout(LayoutAttr a) {
  return toNumericsLayout(a.getKind(), a.getBlockSize(), a.getNumKvHeads(),
                          a.getRegionBytes(), a.getHeadStride(),
                          a.getBlockStride(), a.getAlignment(),
                          a.getFieldList());
}

LayoutAttr mlir::tq::toLayoutAttr(MLIRContext *ctx, const tqc::Layout &l) {
  SmallVector<Attribute> fields;
  for (const tqc::Field &f : l.fields)
    fields.push_back(FieldAttr::get(ctx, FieldKind(uint32_t(f.kind)),
                                    FieldDType(uint32_t(f.dtype)), f.bytes,
                                    f.offset, f.tokenStride));
  return LayoutAttr::get(ctx, LayoutKind(uint32_t(l.kind)), l.blockSize,
                         l.numKVHeads, l.regionBytes, l.headStride,
                         l.blockStride, l.bytesPerTokenHead(), l.alignment,
                         ArrayAttr::get(ctx, fields));
}
