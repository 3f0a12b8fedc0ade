//===- PlanLaunch.cpp - Launch plans under the fixed-grid rule ------------===//
//
// Engines capture one CUDA graph per batch bucket and replay it while every
// sequence grows, so a kernel's grid may only depend on values fixed at
// capture time. This pass gives every kernel a plan (built-in defaults or
// the pass options; the autotuner will supply them later) and rejects any
// plan, chosen here or written by hand, that breaks the rule.
//
//===----------------------------------------------------------------------===//

#include "tqc/Dialect/TQ/TQPasses.h"
#include "tqc/Dialect/TQ/TQSpec.h"

#include "mlir/IR/IRMapping.h"

namespace mlir::tq {
#define GEN_PASS_DEF_TQPLANLAUNCH
#include "tqc/Dialect/TQ/TQPasses.h.inc"
} // namespace mlir::tq

using namespace mlir;
using namespace mlir::tq;

namespace {

int64_t specInt(ModuleOp m, StringRef name) {
  auto spec = m->getAttrOfType<DictionaryAttr>("tq.spec");
  if (!spec)
    return -1;
  auto v = spec.getAs<IntegerAttr>(name);
  return v ? v.getInt() : -1;
}

ArrayAttr gridAttr(Builder &b, ArrayRef<StringRef> extents) {
  SmallVector<Attribute> dims;
  for (StringRef e : extents)
    dims.push_back(b.getStringAttr(e));
  return b.getArrayAttr(dims);
}

struct PlanLaunchPass : public tq::impl::TQPlanLaunchBase<PlanLaunchPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    int64_t hq = specInt(module, "num_q_heads");
    int64_t hkv = specInt(module, "num_kv_heads");
    if (hq < 1 || hkv < 1 || hq % hkv) {
      module.emitError() << "tq-plan-launch needs the module's tq.spec with "
                            "num_q_heads a multiple of num_kv_heads (run "
                            "tq-expand-preset first)";
      return signalPassFailure();
    }
    int64_t group = hq / hkv;
    // The store template compresses a token-head per 4 lanes up to
    // head_dim 128 (8 per warp), per head_dim/16 lanes above (512/head_dim
    // per warp), or per warp for QJL keys (templates/tq/store.h
    // kStoreGroup): enough warps for one round over the KV heads, 4 at most
    // for QJL.
    bool qjl = false;
    module.walk([&](QjlOp) { qjl = true; });
    int64_t headDim = specInt(module, "head_dim");
    int64_t perWarp = headDim <= 128 ? 8 : std::max<int64_t>(1, 512 / headDim);
    storeWarps = qjl ? std::min<int64_t>(hkv, 4) : (hkv + perWarp - 1) / perWarp;
    auto targetAttr = module->getAttrOfType<TargetAttr>("tq.target");
    wgmmaTarget = targetAttr && targetAttr.getArch() == "sm_90a";
    if (failed(checkOptions()))
      return signalPassFailure();

    Builder b(&getContext());
    KernelOp decode, combine;
    for (KernelOp k : llvm::make_early_inc_range(module.getOps<KernelOp>())) {
      if (k.getKind() == KernelKind::Extend && !k.getLaunchAttr() &&
          extendWarpsFor(group) == 0) {
        // No CTA shape holds whole tokens of this group: no extend kernel
        // (the manifest says why) rather than no bundle.
        module->setAttr(
            "tq.extend_note",
            b.getStringAttr("no extend plan: a GQA group of " +
                            Twine(group) +
                            " query heads divides no 16 x warps rows for "
                            "warps in 1..8"));
        k.erase();
      } else if (k.getKind() == KernelKind::Decode && !k.getLaunchAttr())
        decode = k;
      else if (k.getKind() == KernelKind::Combine && !k.getLaunchAttr())
        combine = k;
      else if (!k.getLaunchAttr())
        k.setLaunchAttr(defaultPlan(b, k.getKind(), group, 1));
    }
    // A fresh decode graph (from tq-fuse) becomes one kernel per plan.
    if (decode && failed(planPerBucket(decode, combine, hq, group)))
      return signalPassFailure();

