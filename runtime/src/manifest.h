//===- manifest.h - The validated manifest of a bundle ----------*- C++ -*-===//
//
// readManifest() turns manifest.json into this model or throws tqrt::Error
// naming the field. Everything a plan or a launch needs is checked here, at
// load time, so that plan creation only evaluates and launches only copy.
//
//===----------------------------------------------------------------------===//
#ifndef TQRT_SRC_MANIFEST_H
#define TQRT_SRC_MANIFEST_H

#include "tqrt/tqrt.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tqrt {

/// The names a grid extent may use (docs/MANIFEST.md, kernels[].grid).
/// QueryTiles is ceil(max_tokens / tile_tokens) + max_batch with the
/// kernel's own "tile_tokens" (extend: every sequence's query tiles);
/// TokenTiles is ceil(max_tokens / tile_tokens) (a kernel whose CTA takes
/// tile_tokens consecutive tokens of one batch of tokens).
enum class GridName { MaxBatch, MaxTokens, NumQHeads, NumKVHeads, HeadGroups,
                      Splits, QueryTiles, TokenTiles };
constexpr int kNumGridNames = 8;

/// One grid extent: a product of literals and names, e.g. "max_batch*2".
struct GridExpr {
  std::string text;
  int64_t literal = 1;                  // product of the literal factors
  std::vector<GridName> names;          // the named factors
};

/// Parses an extent; throws Error(BAD_BUNDLE) naming `where` and the
/// accepted names on anything else.
GridExpr parseGridExpr(std::string_view text, const std::string &where);

/// Values for evaluation, indexed by GridName.
using GridValues = std::array<int64_t, kNumGridNames>;

/// Number of kernel kinds (tqrt_kernel_kind: store, decode, extend_prep,
/// extend) / dtypes the runtime launches. Dtype index is tqrt_dtype - 1.
constexpr int kNumKinds = 4;
constexpr int kNumDtypes = 2;
inline int dtypeIndex(tqrt_dtype d) { return static_cast<int>(d) - 1; }
const char *kindName(int kind);
const char *dtypeName(int dtypeIndex);

struct KernelDesc {
  std::string name, symbol, args;
  int kind = 0;      // tqrt_kernel_kind
  int dtype = 0;     // dtype index
  int plan = -1;     // index into Manifest::plans; -1: a kind without plans
                     // (store, extend_prep, extend)
  uint32_t block[3] = {1, 1, 1};
  /// "shared_bytes": the kernel's static shared memory as the toolchain
  /// reported it (informational; the driver knows it from the code).
  uint32_t staticSharedBytes = 0;
  /// "dynamic_shared_bytes" (optional, default 0): what a launch passes.
  uint32_t dynamicSharedBytes = 0;
  GridExpr grid[3];
  int64_t argsBytes = 0;
  /// "programmatic_launch" (optional, default false): the kernel starts
  /// with griddepcontrol.wait, so the runtime launches it with programmatic
  /// stream serialization and its launch overlaps the previous kernel.
  bool programmaticLaunch = false;
  /// "tile_tokens" (required when the grid uses query_tiles, else optional;
  /// 0 when absent): chunk tokens per CTA of an extend kernel.
  int tileTokens = 0;

  /// Whether an extent of the grid uses `name`.
  bool gridUses(GridName name) const {
    for (const GridExpr &g : grid)
      for (GridName n : g.names)
        if (n == name)
          return true;
    return false;
  }
};

/// One decode launch plan ("plans[i]"): the configuration that serves a
/// list of batch buckets, and its decode kernel per dtype (which merges its
/// own splits: there is no second kernel).
struct PlanDesc {
  std::vector<int32_t> buckets; // ascending max_batch values
  int blockN = 0, splits = 0, warps = 0, headsPerCta = 0, stages = 0;
  /// Workspace floats per batch row (abi.h: tickets, partials, max/sum),
  /// 0 when splits == 1 (decode writes the output itself).
  int64_t floatsPerBatchRow = 0;
  /// kernels[] index of the decode kernel per dtype index, -1 when absent.
  int decode[kNumDtypes] = {-1, -1};

