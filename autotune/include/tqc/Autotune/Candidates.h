//===- Candidates.h - The launch plans a tuning run times ------*- C++ -*-===//
//
// A candidate is one decode launch plan (what tq-plan-launch turns into one
// decode kernel). The space is the cross product of a list
// per dimension; each list has a default and can be set by the user.
//
//===----------------------------------------------------------------------===//
#ifndef TQC_AUTOTUNE_CANDIDATES_H
#define TQC_AUTOTUNE_CANDIDATES_H

#include <cstdint>
#include <string>
#include <vector>

namespace tqc::autotune {

struct Candidate {
  int64_t blockN = 64, splits = 1, warps = 4, headsPerCta = 1, stages = 2;

  bool operator==(const Candidate &o) const {
    return blockN == o.blockN && splits == o.splits && warps == o.warps &&
           headsPerCta == o.headsPerCta && stages == o.stages;
  }
  bool operator<(const Candidate &o) const;
  /// "BLOCK_N 64, 8 splits, 4 warps, 4 heads/CTA, 2 stages".
  std::string describe() const;
};

/// The lists the candidates are the cross product of; an empty list takes
/// the default (defaultSpace).
struct CandidateSpace {
  std::vector<int64_t> blockN, splits, warps, headsPerCta, stages;
};

/// BLOCK_N {32, 64, 128}, splits {1, 2, 4, 8, 16, 32}, warps {4, 8},
/// heads per CTA from defaultHeadsPerCta(gqaRatio), stages {2}, or {2, 3}
/// where the target has the decode's copy ring (sm_90+: 3 stages beat 2 by
/// 1-11 % at most (batch, length) points of k3v4 on the H200,
/// bench/results/2026-11-30-session7-h200).
CandidateSpace defaultSpace(int64_t gqaRatio, bool copyRing = false);

/// The largest divisor of the GQA group a CTA can hold (<= 8: the decode
/// template's limit), plus its half when that is whole: a CTA per full
/// group shares every KV byte the most, half a group doubles the CTAs for
/// small batches.
std::vector<int64_t> defaultHeadsPerCta(int64_t gqaRatio);

/// The candidates of `space` (defaults filled in), sorted and distinct, or
/// an error naming the first invalid value and what is accepted: BLOCK_N a
/// multiple of 16 in 16..256, splits 1..64, warps 1..16, heads per CTA
/// dividing the GQA group and at most 8, stages 1..8 (the tuning database's
/// ranges). Stage counts that compile to the same decode are kept once, the
/// smallest: with `copyRing` (the recipe takes the decode's copy ring, whose
/// slots hold two steps) 3 and 4, 5 and 6, 7 and 8; without, 2 and above.
struct CandidateList {
  std::vector<Candidate> candidates;
  std::string error;
};
CandidateList generateCandidates(const CandidateSpace &space,
                                 int64_t gqaRatio, bool copyRing = false);

/// "1,8,32" -> {1, 8, 32}: positive integers separated by commas, no
/// duplicates. Returns false with `error` naming the bad item.
bool parseIntList(const std::string &text, const std::string &what,
                  std::vector<int64_t> &out, std::string &error);

} // namespace tqc::autotune

#endif // TQC_AUTOTUNE_CANDIDATES_H
