//===- layout.cpp - Cache layout assignment -------------------------------===//

#include "tqc/numerics/layout.h"

#include <algorithm>
#include <sstream>

namespace tqc {

namespace {

int64_t alignTo(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

struct FieldShape {
  FieldKind kind;
  FieldDType dtype;
  int64_t bytes;
};

/// The fields one tensor (K or V) needs, in slot order.
void tensorFields(const TensorSpec &t, int d, bool isKey,
                  std::vector<FieldShape> &codes,
                  std::vector<FieldShape> &scalars) {
  FieldKind codesKind = isKey ? FieldKind::KeyCodes : FieldKind::ValueCodes;
  FieldKind scaleKind = isKey ? FieldKind::KeyScale : FieldKind::ValueScale;
  FieldKind zeroKind = isKey ? FieldKind::KeyZero : FieldKind::ValueZero;
  const QuantSpec &q = t.quant;
  switch (q.kind) {
  case QuantKind::None:
    codes.push_back({codesKind, FieldDType::BF16, 2 * int64_t(d)});
    return;
  case QuantKind::Fp8E4M3:
    codes.push_back({codesKind, FieldDType::Fp8E4M3, int64_t(d)});
    return;
  case QuantKind::LloydMax:
    codes.push_back({codesKind, FieldDType::U8, packedBytes(d, q.codeBits())});
    if (q.qjl)
      codes.push_back({FieldKind::KeySigns, FieldDType::U8, packedBytes(d, 1)});
    scalars.push_back({scaleKind, FieldDType::F16, 2});
    if (q.qjl)
      scalars.push_back({FieldKind::KeyGamma, FieldDType::F16, 2});
    return;
  case QuantKind::Uniform:
    codes.push_back({codesKind, FieldDType::U8, packedBytes(d, q.bits)});
    scalars.push_back({scaleKind, FieldDType::F16, 2});
    scalars.push_back({zeroKind, FieldDType::F16, 2});
    return;
  }
}

} // namespace

int64_t Layout::bytesPerTokenHead() const {
  if (kind == LayoutKind::VLLM)
    return regionBytes;
  return regionBytes / blockSize;
}

std::vector<int64_t> Layout::shape(int64_t numBlocks) const {
  if (kind == LayoutKind::VLLM)
    return {numBlocks, blockSize, numKVHeads, regionBytes};
  return {numBlocks, numKVHeads, regionBytes};
}

const Field *Layout::find(FieldKind k) const {
  for (const Field &f : fields)
    if (f.kind == k)
      return &f;
  return nullptr;
}

int64_t Layout::address(const Field &f, int64_t block, int64_t pos,
                        int64_t head) const {
  return block * blockStride + head * headStride + f.offset +
         pos * f.tokenStride;
}

std::string Layout::checkDisjoint() const {
  // Each field occupies, inside a region, the byte ranges
  // [offset + i·tokenStride, +bytes) for i < rows; rows = blockSize for
  // native planes, 1 for a vLLM slot.
  const int64_t rows = kind == LayoutKind::Native ? blockSize : 1;
  for (size_t a = 0; a < fields.size(); ++a) {
    const Field &fa = fields[a];
    int64_t endA = fa.offset + (rows - 1) * fa.tokenStride + fa.bytes;
    if (fa.offset < 0 || endA > regionBytes) {
      std::ostringstream os;
      os << "field " << toString(fa.kind) << " [" << fa.offset << ", " << endA
         << ") does not fit the " << regionBytes << "-byte region";
      return os.str();
    }
    for (size_t b = a + 1; b < fields.size(); ++b) {
      const Field &fb = fields[b];
      int64_t endB = fb.offset + (rows - 1) * fb.tokenStride + fb.bytes;
      if (fa.offset < endB && fb.offset < endA) {
        std::ostringstream os;
        os << "fields " << toString(fa.kind) << " [" << fa.offset << ", "
           << endA << ") and " << toString(fb.kind) << " [" << fb.offset
           << ", " << endB << ") overlap";
        return os.str();
      }
    }
  }
  return {};
}

int64_t packedBytesPerTokenHead(const CacheSpec &spec) {
  std::vector<FieldShape> codes, scalars;
  tensorFields(spec.key, spec.headDim, true, codes, scalars);
  tensorFields(spec.value, spec.headDim, false, codes, scalars);
  int64_t total = 0;
  for (const FieldShape &f : codes)
    total += f.bytes;
  for (const FieldShape &f : scalars)
    total += f.bytes;
  return total;
}

Layout computeLayout(const CacheSpec &spec) {
  Layout l;
  l.kind = spec.layout;
  l.blockSize = spec.blockSize;
  l.numKVHeads = spec.numKVHeads;

  if (spec.layout == LayoutKind::VLLM) {
    // Slot order: key fields then value fields, packed with no padding.
    std::vector<FieldShape> kc, ks, vc, vs;
    tensorFields(spec.key, spec.headDim, true, kc, ks);
    tensorFields(spec.value, spec.headDim, false, vc, vs);
    int64_t off = 0;
    for (auto *group : {&kc, &ks, &vc, &vs})
      for (const FieldShape &f : *group) {
        l.fields.push_back({f.kind, f.dtype, f.bytes, off, 0});
        off += f.bytes;
      }
    l.regionBytes = off;
    l.alignment = 2;
    l.headStride = off;
    for (Field &f : l.fields)
      f.tokenStride = int64_t(spec.numKVHeads) * off;
    l.blockStride = int64_t(spec.blockSize) * spec.numKVHeads * off;
    return l;
  }

  // Native: big code planes first, then the fp16 scalar planes; every plane
  // starts on a 16-byte boundary so the decode kernel can use 16-byte loads.
  std::vector<FieldShape> codes, scalars;
  tensorFields(spec.key, spec.headDim, true, codes, scalars);
  tensorFields(spec.value, spec.headDim, false, codes, scalars);
  int64_t off = 0;
  for (auto *group : {&codes, &scalars})
    for (const FieldShape &f : *group) {
      off = alignTo(off, l.alignment);
      l.fields.push_back({f.kind, f.dtype, f.bytes, off, f.bytes});
      off += f.bytes * spec.blockSize;
    }
  l.regionBytes = alignTo(off, l.alignment);
  l.headStride = l.regionBytes;
  l.blockStride = l.regionBytes * spec.numKVHeads;
  return l;
}

const char *toString(FieldKind kind) {
  switch (kind) {
  case FieldKind::KeyCodes: return "key_codes";
  case FieldKind::KeySigns: return "key_signs";
  case FieldKind::KeyScale: return "key_scale";
  case FieldKind::KeyGamma: return "key_gamma";
  case FieldKind::KeyZero: return "key_zero";
  case FieldKind::ValueCodes: return "value_codes";
  case FieldKind::ValueScale: return "value_scale";
  case FieldKind::ValueZero: return "value_zero";
  }
  return "?";
}

const char *toString(FieldDType dtype) {
  switch (dtype) {
  case FieldDType::U8: return "u8";
  case FieldDType::F16: return "f16";
  case FieldDType::BF16: return "bf16";
  case FieldDType::Fp8E4M3: return "fp8_e4m3";
  }
  return "?";
}

std::optional<FieldKind> parseFieldKind(const std::string &s) {
  for (FieldKind k :
       {FieldKind::KeyCodes, FieldKind::KeySigns, FieldKind::KeyScale,
        FieldKind::KeyGamma, FieldKind::KeyZero, FieldKind::ValueCodes,
        FieldKind::ValueScale, FieldKind::ValueZero})
    if (s == toString(k))
      return k;
  return std::nullopt;
}

std::optional<FieldDType> parseFieldDType(const std::string &s) {
  for (FieldDType k : {FieldDType::U8, FieldDType::F16, FieldDType::BF16,
                       FieldDType::Fp8E4M3})
    if (s == toString(k))
      return k;
  return std::nullopt;
}

} // namespace tqc
