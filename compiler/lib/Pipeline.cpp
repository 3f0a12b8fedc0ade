//===- Pipeline.cpp - From a compile request to fused tq IR ---------------===//

#include "tqc/Compiler/Pipeline.h"

#include "tqc/Dialect/TQ/TQDialect.h"
#include "tqc/Dialect/TQ/TQPasses.h"

#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

namespace tqc {

std::string checkRequest(const CompileRequest &r) {
  if (!tq::isSupportedArch(r.arch))
    return "unknown arch '" + r.arch + "'; accepted: " + tq::acceptedArchs();
  std::optional<CacheSpec> spec = presetSpec(r.preset, r.headDim, r.numQHeads,
                                             r.numKVHeads, r.blockSize);
  if (!spec)
    return "unknown preset '" + r.preset + "'; accepted: " + acceptedPresets();
  return tq::applyOverrides(*spec, r.overrides);
}

OwningOpRef<ModuleOp> buildRequestModule(MLIRContext &ctx,
                                         const CompileRequest &r) {
  ctx.loadDialect<tq::TQDialect>();
  OpBuilder b(&ctx);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  module->getOperation()->setAttr("tq.target",
                                  tq::TargetAttr::get(&ctx, r.arch));
  b.setInsertionPointToStart(module->getBody());
  const tq::SpecOverrides &o = r.overrides;
  NamedAttrList attrs;
  attrs.append("preset", b.getStringAttr(r.preset));
  attrs.append("head_dim", b.getI64IntegerAttr(r.headDim));
  attrs.append("num_q_heads", b.getI64IntegerAttr(r.numQHeads));
  attrs.append("num_kv_heads", b.getI64IntegerAttr(r.numKVHeads));
  attrs.append("block_size", b.getI64IntegerAttr(r.blockSize));
  auto addInt = [&](StringRef name, std::optional<int64_t> v) {
    if (v)
      attrs.append(name, b.getI64IntegerAttr(*v));
  };
  auto addStr = [&](StringRef name, const std::optional<std::string> &v) {
    if (v)
      attrs.append(name, b.getStringAttr(*v));
  };
  addInt("k_bits", o.kBits);
  addInt("v_bits", o.vBits);
  addInt("rotation_rounds", o.rotationRounds);
  addInt("seed", o.seed);
  addStr("k_quant", o.kQuant);
  addStr("v_quant", o.vQuant);
  addStr("layout", o.layout);
  if (o.qjl)
    attrs.append("qjl", b.getUnitAttr());
  tq::SpecOp::create(b, loc, TypeRange{}, ValueRange{}, attrs.getAttrs());
  return module;
}

namespace {
void addPipeline(PassManager &pm, const CompileRequest &r) {
  pm.addPass(tq::createTQExpandPreset());
  pm.addPass(tq::createTQAssignLayout());
  pm.addPass(tq::createTQAbsorbRotation());
  pm.addPass(tq::createTQFoldNorm());
  pm.addPass(tq::createTQFuse());
  tq::TQPlanLaunchOptions plan;
  plan.blockN = r.blockN;
  plan.splits = r.splits;
  plan.warps = r.warps;
  plan.stages = r.stages;
  plan.smCount = r.smCount;
  plan.extendBlockN = r.extendBlockN;
  plan.extendWarps = r.extendWarps;
  pm.addPass(tq::createTQPlanLaunch(plan));
}
} // namespace

std::vector<std::string> pipelinePassNames() {
  MLIRContext ctx;
  PassManager pm(&ctx);
  addPipeline(pm, CompileRequest());
  std::vector<std::string> names;
  for (Pass &p : pm.getPasses())
    names.push_back(p.getArgument().str());
  return names;
}

LogicalResult runPipeline(ModuleOp module, const CompileRequest &request,
                          const std::string &dumpAfter,
                          llvm::raw_ostream &dump) {
  PassManager pm(module.getContext());
  addPipeline(pm, request);
  if (!dumpAfter.empty()) {
    pm.getContext()->disableMultithreading();
    pm.enableIRPrinting(
        /*shouldPrintBeforePass=*/[](Pass *, Operation *) { return false; },
        /*shouldPrintAfterPass=*/
        [dumpAfter](Pass *p, Operation *) {
          return p->getArgument() == dumpAfter;
        },
        /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false,
        /*printAfterOnlyOnFailure=*/false, dump);
  }
  return pm.run(module);
}

} // namespace tqc
