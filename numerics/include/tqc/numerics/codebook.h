//===- codebook.h - Scalar codebooks for rotated coordinates ---*- C++ -*-===//
//
// After a random rotation every coordinate of a unit vector in D dimensions
// has the density (ALGORITHM.md §1)
//   f(x) = Γ(D/2) / (√π Γ((D−1)/2)) · (1 − x²)^((D−3)/2)   on [−1, 1],
// so one scalar quantizer per coordinate is near-optimal. This file computes
// the levels (never a table) for three level sets:
//  - Beta:     Lloyd-Max for f itself (the paper's codebook);
//  - Gaussian: Lloyd-Max for the N(0, 1/D) approximation (vLLM, SGLang),
//              from exact Gaussian cell moments (erfc), outer edges ±∞;
//  - Uniform:  2^b evenly spaced levels from −2.5σ to +2.5σ, σ = 1/√D,
//              step 5σ/(2^b − 1) (SGLang's "tq4u" book; ALGORITHM.md §3's
//              D_mse ≈ 0.01125 at D=128, b=4 is for this book).
// Lloyd-Max books are symmetric by construction: the positive half is solved
// (its first cell starts at the boundary 0) and mirrored, so
// c_{2^b+1−i} = −c_i holds bit for bit.
//
//===----------------------------------------------------------------------===//
#ifndef TQC_NUMERICS_CODEBOOK_H
#define TQC_NUMERICS_CODEBOOK_H

#include "tqc/numerics/spec.h"

#include <memory>
#include <vector>

namespace tqc {

struct Codebook {
  int headDim = 0;
  int bits = 0;
  CodebookDist dist = CodebookDist::Beta;
  /// 2^bits levels, ascending.
  std::vector<double> levels;
  /// 2^bits − 1 midpoints of adjacent levels, ascending (cell edges; the
  /// outer edges ±1 are implicit).
  std::vector<double> boundaries;
  /// Expected squared error of a random unit vector, D·Σ_i ∫_cell_i (x−c_i)²
  /// f(x) dx, always under the exact density f above (whatever density the
  /// levels were optimized for), i.e. ALGORITHM.md §3's D_mse.
  double dmse = 0;
  /// Lloyd/Newton iterations the solver took (0 for the uniform book).
  int iterations = 0;

  int size() const { return int(levels.size()); }
};

/// Computes a codebook. headDim ≥ 3, 1 ≤ bits ≤ 8; throws
/// std::invalid_argument otherwise, std::runtime_error if the iteration does
/// not converge (never seen: every D in 3..1024, and 2048, 4096, at every
/// width converges in at most 4 iterations).
///
/// Lloyd-Max books iterate until one Lloyd update (every level replaced by
/// the conditional mean of its cell) moves no level by more than 1e-12. To
/// get there in a handful of iterations at any bit width, each iteration is a
/// damped Newton step on the Lloyd fixed-point equations c_i = E[x | cell_i]
/// (their Jacobian is tridiagonal), falling back to the plain Lloyd update
/// when the Newton step does not reduce the update's size. Cell moments of
/// the Beta density use adaptive Gauss-Kronrod quadrature; the start point is
/// the high-resolution (Panter-Dite) compander, levels at quantiles of f^(1/3).
Codebook makeCodebook(int headDim, int bits, CodebookDist dist);

/// makeCodebook through a process-wide, thread-safe cache: the first call
/// for a (headDim, bits, dist) computes, later calls share the result.
std::shared_ptr<const Codebook> sharedCodebook(int headDim, int bits,
                                               CodebookDist dist);

/// Whether CodebookDist::Vllm has a table for this head_dim and width
/// (vLLM's MSE presets: D 64, 128, 256 with 3 or 4 bits).
bool vllmCodebookExists(int headDim, int bits);

/// Index of the cell containing y: the number of boundaries ≤ y (a value on a
/// boundary goes to the upper cell, like searchsorted(right=True)).
int nearestIndex(const Codebook &book, double y);

/// The exact coordinate density f above, and its normalizing constant
/// Γ(D/2) / (√π Γ((D−1)/2)) (computed with lgamma).
double coordinateDensity(int headDim, double x);
double coordinateDensityConstant(int headDim);

/// The b = 1 Beta level in closed form: Γ(D/2) / (√π Γ((D+1)/2)) = E[x | x>0].
double oneBitLevel(int headDim);

} // namespace tqc

#endif // TQC_NUMERICS_CODEBOOK_H
