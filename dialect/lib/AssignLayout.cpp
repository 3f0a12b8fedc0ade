//===- AssignLayout.cpp - Place every cache field -------------------------===//
//
// The layout follows from what the store graph writes: each tq.cache_write
// names a field and carries its bytes. The placement itself (planes, order,
// alignment) is the host numerics' computeLayout, so the compiler, the
// reference and the runtime tests agree on every byte.
//
//===----------------------------------------------------------------------===//

#include "tqc/Dialect/TQ/TQPasses.h"
#include "tqc/Dialect/TQ/TQSpec.h"

#include "tqc/numerics/layout.h"

namespace mlir::tq {
#define GEN_PASS_DEF_TQASSIGNLAYOUT
#include "tqc/Dialect/TQ/TQPasses.h.inc"
} // namespace mlir::tq

using namespace mlir;
using namespace mlir::tq;

namespace {

/// Bytes per token-head and stored dtype of a value written to a field.
std::pair<int64_t, tqc::FieldDType> storedShape(Type t) {
  if (auto v = dyn_cast<VectorType>(t)) {
    Type e = v.getElementType();
    if (e.isBF16())
      return {2 * v.getDimSize(0), tqc::FieldDType::BF16};
    if (isa<Float8E4M3FNType>(e))
      return {v.getDimSize(0), tqc::FieldDType::Fp8E4M3};
    return {v.getDimSize(0), tqc::FieldDType::U8};
  }
  return {2, tqc::FieldDType::F16}; // an f32 scalar stored as fp16
}

struct AssignLayoutPass
    : public tq::impl::TQAssignLayoutBase<AssignLayoutPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    tqc::LayoutKind kind = tqc::LayoutKind::Native;
    if (auto info = module->getAttrOfType<DictionaryAttr>("tq.spec"))
      if (auto l = info.getAs<StringAttr>("layout")) {
        std::optional<tqc::LayoutKind> k = tqc::parseLayoutKind(l.str());
        if (!k) {
          module.emitError() << "tq.spec layout '" << l.getValue()
                             << "' is unknown; accepted: native, vllm";
          return signalPassFailure();
        }
        kind = *k;
      }

    std::vector<tqc::FieldShape> fields;
    CacheType cache;
    bool ok = true;
    module.walk([&](CacheWriteOp w) {
      if (cache && w.getCache().getType() != cache) {
        w.emitOpError() << "writes a cache of type " << w.getCache().getType()
                        << " but the module already writes " << cache
                        << "; a module holds one cache";
        ok = false;
        return;
      }
      cache = w.getCache().getType();
      auto kindOfField = tqc::FieldKind(uint32_t(w.getField()));
      auto [bytes, dtype] = storedShape(w.getValue().getType());
      for (const tqc::FieldShape &f : fields)
        if (f.kind == kindOfField) {
          w.emitOpError() << "writes field "
                          << stringifyFieldKind(w.getField())
                          << " a second time";
          ok = false;
          return;
        }
      fields.push_back({kindOfField, dtype, bytes});
    });
    if (!ok)
      return signalPassFailure();
    if (!cache) {
      module.emitError() << "tq-assign-layout found no tq.cache_write; run "
                            "tq-expand-preset first";
      return signalPassFailure();
    }

    int64_t packed = 0;
    for (const tqc::FieldShape &f : fields)
      packed += f.bytes;
    tqc::Layout layout =
        tqc::computeLayout(kind, int(cache.getBlockSize()),
                           int(cache.getNumKvHeads()), fields);
    // The native planes may never cost more than the packed fields (and so
    // never more than FORMATS.md's table for a preset).
    if (layout.bytesPerTokenHead() > packed) {
      module.emitError() << "layout needs " << layout.bytesPerTokenHead()
                         << " bytes per token-head, above the " << packed
                         << " bytes of its fields at block_size "
                         << cache.getBlockSize();
      return signalPassFailure();
    }
    module->setAttr("tq.layout", toLayoutAttr(module.getContext(), layout));
  }
};

} // namespace
