//===- Progress.h - Progress lines and the time estimate -------*- C++ -*-===//
#ifndef TQC_AUTOTUNE_PROGRESS_H
#define TQC_AUTOTUNE_PROGRESS_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace tqc::autotune {

/// Where a measurement run is. Indices are 1-based, as printed.
struct ProgressState {
  int64_t bucket = 0;
  size_t bucketIndex = 0, numBuckets = 0;
  int64_t length = 0;
  size_t pointIndex = 0, numPoints = 0; ///< in measurement order
  size_t candidate = 0, numCandidates = 0; ///< of those still in the race
  double elapsedS = 0;
  double etaS = -1; ///< < 0: not known yet
};

/// "7s", "1m05s", "1h02m".
std::string formatDuration(double seconds);

/// "bucket 8 (2/4)  L=27554 (2/5)  candidate 37/72  elapsed 1m12s  ETA 3m40s"
std::string formatProgress(const ProgressState &s);

/// Remaining time from work done so far: work is counted in units that
/// are proportional to time (bytes read plus launches), and the rate seen
/// so far extrapolates to what is left.
class EtaEstimator {
public:
  void addTotal(double units) { total_ += units; }
  void removeFromTotal(double units) { total_ -= units; }
  void addDone(double units) { done_ += units; }
  /// Seconds left; -1 until some work is done.
  double remaining(double elapsedS) const;

private:
  double total_ = 0, done_ = 0;
};

} // namespace tqc::autotune

#endif // TQC_AUTOTUNE_PROGRESS_H
