// Helpers shared by the numerics tests: deterministic random vectors.
#ifndef TQC_NUMERICS_TESTS_TEST_UTIL_H
#define TQC_NUMERICS_TESTS_TEST_UTIL_H

#include "tqc/numerics/quantize.h"
#include "tqc/numerics/random.h"

#include <vector>

namespace tqc::test {

inline std::vector<double> gaussianVector(GaussianStream &g, int n) {
  std::vector<double> v(n);
  for (double &x : v)
    x = g.next();
  return v;
}

/// Uniform on the unit sphere.
inline std::vector<double> unitVector(GaussianStream &g, int n) {
  std::vector<double> v = gaussianVector(g, n);
  const double len = norm(v.data(), n);
  for (double &x : v)
    x /= len;
  return v;
}

inline std::vector<float> gaussianFloats(GaussianStream &g, size_t n,
                                         double scale = 1) {
  std::vector<float> v(n);
  for (float &x : v)
    x = float(scale * g.next());
  return v;
}

inline double squaredDistance(const std::vector<double> &a,
                              const std::vector<double> &b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i)
    s += (a[i] - b[i]) * (a[i] - b[i]);
  return s;
}

} // namespace tqc::test

#endif // TQC_NUMERICS_TESTS_TEST_UTIL_H
