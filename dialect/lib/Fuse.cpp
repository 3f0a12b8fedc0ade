//===- Fuse.cpp - Group the stage graphs into GPU kernels -----------------===//
//
// tq-expand-preset writes three functions: @store (one token-head's K and V
// into the cache), @decode (one query head over the cache) and @extend (a
// chunk's query heads over the cache's prefix and the chunk). On the GPU
// the store graph is one kernel; decode splits the tokens across CTAs, so it
// becomes a decode kernel (everything up to and including the attention
// over a split) and a combine kernel (the merge of the splits and whatever
// the function does with the merged output: its un-rotation). Extend does
// not split a query's tokens (a chunk has queries enough to fill the GPU),
// so its whole graph, output un-rotation included, is one kernel. Keeping K
// and V in one store kernel reads the token's slot once and launches once.
//
//===----------------------------------------------------------------------===//

#include "tqc/Dialect/TQ/TQPasses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::tq {
#define GEN_PASS_DEF_TQFUSE
#include "tqc/Dialect/TQ/TQPasses.h.inc"
} // namespace mlir::tq

using namespace mlir;
using namespace mlir::tq;

namespace {

/// A kernel that takes over `func`'s body, without its return.
KernelOp kernelFromFunc(func::FuncOp func, StringRef name, KernelKind kind) {
  OpBuilder b(func);
  auto kernel = KernelOp::create(b, func.getLoc(), b.getStringAttr(name),
                                 kind, LaunchAttr());
  kernel.getBody().takeBody(func.getBody());
  Block &body = kernel.getBody().front();
  if (!body.empty() && isa<func::ReturnOp>(body.back()))
    body.back().erase();
  return kernel;
}

struct FusePass : public tq::impl::TQFuseBase<FusePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp store, decode, extend;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.getSymName() == "store")
        store = func;
      else if (func.getSymName() == "decode")
        decode = func;
      else if (func.getSymName() == "extend")
        extend = func;
      else {
        func.emitOpError() << "@" << func.getSymName()
                           << " is not a stage graph tq-fuse knows; "
                              "accepted: @store, @decode, @extend";
        return signalPassFailure();
      }
    }
    if (!store || !decode) {
      module.emitError() << "tq-fuse needs both @store and @decode; missing @"
                         << (store ? "decode" : "store")
                         << " (run tq-expand-preset first)";
      return signalPassFailure();
    }
    if (failed(fuseDecode(decode)))
      return signalPassFailure();
    if (extend && failed(fuseExtend(extend)))
      return signalPassFailure();
    kernelFromFunc(store, "store", KernelKind::Store);
    store.erase();
  }

  /// @extend → tq.kernel @extend, the whole graph (an optional @extend: IR
  /// written before extend existed has none).
  LogicalResult fuseExtend(func::FuncOp extend) {
    SmallVector<AttentionOp> atts(extend.getOps<AttentionOp>());
    if (atts.size() != 1)
      return extend.emitOpError()
             << "@extend must hold exactly one tq.attention, found "
             << atts.size();
    if (atts.front().getMode() != AttentionMode::Extend)
      return atts.front().emitOpError()
             << "@extend must hold an extend attention, found "
             << stringifyAttentionMode(atts.front().getMode());
    kernelFromFunc(extend, "extend", KernelKind::Extend);
    extend.erase();
    return success();
  }

  /// @decode → tq.kernel @decode (up to the attention) + tq.kernel @combine
  /// (after it).
  LogicalResult fuseDecode(func::FuncOp decode) {
    SmallVector<AttentionOp> atts(decode.getOps<AttentionOp>());
    if (atts.size() != 1)
      return decode.emitOpError()
             << "@decode must hold exactly one tq.attention, found "
             << atts.size();
    AttentionOp att = atts.front();
    if (att.getMode() != AttentionMode::Decode)
      return att.emitOpError() << "@decode must hold a decode attention, "
                                  "found extend (extend graphs go in "
                                  "@extend)";
    auto ret = cast<func::ReturnOp>(decode.getBody().front().getTerminator());
    if (ret.getNumOperands() != 1)
      return ret.emitOpError() << "@decode must return the attention output";

    // The tail after the attention becomes the combine kernel's body; it
    // may only depend on the attention's output.
    SmallVector<Operation *> tail;
    for (Operation *op = att->getNextNode(); op != ret; op = op->getNextNode())
      tail.push_back(op);
    llvm::SmallPtrSet<Operation *, 8> inTail(tail.begin(), tail.end());
    for (Operation *op : tail)
      for (Value v : op->getOperands())
        if (v != att.getResult() && !inTail.contains(v.getDefiningOp()))
          return op->emitOpError()
                 << "after the attention may only use its output; the "
                    "combine kernel cannot see "
                 << v;

    OpBuilder b(decode);
    auto combine = KernelOp::create(b, decode.getLoc(),
                                    b.getStringAttr("combine"),
                                    KernelKind::Combine, LaunchAttr());
    Block *body = new Block();
    combine.getBody().push_back(body);
    Value merged = body->addArgument(att.getType(), att.getLoc());
    IRMapping map;
    map.map(att.getResult(), merged);
    b.setInsertionPointToEnd(body);
    for (Operation *op : tail)
      b.clone(*op, map);
    ret->erase();
    for (Operation *op : llvm::reverse(tail))
      op->erase();

    KernelOp kernel = kernelFromFunc(decode, "decode", KernelKind::Decode);
    kernel->moveBefore(combine);
    decode.erase();
    return success();
  }
};

} // namespace
