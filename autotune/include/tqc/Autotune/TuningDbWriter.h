//===- TuningDbWriter.h - Merge tuned plans into a database ----*- C++ -*-===//
//
// Writes schema tqc.tuning version 1 (compiler/include/tqc/Compiler/
// TuningDb.h), the database `tqc --tuning-db` reads. A run's entries
// replace those of the same key (GPU, arch, preset, head_dim, GQA ratio,
// bucket) and every other entry is kept as it was. An existing file that
// is not a valid version-1 database is never touched: the merge fails with
// the reader's message, so a corrupt or foreign file cannot be silently
// replaced (or silently grow wrong entries). The result is checked by
// reading it back with the compiler's own reader before it replaces the
// file (written next to it, then renamed).
//
//===----------------------------------------------------------------------===//
#ifndef TQC_AUTOTUNE_TUNINGDBWRITER_H
#define TQC_AUTOTUNE_TUNINGDBWRITER_H

#include "tqc/Autotune/Candidates.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tqc::autotune {

/// What a tuning run's entries are keyed by (besides the bucket).
struct TuningKey {
  std::string gpu, arch, preset;
  int64_t smCount = 0, headDim = 0, gqaRatio = 0;
  std::string layout = "native"; ///< written only when not native
};

struct TunedBucket {
  int64_t bucket = 0;
  Candidate plan;
  double expectedUs = 0;
};

struct DbMerge {
  std::string error;              ///< empty on success
  std::vector<std::string> notes; ///< e.g. entries replaced
  std::string text;               ///< the merged database
  size_t kept = 0, replaced = 0, added = 0;
};

/// "" when `path` does not exist or holds a valid version-1 database;
/// otherwise why it cannot be merged into (checked before a long run).
std::string checkExistingDb(const std::string &path);

/// The database `path` would hold after merging `entries` (text only;
/// `path` is read, not written). `contexts` describes the distribution the
/// plans were chosen for (kept with each entry).
DbMerge mergeTuningDb(const std::string &path, const TuningKey &key,
                      const std::vector<TunedBucket> &entries,
                      const std::string &contexts);

/// mergeTuningDb, then the merged text checked through the compiler's
/// reader (lookupTuningDb must return exactly these plans for `key`) and
/// written to `path` (through a temporary file and a rename).
DbMerge writeTuningDb(const std::string &path, const TuningKey &key,
                      const std::vector<TunedBucket> &entries,
                      const std::string &contexts);

} // namespace tqc::autotune

#endif // TQC_AUTOTUNE_TUNINGDBWRITER_H
