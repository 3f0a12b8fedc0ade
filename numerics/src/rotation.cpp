//===- rotation.cpp - Hadamard, randomized Hadamard and Haar rotations ----===//

#include "tqc/numerics/rotation.h"

#include "tqc/numerics/random.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace tqc {

namespace {

template <typename T> void fwhtImpl(T *x, int n) {
  if (!isPowerOfTwo(n))
    throw std::invalid_argument("Hadamard transform of length " +
                                std::to_string(n) +
                                "; accepted: a power of two");
  for (int len = 1; len < n; len <<= 1)
    for (int i = 0; i < n; i += len << 1)
      for (int j = i; j < i + len; ++j) {
        const T a = x[j], b = x[j + len];
        x[j] = a + b;
        x[j + len] = a - b;
      }
  const T norm = T(1 / std::sqrt(double(n)));
  for (int i = 0; i < n; ++i)
    x[i] *= norm;
}

void requireHadamardDim(int dim) {
  if (!isPowerOfTwo(dim))
    throw std::invalid_argument("Hadamard rotation of head_dim " +
                                std::to_string(dim) +
                                "; accepted: a power of two");
}

template <typename T>
void multiplySigns(T *x, const std::vector<int8_t> &signs) {
  for (size_t j = 0; j < signs.size(); ++j)
    if (signs[j] < 0)
      x[j] = -x[j];
}

} // namespace

void fwht(double *x, int n) { fwhtImpl(x, n); }
void fwht(float *x, int n) { fwhtImpl(x, n); }

void Rotation::apply(float *x) const {
  std::vector<double> v(x, x + dim());
  apply(v.data());
  for (int i = 0; i < dim(); ++i)
    x[i] = float(v[i]);
}

void Rotation::applyInverse(float *x) const {
  std::vector<double> v(x, x + dim());
  applyInverse(v.data());
  for (int i = 0; i < dim(); ++i)
    x[i] = float(v[i]);
}

std::vector<double> Rotation::matrix() const {
  const int n = dim();
  std::vector<double> m(size_t(n) * n), column(n);
  for (int j = 0; j < n; ++j) {
    std::fill(column.begin(), column.end(), 0.0);
    column[j] = 1;
    apply(column.data());
    for (int i = 0; i < n; ++i)
      m[size_t(i) * n + j] = column[i];
  }
  return m;
}

PlainHadamard::PlainHadamard(int dim) : dim_(dim) { requireHadamardDim(dim); }

RandomizedHadamard::RandomizedHadamard(int dim, uint64_t seed, int rounds)
    : dim_(dim) {
  requireHadamardDim(dim);
  if (rounds < 1)
    throw std::invalid_argument("rotation rounds " + std::to_string(rounds) +
                                "; accepted: >= 1");
  SplitMix64 rng(seed);
  auto draw = [&] {
    std::vector<int8_t> s(dim);
    for (int8_t &v : s)
      v = (rng.next() >> 63) ? -1 : 1;
    return s;
  };
  for (int r = 0; r < rounds; ++r) {
    d1_.push_back(draw());
    d2_.push_back(draw());
  }
}

template <typename T> void RandomizedHadamard::forward(T *x) const {
  for (int r = 0; r < rounds(); ++r) {
    multiplySigns(x, d1_[r]);
    fwhtImpl(x, dim_);
    multiplySigns(x, d2_[r]);
  }
}

template <typename T> void RandomizedHadamard::inverse(T *x) const {
  for (int r = rounds() - 1; r >= 0; --r) {
    multiplySigns(x, d2_[r]);
    fwhtImpl(x, dim_);
    multiplySigns(x, d1_[r]);
  }
}

void RandomizedHadamard::apply(double *x) const { forward(x); }
void RandomizedHadamard::applyInverse(double *x) const { inverse(x); }
void RandomizedHadamard::apply(float *x) const { forward(x); }
void RandomizedHadamard::applyInverse(float *x) const { inverse(x); }

std::vector<uint32_t> packSignMask(const std::vector<int8_t> &signs) {
  std::vector<uint32_t> words((signs.size() + 31) / 32, 0);
  for (size_t j = 0; j < signs.size(); ++j)
    if (signs[j] < 0)
      words[j / 32] |= uint32_t(1) << (j % 32);
  return words;
}

DenseRotation::DenseRotation(int dim, uint64_t seed) : dim_(dim) {
  if (dim < 1)
    throw std::invalid_argument("dense rotation of dim " + std::to_string(dim));
  const size_t n = size_t(dim);
  GaussianStream gauss(seed);
  std::vector<double> g(n * n);
  for (double &v : g)
    v = gauss.next();
  // Modified Gram-Schmidt on the columns, run twice per column ("twice is
  // enough" for orthogonality to rounding). The norms are positive, i.e.
  // diag(R) > 0: the sign fix that makes Q Haar distributed.
  q_.assign(n * n, 0);
  std::vector<double> col(n);
  for (size_t j = 0; j < n; ++j) {
    for (size_t i = 0; i < n; ++i)
      col[i] = g[i * n + j];
    for (int pass = 0; pass < 2; ++pass)
      for (size_t k = 0; k < j; ++k) {
        double dot = 0;
        for (size_t i = 0; i < n; ++i)
          dot += q_[i * n + k] * col[i];
        for (size_t i = 0; i < n; ++i)
          col[i] -= dot * q_[i * n + k];
      }
    double norm = 0;
    for (double v : col)
      norm += v * v;
    norm = std::sqrt(norm);
    for (size_t i = 0; i < n; ++i)
      q_[i * n + j] = col[i] / norm;
  }
}

void DenseRotation::apply(double *x) const {
  const size_t n = size_t(dim_);
  std::vector<double> y(n, 0.0);
  for (size_t i = 0; i < n; ++i) {
    double s = 0;
    for (size_t j = 0; j < n; ++j)
      s += q_[i * n + j] * x[j];
    y[i] = s;
  }
  std::copy(y.begin(), y.end(), x);
}

void DenseRotation::applyInverse(double *x) const {
  const size_t n = size_t(dim_);
  std::vector<double> y(n, 0.0);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      y[j] += q_[i * n + j] * x[i];
  std::copy(y.begin(), y.end(), x);
}

std::shared_ptr<const Rotation> makeRotation(const RotationSpec &spec,
                                             int dim) {
  switch (spec.kind) {
  case RotationKind::None:
    return std::make_shared<IdentityRotation>(dim);
  case RotationKind::PlainHadamard:
    return std::make_shared<PlainHadamard>(dim);
  case RotationKind::RandomizedHadamard:
    return std::make_shared<RandomizedHadamard>(dim, spec.seed, spec.rounds);
  case RotationKind::DenseHaar:
    return std::make_shared<DenseRotation>(dim, spec.seed);
  }
  throw std::invalid_argument("unknown rotation kind");
}

} // namespace tqc
