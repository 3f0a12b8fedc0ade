//===- KernelConfig.cpp - Read the fused module back for the back end -----===//

#include "tqc/Compiler/KernelConfig.h"
#include "tqc/Compiler/Toolchain.h"

#include "tqc/Dialect/TQ/TQDialect.h"
#include "tqc/Dialect/TQ/TQSpec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "llvm/ADT/StringMap.h"

using namespace mlir;
namespace mt = mlir::tq;
using mt::AttentionOp, mt::CacheWriteOp, mt::KernelKind, mt::KernelOp,
    mt::LaunchAttr, mt::LayoutAttr, mt::NormalizeOp, mt::PackOp, mt::QjlOp,
    mt::QuantizeOp, mt::QuantizerAttr, mt::RotateOp, mt::RotationAttr,
    mt::TargetAttr, mt::YieldOp;

namespace tqc {
namespace {

RotationSpec toRotationSpec(RotationAttr r) {
  RotationSpec s;
  switch (r.getKind()) {
  case mt::RotationKind::None: s.kind = tqc::RotationKind::None; break;
  case mt::RotationKind::RandomizedHadamard:
    s.kind = tqc::RotationKind::RandomizedHadamard;
    break;
  case mt::RotationKind::PlainHadamard: s.kind = tqc::RotationKind::PlainHadamard; break;
  case mt::RotationKind::Dense: s.kind = tqc::RotationKind::DenseHaar; break;
  }
  s.seed = r.getSeed();
  s.rounds = int(r.getRounds());
  return s;
}

bool sameRotation(const RotationSpec &a, const RotationSpec &b) {
  if (a.kind != b.kind)
    return false;
  if (a.kind == tqc::RotationKind::None ||
      a.kind == tqc::RotationKind::PlainHadamard)
    return true;
  return a.seed == b.seed && a.rounds == b.rounds;
}

QuantSpec toQuantSpec(QuantizerAttr q) {
  QuantSpec s;
  switch (q.getKind()) {
  case mt::QuantKind::None: s.kind = tqc::QuantKind::None; break;
  case mt::QuantKind::LloydMax: s.kind = tqc::QuantKind::LloydMax; break;
  case mt::QuantKind::Uniform: s.kind = tqc::QuantKind::Uniform; break;
  case mt::QuantKind::Fp8E4M3: s.kind = tqc::QuantKind::Fp8E4M3; break;
  }
  s.bits = int(q.getBits());
  s.normCorrect = q.getNormCorrection() && q.getNormCorrection().getValue();
  s.qjl = q.hasQjl();
  switch (q.getDist()) {
  case mt::CodebookDist::Beta: s.dist = tqc::CodebookDist::Beta; break;
  case mt::CodebookDist::Gaussian: s.dist = tqc::CodebookDist::Gaussian; break;
  case mt::CodebookDist::Uniform: s.dist = tqc::CodebookDist::Uniform; break;
  case mt::CodebookDist::Vllm: s.dist = tqc::CodebookDist::Vllm; break;
  }
  return s;
}

/// The field a value is written to, through an optional tq.pack.
std::optional<mt::FieldKind> writtenField(Value v) {
  for (Operation *user : v.getUsers()) {
    if (auto w = dyn_cast<CacheWriteOp>(user))
      return w.getField();
    if (auto p = dyn_cast<PackOp>(user))
      if (auto f = writtenField(p.getBytes()))
        return f;
  }
  return std::nullopt;
}

/// The forward rotation on the way from the kernel's input to `v`.
std::optional<RotationAttr> rotationBefore(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto r = dyn_cast<RotateOp>(def))
      return r.getInverse() ? std::nullopt
                            : std::optional<RotationAttr>(r.getRotation());
    if (auto n = dyn_cast<NormalizeOp>(def)) {
      v = n.getInput();
      continue;
    }
    if (isa<arith::ExtFOp>(def))
      return std::nullopt;
    return std::nullopt;
  }
  return std::nullopt;
}