    // Check every plan; fold a hand-written combine into the decode.
    KernelOp lastDecode;
    for (KernelOp k : module.getOps<KernelOp>())
      if (k.getKind() == KernelKind::Decode && k.getLaunchAttr())
        lastDecode = k;
    int64_t handSplits =
        lastDecode ? lastDecode.getLaunchAttr().getSplits() : 1;
    for (KernelOp k : module.getOps<KernelOp>()) {
      if (!k.getLaunchAttr())
        k.setLaunchAttr(defaultPlan(b, k.getKind(), group, handSplits));
      if (failed(checkPlan(k, group)))
        return signalPassFailure();
    }
    if (combine && !decode && lastDecode &&
        failed(foldCombineIntoDecode(lastDecode, combine)))
      return signalPassFailure();
  }

  /// The buckets to plan for, ascending.
  SmallVector<int64_t> bucketList() {
    SmallVector<int64_t> list(buckets.begin(), buckets.end());
    if (list.empty())
      list = {1, 2, 4, 8, 16, 32, 64, 128, 256};
    return list;
  }

  /// Decode CTAs resident per SM: 128 threads at ~128 registers each
  /// (measured on the H200: 1 split at B=32, L=32K left it at 2 CTAs per SM
  /// and ran 1.4x slower than 4 splits; bench/results/*-v1-*).
  static constexpr int64_t kResidentCtasPerSm = 4;

  /// Built-in split count for a bucket: the largest power of two (<= 32)
  /// keeping the decode grid within two waves of resident CTAs.
  int64_t splitsFor(int64_t bucket, int64_t headGroups, int64_t sms) {
    int64_t slots = 2 * kResidentCtasPerSm * sms;
    int64_t s = 1;
    while (s < 32 && headGroups * bucket * (s * 2) <= slots)
      s *= 2;
    return s;
  }

  /// What a decode plan chooses; buckets with equal choices share a kernel.
  struct Choice {
    int64_t blockN, splits, warps, heads, stages;
    bool operator==(const Choice &o) const {
      return blockN == o.blockN && splits == o.splits && warps == o.warps &&
             heads == o.heads && stages == o.stages;
    }
  };

  /// Plans from the module attribute `tq.tuned_plans` (the driver sets it
  /// from a tuning database): one dictionary per bucket.
  LogicalResult tunedChoices(ArrayAttr tuned, int64_t group,
                             SmallVector<std::pair<int64_t, Choice>> &out) {
    ModuleOp module = getOperation();
    for (Attribute a : tuned) {
      auto d = dyn_cast<DictionaryAttr>(a);
      auto get = [&](StringRef name) -> int64_t {
        auto v = d ? d.getAs<IntegerAttr>(name) : IntegerAttr();
        return v ? v.getInt() : -1;
      };
      int64_t bucket = get("bucket");
      Choice c{get("block_n"), get("splits"), get("warps"),
               get("heads_per_cta"), get("stages")};
      if (!d || bucket < 1 || c.blockN < 16 || c.blockN % 16 ||
          c.splits < 1 || c.splits > 64 || c.warps < 1 || c.warps > 16 ||
          c.heads < 1 || group % c.heads || c.stages < 1 || c.stages > 8)
        return module.emitError()
               << "tq.tuned_plans entry " << a
               << " is not a valid plan (bucket >= 1, block_n a multiple of "
                  "16, splits 1..64, warps 1..16, heads_per_cta dividing the "
                  "GQA group of "
               << group << ", stages 1..8)";
      if (!out.empty() && bucket <= out.back().first)
        return module.emitError() << "tq.tuned_plans buckets must ascend; got "
                                  << bucket << " after " << out.back().first;
      out.push_back({bucket, c});
    }
    if (out.empty())
      return module.emitError() << "tq.tuned_plans is empty";
    return success();
  }

  LogicalResult planPerBucket(KernelOp decode, KernelOp combine, int64_t hq,
                              int64_t group) {
    ModuleOp module = getOperation();
    Builder b(&getContext());
    SmallVector<std::pair<int64_t, Choice>> perBucket;
    StringAttr source;
    // The SM count the plans are made for: the default split counts fill it,
    // and the decode kernel caps the splits a batch uses by it (decode.h
    // splitsUsed), so it is recorded for the back end.
    int64_t sms = smCount;
    if (sms == 0) {
      auto target = module->getAttrOfType<TargetAttr>("tq.target");
      sms = defaultSmCount(target ? target.getArch() : StringRef());
    }
    module->setAttr("tq.sm_count", b.getI64IntegerAttr(sms));
    if (auto tuned = module->getAttrOfType<ArrayAttr>("tq.tuned_plans")) {
      if (failed(tunedChoices(tuned, group, perBucket)))
        return failure();
      source = module->getAttrOfType<StringAttr>("tq.tuned_source");
      if (!source)
        source = b.getStringAttr("tuning database");
    } else {
      SmallVector<int64_t> list = bucketList();
      for (size_t i = 0; i < list.size(); ++i)
        if (list[i] < 1 || (i && list[i] <= list[i - 1]))
          return module.emitError()
                 << "buckets must be ascending positive batch sizes; got "
                 << list[i]
                 << (i ? " after " + std::to_string(list[i - 1]) : "");
      int64_t heads = headsPerCta(group);
      int64_t headGroups = hq / heads;
      for (int64_t bucket : list) {
        int64_t s =
            splits ? int64_t(splits) : splitsFor(bucket, headGroups, sms);
        perBucket.push_back({bucket, Choice{blockN, s, warps, heads, stages}});
      }
      source = b.getStringAttr(splits ? "options" : "defaults");
    }

    // Consecutive buckets with the same choice share one plan.
    SmallVector<std::pair<Choice, SmallVector<int64_t>>> plans;
    for (auto &[bucket, choice] : perBucket) {
      if (plans.empty() || !(plans.back().first == choice))
        plans.push_back({choice, {}});
      plans.back().second.push_back(bucket);
    }

    MLIRContext *ctx = &getContext();
    OpBuilder ob(decode);
    for (auto [index, plan] : llvm::enumerate(plans)) {
      auto &[c, served] = plan;
      ArrayAttr bucketAttr = b.getI64ArrayAttr(served);
      auto d = cast<KernelOp>(ob.clone(*decode));
      d.setSymName(("decode_p" + Twine(index)).str());
      d.setLaunchAttr(LaunchAttr::get(
          ctx, c.blockN, c.splits, c.warps, c.heads, c.stages,
          gridAttr(b, {"head_groups", "max_batch", "splits"})));
      d->setAttr("tq.buckets", bucketAttr);
      // The decode merges its own splits (the CTA finishing a row's last
      // split does it), so the combine stage always folds into it.
      if (combine && failed(foldCombineIntoDecode(d, combine, false)))
        return failure();
    }
    decode.erase();
    if (combine)
      combine.erase();
    module->setAttr("tq.plan_source", source);
    module->removeAttr("tq.tuned_plans");
    module->removeAttr("tq.tuned_source");
    return success();
  }

  LogicalResult checkOptions() {
    ModuleOp m = getOperation();
    if (blockN < 16 || blockN > 256 || blockN % 16)
      return m.emitError() << "block-n " << int64_t(blockN)
                           << " is not supported; accepted: a multiple of "
                              "16 in 16..256";
    if (splits < 0 || splits > 64)
      return m.emitError() << "splits " << int64_t(splits)
                           << " is out of range; accepted: 1..64 (0: per "
                              "bucket)";
    if (smCount < 0 || smCount > 4096)
      return m.emitError() << "sm-count " << int64_t(smCount)
                           << " is out of range; accepted: 1..4096 (0: the "
                              "arch's usual count)";
    if (warps < 1 || warps > 16)
      return m.emitError() << "warps " << int64_t(warps)
                           << " is out of range; accepted: 1..16";
    if (extendBlockN != 0 &&
        (extendBlockN < 16 || extendBlockN > 128 || extendBlockN % 16))
      return m.emitError() << "extend-block-n " << int64_t(extendBlockN)
                           << " is not supported; accepted: a multiple of "
                              "16 in 16..128 (0: the default, 32)";
    if (extendWarps < 0 || extendWarps > 8)
      return m.emitError() << "extend-warps " << int64_t(extendWarps)
                           << " is out of range; accepted: 1..8 (0: the "
                              "default, 4; 8 on sm_90a)";
    if (stages < 1 || stages > 8)
      return m.emitError() << "stages " << int64_t(stages)
                           << " is out of range; accepted: 1..8";
    if (maxHeadsPerCta < 1 || maxHeadsPerCta > 8)
      return m.emitError() << "max-heads-per-cta " << int64_t(maxHeadsPerCta)
                           << " is out of range; accepted: 1..8";
    return success();
  }

  /// The largest divisor of the GQA group that one CTA can hold.
  int64_t headsPerCta(int64_t group) {
    int64_t h = std::min<int64_t>(group, maxHeadsPerCta);
    while (group % h)
      --h;
    return h;
  }

  int64_t storeWarps = 4; ///< set per module in runOnOperation
  /// sm_90a: the extend attention can run on warpgroup mma
  /// (templates/tq/extend_wgmma.h); set per module in runOnOperation.
  bool wgmmaTarget = false;

  /// Extend's key/value tile for a CTA of `warps`: the option, else 32
  /// tokens: two tiles (double buffering) of fp16 keys and values fit 48
  /// KiB of shared memory at head_dim 128, and the kernel fits 168
  /// registers (3 CTAs per SM) without spills at head_dim 64 and 128
  /// (64-token tiles spill at 64). The sm_90a warpgroup-mma kernel (whole
  /// warpgroups) takes 128 with two warpgroups (one CTA per SM: two
  /// 128-token tiles and 128 query rows, 161 KiB at head_dim 128; per-tile
  /// costs halve, bench/results/2026-12-03-session18-h200 run2: 4K causal
  /// 692 -> 599 us) and 64 with one (two CTAs per SM need its registers).
  int64_t extendTile(int64_t warps) {
    if (extendBlockN)
      return extendBlockN;
    if (wgmmaTarget && warps % 4 == 0)
      return warps >= 8 ? 128 : 64;
    return 32;
  }

  /// Warps of an extend CTA: extend-warps (0: 4; on sm_90a 8 = two
  /// warpgroups, else 4 = one, if either holds whole tokens) when its
  /// 16·warps rows hold whole tokens of the GQA group, else the nearest
  /// count that does, fewer first (more rows need more shared memory); 0
  /// when none in 1..8 does.
  int64_t extendWarpsFor(int64_t group) {
    if (!extendWarps && wgmmaTarget)
      for (int64_t w : {8, 4})
        if ((16 * w) % group == 0)
          return w;
    const int64_t want = extendWarps ? extendWarps : 4;
    for (int64_t w = want; w >= 1; --w)
      if ((16 * w) % group == 0)
        return w;
    for (int64_t w = want + 1; w <= 8; ++w)
      if ((16 * w) % group == 0)
        return w;
    return 0;
  }

  LaunchAttr defaultPlan(Builder &b, KernelKind kind, int64_t group,
                         int64_t splitCount) {
    MLIRContext *ctx = b.getContext();
    int64_t heads = headsPerCta(group);
    switch (kind) {
    case KernelKind::Store:
      // One CTA per token; its lane groups take the KV heads in turn.
      return LaunchAttr::get(ctx, /*block_n=*/1, /*splits=*/1, storeWarps,
                             /*heads_per_cta=*/1, /*stages=*/1,
                             gridAttr(b, {"max_tokens", "1", "1"}));
    case KernelKind::Decode:
      return LaunchAttr::get(ctx, blockN, splitCount, warps, heads, stages,
                             gridAttr(b, {"head_groups", "max_batch",
                                          "splits"}));
    case KernelKind::Combine:
      return LaunchAttr::get(ctx, /*block_n=*/1, splitCount, warps, heads,
                             /*stages=*/1,
                             gridAttr(b, {"max_batch", "num_q_heads", "1"}));
    case KernelKind::Extend:
      // A CTA: one KV head's G query heads over 16·warps/G chunk tokens.
      return LaunchAttr::get(ctx, extendTile(extendWarpsFor(group)),
                             /*splits=*/1, extendWarpsFor(group),
                             /*heads_per_cta=*/group, /*stages=*/1,
                             gridAttr(b, {"query_tiles", "num_kv_heads", "1"}));
    }
    return {};
  }

  LogicalResult checkPlan(KernelOp k, int64_t group) {
    LaunchAttr plan = k.getLaunchAttr();
    if (!plan)
      return k.emitOpError() << "@" << k.getSymName()
                             << ": no built-in plan for a "
                             << stringifyKernelKind(k.getKind()) << " kernel";
    for (auto [i, dim] : llvm::enumerate(plan.getGrid())) {
      SmallVector<StringRef> factors;
      cast<StringAttr>(dim).getValue().split(factors, '*');
      for (StringRef f : factors)
        if (isLengthDependentGridFactor(f.trim()))
          return k.emitOpError()
                 << "@" << k.getSymName() << ": grid extent " << i << " '"
                 << cast<StringAttr>(dim).getValue()
                 << "' depends on sequence lengths ('" << f.trim()
                 << "'); a CUDA graph captured once must serve every "
                    "length, so grids may only use max_batch, max_tokens, "
                    "num_q_heads, num_kv_heads, head_groups, splits, "
                    "query_tiles, token_tiles and integers";
    }
    if (k.getKind() == KernelKind::Extend) {
      if (plan.getHeadsPerCta() != group || (16 * plan.getWarps()) % group)
        return k.emitOpError()
               << "@" << k.getSymName() << ": an extend CTA holds all "
               << group << " query heads of a KV head over whole tokens: "
               << "heads_per_cta must be " << group << " and divide 16 x "
               << plan.getWarps() << " warps = " << 16 * plan.getWarps()
               << " rows (got heads_per_cta " << plan.getHeadsPerCta() << ")";
      if (plan.getBlockN() < 16 || plan.getBlockN() % 16)
        return k.emitOpError() << "@" << k.getSymName() << ": block_n "
                               << plan.getBlockN()
                               << " is not a multiple of 16 tokens";
    }
    if (k.getKind() == KernelKind::Decode) {
      if (group % plan.getHeadsPerCta())
        return k.emitOpError() << "@" << k.getSymName() << ": heads_per_cta "
                               << plan.getHeadsPerCta()
                               << " does not divide the GQA group of "
                               << group << " query heads";
      if (plan.getBlockN() < 16 || plan.getBlockN() % 16)
        return k.emitOpError() << "@" << k.getSymName() << ": block_n "
                               << plan.getBlockN()
                               << " is not a multiple of 16 tokens";
    }
    return success();
  }

  /// Decode writes the output itself (merging its splits in the CTA that
  /// finishes last), so it applies the combine kernel's tail (the output's
  /// un-rotation). `eraseCombine`: no other plan needs the combine kernel.
  LogicalResult foldCombineIntoDecode(KernelOp decode, KernelOp combine,
                                      bool eraseCombine = true) {
    SmallVector<AttentionOp> atts(decode.getBody().getOps<AttentionOp>());
    if (atts.size() != 1)
      return decode.emitOpError() << "@" << decode.getSymName()
                                  << " must hold exactly one tq.attention";
    Block &tail = combine.getBody().front();
    IRMapping map;
    map.map(tail.getArgument(0), atts.front().getResult());
    auto b = OpBuilder::atBlockEnd(&decode.getBody().front());
    for (Operation &op : tail)
      b.clone(op, map);
    if (eraseCombine)
      combine.erase();
    return success();
  }
};

} // namespace
