//===- codebook.cpp - Lloyd-Max on the exact and Gaussian densities -------===//

#include "tqc/numerics/codebook.h"

#include "quadrature.h"
#include "vllm_codebook.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>

namespace tqc {

double coordinateDensityConstant(int headDim) {
  const double d = headDim;
  return std::exp(std::lgamma(d / 2) - std::lgamma((d - 1) / 2)) /
         std::sqrt(M_PI);
}

namespace {

/// The exact density with its constant and exponent precomputed.
struct BetaDensity {
  double constant, exponent;

  explicit BetaDensity(int headDim)
      : constant(coordinateDensityConstant(headDim)),
        exponent((headDim - 3) / 2.0) {}

  double operator()(double x) const {
    if (std::abs(x) > 1)
      return 0;
    if (exponent == 0) // D = 3: uniform on [−1, 1] (avoids 0·log 0 at ±1)
      return constant;
    return constant * std::exp(exponent * std::log1p(-x * x));
  }
};

} // namespace

double coordinateDensity(int headDim, double x) {
  return BetaDensity(headDim)(x);
}

double oneBitLevel(int headDim) {
  const double d = headDim;
  return std::exp(std::lgamma(d / 2) - std::lgamma((d + 1) / 2)) /
         std::sqrt(M_PI);
}

namespace {

/// Mass and first moment of a density over one cell.
struct CellMoments {
  double mass, first;
};

/// The positive half of a symmetric density, as the Lloyd solver sees it.
class HalfDensity {
public:
  virtual ~HalfDensity() = default;
  virtual double pdf(double x) const = 0;
  virtual CellMoments moments(double a, double b) const = 0;
  /// End of the support (+∞ for the Gaussian).
  virtual double upper() const = 0;
  /// A finite range holding all but a negligible part of f^(1/3), for the
  /// compander start point.
  virtual double initRange() const = 0;
};

class BetaHalf final : public HalfDensity {
public:
  explicit BetaHalf(int headDim) : f_(headDim) {}
  double pdf(double x) const override { return f_(x); }
  CellMoments moments(double a, double b) const override {
    std::array<double, 2> m = detail::integrate<2>(
        [&](double x) {
          const double y = f_(x);
          return std::array<double, 2>{y, x * y};
        },
        a, b);
    return {m[0], m[1]};
  }
  double upper() const override { return 1; }
  double initRange() const override { return 1; }

private:
  BetaDensity f_;
};

/// N(0, 1) in units of σ; the caller scales the levels by σ = 1/√D.
class GaussianHalf final : public HalfDensity {
public:
  double pdf(double x) const override {
    return std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI);
  }
  // Exact moments: P = Φ(b) − Φ(a) written with erfc so that tail cells keep
  // their relative precision, ∫x φ = φ(a) − φ(b).
  CellMoments moments(double a, double b) const override {
    const double tailA = 0.5 * std::erfc(a * M_SQRT1_2);
    const double tailB = std::isinf(b) ? 0 : 0.5 * std::erfc(b * M_SQRT1_2);
    const double pdfB = std::isinf(b) ? 0 : pdf(b);
    return {tailA - tailB, pdf(a) - pdfB};
  }
  double upper() const override {
    return std::numeric_limits<double>::infinity();
  }
  double initRange() const override { return 14; } // f^(1/3) ~ N(0, 3)
};

/// Levels at the quantiles (i − ½)/n of f^(1/3) on the positive half: the
/// asymptotically optimal point density, a start point within a few percent
/// of the optimum at every bit width.
std::vector<double> compandedStart(const HalfDensity &f, int n) {
  const int panels = 4096;
  const double h = f.initRange() / panels;
  std::vector<double> cdf(panels + 1, 0.0);
  double prev = std::cbrt(f.pdf(0));
  for (int k = 1; k <= panels; ++k) {
    const double cur = std::cbrt(f.pdf(k * h));
    cdf[k] = cdf[k - 1] + 0.5 * h * (prev + cur);
    prev = cur;
  }
  std::vector<double> c(n);
  for (int i = 0; i < n; ++i) {
    const double target = cdf[panels] * (i + 0.5) / n;
    const int k =
        int(std::lower_bound(cdf.begin(), cdf.end(), target) - cdf.begin());
    const double lo = cdf[k - 1], hi = cdf[k];
    c[i] = h * (k - 1 + (target - lo) / (hi - lo));
  }
  return c;
}

/// Cell edges of the positive half: 0, the midpoints, then the support end.
std::vector<double> halfEdges(const std::vector<double> &c, double upper) {
  const size_t n = c.size();
  std::vector<double> t(n + 1);
  t[0] = 0;
  for (size_t i = 1; i < n; ++i)
    t[i] = 0.5 * (c[i - 1] + c[i]);
  t[n] = upper;
  return t;
}

struct LloydState {
  std::vector<double> edges;     // n + 1
  std::vector<double> mass;      // n
  std::vector<double> centroids; // n: conditional means, the Lloyd update
  double step = 0;               // max_i |centroid_i − c_i|
};

LloydState evaluate(const HalfDensity &f, const std::vector<double> &c) {
  LloydState s;
  const size_t n = c.size();
  s.edges = halfEdges(c, f.upper());
  s.mass.resize(n);
  s.centroids.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const CellMoments m = f.moments(s.edges[i], s.edges[i + 1]);
    s.mass[i] = m.mass;
    s.centroids[i] =
        m.mass > 0 ? m.first / m.mass : 0.5 * (s.edges[i] + s.edges[i + 1]);
    s.step = std::max(s.step, std::abs(s.centroids[i] - c[i]));
  }
  return s;
}

