//===- layout.h - Byte layout of a paged compressed KV cache ----*- C++ -*-===//
//
// Where each field of a token-head lives in the cache tensor. One formula
// serves both layouts (FORMATS.md):
//
//   address(field, block p, position i, kv head h)
//       = p·blockStride + h·headStride + field.offset + i·field.tokenStride
//
// Native: the cache is uint8[num_blocks, num_kv_heads, blockBytes]; each field
// is a plane of blockSize rows (tokenStride = field bytes) starting on a
// 16-byte boundary, so a CTA that serves one KV head reads one contiguous,
// aligned region per block with 16-byte loads.
// vLLM: uint8[num_blocks, block_size, num_kv_heads, slotBytes]; the fields are
// packed in one slot (tokenStride = num_kv_heads·slotBytes).
//
//===----------------------------------------------------------------------===//
#ifndef TQC_NUMERICS_LAYOUT_H
#define TQC_NUMERICS_LAYOUT_H

#include "tqc/numerics/spec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tqc {

/// What a field holds.
enum class FieldKind {
  KeyCodes,   ///< key codebook indices, or fp8 / bf16 key elements
  KeySigns,   ///< QJL sign bits of the key residual sketch
  KeyScale,   ///< key norm (or norm-corrected scale), fp16
  KeyGamma,   ///< QJL residual norm, fp16
  KeyZero,    ///< uniform key zero point (= min), fp16
  ValueCodes, ///< value indices, or bf16 value elements
  ValueScale, ///< value norm/scale, fp16
  ValueZero,  ///< uniform value zero point (= min), fp16
};

/// Element type of a field as stored.
enum class FieldDType { U8, F16, BF16, Fp8E4M3 };

struct Field {
  FieldKind kind;
  FieldDType dtype;
  int64_t bytes;       ///< bytes per token-head
  int64_t offset;      ///< from the start of a (block, head) region
  int64_t tokenStride; ///< bytes between consecutive positions of a block
};

struct Layout {
  LayoutKind kind = LayoutKind::Native;
  int blockSize = 16;
  int numKVHeads = 8;
  int64_t blockStride = 0; ///< bytes between consecutive physical blocks
  int64_t headStride = 0;  ///< bytes between consecutive KV heads
  int64_t regionBytes = 0; ///< bytes of one (block, head) region (native) or
                           ///< one slot (vllm)
  int alignment = 16;      ///< alignment of every plane / of the tensor
  std::vector<Field> fields;

  /// Cache bytes per token per KV head (block bytes / block size).
  int64_t bytesPerTokenHead() const;
  /// Cache tensor shape with the number of blocks first; dtype uint8.
  std::vector<int64_t> shape(int64_t numBlocks) const;
  /// The field of this kind, or nullptr.
  const Field *find(FieldKind kind) const;
  /// Byte address of a field of token `pos` of physical block `block`.
  int64_t address(const Field &f, int64_t block, int64_t pos,
                  int64_t head) const;
  /// Empty when no two fields overlap and every field fits its region;
  /// otherwise a message naming the fields.
  std::string checkDisjoint() const;
};

/// A field before it is placed.
struct FieldShape {
  FieldKind kind;
  FieldDType dtype;
  int64_t bytes; ///< per token-head
};

/// The fields a (validated) spec stores, in FieldKind order.
std::vector<FieldShape> fieldShapes(const CacheSpec &spec);

/// Places fields. Native: multi-byte planes first, then the fp16 scalar
/// planes, each group in FieldKind order, each plane 16-byte aligned.
/// vLLM: one packed slot in FieldKind order.
Layout computeLayout(LayoutKind kind, int blockSize, int numKVHeads,
                     std::vector<FieldShape> fields);

/// The layout the compiler assigns to a (validated) spec.
Layout computeLayout(const CacheSpec &spec);

/// Bytes per token-head of the fields a spec needs, without padding.
int64_t packedBytesPerTokenHead(const CacheSpec &spec);

const char *toString(FieldKind kind);
const char *toString(FieldDType dtype);
std::optional<FieldKind> parseFieldKind(const std::string &s);
std::optional<FieldDType> parseFieldDType(const std::string &s);

/// Bytes of `count` codes of `bits` bits in the little-endian bitstream.
inline int64_t packedBytes(int64_t count, int bits) {
  return (count * bits + 7) / 8;
}

} // namespace tqc

#endif // TQC_NUMERICS_LAYOUT_H
