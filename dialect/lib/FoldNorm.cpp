//===- FoldNorm.cpp - Per-token scalars on scores and softmax weights -----===//
//
// Scaling a dequantized vector costs D multiplies per token; the same scale
// on the score (keys) or on the softmax weight (values) costs one. The
// rewrite keeps the meaning of tq.yield (`k = key_scale·key`,
// `v = value_scale·value + value_bias`) and so is exact.
//
//===----------------------------------------------------------------------===//

#include "tqc/Dialect/TQ/TQPasses.h"

namespace mlir::tq {
#define GEN_PASS_DEF_TQFOLDNORM
#include "tqc/Dialect/TQ/TQPasses.h.inc"
} // namespace mlir::tq

using namespace mlir;
using namespace mlir::tq;

namespace {

/// A scaled dequantize whose scalars can move to the yield, or null.
DequantizeOp foldable(Value v) {
  auto d = v.getDefiningOp<DequantizeOp>();
  if (!d || d.getUnscaled() || d.getParams().empty())
    return {};
  QuantizerAttr q = d.getQuantizer();
  if (q.hasQjl())
    return {}; // scale·c + gamma·(sketch term): not one multiple
  if (q.getKind() != QuantKind::LloydMax && q.getKind() != QuantKind::Uniform)
    return {};
  return d;
}

/// The unscaled form of `d`, inserted before it.
Value unscaledCopy(DequantizeOp d) {
  OpBuilder b(d);
  auto u = DequantizeOp::create(b, d.getLoc(), d.getType(), d.getCodes(),
                                /*signs=*/Value(), ValueRange{},
                                d.getQuantizer(), /*unscaled=*/true);
  return u.getResult();
}

struct FoldNormPass : public tq::impl::TQFoldNormBase<FoldNormPass> {
  void runOnOperation() override {
    getOperation().walk([&](YieldOp yield) {
      Value key = yield.getKey(), keyScale = yield.getKeyScale();
      Value value = yield.getValue(), valueScale = yield.getValueScale();
      Value valueBias = yield.getValueBias();
      SmallVector<DequantizeOp> replaced;

      if (DequantizeOp d = foldable(key); d && !keyScale) {
        keyScale = d.getParams()[0];
        key = unscaledCopy(d);
        replaced.push_back(d);
      }
      if (DequantizeOp d = foldable(value); d && !valueScale && !valueBias) {
        valueScale = d.getParams()[0];
        if (d.getQuantizer().getKind() == QuantKind::Uniform)
          valueBias = d.getParams()[1]; // zero = min, added to every coord
        value = unscaledCopy(d);
        replaced.push_back(d);
      }
      if (replaced.empty())
        return;
      OpBuilder b(yield);
      YieldOp::create(b, yield.getLoc(), key, keyScale, value, valueScale,
                      valueBias);
      yield.erase();
      for (DequantizeOp d : replaced)
        if (d->use_empty())
          d.erase();
    });
  }
};

} // namespace
