//===- Selection.h - Timings, expected latency, the choice -----*- C++ -*-===//
//
// The timing table holds one latency per (bucket, candidate, context
// length). The plan for a bucket is the candidate with the lowest expected
// latency: the weighted sum over the context points (Contexts.h). Lengths
// are measured longest first, and a candidate is dropped as soon as it
// provably loses under one assumption, latency not decreasing with length:
// its partial sum alone (a lower bound) exceeds, by a margin for noise,
// another candidate's upper bound (its partial sum plus the remaining
// weight times its latency at the shortest length measured so far).
//
//===----------------------------------------------------------------------===//
#ifndef TQC_AUTOTUNE_SELECTION_H
#define TQC_AUTOTUNE_SELECTION_H

#include "tqc/Autotune/Candidates.h"
#include "tqc/Autotune/Contexts.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tqc::autotune {

/// One (bucket, candidate) row of the table.
struct CandidateTimes {
  std::vector<double> us;   ///< per context point; NaN: not measured
  std::vector<double> spread; ///< (p90 - p10) / median per point; NaN: none
  std::string failure;      ///< why it could not be timed ("" if it could)
  int prunedAfter = -1;     ///< points measured when it was dropped; -1: never
};

struct TimingTable {
  std::vector<int64_t> buckets;
  std::vector<Candidate> candidates;
  std::vector<ContextPoint> points; ///< ascending lengths
  std::vector<CandidateTimes> rows; ///< [bucket][candidate], row-major
  /// Buckets (from the first) whose measurement finished; a run stopped
  /// by an error still has valid choices for these.
  size_t bucketsDone = 0;

  TimingTable() = default;
  TimingTable(std::vector<int64_t> buckets, std::vector<Candidate> candidates,
              std::vector<ContextPoint> points);
  CandidateTimes &row(size_t bucket, size_t candidate) {
    return rows[bucket * candidates.size() + candidate];
  }
  const CandidateTimes &row(size_t bucket, size_t candidate) const {
    return rows[bucket * candidates.size() + candidate];
  }
  /// Timed at every point, not failed, not pruned.
  bool complete(size_t bucket, size_t candidate) const;
  /// Σ weight·latency over the points; NaN unless complete.
  double expectedUs(size_t bucket, size_t candidate) const;
};

struct BucketChoice {
  int candidate = -1;  ///< index into TimingTable::candidates; -1: none
  double expectedUs = 0;
  std::string error;   ///< set when no candidate is complete
};

/// Expected latencies within this fraction of the lowest are equal within
/// the timing noise (identical plans differ by 2-3 % between runs on the
/// H200, bench/results/2026-11-30-session6-h200).
constexpr double kTieMargin = 0.02;

/// The complete candidate of lowest expected latency. Candidates within
/// `tieMargin` of it are ties, and among them the one whose worst slowdown
/// against the fastest candidate at any measured length is smallest wins
/// (one CUDA graph serves every length of a bucket, so a plan never far
/// behind is the better pick), then the lower expected latency, then the
/// first in candidate order (deterministic).
BucketChoice chooseBest(const TimingTable &t, size_t bucket,
                        double tieMargin = kTieMargin);

/// A candidate's largest ratio to the fastest candidate of its bucket at
/// any weighted length (1 = fastest everywhere; report lengths, weight 0,
/// do not count); NaN unless complete.
double worstSlowdown(const TimingTable &t, size_t bucket, size_t candidate);

/// Complete candidates of a bucket, fastest first.
std::vector<int> rankCandidates(const TimingTable &t, size_t bucket);

/// After the `measured` longest points of a bucket have been timed (the
/// candidates still in the race at every one of them), the candidates that
/// can no longer win (see above), with `margin` (0.1: 10 %) for noise.
std::vector<int> provablyLosing(const TimingTable &t, size_t bucket,
                                size_t measured, double margin);

} // namespace tqc::autotune

#endif // TQC_AUTOTUNE_SELECTION_H
