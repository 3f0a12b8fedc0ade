//===- Contexts.h - The context-length distribution a plan serves -*- C++ -*-===//
//
// One captured CUDA graph per batch bucket serves every context length, so a
// bucket's plan is chosen for its expected latency over the lengths it will
// see. Latency is measured at a few lengths (points) and integrated with
// weights: latency is modelled as piecewise linear in the length between
// points (fixed cost plus bytes read), and each weight is the integral of
// that interpolant's hat function against the distribution. The weights are
// exact for any piecewise-linear latency, sum to 1 and are non-negative.
//
//===----------------------------------------------------------------------===//
#ifndef TQC_AUTOTUNE_CONTEXTS_H
#define TQC_AUTOTUNE_CONTEXTS_H

#include <cstdint>
#include <string>
#include <vector>

namespace tqc::autotune {

struct ContextPoint {
  int64_t length = 0; ///< tokens per sequence
  double weight = 0;  ///< share of the expected latency; the sum is 1 (0:
                      ///< a report length, timed but not in the choice)
};

struct ContextDistribution {
  std::vector<ContextPoint> points; ///< ascending lengths
  std::string description;          ///< "log-uniform 256..131072, 5 points"
  std::string error;                ///< empty on success
};

constexpr int64_t kDefaultMinContext = 256;
constexpr int64_t kDefaultMaxContext = 131072;
constexpr int kDefaultContextPoints = 5;

/// Log-uniform lengths on [lo, hi] (density 1/(L ln(hi/lo))), measured at
/// `n` log-spaced points including both ends; lo == hi is one point.
ContextDistribution logUniform(int64_t lo, int64_t hi, int n);

/// `--contexts`: "MIN:MAX" (log-uniform) or a single length "L".
ContextDistribution parseContextRange(const std::string &text, int n);

/// `--context-hist`: one "length weight" pair per line; '#' starts a
/// comment; blank lines are skipped; a length listed twice adds up. With at
/// most `n` distinct lengths those are the points; otherwise `n` log-spaced
/// points between the smallest and largest length, each listed length's
/// weight shared between its two neighbouring points (linear in length).
/// `name` names the file in messages ("FILE:LINE: ...").
ContextDistribution parseContextHistogram(const std::string &text,
                                          const std::string &name, int n);

/// `--report-lengths`: adds each length not already a point as a point of
/// weight 0, timed for the report (timings.csv) but not part of the
/// expected latency or the choice; keeps the points ascending. Errors name
/// a length below 1 or a total over 64 points.
std::string addReportLengths(ContextDistribution &d,
                             const std::vector<int64_t> &lengths);

/// The weights of `points` (ascending, distinct) for a distribution given
/// as (length, mass) samples on [points.front(), points.back()]: each
/// sample's mass goes to its neighbouring points in proportion to distance.
std::vector<double> interpolationWeights(const std::vector<int64_t> &points,
                                         const std::vector<ContextPoint> &mass);

} // namespace tqc::autotune

#endif // TQC_AUTOTUNE_CONTEXTS_H
