//===- CompileCandidates.h - Candidate plans into bundles ------*- C++ -*-===//
//
// Every candidate becomes a plan of a real bundle, compiled in process by
// the same pipeline, emitter and NVRTC + nvJitLink as `tqc -o DIR`: the
// module gets `tq.tuned_plans` with fake ascending buckets 1..n, one per
// candidate, so tq-plan-launch makes plan i (decode_p<i>) of candidate i.
// The candidates are split into `jobs` bundles compiled on as many threads
// (one bundle when jobs is 1). A bundle that fails to compile is retried
// one candidate at a time, so one plan the templates reject costs only
// that candidate.
//
//===----------------------------------------------------------------------===//
#ifndef TQC_AUTOTUNE_COMPILECANDIDATES_H
#define TQC_AUTOTUNE_COMPILECANDIDATES_H

#include "tqc/Autotune/Candidates.h"
#include "tqc/Autotune/Measure.h"
#include "tqc/Compiler/Pipeline.h"

#include <functional>
#include <string>
#include <vector>

namespace tqc::autotune {

struct CompiledCandidates {
  std::vector<CandidateBundle> bundles;
  /// Candidates left out, with the first line of their compile error.
  std::vector<std::pair<int, std::string>> dropped;
  std::string error; ///< set when nothing compiled
};

/// The candidates `indices` of `all` into one bundle (plan i = indices[i]);
/// `error` holds the diagnostics or the toolchain's message on failure.
CandidateBundle compileBundle(const CompileRequest &request,
                              const std::vector<Candidate> &all,
                              const std::vector<int> &indices,
                              const std::string &version, std::string &error);

/// Whether a 3-stage decode plan of `request`'s recipe, layout and arch gets
/// the copy ring (EmitCuda.h decodeRingBytes), so that 3 stages are worth
/// timing; false also when the pipeline refuses the request (the candidates'
/// compile then reports why).
bool recipeTakesCopyRing(const CompileRequest &request);

CompiledCandidates
compileCandidates(const CompileRequest &request,
                  const std::vector<Candidate> &candidates, int jobs,
                  const std::string &version,
                  const std::function<void(const std::string &)> &log);

} // namespace tqc::autotune

#endif // TQC_AUTOTUNE_COMPILECANDIDATES_H