LogicalResult readLaunch(KernelOp k, LaunchConfig &out) {
  LaunchAttr l = k.getLaunchAttr();
  if (!l)
    return k.emitOpError() << "@" << k.getSymName()
                           << " has no launch plan; run tq-plan-launch";
  out.present = true;
  out.blockN = l.getBlockN();
  out.splits = l.getSplits();
  out.warps = l.getWarps();
  out.headsPerCta = l.getHeadsPerCta();
  out.stages = l.getStages();
  for (Attribute a : l.getGrid())
    out.grid.push_back(cast<StringAttr>(a).getValue().str());
  while (out.grid.size() < 3)
    out.grid.push_back("1");
  return success();
}

/// The store kernel's recipe for K and V.
LogicalResult readStore(KernelOp store, KernelConfig &c) {
  bool seen[2] = {false, false};
  WalkResult r = store.walk([&](QuantizeOp q) -> WalkResult {
    std::optional<mt::FieldKind> field = writtenField(q.getCodes());
    if (!field || (*field != mt::FieldKind::KeyCodes &&
                   *field != mt::FieldKind::ValueCodes)) {
      q.emitOpError() << "codes are not written to key_codes or value_codes";
      return WalkResult::interrupt();
    }
    bool isKey = *field == mt::FieldKind::KeyCodes;
    TensorConfig &t = isKey ? c.key : c.value;
    t.quant = toQuantSpec(q.getQuantizer());
    if (ArrayAttr levels = q.getQuantizer().getLevels())
      for (Attribute a : levels)
        t.levels.push_back(cast<FloatAttr>(a).getValueAsDouble());
    if (std::optional<RotationAttr> rot = rotationBefore(q.getInput()))
      t.rotation = toRotationSpec(*rot);
    seen[isKey ? 0 : 1] = true;
    return WalkResult::advance();
  });
  if (r.wasInterrupted())
    return failure();
  if (!seen[0] || !seen[1])
    return store.emitOpError() << "@" << store.getSymName()
                               << " must quantize both keys and values";
  store.walk([&](QjlOp q) { c.key.quant.qjlSeed = q.getSeed(); });
  return success();
}

/// Checks a decode kernel against the store's recipe: the templates rotate
/// queries with the key rotation and un-rotate outputs with the value
/// rotation, nothing else.
/// The attention of a decode or extend kernel: its scale and the rotations
/// it applies to queries and outputs, which must be the stored tensors'.
LogicalResult readAttention(KernelOp decode, KernelConfig &c) {
  SmallVector<AttentionOp> atts(decode.getBody().getOps<AttentionOp>());
  if (atts.size() != 1)
    return decode.emitOpError() << "@" << decode.getSymName()
                                << " must hold exactly one tq.attention";
  AttentionOp att = atts.front();
  c.softmaxScale = att.getScale().convertToDouble();
  auto yield = cast<YieldOp>(att.getBody().front().getTerminator());
  if (yield.getKey().getDefiningOp<RotateOp>() ||
      yield.getValue().getDefiningOp<RotateOp>())
    return att.emitOpError() << "un-rotates keys or values per token; the "
                                "CUDA templates work in the rotated domain "
                                "(run tq-absorb-rotation)";
  c.queryRotation = RotationSpec();
  c.outputRotation = RotationSpec();
  if (auto q = att.getQuery().getDefiningOp<RotateOp>())
    c.queryRotation = toRotationSpec(q.getRotation());
  if (!sameRotation(c.queryRotation, c.key.rotation))
    return att.emitOpError() << "rotates its query with "
                             << toString(c.queryRotation.kind)
                             << " but keys are stored with "
                             << toString(c.key.rotation.kind);
  Operation *tailOwner = decode.getOperation();
  tailOwner->walk([&](RotateOp r) {
    if (r.getInverse())
      c.outputRotation = toRotationSpec(r.getRotation());
  });
  if (!sameRotation(c.outputRotation, c.value.rotation))
    return tailOwner->emitOpError()
           << "un-rotates the output with "
           << toString(c.outputRotation.kind) << " but values are stored with "
           << toString(c.value.rotation.kind);
  return success();
}

