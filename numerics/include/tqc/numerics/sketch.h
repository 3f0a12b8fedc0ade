//===- sketch.h - The QJL sign sketch (TurboQuant_prod) --------*- C++ -*-===//
//
// QJL (ALGORITHM.md §5): a D×D Gaussian matrix S; a key's residual r is
// stored as the signs z = sign(S·r) ∈ {−1,+1}^D and its norm γ = ‖r‖, and
//   ⟨q, r⟩ ≈ γ·√(π/2)/D·⟨S·q, z⟩       (unbiased over S).
// The matching reconstruction is r̃ = γ·√(π/2)/D·Sᵀz, so ⟨q, r̃⟩ is exactly
// that estimate.
//
// S is drawn row-major (S[i][j] at i·D + j) from GaussianStream(seed)
// (random.h) and each entry is rounded to float32, so the host and a GPU
// kernel that is handed the float matrix use exactly the same S. All
// arithmetic with S is float64 here.
//
// Sign convention: bit 1 for a non-negative sketch value (sign(0) = +), bit
// 0 for a negative one; z_i = 2·bit_i − 1.
//
//===----------------------------------------------------------------------===//
#ifndef TQC_NUMERICS_SKETCH_H
#define TQC_NUMERICS_SKETCH_H

#include <cstdint>
#include <memory>
#include <vector>

namespace tqc {

class QjlSketch {
public:
  QjlSketch(int dim, uint64_t seed);

  int dim() const { return dim_; }
  uint64_t seed() const { return seed_; }
  /// S, row-major float32.
  const std::vector<float> &matrix() const { return s_; }
  /// √(π/2)/D, the estimator's constant.
  double scale() const;

  /// out = S·x
  void project(const double *x, double *out) const;
  /// Sign bits of S·r (1 = non-negative), one per byte.
  void signBits(const double *r, uint8_t *bits) const;
  /// γ·√(π/2)/D·⟨S·q, z⟩ from the projected query S·q.
  double estimate(const double *projectedQuery, const uint8_t *bits,
                  double gamma) const;
  /// x += γ·√(π/2)/D·Sᵀz
  void addReconstruction(const uint8_t *bits, double gamma, double *x) const;

private:
  int dim_;
  uint64_t seed_;
  std::vector<float> s_;
};

/// A process-wide, thread-safe cache of sketches by (dim, seed).
std::shared_ptr<const QjlSketch> sharedSketch(int dim, uint64_t seed);

} // namespace tqc

#endif // TQC_NUMERICS_SKETCH_H
