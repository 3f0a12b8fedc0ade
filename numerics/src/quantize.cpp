//===- quantize.cpp - TurboQuant_mse/_prod and uniform min/max ------------===//

#include "tqc/numerics/quantize.h"

#include "tqc/numerics/minifloat.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tqc {

double dot(const double *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += a[i] * b[i];
  return s;
}

double norm(const double *x, int n) { return std::sqrt(dot(x, x, n)); }

namespace {

double store(double v, ScalarStorage storage) {
  return storage == ScalarStorage::Fp16 ? roundToFp16(v) : v;
}

double gatheredNorm(const Codebook &book, const std::vector<uint8_t> &idx) {
  double s = 0;
  for (uint8_t i : idx)
    s += book.levels[i] * book.levels[i];
  return std::sqrt(s);
}

} // namespace

MseQuantizer::MseQuantizer(std::shared_ptr<const Codebook> codebook,
                           std::shared_ptr<const Rotation> rotation,
                           NormMode mode, ScalarStorage storage)
    : codebook_(std::move(codebook)), rotation_(std::move(rotation)),
      mode_(mode), storage_(storage) {
  if (!codebook_ || !rotation_ || codebook_->headDim != rotation_->dim())
    throw std::invalid_argument(
        "TurboQuant_mse needs a codebook and a rotation of the same dim");
}

MseCode MseQuantizer::encode(const double *x) const {
  if (mode_ == NormMode::CorrectedAtRead)
    return encodeFp32(x);
  const int n = dim();
  std::vector<double> y(x, x + n);
  const double length = norm(y.data(), n);
  rotation_->apply(y.data());
  MseCode code;
  code.indices.resize(n);
  for (int j = 0; j < n; ++j)
    code.indices[j] =
        uint8_t(nearestIndex(*codebook_, length > 0 ? y[j] / length : 0.0));
  double s = length;
  if (mode_ == NormMode::Corrected && length > 0)
    s = length / gatheredNorm(*codebook_, code.indices);
  code.scale = store(s, storage_);
  return code;
}

/// vLLM's key store (FORMATS.md) in its own fp32 arithmetic: n = ‖k‖,
/// y = R·(k / (n + 1e-8)), idx = #{fp32 boundaries ≤ y}, s = n. Only the
/// summation orders of ‖k‖ and of R·x are this codec's own, so a coordinate
/// within fp32 rounding of a boundary can land in the neighbouring cell of
/// another implementation.
MseCode MseQuantizer::encodeFp32(const double *x) const {
  const int n = dim();
  std::vector<float> y(n);
  float sq = 0.f;
  for (int j = 0; j < n; ++j) {
    y[j] = float(x[j]);
    sq += y[j] * y[j];
  }
  const float length = std::sqrt(sq);
  const float denom = length + 1e-8f;
  for (float &v : y)
    v /= denom;
  rotation_->apply(y.data());
  MseCode code;
  code.indices.resize(n);
  for (int j = 0; j < n; ++j)
    code.indices[j] = uint8_t(nearestIndex(*codebook_, y[j]));
  code.scale = store(length, storage_);
  return code;
}

void MseQuantizer::decodeRotated(const MseCode &code, double *y) const {
  double s = code.scale;
  if (mode_ == NormMode::CorrectedAtRead) {
    const double g = gatheredNorm(*codebook_, code.indices);
    s /= std::sqrt(g * g + 1e-16);
  }
  for (int j = 0; j < dim(); ++j)
    y[j] = s * codebook_->levels[code.indices[j]];
}

void MseQuantizer::decode(const MseCode &code, double *x) const {
  decodeRotated(code, x);
  rotation_->applyInverse(x);
}

ProdQuantizer::ProdQuantizer(int dim, std::optional<MseQuantizer> mse,
                             std::shared_ptr<const QjlSketch> sketch,
                             ScalarStorage gammaStorage)
    : dim_(dim), mse_(std::move(mse)), sketch_(std::move(sketch)),
      gammaStorage_(gammaStorage) {
  if (!sketch_ || sketch_->dim() != dim || (mse_ && mse_->dim() != dim))
    throw std::invalid_argument(
        "TurboQuant_prod needs a sketch (and mse stage) of the same dim");
}

ProdCode ProdQuantizer::encode(const double *x) const {
  ProdCode code;
  std::vector<double> residual(x, x + dim_);
  if (mse_) {
    code.mse = mse_->encode(x);
    std::vector<double> approx(dim_);
    mse_->decode(code.mse, approx.data());
    for (int j = 0; j < dim_; ++j)
      residual[j] -= approx[j];
  }
  code.signs.resize(dim_);
  sketch_->signBits(residual.data(), code.signs.data());
  code.gamma = store(norm(residual.data(), dim_), gammaStorage_);
  return code;
}

void ProdQuantizer::decode(const ProdCode &code, double *x) const {
  if (mse_)
    mse_->decode(code.mse, x);
  else
    std::fill(x, x + dim_, 0.0);
  sketch_->addReconstruction(code.signs.data(), code.gamma, x);
}

ProdQuery ProdQuantizer::prepare(const double *q) const {
  ProdQuery p;
  if (mse_) {
    p.rotated.assign(q, q + dim_);
    mse_->rotation().apply(p.rotated.data());
  }
  p.projected.resize(dim_);
  sketch_->project(q, p.projected.data());
  return p;
}

double ProdQuantizer::innerProduct(const ProdQuery &q,
                                   const ProdCode &code) const {
  double score = 0;
  if (mse_) {
    std::vector<double> y(dim_);
    mse_->decodeRotated(code.mse, y.data());
    score = dot(q.rotated.data(), y.data(), dim_);
  }
  return score +
         sketch_->estimate(q.projected.data(), code.signs.data(), code.gamma);
}

namespace {

/// uniformEncode's arithmetic in R: float for FromExact (vLLM's fp32),
/// double for FromStored.
template <class R>
UniformCode uniformEncodeIn(const double *v, int n, int top, bool fromStored) {
  const auto [lo, hi] = std::minmax_element(v, v + n);
  const R zero = R(*lo);
  const R exactScale = std::max((R(*hi) - zero) / R(top), R(1e-8));
  UniformCode code;
  code.scale = roundToFp16(exactScale);
  code.zero = roundToFp16(zero);
  const R s = fromStored ? R(code.scale) : exactScale;
  const R z = fromStored ? R(code.zero) : zero;
  code.q.resize(n);
  for (int j = 0; j < n; ++j) {
    const R q = s > R(0) ? std::floor((R(v[j]) - z) / s + R(0.5)) : R(0);
    code.q[j] = uint8_t(std::clamp(q, R(0), R(top)));
  }
  return code;
}

} // namespace

UniformCode uniformEncode(const double *v, int n, int bits,
                          UniformCodes codes) {
  if (bits < 1 || bits > 8)
    throw std::invalid_argument("uniform quantizer bits out of range 1..8");
  if (n < 1)
    throw std::invalid_argument("uniform quantizer of an empty vector");
  const int top = (1 << bits) - 1;
  if (codes == UniformCodes::FromExact) // vLLM: fp32 throughout
    return uniformEncodeIn<float>(v, n, top, false);
  return uniformEncodeIn<double>(v, n, top, true);
}

void uniformDecode(const UniformCode &code, double *v) {
  for (size_t j = 0; j < code.q.size(); ++j)
    v[j] = code.zero + code.q[j] * code.scale;
}

} // namespace tqc
