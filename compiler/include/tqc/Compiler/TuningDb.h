//===- TuningDb.h - Tuned launch plans, per GPU and batch bucket -*- C++ -*-===//
//
// `tqc autotune` measures launch plans on a GPU and writes a JSON database;
// `tqc --tuning-db FILE` compiles with the plans it holds for the request.
// Schema (version 1):
//   {"schema": "tqc.tuning", "schema_version": 1,
//    "entries": [{"gpu": "NVIDIA H200", "arch": "sm_90", "sm_count": 132,
//                 "preset": "k3v4", "head_dim": 128, "gqa_ratio": 4,
//                 "bucket": 32,
//                 "plan": {"block_n": 64, "splits": 1, "warps": 4,
//                          "heads_per_cta": 4, "stages": 2},
//                 "expected_us": 210.5}, ...]}
// `expected_us` (optional) is the plan's expected latency over the context
// distribution it was tuned for.
//
//===----------------------------------------------------------------------===//
#ifndef TQC_COMPILER_TUNINGDB_H
#define TQC_COMPILER_TUNINGDB_H

#include <cstdint>
#include <string>
#include <vector>

namespace tqc {

constexpr int kTuningSchemaVersion = 1;

struct TunedPlan {
  int64_t bucket = 0, blockN = 0, splits = 0, warps = 0, headsPerCta = 0,
          stages = 0;
};

/// What a compile asks the database for.
struct TuningQuery {
  std::string arch, preset;
  std::string layout = "native"; ///< entries without "layout" are native
  int headDim = 0, gqaRatio = 0;
  std::string gpu; ///< empty: the only GPU the database has for the arch
};

struct TuningLookup {
  std::string error;                 ///< empty on success
  std::vector<std::string> warnings; ///< e.g. no entry for this recipe
  std::vector<TunedPlan> plans;      ///< ascending buckets; empty: defaults
  std::string gpu;                   ///< the GPU the plans were tuned on
  int64_t smCount = 0;
};

/// Reads `path` and selects the plans for `query`. A corrupt file, an
/// unknown schema or version, a malformed entry, or an ambiguous GPU is an
/// error naming the value and what is accepted; a database without entries
/// for the recipe is a warning (the built-in defaults apply).
TuningLookup lookupTuningDb(const std::string &path, const TuningQuery &query);

} // namespace tqc

#endif // TQC_COMPILER_TUNINGDB_H
