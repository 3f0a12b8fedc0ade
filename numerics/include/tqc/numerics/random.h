//===- random.h - Deterministic random streams -----------------*- C++ -*-===//
//
// Everything random that ends up in a cache (rotation signs, the QJL sketch
// matrix, dense reference rotations) comes from SplitMix64 so that the
// compiler, the host reference and any re-implementation draw exactly the
// same numbers from a seed, on every platform.
//
// SplitMix64 (Steele, Lea, Flood 2014), one 64-bit output per call:
//   state += 0x9e3779b97f4a7c15
//   z = state
//   z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
//   z = (z ^ (z >> 27)) * 0x94d049bb133111eb
//   return z ^ (z >> 31)
// The state starts at the seed itself.
//
// Standard normals use the Box-Muller transform on two consecutive outputs
// a, b:  u1 = ((a >> 11) + 1)·2^-53 ∈ (0, 1],  u2 = (b >> 11)·2^-53 ∈ [0, 1),
//        r = sqrt(−2 ln u1),  first = r·cos(2π u2),  second = r·sin(2π u2).
// The pair is returned in that order (cos first), then the next pair is drawn.
//
//===----------------------------------------------------------------------===//
#ifndef TQC_NUMERICS_RANDOM_H
#define TQC_NUMERICS_RANDOM_H

#include <cstdint>

namespace tqc {

class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ull;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }

private:
  uint64_t state_;
};

/// N(0, 1) draws by Box-Muller over a SplitMix64 stream (see the file
/// comment for the exact recipe).
class GaussianStream {
public:
  explicit GaussianStream(uint64_t seed) : rng_(seed) {}

  double next();

private:
  SplitMix64 rng_;
  double spare_ = 0;
  bool haveSpare_ = false;
};

} // namespace tqc

#endif // TQC_NUMERICS_RANDOM_H