/// The combinations the templates implement (templates/README.md): any
/// quantizer on either tensor, rotated by a (randomized or plain) Hadamard or
/// not; QJL on keys; head_dim 64..256.
LogicalResult checkSupported(ModuleOp m, const KernelConfig &c) {
  if (c.value.quant.qjl)
    return m.emitError() << "QJL applies to keys only";
  for (const TensorConfig *t : {&c.key, &c.value})
    if (t->rotation.kind != tqc::RotationKind::None &&
        t->rotation.kind != tqc::RotationKind::RandomizedHadamard &&
        t->rotation.kind != tqc::RotationKind::PlainHadamard)
      return m.emitError() << "rotation " << toString(t->rotation.kind)
                           << " has no GPU template; accepted: none, "
                              "randomized_hadamard, plain_hadamard";
  // vLLM's Triton store casts fp8 keys to e4b15 on GPUs below sm_89
  // (no e4m3 conversion there): a cache vLLM wrote on an A100 is not the
  // e4m3 these kernels read (../shared/reference/vllm-turboquant.md §3).
  if (c.layout.kind == tqc::LayoutKind::VLLM &&
      c.key.quant.kind == tqc::QuantKind::Fp8E4M3 &&
      (c.arch == "sm_80" || c.arch == "sm_86"))
    return m.emitError() << "fp8 keys in the vllm layout on " << c.arch
                         << ": vLLM stores them as e4b15 below sm_89, these "
                            "kernels read e4m3; accepted archs: sm_89 and "
                            "newer";
  if (c.headDim != 64 && c.headDim != 128 && c.headDim != 256)
    return m.emitError() << "head_dim " << c.headDim
                         << " has no CUDA template; accepted: 64, 128, 256";
  for (const PlanConfig &p : c.plans)
    if (p.decode.headsPerCta > 8)
      return m.emitError() << "heads_per_cta " << p.decode.headsPerCta
                           << " exceeds the decode template's 8";
  if (c.blockSize & (c.blockSize - 1))
    return m.emitError() << "block_size " << c.blockSize
                         << " has no CUDA template; accepted: a power of two";
  return success();
}

/// Why templates/tq/extend.h cannot instantiate this configuration's extend
/// kernel (its ExtendPlan::kSupported and shared-memory bound), or "".
std::string extendUnsupported(const KernelConfig &c) {
  if (isAmdArch(c.arch))
    return "extend has no AMD port yet (its kernel uses NVIDIA warp mma)";
  if (cudaArchNumber(c.arch) < 80)
    return "extend needs warp mma (sm_80 or newer), not " + c.arch;
  const QuantSpec &k = c.key.quant, &v = c.value.quant;
  auto stored = [](const QuantSpec &q) {
    return q.kind == QuantKind::None ? std::string("uncompressed bf16")
                                     : std::string(toString(q.kind));
  };
  auto mmaReady = [](const QuantSpec &q) {
    return q.kind == QuantKind::LloydMax || q.kind == QuantKind::Uniform ||
           q.kind == QuantKind::Fp8E4M3;
  };
  if (!mmaReady(k) || k.qjl)
    return std::string("extend reads keys stored as Lloyd-Max without QJL, "
                       "uniform or fp8; these are ") +
           stored(k) + (k.qjl ? " with QJL" : "");
  if (!mmaReady(v))
    return std::string("extend reads values stored as Lloyd-Max, uniform or "
                       "fp8; these are ") +
           stored(v);
  if (c.layout.kind != LayoutKind::Native)
    return "extend reads the native layout only (the vllm layout's norm "
           "correction at read needs a per-token pass it does not have yet)";
  if (c.headDim != 64 && c.headDim != 128)
    return "extend has templates for head_dim 64 and 128, not " +
           std::to_string(c.headDim);
  return "";
}

/// Shared memory of an extend CTA (extend.h ExtendPlan: the union of the
/// query staging, two key+value tiles and the output staging, plus
/// scalars).
int64_t extendSharedBytes(const KernelConfig &c) {
  const int64_t d = c.headDim, bn = c.extend.blockN,
                rows = 16 * c.extend.warps;
  const int64_t q = rows * (d + 8) * 2, tiles = 2 * 2 * bn * (d + 8) * 2,
                out = rows * (d + 4) * 4;
  return std::max({q, tiles, out}) + 2048;
}

