// Numbers from /work/shared/design/ALGORITHM.md that several tests check.
#ifndef TQC_NUMERICS_TESTS_ALGORITHM_DATA_H
#define TQC_NUMERICS_TESTS_ALGORITHM_DATA_H

#include <cmath>

namespace tqc::test {

/// §3, "exact" D_mse of TurboQuant_mse on unit vectors, bits 1..4.
inline double exactDmse(int d, int bits) {
  static const double d64[] = {0.358387, 0.114526, 0.033391, 0.009132};
  static const double d128[] = {0.360889, 0.116000, 0.033966, 0.009315};
  static const double d256[] = {0.362136, 0.116740, 0.034256, 0.009408};
  const double *col = d == 64 ? d64 : d == 128 ? d128 : d256;
  return col[bits - 1];
}

/// §3 bounds: 4^-b ≤ D_mse ≤ √3π/2·4^-b.
inline double dmseLowerBound(int bits) { return std::pow(4.0, -bits); }
inline double dmseUpperBound(int bits) {
  return std::sqrt(3.0) * M_PI / 2 * std::pow(4.0, -bits);
}

/// §3, E⟨x, x̃⟩ of MSE-only codes at D=128, bits 1..4.
inline double shrinkage128(int bits) {
  static const double v[] = {0.6391, 0.8840, 0.9660, 0.9907};
  return v[bits - 1];
}

/// §3, norm-corrected D_mse and E⟨x, x̃⟩ at D=128, bits 2..4.
inline double ncDmse128(int bits) {
  static const double v[] = {0.1188, 0.0338, 0.0092};
  return v[bits - 2];
}
inline double ncShrinkage128(int bits) {
  static const double v[] = {0.9406, 0.9831, 0.9954};
  return v[bits - 2];
}

/// §5, D·D_prod (exact, D=128), bits 1..4.
inline double scaledDprod128(int bits) {
  static const double v[] = {1.5630, 0.5641, 0.1813, 0.0531};
  return v[bits - 1];
}

/// §4: the paper's worst-case bound at b=3 and the 1-round randomized
/// Hadamard's error on one-hot inputs at D=128, b=3.
constexpr double kBoundB3 = 0.0425;
constexpr double kOneHotOneRoundB3 = 0.061;

} // namespace tqc::test

#endif // TQC_NUMERICS_TESTS_ALGORITHM_DATA_H