  /// kernels[] index for a kind (decode) and dtype index.
  int kernel(int kind, int dtype) const {
    return kind == TQRT_KERNEL_DECODE ? decode[dtype] : -1;
  }
};

struct FieldDesc {
  std::string name, dtype;
  int64_t bytes = 0, offset = 0, tokenStride = 0;
};

/// The manifest's "extend" member: whether the bundle has the extend
/// (chunked-prefill) kernels, their launch configuration, or why not.
struct ExtendDesc {
  bool available = false;
  /// Why not, when !available: the manifest's "reason", or "the bundle
  /// predates extend" when the member is absent. "" when available.
  std::string note;
  int tileTokens = 0, blockN = 0, warps = 0;
  /// TQ_EXTEND_WORKSPACE_BYTES(1, num_kv_heads, head_dim).
  int64_t workspaceBytesPerToken = 0;
};

/// The target arch, parsed: "sm_90a" -> {number 90, suffix 'a'}.
struct Arch {
  std::string text;
  bool nvidia = true;   // false: an AMD gfx target
  int number = 0;       // major*10 + minor for NVIDIA
  char suffix = 0;      // 0, 'a' (arch-specific) or 'f' (family-specific)
};
/// Parses "sm_XY[a|f]" / "compute_XY[a|f]" (NVIDIA) or "gfxNNN" (AMD);
/// returns false for anything else.
bool parseArch(std::string_view text, Arch &arch);
/// Whether code for `arch` (a cubin when `binary`, else PTX) runs on a
/// device of compute capability `cc` (major*10 + minor).
bool archRunsOn(const Arch &arch, int cc, bool binary);

struct Manifest {
  std::string source; // file name for messages ("manifest.json")
  int schemaVersion = 0, abiVersion = 0;
  std::string generator;

  Arch arch;
  std::string vendor, imageFile, ptxFile;

  std::string preset;
  int headDim = 0, numQHeads = 0, numKVHeads = 0, blockSize = 0;
  float softmaxScale = 0;

  std::string layoutKind, layoutDtype;
  std::vector<int64_t> shape; // shape[0] = -1 for num_blocks
  int64_t blockStride = 0, headStride = 0, regionBytes = 0,
          bytesPerTokenHead = 0, alignment = 0;
  std::vector<FieldDesc> fields;

  /// The decode launch plans, sorted by their first bucket; never empty.
  std::vector<PlanDesc> plans;
  std::string planSource; // "defaults", "options" or a tuning database

  ExtendDesc extend;

  /// Every kernel of a kind the runtime launches (others are skipped).
  std::vector<KernelDesc> kernels;
  /// kernels[] index per kind without plans (store, extend_prep, extend)
  /// and dtype index, -1 when absent (the decode row is always -1: decode
  /// kernels are per plan, PlanDesc::decode).
  int kernelOf[kNumKinds][kNumDtypes] = {{-1, -1}, {-1, -1}, {-1, -1},
                                         {-1, -1}};

  /// A dtype is present when it has a store kernel; the reader guarantees
  /// that every plan then has its decode kernel too, and when extend is
  /// available, that the extend_prep and extend kernels exist.
  bool hasDtype(int dtypeIndex) const {
    return kernelOf[TQRT_KERNEL_STORE][dtypeIndex] >= 0;
  }
};

/// Parses and validates manifest text; `source` names it in messages.
Manifest readManifest(std::string_view text, const std::string &source);

/// The plan for a bucket of max_batch rows (docs/MANIFEST.md, "plans"): the
/// plan holding the smallest bucket >= max_batch, or the last plan when
/// max_batch is above every bucket. `plans` must be non-empty.
int choosePlan(const std::vector<PlanDesc> &plans, int64_t maxBatch);

} // namespace tqrt

#endif
