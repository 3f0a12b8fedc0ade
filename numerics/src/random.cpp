//===- random.cpp - Box-Muller normals over SplitMix64 --------------------===//

#include "tqc/numerics/random.h"

#include <cmath>

namespace tqc {

double GaussianStream::next() {
  if (haveSpare_) {
    haveSpare_ = false;
    return spare_;
  }
  // u1 in (0, 1] so that log(u1) is finite.
  double u1 = double((rng_.next() >> 11) + 1) * 0x1.0p-53;
  double u2 = rng_.uniform();
  double r = std::sqrt(-2.0 * std::log(u1));
  double theta = 2.0 * M_PI * u2;
  spare_ = r * std::sin(theta);
  haveSpare_ = true;
  return r * std::cos(theta);
}

} // namespace tqc
