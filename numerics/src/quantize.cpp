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

UniformCode uniformEncode(const double *v, int n, int bits,
                          UniformCodes codes) {
  if (bits < 1 || bits > 8)
    throw std::invalid_argument("uniform quantizer bits out of range 1..8");
  if (n < 1)
    throw std::invalid_argument("uniform quantizer of an empty vector");
  const auto [lo, hi] = std::minmax_element(v, v + n);
  const int top = (1 << bits) - 1;
  if (codes == UniformCodes::FromExact) { // vLLM: fp32 throughout
    const float flo = float(*lo);
    float s = (float(*hi) - flo) / float(top);
    s = s > 1e-8f ? s : 1e-8f;
    UniformCode code;
    code.scale = roundToFp16(s);
    code.zero = roundToFp16(flo);
    code.q.resize(n);
    for (int j = 0; j < n; ++j) {
      const float q = std::floor((float(v[j]) - flo) / s + 0.5f);
      code.q[j] = uint8_t(std::clamp(q, 0.0f, float(top)));
    }
    return code;
  }
  const double exactScale = std::max((*hi - *lo) / top, 1e-8);
  UniformCode code;
  code.scale = roundToFp16(exactScale);
  code.zero = roundToFp16(*lo);
  const bool fromStored = codes == UniformCodes::FromStored;
  const double s = fromStored ? code.scale : exactScale;
  const double z = fromStored ? code.zero : *lo;
  code.q.resize(n);
  for (int j = 0; j < n; ++j) {
    double q = s > 0 ? std::floor((v[j] - z) / s + 0.5) : 0;
    code.q[j] = uint8_t(std::clamp(q, 0.0, double(top)));
  }
  return code;
}

void uniformDecode(const UniformCode &code, double *v) {
  for (size_t j = 0; j < code.q.size(); ++j)
    v[j] = code.zero + code.q[j] * code.scale;
}

} // namespace tqc