/// Newton step for F(c) = centroid(c) − c. The centroid of cell i depends on
/// its edges t_i, t_{i+1} only, each the midpoint of two neighbouring levels,
/// so the Jacobian is tridiagonal:
///   ∂m_i/∂t_i     = f(t_i)(m_i − t_i)/P_i       (t_0 = 0 is fixed)
///   ∂m_i/∂t_{i+1} = f(t_{i+1})(t_{i+1} − m_i)/P_i (t_n is the support end)
/// Returns false when the system is singular.
bool newtonStep(const HalfDensity &f, const std::vector<double> &c,
                const LloydState &s, std::vector<double> &delta) {
  const size_t n = c.size();
  std::vector<double> lower(n, 0), diag(n, -1), upper(n, 0), rhs(n);
  for (size_t i = 0; i < n; ++i) {
    const double m = s.centroids[i], p = s.mass[i];
    if (!(p > 0))
      return false;
    if (i > 0) {
      const double t = s.edges[i];
      const double d = 0.5 * f.pdf(t) * (m - t) / p;
      lower[i] = d;
      diag[i] += d;
    }
    if (i + 1 < n) {
      const double t = s.edges[i + 1];
      const double d = 0.5 * f.pdf(t) * (t - m) / p;
      upper[i] = d;
      diag[i] += d;
    }
    rhs[i] = -(m - c[i]);
  }
  // Thomas algorithm (no pivoting: the diagonal is ≈ −1 and dominant).
  for (size_t i = 1; i < n; ++i) {
    const double w = lower[i] / diag[i - 1];
    diag[i] -= w * upper[i - 1];
    rhs[i] -= w * rhs[i - 1];
  }
  delta.assign(n, 0);
  for (size_t i = n; i-- > 0;) {
    const double num = rhs[i] - (i + 1 < n ? upper[i] * delta[i + 1] : 0);
    delta[i] = num / diag[i];
    if (!std::isfinite(delta[i]))
      return false;
  }
  return true;
}

bool isValidHalf(const std::vector<double> &c, double upper) {
  if (!(c[0] > 0))
    return false;
  for (size_t i = 1; i < c.size(); ++i)
    if (!(c[i] > c[i - 1]))
      return false;
  return c.back() < upper;
}

constexpr double kTolerance = 1e-12;
constexpr int kMaxIterations = 500;

/// Solves the positive half of a symmetric Lloyd-Max quantizer with n levels.
std::vector<double> solveHalf(const HalfDensity &f, int n, int &iterations) {
  std::vector<double> c = compandedStart(f, n);
  LloydState s = evaluate(f, c);
  std::vector<double> delta, trial;
  for (iterations = 0; s.step >= kTolerance; ++iterations) {
    if (iterations == kMaxIterations)
      throw std::runtime_error("Lloyd-Max iteration did not converge (" +
                               std::to_string(n) + " levels per half)");
    bool accepted = false;
    if (newtonStep(f, c, s, delta)) {
      for (double lambda = 1; lambda > 1e-4 && !accepted; lambda *= 0.5) {
        trial = c;
        for (int i = 0; i < n; ++i)
          trial[i] += lambda * delta[i];
        if (!isValidHalf(trial, f.upper()))
          continue;
        LloydState next = evaluate(f, trial);
        if (next.step < s.step) {
          c.swap(trial);
          s = std::move(next);
          accepted = true;
        }
      }
    }
    if (!accepted) { // plain Lloyd update: always valid, never increases MSE
      c = s.centroids;
      s = evaluate(f, c);
    }
  }
  // Finish with one Lloyd update, so the result is the conditional means of
  // its own cells to within the tolerance.
  return s.centroids;
}

