//===- Bundle.cpp - The manifest and the embedding C header ---------------===//
//
// The manifest is the contract with engines and the runtime
// (docs/MANIFEST.md): everything needed to allocate the cache and launch
// the kernels, without reading tqc's sources.
//
//===----------------------------------------------------------------------===//

#include "tqc/Compiler/Bundle.h"
#include "tqc/Compiler/HipToolchain.h"

#include "tqc/numerics/layout.h"

// The kernel argument structs: the manifest states their sizes and ABI
// version from the same header the kernels and the runtime compile.
#include "tq/abi.h"

#include "llvm/ADT/STLExtras.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>

using json = nlohmann::ordered_json;

namespace tqc {
namespace {

std::string hex64(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%016llx", (unsigned long long)v);
  return buf;
}

json rotationJson(const RotationSpec &r) {
  json j;
  j["kind"] = toString(r.kind);
  if (r.kind == RotationKind::RandomizedHadamard ||
      r.kind == RotationKind::DenseHaar) {
    j["seed"] = hex64(r.seed);
    j["rounds"] = r.rounds;
  }
  return j;
}

json tensorJson(const TensorConfig &t, LayoutKind layout) {
  json j;
  j["quant"] = toString(t.quant.kind);
  j["bits"] = t.quant.bits;
  j["code_bits"] = t.quant.codeBits();
  j["norm_correction"] = t.quant.normCorrect;
  // Where: folded into the stored scale (native), or the stored raw norm
  // divided by ‖c[idx]‖ when read (the vLLM layout, FORMATS.md).
  if (t.quant.normCorrect)
    j["norm_correction_at"] = layout == LayoutKind::VLLM ? "read" : "store";
  j["qjl"] = t.quant.qjl;
  if (t.quant.qjl)
    j["qjl_seed"] = hex64(t.quant.qjlSeed);
  if (t.quant.kind == QuantKind::LloydMax) {
    j["dist"] = toString(t.quant.dist);
    j["codebook"] = t.levels;
  }
  j["rotation"] = rotationJson(t.rotation);
  return j;
}

json layoutJson(const KernelConfig &c) {
  const Layout &l = c.layout;
  json j;
  j["kind"] = toString(l.kind);
  j["dtype"] = "uint8";
  json shape = json::array();
  shape.push_back("num_blocks");
  std::vector<int64_t> dims = l.shape(1);
  for (size_t i = 1; i < dims.size(); ++i)
    shape.push_back(dims[i]);
  j["shape"] = shape;
  j["block_stride"] = l.blockStride;
  j["head_stride"] = l.headStride;
  j["region_bytes"] = l.regionBytes;
  j["bytes_per_token_head"] = l.bytesPerTokenHead();
  j["alignment"] = l.alignment;
  json fields = json::array();
  for (const Field &f : l.fields)
    fields.push_back({{"name", toString(f.kind)},
                      {"dtype", toString(f.dtype)},
                      {"bytes", f.bytes},
                      {"offset", f.offset},
                      {"token_stride", f.tokenStride}});
  j["fields"] = fields;
  return j;
}

} // namespace

std::string manifestJson(const KernelConfig &c, const KernelBuild &build,
                         const std::string &version) {
  json m;
  m["schema"] = "tqc.bundle";
  m["schema_version"] = kManifestSchemaVersion;
  m["abi_version"] = TQ_ABI_VERSION;
  if (isAmdArch(c.arch)) {
    m["generator"] = {{"tqc", version}, {"clang", hipClangPath()}};
    m["target"] = {{"arch", c.arch},
                   {"vendor", "amd"},
                   {"image", build.imageName},
                   {"source", "kernels.hip"}};
  } else {
    m["generator"] = {{"tqc", version},
                      {"nvrtc", nvrtcVersion()},
                      {"nvjitlink", nvJitLinkVersion()}};
    m["target"] = {{"arch", c.arch},
                   {"vendor", "nvidia"},
                   {"image", build.imageName},
                   {"ptx", "kernels.ptx"},
                   {"source", "kernels.cu"}};
  }
  json spec;
  spec["preset"] = c.preset;
  spec["head_dim"] = c.headDim;
  spec["num_q_heads"] = c.numQHeads;
  spec["num_kv_heads"] = c.numKVHeads;
  spec["block_size"] = c.blockSize;
  spec["gqa_ratio"] = c.gqaRatio();
  spec["softmax_scale"] = c.softmaxScale;
  spec["key"] = tensorJson(c.key, c.layout.kind);
  spec["value"] = tensorJson(c.value, c.layout.kind);
  m["spec"] = spec;
  m["layout"] = layoutJson(c);
  m["rotations"] = {{"query", rotationJson(c.queryRotation)},
                    {"output", rotationJson(c.outputRotation)}};
  std::vector<KernelEntry> entries = kernelEntries(c);
  auto kernelMap = [&](int plan, const char *kind) {
    json map = json::object();
    for (const KernelEntry &e : entries)
      if (e.plan == plan && e.kind == kind)
        map[e.dtype] = e.name;
    return map;
  };
  json plans = json::array();
  for (auto [i, p] : llvm::enumerate(c.plans)) {
    json j;
    j["buckets"] = p.buckets;
    j["block_n"] = p.decode.blockN;
    j["splits"] = p.decode.splits;
    j["warps"] = p.decode.warps;
    j["heads_per_cta"] = p.decode.headsPerCta;
    j["stages"] = p.decode.stages;
    // abi.h's layout: the row's tickets, partials and (max, sum) pairs.
    j["workspace_floats_per_batch_row"] =
        p.decode.splits > 1 ? TQ_WORKSPACE_FLOATS(1, c.numQHeads,
                                                  p.decode.splits, c.headDim)
                            : 0;
    j["decode"] = kernelMap(int(i), "decode");
    plans.push_back(j);
  }
  m["plans"] = plans;
  m["plan_source"] = c.planSource;
  // Extend (chunked prefill): its plan serves every bucket; the workspace
  // holds the rotated chunk (abi.h TQ_EXTEND_WORKSPACE_BYTES).
  if (c.extend.present)
    m["extend"] = {{"available", true},
                   {"tile_tokens", c.extendTileTokens()},
                   {"block_n", c.extend.blockN},
                   {"warps", c.extend.warps},
                   {"tensor_cores", c.extendWgmma ? "wgmma" : "mma.sync"},
                   {"producer_warps", extendProducerWarps(c)},
                   {"workspace_bytes_per_token",
                    TQ_EXTEND_WORKSPACE_BYTES(1, c.numKVHeads, c.headDim)}};
  else
    m["extend"] = {{"available", false}, {"reason", c.extendNote}};
  json kernels = json::array();
  for (const KernelEntry &e : entries) {
    json k;
    k["name"] = e.name;
    k["kind"] = e.kind;
    k["dtype"] = e.dtype;
    k["plan"] = e.plan < 0 ? json() : json(e.plan);
    k["symbol"] = e.symbol;
    k["args"] = e.args;
    k["args_bytes"] = e.args == "tq_store_args"    ? sizeof(tq_store_args)
                      : e.args == "tq_extend_args" ? sizeof(tq_extend_args)
                                                   : sizeof(tq_decode_args);
    k["block"] = {e.blockThreads, 1, 1};
    k["grid"] = e.grid;
    if (e.programmaticLaunch)
      k["programmatic_launch"] = true;
    if (e.dynamicSharedBytes > 0)
      k["dynamic_shared_bytes"] = e.dynamicSharedBytes;
    if (e.tileTokens > 0)
      k["tile_tokens"] = e.tileTokens; // the grid's query_tiles / token_tiles
    auto it = build.resources.find(e.symbol);
    if (it != build.resources.end()) {
      const KernelResources &r = it->second;
      k["shared_bytes"] = r.sharedBytes;
      k["registers"] = r.registers; // VGPRs on AMD
      k["stack_bytes"] = r.stackBytes; // the private segment on AMD
      if (r.sgprs >= 0) {
        k["sgprs"] = r.sgprs;
        k["vgpr_spills"] = r.vgprSpills;
        k["sgpr_spills"] = r.sgprSpills;
      } else {
        k["spill_bytes"] = r.spillStoreBytes + r.spillLoadBytes;
        k["local_bytes"] = r.localBytes;
      }
    } else {
      k["shared_bytes"] = 0;
    }
    kernels.push_back(k);
  }
  m["kernels"] = kernels;
  return m.dump(2) + "\n";
}

std::string checkSharedMemory(const KernelConfig &c, const KernelBuild &build) {
  if (isAmdArch(c.arch))
    return "";
  const int cc = cudaArchNumber(c.arch);
  // cudaDevAttrMaxSharedMemoryPerBlockOptin by compute capability.
  const int64_t limit = cc >= 120  ? 101376
                        : cc >= 90 ? 232448
                        : cc == 80 ? 166912
                                   : 101376;
  for (const KernelEntry &e : kernelEntries(c)) {
    auto it = build.resources.find(e.symbol);
    const int64_t total = e.dynamicSharedBytes +
                          (it != build.resources.end() ? it->second.sharedBytes : 0);
    if (total <= limit)
      continue;
    std::string plan;
    if (e.plan >= 0) {
      const LaunchConfig &p = c.plans[size_t(e.plan)].decode;
      plan = " (plan " + std::to_string(e.plan) + ": " +
             std::to_string(p.warps) + " warps, " + std::to_string(p.stages) +
             " stages, a copy ring of " + std::to_string(e.dynamicSharedBytes) +
             " bytes)";
    }
    return "kernel " + e.symbol + plan + " needs " + std::to_string(total) +
           " bytes of shared memory; " + c.arch + " allows " +
           std::to_string(limit) + " per block: use fewer stages or warps";
  }
  return "";
}

std::string bundleHeader(const std::string &manifest,
                         const std::vector<char> &cubin,
                         const std::string &ptx) {
  std::string out =
      "/* Generated by tqc: a bundle embedded for engines that compile the\n"
      " * kernels in (tqrt_bundle_load_memory). Do not edit. */\n"
      "#ifndef TQC_BUNDLE_H\n#define TQC_BUNDLE_H\n#include <stddef.h>\n\n";
  auto array = [&](const char *name, const char *data, size_t size) {
    out += std::string("static const unsigned char ") + name + "[" +
           std::to_string(size + 1) + "] = {";
    char buf[8];
    for (size_t i = 0; i < size; ++i) {
      if (i % 16 == 0)
        out += "\n ";
      std::snprintf(buf, sizeof(buf), " %u,", unsigned((unsigned char)data[i]));
      out += buf;
    }
    // A trailing NUL, so the manifest and the PTX are also C strings.
    out += "\n  0};\nstatic const size_t " + std::string(name) + "_len = " +
           std::to_string(size) + ";\n\n";
  };
  array("tqc_bundle_manifest", manifest.data(), manifest.size());
  array("tqc_bundle_image", cubin.data(), cubin.size());
  array("tqc_bundle_ptx", ptx.data(), ptx.size());
  out += "#endif /* TQC_BUNDLE_H */\n";
  return out;
}

} // namespace tqc
