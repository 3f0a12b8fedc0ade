//===- AbsorbRotation.cpp - Attention in the rotated domain ---------------===//
//
// Keys and values are stored rotated. Un-rotating each of them costs one
// Hadamard transform per token per KV head; rotating the query costs one per
// query and un-rotating the output one per output. Orthogonality makes the
// two equal (see the pass description), so the rotations move out of the
// attention body.
//
//===----------------------------------------------------------------------===//

#include "tqc/Dialect/TQ/TQPasses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::tq {
#define GEN_PASS_DEF_TQABSORBROTATION
#include "tqc/Dialect/TQ/TQPasses.h.inc"
} // namespace mlir::tq

using namespace mlir;
using namespace mlir::tq;

namespace {

/// The inverse rotation that produces `v` inside the body, if any.
RotateOp inverseRotationOf(Value v) {
  auto rot = v.getDefiningOp<RotateOp>();
  if (!rot || !rot.getInverse() ||
      rot.getRotation().getKind() == RotationKind::None)
    return {};
  return rot;
}

struct AbsorbRotationPass
    : public tq::impl::TQAbsorbRotationBase<AbsorbRotationPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto none = RotationAttr::get(ctx, RotationKind::None, 0, 1);
    RotationAttr queryRotation = none, outputRotation = none;
    bool failedRecord = false;

    // Records one rotation per role; two attention ops that disagree would
    // need two bundles.
    auto record = [&](Operation *op, StringRef role, RotationAttr &slot,
                      RotationAttr r) {
      if (slot != none && slot != r) {
        op->emitOpError() << "needs a " << role << " rotation " << r
                          << " but another attention already uses " << slot;
        failedRecord = true;
        return;
      }
      slot = r;
    };

    module.walk([&](AttentionOp att) {
      auto yield = cast<YieldOp>(att.getBody().front().getTerminator());
      OpBuilder b(att);
      if (RotateOp keyRot = inverseRotationOf(yield.getKey())) {
        // ⟨q, Rᵀy⟩ = ⟨R·q, y⟩: rotate the query once, before the loop.
        auto qType = cast<VectorType>(att.getQuery().getType());
        auto f32 = VectorType::get(qType.getShape(), b.getF32Type());
        Value q = RotateOp::create(b, att.getLoc(), f32, att.getQuery(),
                                   keyRot.getRotation(), /*inverse=*/false);
        att.getQueryMutable().assign(q);
        yield.getKeyMutable().assign(keyRot.getInput());
        record(att, "query", queryRotation, keyRot.getRotation());
        if (keyRot->use_empty())
          keyRot->erase();
      }
      if (RotateOp valueRot = inverseRotationOf(yield.getValue())) {
        // Σ p·Rᵀy = Rᵀ·Σ p·y: un-rotate the output once, after the loop.
        b.setInsertionPointAfter(att);
        auto out = RotateOp::create(b, att.getLoc(), att.getType(),
                                    att.getResult(), valueRot.getRotation(),
                                    /*inverse=*/true);
        att.getResult().replaceAllUsesExcept(out.getResult(), out);
        yield.getValueMutable().assign(valueRot.getInput());
        record(att, "output", outputRotation, valueRot.getRotation());
        if (valueRot->use_empty())
          valueRot->erase();
      }
    });
    if (failedRecord)
      return signalPassFailure();
    module->setAttr("tq.query_rotation", queryRotation);
    module->setAttr("tq.output_rotation", outputRotation);
  }
};

} // namespace
