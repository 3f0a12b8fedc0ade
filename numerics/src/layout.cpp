//===- layout.cpp - Cache layout assignment -------------------------------===//

#include "tqc/numerics/layout.h"

#include <algorithm>
#include <sstream>

namespace tqc {

namespace {

int64_t alignTo(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

/// The fields one tensor (K or V) needs.
void tensorFields(const TensorSpec &t, int d, bool isKey,
                  std::vector<FieldShape> &out) {
  FieldKind codesKind = isKey ? FieldKind::KeyCodes : FieldKind::ValueCodes;
  FieldKind scaleKind = isKey ? FieldKind::KeyScale : FieldKind::ValueScale;
  FieldKind zeroKind = isKey ? FieldKind::KeyZero : FieldKind::ValueZero;
  const QuantSpec &q = t.quant;
  switch (q.kind) {
  case QuantKind::None:
    out.push_back({codesKind, FieldDType::BF16, 2 * int64_t(d)});
    return;
  case QuantKind::Fp8E4M3:
    out.push_back({codesKind, FieldDType::Fp8E4M3, int64_t(d)});
    return;
  case QuantKind::LloydMax:
    out.push_back({codesKind, FieldDType::U8, packedBytes(d, q.codeBits())});
    if (q.qjl) {
      out.push_back({FieldKind::KeySigns, FieldDType::U8, packedBytes(d, 1)});
      out.push_back({FieldKind::KeyGamma, FieldDType::F16, 2});
    }
    out.push_back({scaleKind, FieldDType::F16, 2});
    return;
  case QuantKind::Uniform:
    out.push_back({codesKind, FieldDType::U8, packedBytes(d, q.bits)});
    out.push_back({scaleKind, FieldDType::F16, 2});
    out.push_back({zeroKind, FieldDType::F16, 2});
    return;
  }
}

bool isScalarField(FieldKind k) {
  return k == FieldKind::KeyScale || k == FieldKind::KeyGamma ||
         k == FieldKind::KeyZero || k == FieldKind::ValueScale ||
         k == FieldKind::ValueZero;
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

std::vector<FieldShape> fieldShapes(const CacheSpec &spec) {
  std::vector<FieldShape> out;
  tensorFields(spec.key, spec.headDim, true, out);
  tensorFields(spec.value, spec.headDim, false, out);
  std::stable_sort(out.begin(), out.end(),
                   [](const FieldShape &a, const FieldShape &b) {
                     return a.kind < b.kind;
                   });
  return out;
}

int64_t packedBytesPerTokenHead(const CacheSpec &spec) {
  int64_t total = 0;
  for (const FieldShape &f : fieldShapes(spec))
    total += f.bytes;
  return total;
}

Layout computeLayout(LayoutKind kind, int blockSize, int numKVHeads,
                     std::vector<FieldShape> fields) {
  Layout l;
  l.kind = kind;
  l.blockSize = blockSize;
  l.numKVHeads = numKVHeads;
  if (kind == LayoutKind::VLLM) {
    std::stable_sort(fields.begin(), fields.end(),
                     [](const FieldShape &a, const FieldShape &b) {
                       return a.kind < b.kind;
                     });
    int64_t off = 0;
    for (const FieldShape &f : fields) {
      l.fields.push_back({f.kind, f.dtype, f.bytes, off, 0});
      off += f.bytes;
    }
    l.regionBytes = off;
    l.alignment = 2;
    l.headStride = off;
    for (Field &f : l.fields)
      f.tokenStride = int64_t(numKVHeads) * off;
    l.blockStride = int64_t(blockSize) * numKVHeads * off;
    return l;
  }
  // Native: big planes first so that each starts 16-byte aligned without
  // padding; the fp16 scalar planes follow.
  std::stable_sort(fields.begin(), fields.end(),
                   [](const FieldShape &a, const FieldShape &b) {
                     bool sa = isScalarField(a.kind), sb = isScalarField(b.kind);
                     return sa != sb ? sb : a.kind < b.kind;
                   });
  int64_t off = 0;
  for (const FieldShape &f : fields) {
    off = alignTo(off, l.alignment);
    l.fields.push_back({f.kind, f.dtype, f.bytes, off, f.bytes});
    off += f.bytes * blockSize;
  }
  l.regionBytes = alignTo(off, l.alignment);
  l.headStride = l.regionBytes;
  l.blockStride = l.regionBytes * numKVHeads;
  return l;
}

Layout computeLayout(const CacheSpec &spec) {
  return computeLayout(spec.layout, spec.blockSize, spec.numKVHeads,
                       fieldShapes(spec));
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