/// Mirrors a positive half into ascending levels and midpoint boundaries.
void mirror(const std::vector<double> &half, double scale, Codebook &book) {
  const int n = int(half.size());
  book.levels.resize(2 * n);
  for (int i = 0; i < n; ++i) {
    book.levels[n + i] = half[i] * scale;
    book.levels[n - 1 - i] = -half[i] * scale;
  }
  book.boundaries.resize(2 * n - 1);
  book.boundaries[n - 1] = 0;
  for (int i = 1; i < n; ++i) {
    const double t = 0.5 * (book.levels[n + i - 1] + book.levels[n + i]);
    book.boundaries[n - 1 + i] = t;
    book.boundaries[n - 1 - i] = -t;
  }
}

std::vector<double> uniformLevels(int headDim, int bits) {
  const int count = 1 << bits;
  const double range = 2.5 / std::sqrt(double(headDim));
  std::vector<double> levels(count);
  for (int i = 0; i < count; ++i) {
    // Mirror-exact: level i and level count−1−i are computed from the same
    // magnitude.
    const double u = (2.0 * i - (count - 1)) / (count - 1);
    levels[i] = u * range;
  }
  return levels;
}

/// D·Σ ∫ (x − c_i)² f over the cells, clipped to [−1, 1].
double unitVectorDistortion(const Codebook &book) {
  const BetaDensity f(book.headDim);
  double total = 0;
  for (int i = 0; i < book.size(); ++i) {
    const double a = i == 0 ? -1 : std::max(-1.0, book.boundaries[i - 1]);
    const double b =
        i + 1 == book.size() ? 1 : std::min(1.0, book.boundaries[i]);
    const double c = book.levels[i];
    total += detail::integrate<1>(
        [&](double x) {
          return std::array<double, 1>{(x - c) * (x - c) * f(x)};
        },
        a, b)[0];
  }
  return book.headDim * total;
}

} // namespace

Codebook makeCodebook(int headDim, int bits, CodebookDist dist) {
  if (headDim < 3)
    throw std::invalid_argument("codebook head_dim " + std::to_string(headDim) +
                                " is out of range; accepted: >= 3");
  if (bits < 1 || bits > 8)
    throw std::invalid_argument("codebook bits " + std::to_string(bits) +
                                " is out of range; accepted: 1..8");
  Codebook book;
  book.headDim = headDim;
  book.bits = bits;
  book.dist = dist;
  const int half = 1 << (bits - 1);
  switch (dist) {
  case CodebookDist::Beta: {
    BetaHalf f(headDim);
    mirror(solveHalf(f, half, book.iterations), 1.0, book);
    break;
  }
  case CodebookDist::Gaussian: {
    GaussianHalf f;
    mirror(solveHalf(f, half, book.iterations), 1 / std::sqrt(double(headDim)),
           book);
    break;
  }
  case CodebookDist::Uniform: {
    std::vector<double> levels = uniformLevels(headDim, bits);
    mirror(std::vector<double>(levels.begin() + half, levels.end()), 1.0, book);
    break;
  }
  case CodebookDist::Vllm: {
    if (!vllmCodebookExists(headDim, bits))
      throw std::invalid_argument(
          "vLLM's codebook has no head_dim " + std::to_string(headDim) +
          ", " + std::to_string(bits) +
          " bits; accepted: head_dim 64, 128, 256 with 3 or 4 bits");
    const std::vector<float> levels = vllmCodebookLevels(headDim, bits);
    book.levels.assign(levels.begin(), levels.end());
    const std::vector<float> mid = vllmCodebookMidpoints(levels);
    book.boundaries.assign(mid.begin(), mid.end());
    break;
  }
  }
  book.dmse = unitVectorDistortion(book);
  return book;
}

std::shared_ptr<const Codebook> sharedCodebook(int headDim, int bits,
                                               CodebookDist dist) {
  static std::mutex mutex;
  static std::map<std::tuple<int, int, CodebookDist>,
                  std::shared_ptr<const Codebook>>
      cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto key = std::make_tuple(headDim, bits, dist);
  auto it = cache.find(key);
  if (it != cache.end())
    return it->second;
  auto book =
      std::make_shared<const Codebook>(makeCodebook(headDim, bits, dist));
  cache.emplace(key, book);
  return book;
}

int nearestIndex(const Codebook &book, double y) {
  return int(
      std::upper_bound(book.boundaries.begin(), book.boundaries.end(), y) -
      book.boundaries.begin());
}

} // namespace tqc
