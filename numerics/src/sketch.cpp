//===- sketch.cpp - QJL Gaussian sketch
//------------------------------------===//

#include "tqc/numerics/sketch.h"

#include "tqc/numerics/random.h"

#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

namespace tqc {

QjlSketch::QjlSketch(int dim, uint64_t seed) : dim_(dim), seed_(seed) {
  if (dim < 1)
    throw std::invalid_argument("QJL sketch of dim " + std::to_string(dim));
  GaussianStream gauss(seed);
  s_.resize(size_t(dim) * dim);
  for (float &v : s_)
    v = float(gauss.next());
}

double QjlSketch::scale() const { return std::sqrt(M_PI / 2) / dim_; }

void QjlSketch::project(const double *x, double *out) const {
  const size_t n = size_t(dim_);
  for (size_t i = 0; i < n; ++i) {
    const float *row = &s_[i * n];
    double acc = 0;
    for (size_t j = 0; j < n; ++j)
      acc += double(row[j]) * x[j];
    out[i] = acc;
  }
}

void QjlSketch::signBits(const double *r, uint8_t *bits) const {
  std::vector<double> p(static_cast<size_t>(dim_));
  project(r, p.data());
  for (int i = 0; i < dim_; ++i)
    bits[i] = p[i] >= 0 ? 1 : 0;
}

double QjlSketch::estimate(const double *projectedQuery, const uint8_t *bits,
                           double gamma) const {
  double acc = 0;
  for (int i = 0; i < dim_; ++i)
    acc += bits[i] ? projectedQuery[i] : -projectedQuery[i];
  return gamma * scale() * acc;
}

void QjlSketch::addReconstruction(const uint8_t *bits, double gamma,
                                  double *x) const {
  const size_t n = size_t(dim_);
  const double c = gamma * scale();
  for (size_t i = 0; i < n; ++i) {
    const double zi = bits[i] ? c : -c;
    const float *row = &s_[i * n];
    for (size_t j = 0; j < n; ++j)
      x[j] += zi * double(row[j]);
  }
}

std::shared_ptr<const QjlSketch> sharedSketch(int dim, uint64_t seed) {
  static std::mutex mutex;
  static std::map<std::pair<int, uint64_t>, std::shared_ptr<const QjlSketch>>
      cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto &slot = cache[{dim, seed}];
  if (!slot)
    slot = std::make_shared<const QjlSketch>(dim, seed);
  return slot;
}

} // namespace tqc
