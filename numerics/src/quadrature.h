//===- quadrature.h - Adaptive Gauss-Kronrod quadrature --------*- C++ -*-===//
//
// Internal to the numerics library. Integrates a vector-valued integrand
// (several moments of one density share every evaluation) with the 7/15-point
// Gauss-Kronrod pair and recursive bisection. |K15 − G7| is a pessimistic
// error estimate (the true error of K15 is far smaller on smooth pieces), so
// a relative tolerance of ~1e-13 gives results accurate to rounding.
//
//===----------------------------------------------------------------------===//
#ifndef TQC_NUMERICS_SRC_QUADRATURE_H
#define TQC_NUMERICS_SRC_QUADRATURE_H

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>

namespace tqc::detail {

// QUADPACK's qk15 abscissae (positive half, descending) and weights.
inline constexpr double kKronrodX[8] = {
    0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
    0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
    0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
    0.207784955007898467600689403773245, 0.0};
inline constexpr double kKronrodW[8] = {
    0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
    0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
    0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
    0.204432940075298892414161999234649, 0.209482141084727828012999174891714};
// Gauss weights of the 7-point rule, on kKronrodX[1], [3], [5], [7].
inline constexpr double kGaussW[4] = {
    0.129484966168869693270611432679082, 0.279705391489276667901467771423780,
    0.381830050505118944950369775488975, 0.417959183673469387755102040816327};

template <size_t N> struct GKResult {
  std::array<double, N> value{};
  double error = 0; // max over components of |K15 − G7|
};

template <size_t N, typename F>
GKResult<N> gaussKronrod15(const F &f, double a, double b) {
  const double mid = 0.5 * (a + b), half = 0.5 * (b - a);
  std::array<double, N> k{}, g{};
  for (int i = 0; i < 8; ++i) {
    const bool gaussNode = (i % 2) == 1;
    const int points = i == 7 ? 1 : 2;
    for (int s = 0; s < points; ++s) {
      const double x =
          s == 0 ? mid + half * kKronrodX[i] : mid - half * kKronrodX[i];
      const std::array<double, N> y = f(x);
      for (size_t c = 0; c < N; ++c) {
        k[c] += kKronrodW[i] * y[c];
        if (gaussNode)
          g[c] += kGaussW[i / 2] * y[c];
      }
    }
  }
  GKResult<N> r;
  for (size_t c = 0; c < N; ++c) {
    r.value[c] = k[c] * half;
    r.error = std::max(r.error, std::abs((k[c] - g[c]) * half));
  }
  return r;
}

template <size_t N, typename F>
std::array<double, N> adaptiveRefine(const F &f, double a, double b,
                                     const GKResult<N> &whole, double tol,
                                     int depth) {
  if (whole.error <= tol || depth >= 60)
    return whole.value;
  const double mid = 0.5 * (a + b);
  const GKResult<N> left = gaussKronrod15<N>(f, a, mid);
  const GKResult<N> right = gaussKronrod15<N>(f, mid, b);
  // tol/√2 per half (not tol/2): an endpoint singularity such as √(1−x)
  // still converges in a few dozen levels, smooth pieces stop at once.
  const double childTol = tol * M_SQRT1_2;
  std::array<double, N> l =
      adaptiveRefine<N>(f, a, mid, left, childTol, depth + 1);
  std::array<double, N> r =
      adaptiveRefine<N>(f, mid, b, right, childTol, depth + 1);
  for (size_t c = 0; c < N; ++c)
    l[c] += r[c];
  return l;
}

/// ∫_a^b f(x) dx for an integrand returning std::array<double, N>, to a
/// tolerance relative to the largest component of the integral.
template <size_t N, typename F>
std::array<double, N> integrate(const F &f, double a, double b,
                                double relTol = 1e-13) {
  if (!(b > a))
    return {};
  const GKResult<N> whole = gaussKronrod15<N>(f, a, b);
  double scale = 0;
  for (double v : whole.value)
    scale = std::max(scale, std::abs(v));
  return adaptiveRefine<N>(f, a, b, whole, relTol * scale, 0);
}

} // namespace tqc::detail

#endif // TQC_NUMERICS_SRC_QUADRATURE_H
