//===- rotation.h - Rotations applied before quantizing ----*- C++ -*-===//
//
// All rotations act in place on one head vector, x ← R·x (apply) or
// x ← Rᵀ·x (applyInverse). Attention stays in the rotated domain
// (ALGORITHM.md §4): the query is rotated once with apply, the attention
// output un-rotated once with applyInverse.
//
// Randomized Hadamard, per round r (r = 0 .. rounds−1):
//   R_r = D2_r · H · D1_r,   R = R_{rounds−1} · … · R_1 · R_0,
// H the Sylvester Hadamard normalized by 1/√D (symmetric, H·H = I), D1/D2
// diagonal ±1. Rᵀ applies, for r = rounds−1 down to 0, D2_r then H then D1_r
// (swapping D1 and D2, or the round order, gives O(1) errors).
//
// Sign recipe (so that a kernel or another tool can regenerate them): one
// SplitMix64 stream (random.h) seeded with the rotation seed; its outputs in
// order give D1_0[0..D−1], D2_0[0..D−1], D1_1[0..D−1], D2_1[0..D−1], …; each
// output gives one sign, −1 when its top bit (bit 63) is set, +1 otherwise.
//
//===----------------------------------------------------------------------===//
#ifndef TQC_NUMERICS_ROTATION_H
#define TQC_NUMERICS_ROTATION_H

#include "tqc/numerics/spec.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace tqc {

/// In-place fast Walsh-Hadamard transform normalized by 1/√n (so it is its
/// own inverse); n must be a power of two. The float version computes in
/// float, as a kernel would.
void fwht(double *x, int n);
void fwht(float *x, int n);

class Rotation {
public:
  virtual ~Rotation() = default;
  virtual int dim() const = 0;
  /// x ← R·x
  virtual void apply(double *x) const = 0;
  /// x ← Rᵀ·x (= R⁻¹·x)
  virtual void applyInverse(double *x) const = 0;
  /// Float versions; the default converts through double, the Hadamard
  /// rotations override them to compute in float.
  virtual void apply(float *x) const;
  virtual void applyInverse(float *x) const;

  /// R as a dense row-major dim×dim matrix (R[i][j] at i·dim + j).
  std::vector<double> matrix() const;
};

/// R = I.
class IdentityRotation final : public Rotation {
public:
  explicit IdentityRotation(int dim) : dim_(dim) {}
  int dim() const override { return dim_; }
  void apply(double *) const override {}
  void applyInverse(double *) const override {}
  void apply(float *) const override {}
  void applyInverse(float *) const override {}

private:
  int dim_;
};

/// R = H (vLLM's rotation: no signs, the same for every layer).
class PlainHadamard final : public Rotation {
public:
  explicit PlainHadamard(int dim);
  int dim() const override { return dim_; }
  void apply(double *x) const override { fwht(x, dim_); }
  void applyInverse(double *x) const override { fwht(x, dim_); }
  void apply(float *x) const override { fwht(x, dim_); }
  void applyInverse(float *x) const override { fwht(x, dim_); }

private:
  int dim_;
};

/// R = Π_r D2_r·H·D1_r with signs from a seed (file comment).
class RandomizedHadamard final : public Rotation {
public:
  RandomizedHadamard(int dim, uint64_t seed, int rounds = 1);
  int dim() const override { return dim_; }
  int rounds() const { return int(d1_.size()); }
  void apply(double *x) const override;
  void applyInverse(double *x) const override;
  void apply(float *x) const override;
  void applyInverse(float *x) const override;

  /// The ±1 diagonals of round r, applied before (D1) and after (D2) H.
  const std::vector<int8_t> &signs1(int round) const { return d1_.at(round); }
  const std::vector<int8_t> &signs2(int round) const { return d2_.at(round); }

private:
  template <typename T> void forward(T *x) const;
  template <typename T> void inverse(T *x) const;

  int dim_;
  std::vector<std::vector<int8_t>> d1_, d2_;
};

/// Sign vector as 32-bit masks for kernels: bit (j mod 32) of word ⌊j/32⌋ is
/// 1 where the sign is −1, so a kernel flips x_j by XOR-ing the float's sign
/// bit with that bit.
std::vector<uint32_t> packSignMask(const std::vector<int8_t> &signs);

/// A Haar-random orthogonal matrix, the paper's reference rotation: QR of a
/// D×D standard Gaussian matrix G (entries drawn row-major from
/// GaussianStream(seed)), with the signs fixed so that diag(R) > 0 — which
/// is what Gram-Schmidt on the columns of G produces, the Haar measure.
/// O(D²) per vector.
class DenseRotation final : public Rotation {
public:
  DenseRotation(int dim, uint64_t seed);
  int dim() const override { return dim_; }
  using Rotation::apply;
  using Rotation::applyInverse;
  void apply(double *x) const override;
  void applyInverse(double *x) const override;
  /// Q, row-major.
  const std::vector<double> &q() const { return q_; }

private:
  int dim_;
  std::vector<double> q_;
};

/// The rotation a spec asks for at this head_dim (Identity for None).
/// Throws std::invalid_argument for a Hadamard of a non-power-of-two dim.
std::shared_ptr<const Rotation> makeRotation(const RotationSpec &spec, int dim);

} // namespace tqc

#endif // TQC_NUMERICS_ROTATION_H
