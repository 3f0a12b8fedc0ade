//===- Autotune.h - `tqc autotune` from options to files -------*- C++ -*-===//
//
// Validates everything it can before touching the GPU (options, the recipe,
// the candidates, the existing database), so a typo never costs a run; then
// probes the device, compiles the candidates, measures them, chooses a plan
// per bucket and writes the database and the report.
//
//===----------------------------------------------------------------------===//
#ifndef TQC_AUTOTUNE_AUTOTUNE_H
#define TQC_AUTOTUNE_AUTOTUNE_H

#include "tqc/Autotune/Candidates.h"
#include "tqc/Compiler/Pipeline.h"

#include <functional>
#include <string>
#include <vector>

namespace tqc::autotune {

struct AutotuneOptions {
  /// The recipe; request.arch "native" takes the device's compute
  /// capability. Launch-plan fields of the request are ignored.
  CompileRequest request;
  std::vector<int64_t> buckets;  ///< batch buckets (max_batch values)
  std::string contexts;          ///< "MIN:MAX" or "L"; empty: the default
  std::string contextHistogram;  ///< a file of "length weight" lines
  int contextPoints = 5;
  /// Lengths also timed for the report (timings.csv), with no weight in the
  /// choice (bench/tuner_quality.py scores a database at them).
  std::vector<int64_t> reportLengths;
  CandidateSpace space;          ///< empty lists: the defaults
  int reps = 30;
  int device = 0;
  int jobs = 0;                  ///< compile threads; 0: the CPU count (<= 16)
  bool prune = true;
  bool isolate = false; ///< MeasureOptions::isolate
  std::string output;            ///< the database to write or merge into
  std::string reportDir;         ///< empty: no report
  std::string version = "unknown";
  /// Progress and notes (stderr), results (stdout): one line per call.
  std::function<void(const std::string &)> log, out;
};

/// Runs the whole thing; returns "" or the error (one line, no prefix).
std::string runAutotune(const AutotuneOptions &options);

/// "sm_90" for compute capability 90; "sm_100" for 100.
std::string archForComputeCapability(int cc);

/// "" when code for `arch` (sm_XY or sm_XYa) runs natively on a device of
/// compute capability `cc`; otherwise why not.
std::string checkArchRunsOn(const std::string &arch, int cc,
                            const std::string &deviceName);

/// tq-plan-launch's built-in plan for a bucket (what --tuning-db replaces),
/// for the report's comparison.
Candidate builtInPlan(int64_t bucket, int64_t numQHeads, int64_t gqaRatio,
                      int64_t smCount);

} // namespace tqc::autotune

#endif // TQC_AUTOTUNE_AUTOTUNE_H