/// Whether the extend plan can take the warpgroup-mma kernel: an sm_90a
/// target (the arch-specific feature set that has wgmma), whole warpgroups,
/// and tiles the template instantiates.
bool extendTakesWgmma(const KernelConfig &c) {
  return c.arch == "sm_90a" && c.extend.warps % 4 == 0 &&
         (c.extend.blockN == 64 || c.extend.blockN == 128) &&
         (c.headDim == 64 || c.headDim == 128);
}

/// The most dynamic shared memory a Hopper CTA may ask for (227 KiB).
constexpr int64_t kHopperMaxSharedBytes = 232448;

} // namespace

int64_t extendWgmmaSharedBytes(const KernelConfig &c) {
  const int64_t d = c.headDim, bn = c.extend.blockN,
                rows = 16 * c.extend.warps;
  const int64_t main = rows * d * 2 + 2 * 2 * bn * d * 2,
                out = rows * (d + 4) * 4;
  // extend_wgmma.h's plan: eight consumer warps (the ping-pong CTAs) also
  // stage their output rows in the activations' type, rows of 2·d + 16
  // bytes.
  const int64_t rawOut = c.extend.warps == 8 ? rows * (2 * d + 16) : 0;
  return std::max(main, out) + rawOut + 1024;
}

FailureOr<KernelConfig> extractKernelConfig(ModuleOp m) {
  KernelConfig c;
  auto target = m->getAttrOfType<TargetAttr>("tq.target");
  auto spec = m->getAttrOfType<DictionaryAttr>("tq.spec");
  auto layout = m->getAttrOfType<LayoutAttr>("tq.layout");
  if (!target || !spec || !layout)
    return m.emitError() << "the back end needs the module attributes "
                            "tq.target, tq.spec and tq.layout (run the "
                            "whole pipeline)";
  c.arch = target.getArch().str();
  auto str = [&](StringRef n) {
    auto a = spec.getAs<StringAttr>(n);
    return a ? a.getValue().str() : std::string();
  };
  auto num = [&](StringRef n) {
    auto a = spec.getAs<IntegerAttr>(n);
    return a ? int(a.getInt()) : 0;
  };
  c.preset = str("preset");
  c.headDim = num("head_dim");
  c.numQHeads = num("num_q_heads");
  c.numKVHeads = num("num_kv_heads");
  c.blockSize = num("block_size");
  c.layout = mt::toNumericsLayout(layout);
  auto sms = m->getAttrOfType<IntegerAttr>("tq.sm_count");
  c.smCount = int(sms ? sms.getInt() : mt::defaultSmCount(target.getArch()));
  if (c.smCount < 1 || c.smCount > 4096)
    return m.emitError() << "tq.sm_count " << c.smCount
                         << " is out of range; accepted: 1..4096";
  if (auto source = m->getAttrOfType<StringAttr>("tq.plan_source"))
    c.planSource = source.getValue().str();
  else
    c.planSource = "ir"; // plans written in the input

  KernelOp store, extend;
  SmallVector<KernelOp> decodes;
  for (KernelOp k : m.getOps<KernelOp>()) {
    switch (k.getKind()) {
    case KernelKind::Extend:
      if (extend)
        return k.emitOpError() << "is a second extend kernel; the back end "
                                  "takes one";
      extend = k;
      break;
    case KernelKind::Store:
      if (store)
        return k.emitOpError() << "is a second store kernel; the back end "
                                  "takes one";
      store = k;
      break;
    case KernelKind::Decode:
      decodes.push_back(k);
      break;
    case KernelKind::Combine:
      // The templates merge a decode's splits inside the decode kernel.
      return k.emitOpError() << "is a separate combine kernel; the back end "
                                "merges splits inside decode (run "
                                "tq-plan-launch, which folds it)";
    }
  }
  if (!store || decodes.empty())
    return m.emitError() << "the back end needs a store and a decode kernel "
                            "(run tq-fuse)";
  if (failed(readLaunch(store, c.store)) || failed(readStore(store, c)))
    return failure();

  for (KernelOp decode : decodes) {
    PlanConfig p;
    StringRef suffix = decode.getSymName();
    if (!suffix.consume_front("decode"))
      return decode.emitOpError() << "decode kernels are named decode<plan>; "
                                     "got @"
                                  << decode.getSymName();
    p.decodeName = decode.getSymName().str();
    if (failed(readLaunch(decode, p.decode)))
      return failure();
    if (auto buckets = decode->getAttrOfType<ArrayAttr>("tq.buckets")) {
      for (Attribute a : buckets)
        p.buckets.push_back(cast<IntegerAttr>(a).getInt());
    } else {
      p.buckets.push_back(1); // a hand-written plan serves every batch
    }
    if (p.buckets.empty() || !llvm::is_sorted(p.buckets))
      return decode.emitOpError() << "tq.buckets must be ascending batch "
                                     "sizes";
    if (failed(readAttention(decode, c)))
      return failure();
    c.plans.push_back(std::move(p));
  }
  llvm::sort(c.plans, [](const PlanConfig &a, const PlanConfig &b) {
    return a.buckets.front() < b.buckets.front();
  });
  for (size_t i = 1; i < c.plans.size(); ++i)
    if (c.plans[i].buckets.front() <= c.plans[i - 1].buckets.back())
      return m.emitError() << "the buckets of @" << c.plans[i - 1].decodeName
                           << " and @" << c.plans[i].decodeName
                           << " overlap";
  if (failed(checkSupported(m, c)))
    return failure();

  if (!extend) {
    auto note = m->getAttrOfType<StringAttr>("tq.extend_note");
    c.extendNote = note ? note.getValue().str()
                        : "the module has no extend kernel";
    return c;
  }
  if (failed(readLaunch(extend, c.extend)) || failed(readAttention(extend, c)))
    return failure();
  if (c.extend.headsPerCta != c.gqaRatio() ||
      (16 * c.extend.warps) % c.gqaRatio())
    return extend.emitOpError()
           << "heads_per_cta " << c.extend.headsPerCta << " with "
           << c.extend.warps << " warps: an extend CTA holds all "
           << c.gqaRatio() << " query heads of a KV head over whole tokens";
  c.extendNote = extendUnsupported(c);
  if (c.extendNote.empty() && c.extend.blockN > 32 * c.extend.warps)
    c.extendNote = "the extend plan's block_n " +
                   std::to_string(c.extend.blockN) + " exceeds its " +
                   std::to_string(32 * c.extend.warps) +
                   " threads (one per token for the tile's scalars)";
  c.extendWgmma = c.extendNote.empty() && extendTakesWgmma(c);
  if (int64_t bytes = extendWgmmaSharedBytes(c);
      c.extendWgmma && bytes > kHopperMaxSharedBytes)
    c.extendNote = "the extend plan (block_n " +
                   std::to_string(c.extend.blockN) + ", " +
                   std::to_string(c.extend.warps) + " warps) needs " +
                   std::to_string(bytes) +
                   " bytes of shared memory at head_dim " +
                   std::to_string(c.headDim) + ", over sm_90a's " +
                   std::to_string(kHopperMaxSharedBytes) +
                   " (lower --extend-block-n or --extend-warps)";
  if (int64_t bytes = extendSharedBytes(c);
      !c.extendWgmma && c.extendNote.empty() && bytes > 48 * 1024)
    c.extendNote = "the extend plan (block_n " +
                   std::to_string(c.extend.blockN) + ", " +
                   std::to_string(c.extend.warps) + " warps) needs " +
                   std::to_string(bytes) +
                   " bytes of shared memory at head_dim " +
                   std::to_string(c.headDim) +
                   ", over the template's static 49152 (lower "
                   "--extend-block-n or --extend-warps)";
  if (!c.extendNote.empty()) {
    c.extend.present = false; // the bundle says why it has no extend
    c.extendWgmma = false;
  }
  return c;
}

} // namespace tqc
