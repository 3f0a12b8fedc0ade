//===- cache.cpp - Host store and read-back of cache token-heads ----------===//

#include "tqc/numerics/cache.h"

#include "tqc/numerics/minifloat.h"
#include "tqc/numerics/pack.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tqc {

namespace {

void writeU16(uint8_t *p, uint16_t v) {
  p[0] = uint8_t(v);
  p[1] = uint8_t(v >> 8);
}

uint16_t readU16(const uint8_t *p) { return uint16_t(p[0] | (p[1] << 8)); }

void writeFp16(uint8_t *p, double v) { writeU16(p, encodeFp16(v)); }
double readFp16(const uint8_t *p) { return decodeFp16(readU16(p)); }

NormMode normMode(const QuantSpec &q, LayoutKind layout) {
  if (!q.normCorrect)
    return NormMode::Plain;
  return layout == LayoutKind::VLLM ? NormMode::CorrectedAtRead
                                    : NormMode::Corrected;
}

} // namespace

TensorCodec::TensorCodec(const TensorSpec &spec, int headDim, LayoutKind layout)
    : spec_(spec), dim_(headDim),
      rotation_(makeRotation(spec.rotation, headDim)) {
  const QuantSpec &q = spec.quant;
  if (q.kind == QuantKind::LloydMax) {
    mse_.emplace(sharedCodebook(headDim, q.codeBits(), q.dist), rotation_,
                 normMode(q, layout), ScalarStorage::Fp16);
    if (q.qjl)
      prod_.emplace(headDim, *mse_, sharedSketch(headDim, q.qjlSeed),
                    ScalarStorage::Fp16);
  }
  vllm_ = layout == LayoutKind::VLLM;
}

const Codebook *TensorCodec::codebook() const {
  return mse_ ? &mse_->codebook() : nullptr;
}

const QjlSketch *TensorCodec::sketch() const {
  return prod_ ? &prod_->sketch() : nullptr;
}

int64_t TensorCodec::codeBytes() const {
  switch (spec_.quant.kind) {
  case QuantKind::None:
    return 2 * int64_t(dim_);
  case QuantKind::Fp8E4M3:
    return dim_;
  case QuantKind::LloydMax:
  case QuantKind::Uniform:
    return packedBytes(dim_, spec_.quant.codeBits());
  }
  return 0;
}

int64_t TensorCodec::signBytes() const {
  return prod_ ? packedBytes(dim_, 1) : 0;
}

void TensorCodec::encode(const float *x, const TensorFields &f) const {
  std::vector<double> v(x, x + dim_);
  if (spec_.quant.kind == QuantKind::LloydMax) {
    encodeLloydMax(v.data(), f);
    return;
  }
  rotation_->apply(v.data());
  encodeRotatedElements(v.data(), f);
}

void TensorCodec::encodeLloydMax(const double *x, const TensorFields &f) const {
  MseCode mse;
  if (prod_) {
    ProdCode prod = prod_->encode(x);
    packBits(prod.signs.data(), dim_, 1, f.signs, signBytes());
    writeFp16(f.gamma, prod.gamma);
    mse = std::move(prod.mse);
  } else {
    mse = mse_->encode(x);
  }
  packBits(mse.indices.data(), dim_, spec_.quant.codeBits(), f.codes,
           codeBytes());
  writeFp16(f.scale, mse.scale);
}

void TensorCodec::encodeRotatedElements(const double *y,
                                        const TensorFields &f) const {
  switch (spec_.quant.kind) {
  case QuantKind::None:
    for (int j = 0; j < dim_; ++j)
      writeU16(f.codes + 2 * j, encodeBf16(y[j]));
    return;
  case QuantKind::Fp8E4M3:
    for (int j = 0; j < dim_; ++j)
      f.codes[j] = encodeFp8E4M3(y[j]);
    return;
  case QuantKind::Uniform: {
    UniformCode u = uniformEncode(
        y, dim_, spec_.quant.bits,
        vllm_ ? UniformCodes::FromExact : UniformCodes::FromStored);
    packBits(u.q.data(), dim_, spec_.quant.bits, f.codes, codeBytes());
    writeFp16(f.scale, u.scale);
    writeFp16(f.zero, u.zero);
    return;
  }
  case QuantKind::LloydMax:
    break;
  }
  throw std::logic_error("lloyd_max is not an element-wise format");
}

