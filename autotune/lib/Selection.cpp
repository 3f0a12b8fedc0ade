//===- Selection.cpp - Expected latency and the choice per bucket ---------===//
#include "tqc/Autotune/Selection.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tqc::autotune {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

TimingTable::TimingTable(std::vector<int64_t> b, std::vector<Candidate> c,
                         std::vector<ContextPoint> p)
    : buckets(std::move(b)), candidates(std::move(c)), points(std::move(p)) {
  CandidateTimes empty;
  empty.us.assign(points.size(), kNaN);
  empty.spread.assign(points.size(), kNaN);
  rows.assign(buckets.size() * candidates.size(), empty);
}

bool TimingTable::complete(size_t b, size_t c) const {
  const CandidateTimes &r = row(b, c);
  if (!r.failure.empty() || r.prunedAfter >= 0)
    return false;
  for (double us : r.us)
    if (!std::isfinite(us))
      return false;
  return true;
}

double TimingTable::expectedUs(size_t b, size_t c) const {
  if (!complete(b, c))
    return kNaN;
  const CandidateTimes &r = row(b, c);
  double sum = 0;
  for (size_t p = 0; p < points.size(); ++p)
    sum += points[p].weight * r.us[p];
  return sum;
}

std::vector<int> rankCandidates(const TimingTable &t, size_t b) {
  std::vector<int> order;
  for (size_t c = 0; c < t.candidates.size(); ++c)
    if (t.complete(b, c))
      order.push_back(int(c));
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    return t.expectedUs(b, x) < t.expectedUs(b, y);
  });
  return order;
}

double worstSlowdown(const TimingTable &t, size_t b, size_t c) {
  if (!t.complete(b, c))
    return kNaN;
  double worst = 1;
  for (size_t p = 0; p < t.points.size(); ++p) {
    if (!(t.points[p].weight > 0))
      continue; // a report length: not part of the choice
    double best = std::numeric_limits<double>::infinity();
    for (size_t o = 0; o < t.candidates.size(); ++o) {
      const CandidateTimes &r = t.row(b, o);
      if (r.failure.empty() && std::isfinite(r.us[p]))
        best = std::min(best, r.us[p]);
    }
    worst = std::max(worst, t.row(b, c).us[p] / best);
  }
  return worst;
}

BucketChoice chooseBest(const TimingTable &t, size_t b, double tieMargin) {
  BucketChoice choice;
  std::vector<int> order = rankCandidates(t, b);
  if (order.empty()) {
    size_t failed = 0;
    std::string example;
    for (size_t c = 0; c < t.candidates.size(); ++c)
      if (!t.row(b, c).failure.empty()) {
        ++failed;
        if (example.empty())
          example = t.candidates[c].describe() + ": " + t.row(b, c).failure;
      }
    choice.error = "no candidate could be timed for batch bucket " +
                   std::to_string(t.buckets[b]) + " (" +
                   std::to_string(failed) + " of " +
                   std::to_string(t.candidates.size()) + " failed" +
                   (example.empty() ? "" : "; e.g. " + example) + ")";
    return choice;
  }
  // order is by expected latency (stable: candidate order among equals), so
  // the ties are a prefix of it.
  const double limit = t.expectedUs(b, order.front()) * (1 + tieMargin);
  int pick = order.front();
  double pickWorst = worstSlowdown(t, b, size_t(pick));
  for (int c : order) {
    if (t.expectedUs(b, c) > limit)
      break;
    const double w = worstSlowdown(t, b, size_t(c));
    if (w < pickWorst) // strict: the faster on average keeps equal ones
      pick = c, pickWorst = w;
  }
  choice.candidate = pick;
  choice.expectedUs = t.expectedUs(b, pick);
  return choice;
}

std::vector<int> provablyLosing(const TimingTable &t, size_t b,
                                size_t measured, double margin) {
  const size_t n = t.points.size();
  if (measured == 0 || measured >= n)
    return {}; // nothing known yet, or everything known: rank instead
  const size_t first = n - measured; // the shortest length measured
  double rest = 0;
  for (size_t p = 0; p < first; ++p)
    rest += t.points[p].weight;
  struct Bound {
    int candidate;
    double lower, upper;
  };
  std::vector<Bound> alive;
  for (size_t c = 0; c < t.candidates.size(); ++c) {
    const CandidateTimes &r = t.row(b, c);
    if (!r.failure.empty() || r.prunedAfter >= 0)
      continue;
    double partial = 0;
    bool ok = true;
    for (size_t p = first; p < n; ++p) {
      ok = ok && std::isfinite(r.us[p]);
      partial += t.points[p].weight * r.us[p];
    }
    if (ok)
      alive.push_back({int(c), partial, partial + rest * r.us[first]});
  }
  double bestUpper = std::numeric_limits<double>::infinity();
  for (const Bound &x : alive)
    bestUpper = std::min(bestUpper, x.upper);
  std::vector<int> losing;
  for (const Bound &x : alive)
    if (x.lower > (1.0 + margin) * bestUpper)
      losing.push_back(x.candidate);
  return losing;
}

} // namespace tqc::autotune
