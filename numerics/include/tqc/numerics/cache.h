//===- cache.h - Host encoder/decoder of the compressed cache --*- C++ -*-===//
//
// The host "store": what the GPU store kernel writes, byte for byte in
// meaning, for every preset and both layouts. Tests use it to fill caches
// for the kernels and the float64 reference attention (attention.h) reads
// them back.
//
// Per tensor (K or V), per token-head, with R its rotation (identity when
// the spec has none) and y = R·x:
//  - lloyd_max:  TurboQuant_mse / _prod (quantize.h); codes = packed indices
//                (codeBits each), scale = fp16 s, and with QJL signs =
//                packed sign bits, gamma = fp16 γ. Norm correction: the
//                native layout stores s = ‖x‖/‖c[idx]‖; the vLLM layout
//                stores ‖x‖ and corrects at read time (FORMATS.md).
//  - uniform:    min/max of y, codes = packed q, scale/zero fp16; codes from
//                the fp16-rounded scale/zero in the native layout, from the
//                exact ones in the vLLM layout (quantize.h).
//  - fp8_e4m3:   codes = D bytes, e4m3 of y (raw cast, saturating; k8v4).
//  - none:       codes = D little-endian bf16 of y (bf16 preset).
// fp16/bf16 fields are little-endian.
//
//===----------------------------------------------------------------------===//
#ifndef TQC_NUMERICS_CACHE_H
#define TQC_NUMERICS_CACHE_H

#include "tqc/numerics/layout.h"
#include "tqc/numerics/quantize.h"
#include "tqc/numerics/spec.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace tqc {

/// Where one token-head's fields of one tensor are (nullptr when absent).
template <typename Byte> struct TensorFieldPointers {
  Byte *codes = nullptr;
  Byte *signs = nullptr;
  Byte *scale = nullptr;
  Byte *gamma = nullptr;
  Byte *zero = nullptr;
};
using TensorFields = TensorFieldPointers<uint8_t>;
using ConstTensorFields = TensorFieldPointers<const uint8_t>;

/// One token-head of K or V as read from the cache, in the form attention
/// uses: the reconstruction in the rotated domain and, for QJL keys, the
/// sketch of the residual. The original-domain vector is
/// x̃ = Rᵀ·rotated + γ·√(π/2)/D·Sᵀz.
struct StoredVector {
  std::vector<double> rotated;
  std::vector<uint8_t> signs; ///< QJL sign bits; empty without QJL
  double gamma = 0;
};

/// A query prepared once for many keys: R·q and, with QJL, S·q.
struct PreparedQuery {
  std::vector<double> rotated;
  std::vector<double> projected;
};

/// Encoder/decoder of one tensor (K or V) of a spec.
class TensorCodec {
public:
  TensorCodec(const TensorSpec &spec, int headDim, LayoutKind layout);

  int dim() const { return dim_; }
  const TensorSpec &spec() const { return spec_; }
  const Rotation &rotation() const { return *rotation_; }
  /// The codebook of a lloyd_max tensor (nullptr otherwise).
  const Codebook *codebook() const;
  /// The QJL sketch of a qjl key (nullptr otherwise).
  const QjlSketch *sketch() const;
  /// Bytes of the codes / signs fields this codec writes.
  int64_t codeBytes() const;
  int64_t signBytes() const;

  void encode(const float *x, const TensorFields &f) const;
  StoredVector read(const ConstTensorFields &f) const;
  /// x̃ in the original domain.
  void reconstruct(const StoredVector &v, double *x) const;

  PreparedQuery prepareQuery(const double *q) const;
  /// ⟨q, x̃⟩ computed the way the kernels do: ⟨R·q, rotated⟩ plus, with QJL,
  /// γ·√(π/2)/D·⟨S·q, z⟩. Equals dot(q, reconstruct(v)) up to rounding.
  double score(const PreparedQuery &q, const StoredVector &v) const;

private:
  void encodeLloydMax(const double *x, const TensorFields &f) const;
  void encodeRotatedElements(const double *y, const TensorFields &f) const;
  void readRotatedElements(const ConstTensorFields &f, double *y) const;

  TensorSpec spec_;
  int dim_;
  std::shared_ptr<const Rotation> rotation_;
  std::optional<MseQuantizer> mse_;   // lloyd_max: the codebook stage
  std::optional<ProdQuantizer> prod_; // lloyd_max with QJL: mse_ + sketch
  bool vllm_ = false; // the vLLM layout: uniform codes from the exact scale
};

/// Encoder/decoder of whole token-heads at cache addresses, built once per
/// spec (it holds the codebooks, rotations and sketch).
class HostCodec {
public:
  /// Throws std::invalid_argument with validate()'s message for a bad spec.
  explicit HostCodec(const CacheSpec &spec);

  const CacheSpec &spec() const { return spec_; }
  const Layout &layout() const { return layout_; }
  const TensorCodec &key() const { return key_; }
  const TensorCodec &value() const { return value_; }
  /// Bytes of a cache of numBlocks blocks.
  int64_t cacheBytes(int64_t numBlocks) const;

  /// Encodes one token-head (head_dim floats each) at (block, pos, head).
  void encodeTokenHead(const float *k, const float *v, uint8_t *cache,
                       int64_t block, int64_t pos, int head) const;
  /// The dequantized K and V of a token-head, in the original domain.
  void decodeTokenHead(const uint8_t *cache, int64_t block, int64_t pos,
                       int head, double *k, double *v) const;
  StoredVector readKey(const uint8_t *cache, int64_t block, int64_t pos,
                       int head) const;
  StoredVector readValue(const uint8_t *cache, int64_t block, int64_t pos,
                         int head) const;

  /// The store entry point: keys/values are [numTokens][numKVHeads][headDim]
  /// floats; token t goes to slot = slotMapping[t] = block·blockSize + pos,
  /// and a negative slot skips the token.
  void storeTokens(const float *keys, const float *values, int64_t numTokens,
                   const int64_t *slotMapping, uint8_t *cache) const;

private:
  template <typename Byte>
  TensorFieldPointers<Byte> fields(Byte *cache, bool isKey, int64_t block,
                                   int64_t pos, int head) const;

  CacheSpec spec_;
  Layout layout_;
  TensorCodec key_, value_;
};

} // namespace tqc

#endif // TQC_NUMERICS_CACHE_H
