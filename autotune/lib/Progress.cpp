//===- Progress.cpp - Progress lines and the time estimate ----------------===//
#include "tqc/Autotune/Progress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tqc::autotune {

std::string formatDuration(double seconds) {
  long s = std::lround(std::max(0.0, seconds));
  char buf[32];
  if (s < 60)
    std::snprintf(buf, sizeof buf, "%lds", s);
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  return buf;
}

std::string formatProgress(const ProgressState &s) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "bucket %lld (%zu/%zu)  L=%lld (%zu/%zu)  candidate %zu/%zu  "
                "elapsed %s  ETA %s",
                (long long)s.bucket, s.bucketIndex, s.numBuckets,
                (long long)s.length, s.pointIndex, s.numPoints, s.candidate,
                s.numCandidates, formatDuration(s.elapsedS).c_str(),
                s.etaS < 0 ? "?" : formatDuration(s.etaS).c_str());
  return buf;
}

double EtaEstimator::remaining(double elapsedS) const {
  if (done_ <= 0 || elapsedS <= 0)
    return -1;
  return elapsedS * std::max(0.0, total_ - done_) / done_;
}

} // namespace tqc::autotune