StoredVector TensorCodec::read(const ConstTensorFields &f) const {
  StoredVector out;
  out.rotated.resize(dim_);
  if (spec_.quant.kind != QuantKind::LloydMax) {
    readRotatedElements(f, out.rotated.data());
    return out;
  }
  MseCode code;
  code.indices.resize(dim_);
  unpackBits(f.codes, codeBytes(), dim_, spec_.quant.codeBits(),
             code.indices.data());
  code.scale = readFp16(f.scale);
  mse_->decodeRotated(code, out.rotated.data());
  if (prod_) {
    out.signs.resize(dim_);
    unpackBits(f.signs, signBytes(), dim_, 1, out.signs.data());
    out.gamma = readFp16(f.gamma);
  }
  return out;
}

void TensorCodec::readRotatedElements(const ConstTensorFields &f,
                                      double *y) const {
  switch (spec_.quant.kind) {
  case QuantKind::None:
    for (int j = 0; j < dim_; ++j)
      y[j] = decodeBf16(readU16(f.codes + 2 * j));
    return;
  case QuantKind::Fp8E4M3:
    for (int j = 0; j < dim_; ++j)
      y[j] = decodeFp8E4M3(f.codes[j]);
    return;
  case QuantKind::Uniform: {
    UniformCode u;
    u.q.resize(dim_);
    unpackBits(f.codes, codeBytes(), dim_, spec_.quant.bits, u.q.data());
    u.scale = readFp16(f.scale);
    u.zero = readFp16(f.zero);
    uniformDecode(u, y);
    return;
  }
  case QuantKind::LloydMax:
    break;
  }
  throw std::logic_error("lloyd_max is not an element-wise format");
}

void TensorCodec::reconstruct(const StoredVector &v, double *x) const {
  std::copy(v.rotated.begin(), v.rotated.end(), x);
  rotation_->applyInverse(x);
  if (prod_)
    prod_->sketch().addReconstruction(v.signs.data(), v.gamma, x);
}

PreparedQuery TensorCodec::prepareQuery(const double *q) const {
  PreparedQuery p;
  p.rotated.assign(q, q + dim_);
  rotation_->apply(p.rotated.data());
  if (prod_) {
    p.projected.resize(dim_);
    prod_->sketch().project(q, p.projected.data());
  }
  return p;
}

double TensorCodec::score(const PreparedQuery &q, const StoredVector &v) const {
  double s = dot(q.rotated.data(), v.rotated.data(), dim_);
  if (prod_)
    s += prod_->sketch().estimate(q.projected.data(), v.signs.data(), v.gamma);
  return s;
}

