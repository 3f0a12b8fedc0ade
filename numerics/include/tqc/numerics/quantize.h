//===- quantize.h - TurboQuant and uniform min/max quantizers --*- C++ -*-===//
//
// The vector quantizers of ALGORITHM.md §3/§5 and FORMATS.md, in float64.
// Codes are unpacked (one byte per coordinate); pack.h packs them and
// cache.h lays them out in the cache.
//
// TurboQuant_mse (b bits):  n = ‖x‖, y = R·(x/n), idx_j = nearestIndex(y_j),
//   x̃ = Rᵀ·(s_eff·c[idx]), with the stored scalar s and s_eff by NormMode:
//     Plain:           s = n,           s_eff = s
//     Corrected (nc):  s = n/‖c[idx]‖,  s_eff = s      (so ‖x̃‖ = ‖x‖)
//     CorrectedAtRead: s = n,           s_eff = s/√(‖c[idx]‖² + 1e-16)
//                      (vLLM's layout: it stores the norm and corrects at
//                      read time; same x̃ up to the rounding of s). Encoded
//                      in float32 as vLLM's store does (FORMATS.md): n,
//                      y = R·(x/(n + 1e-8)) and the cells all fp32, since
//                      its codebook's boundaries are fp32 values.
//   A zero vector stores s = 0 (indices of y = 0) and reconstructs exactly 0.
//
// TurboQuant_prod (b bits): the mse quantizer at b−1 bits (none at b = 1:
//   x̃_mse = 0), r = x − x̃_mse computed from the *stored* (possibly
//   fp16-rounded) mse scale so that it is the residual the decoder sees,
//   z = sign(S·r), γ = ‖r‖ in the input's units (so, unlike the paper's
//   unit-vector form, the QJL term needs no multiplication by the norm):
//     ⟨q, x̃⟩ = ⟨R·q, s_eff·c[idx]⟩ + γ·√(π/2)/D·⟨S·q, z⟩
//     x̃     = x̃_mse + γ·√(π/2)/D·Sᵀz   (the key whose inner products are
//                                       exactly these scores)
//
// Uniform min/max (per token-head, FORMATS.md): scale = max((max − min)/
//   (2^b − 1), 1e-8), zero = min, both stored as fp16; dequant
//   v̂ = zero16 + q·scale16. The codes q = clamp(⌊(v − z)/s + ½⌋, 0, 2^b − 1)
//   use, per UniformCodes:
//     FromStored (native layout): z, s = the fp16-rounded zero and scale, so
//       each code is the nearest level of the grid the decoder uses (when
//       scale16 rounds to 0, every code is 0 and v̂ = zero16);
//     FromExact (vLLM layout): z, s before rounding, as vLLM's store does,
//       and in float32 like it (s = (max − min)/(2^b − 1) and
//       q = floor((v − z)/s + 0.5) each IEEE fp32): inputs on a coarse grid
//       (bf16) put many coordinates exactly on a half step, where float64
//       and float32 round apart.
//   FromStored runs in float64 (the native GPU store does too).
//
//===----------------------------------------------------------------------===//
#ifndef TQC_NUMERICS_QUANTIZE_H
#define TQC_NUMERICS_QUANTIZE_H

#include "tqc/numerics/codebook.h"
#include "tqc/numerics/rotation.h"
#include "tqc/numerics/sketch.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace tqc {

enum class NormMode { Plain, Corrected, CorrectedAtRead };

/// Precision of the per-vector scalars (norm / scale, γ) as stored.
enum class ScalarStorage { Exact, Fp16 };

struct MseCode {
  std::vector<uint8_t> indices; ///< one per coordinate
  double scale = 0;             ///< the stored scalar s (see NormMode)
};

class MseQuantizer {
public:
  MseQuantizer(std::shared_ptr<const Codebook> codebook,
               std::shared_ptr<const Rotation> rotation, NormMode mode,
               ScalarStorage storage);

  int dim() const { return rotation_->dim(); }
  const Codebook &codebook() const { return *codebook_; }
  const Rotation &rotation() const { return *rotation_; }
  NormMode normMode() const { return mode_; }

  MseCode encode(const double *x) const;
  /// The reconstruction in the rotated domain, ŷ = s_eff·c[idx] (x̃ = Rᵀŷ).
  void decodeRotated(const MseCode &code, double *y) const;
  /// x̃ in the original domain.
  void decode(const MseCode &code, double *x) const;

private:
  MseCode encodeFp32(const double *x) const; // CorrectedAtRead (vLLM)

  std::shared_ptr<const Codebook> codebook_;
  std::shared_ptr<const Rotation> rotation_;
  NormMode mode_;
  ScalarStorage storage_;
};

struct ProdCode {
  MseCode mse;                ///< empty indices when the mse stage has 0 bits
  std::vector<uint8_t> signs; ///< QJL sign bits, one per coordinate
  double gamma = 0;           ///< ‖r‖ as stored
};

/// A query prepared once for many TurboQuant_prod inner products.
struct ProdQuery {
  std::vector<double> rotated;   ///< R·q (empty without an mse stage)
  std::vector<double> projected; ///< S·q
};

class ProdQuantizer {
public:
  /// `mse` quantizes at b−1 bits; nullopt for b = 1 (sketch only).
  ProdQuantizer(int dim, std::optional<MseQuantizer> mse,
                std::shared_ptr<const QjlSketch> sketch,
                ScalarStorage gammaStorage);

  int dim() const { return dim_; }
  const QjlSketch &sketch() const { return *sketch_; }
  const MseQuantizer *mse() const { return mse_ ? &*mse_ : nullptr; }

  ProdCode encode(const double *x) const;
  void decode(const ProdCode &code, double *x) const;
  ProdQuery prepare(const double *q) const;
  /// The estimator ⟨q, x̃⟩ (file comment).
  double innerProduct(const ProdQuery &q, const ProdCode &code) const;

private:
  int dim_;
  std::optional<MseQuantizer> mse_;
  std::shared_ptr<const QjlSketch> sketch_;
  ScalarStorage gammaStorage_;
};

enum class UniformCodes { FromStored, FromExact };

struct UniformCode {
  std::vector<uint8_t> q;
  double scale = 0; ///< fp16-rounded
  double zero = 0;  ///< fp16-rounded
};

/// Values must be finite and fit fp16 (|v| ≤ 65504).
UniformCode uniformEncode(const double *v, int n, int bits, UniformCodes codes);
void uniformDecode(const UniformCode &code, double *v);

/// Helpers shared by the quantizers and the tests.
double dot(const double *a, const double *b, int n);
double norm(const double *x, int n);

} // namespace tqc

#endif // TQC_NUMERICS_QUANTIZE_H