namespace {

const CacheSpec &validated(const CacheSpec &spec) {
  std::string error = validate(spec);
  if (!error.empty())
    throw std::invalid_argument(error);
  return spec;
}

/// The layout must have exactly the fields, of exactly the sizes, that the
/// codec writes; anything else is a bug in one of the two.
void checkFieldSize(const Layout &layout, FieldKind kind, int64_t expected) {
  const Field *f = layout.find(kind);
  const int64_t have = f ? f->bytes : 0;
  if (have != expected)
    throw std::logic_error(std::string("layout field ") + toString(kind) +
                           " has " + std::to_string(have) +
                           " bytes; the codec writes " +
                           std::to_string(expected));
}

void checkLayout(const Layout &layout, const TensorCodec &key,
                 const TensorCodec &value) {
  auto scalar = [](bool present) { return present ? 2 : 0; };
  const QuantKind kk = key.spec().quant.kind, vk = value.spec().quant.kind;
  const bool kScaled = kk == QuantKind::LloydMax || kk == QuantKind::Uniform;
  const bool vScaled = vk == QuantKind::LloydMax || vk == QuantKind::Uniform;
  checkFieldSize(layout, FieldKind::KeyCodes, key.codeBytes());
  checkFieldSize(layout, FieldKind::KeySigns, key.signBytes());
  checkFieldSize(layout, FieldKind::KeyScale, scalar(kScaled));
  checkFieldSize(layout, FieldKind::KeyGamma, scalar(key.sketch()));
  checkFieldSize(layout, FieldKind::KeyZero, scalar(kk == QuantKind::Uniform));
  checkFieldSize(layout, FieldKind::ValueCodes, value.codeBytes());
  checkFieldSize(layout, FieldKind::ValueScale, scalar(vScaled));
  checkFieldSize(layout, FieldKind::ValueZero,
                 scalar(vk == QuantKind::Uniform));
}

} // namespace

HostCodec::HostCodec(const CacheSpec &spec)
    : spec_(validated(spec)), layout_(computeLayout(spec)),
      key_(spec.key, spec.headDim, spec.layout),
      value_(spec.value, spec.headDim, spec.layout) {
  checkLayout(layout_, key_, value_);
}

int64_t HostCodec::cacheBytes(int64_t numBlocks) const {
  return numBlocks * layout_.blockStride;
}

template <typename Byte>
TensorFieldPointers<Byte> HostCodec::fields(Byte *cache, bool isKey,
                                            int64_t block, int64_t pos,
                                            int head) const {
  auto at = [&](FieldKind kind) -> Byte * {
    const Field *f = layout_.find(kind);
    return f ? cache + layout_.address(*f, block, pos, head) : nullptr;
  };
  TensorFieldPointers<Byte> p;
  if (isKey) {
    p.codes = at(FieldKind::KeyCodes);
    p.signs = at(FieldKind::KeySigns);
    p.scale = at(FieldKind::KeyScale);
    p.gamma = at(FieldKind::KeyGamma);
    p.zero = at(FieldKind::KeyZero);
  } else {
    p.codes = at(FieldKind::ValueCodes);
    p.scale = at(FieldKind::ValueScale);
    p.zero = at(FieldKind::ValueZero);
  }
  return p;
}

void HostCodec::encodeTokenHead(const float *k, const float *v, uint8_t *cache,
                                int64_t block, int64_t pos, int head) const {
  key_.encode(k, fields(cache, true, block, pos, head));
  value_.encode(v, fields(cache, false, block, pos, head));
}

StoredVector HostCodec::readKey(const uint8_t *cache, int64_t block,
                                int64_t pos, int head) const {
  return key_.read(fields(cache, true, block, pos, head));
}

StoredVector HostCodec::readValue(const uint8_t *cache, int64_t block,
                                  int64_t pos, int head) const {
  return value_.read(fields(cache, false, block, pos, head));
}

void HostCodec::decodeTokenHead(const uint8_t *cache, int64_t block,
                                int64_t pos, int head, double *k,
                                double *v) const {
  key_.reconstruct(readKey(cache, block, pos, head), k);
  value_.reconstruct(readValue(cache, block, pos, head), v);
}

void HostCodec::storeTokens(const float *keys, const float *values,
                            int64_t numTokens, const int64_t *slotMapping,
                            uint8_t *cache) const {
  const int64_t d = spec_.headDim, heads = spec_.numKVHeads;
  for (int64_t t = 0; t < numTokens; ++t) {
    const int64_t slot = slotMapping[t];
    if (slot < 0)
      continue;
    const int64_t block = slot / spec_.blockSize, pos = slot % spec_.blockSize;
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t offset = (t * heads + h) * d;
      encodeTokenHead(keys + offset, values + offset, cache, block, pos,
                      int(h));
    }
  }
}

} // namespace tqc
