/*===- numeric.h - Per-tensor spec traits, packing, loads, codebooks ------===*
 *
 * Target-independent helpers shared by the store and decode
 * kernels, written only against the target layer (target_*.h):
 *  - TensorSpec<Spec, IsKey>: one view of the TqSpec constants of K or V, so
 *    the kernels handle both tensors with the same code;
 *  - compile-time field alignment and the widest access it allows;
 *  - little-endian bitstream helpers (FORMATS.md "Bit packing");
 *  - fp16 / bf16 / T conversions and codebook boundaries.
 *===----------------------------------------------------------------------===*/
#ifndef TQ_NUMERIC_H
#define TQ_NUMERIC_H

#include "tq/spec_constants.h"

namespace tq {

/* ---------------------------------------------------------------------------
 * Compile-time helpers
 * ------------------------------------------------------------------------ */
TQ_CONSTEXPR bool isPow2(long long x) { return x > 0 && (x & (x - 1)) == 0; }
TQ_CONSTEXPR int log2Int(long long x) { return x <= 1 ? 0 : 1 + log2Int(x >> 1); }
TQ_CONSTEXPR int minInt(int a, int b) { return a < b ? a : b; }
TQ_CONSTEXPR int maxInt(int a, int b) { return a > b ? a : b; }
TQ_CONSTEXPR long long lowBit(long long x) { return x & -x; }
/* Alignment (power of two, at most 16) of every address base + offset +
 * pos * stride with base = block * blockStride + head * headStride, given a
 * 16-byte-aligned cache tensor. */
TQ_CONSTEXPR int fieldAlignment(long long offset, long long stride,
                             long long blockStride, long long headStride) {
  return int(lowBit(offset | stride | blockStride | headStride | 16));
}

/* ---------------------------------------------------------------------------
 * Optional TqSpec members. kKeyZeroOffset/Stride (a uniform key's zero
 * plane) came after the first version of the contract: absent means -1.
 * ------------------------------------------------------------------------ */
template <class S, class = void> struct KeyZeroField {
  static constexpr int kOffset = -1, kStride = 0;
};
template <class S>
struct KeyZeroField<S, decltype((void)S::kKeyZeroOffset,
                                (void)S::kKeyZeroStride)> {
  static constexpr int kOffset = S::kKeyZeroOffset;
  static constexpr int kStride = S::kKeyZeroStride;
};

/* kVllmNumerics (the vLLM layout's encoding rules, FORMATS.md): absent means
 * false (tqc's native numerics). */
template <class S, class = void> struct VllmNumerics {
  static constexpr bool kValue = false;
};
template <class S>
struct VllmNumerics<S, decltype((void)S::kVllmNumerics)> {
  static constexpr bool kValue = S::kVllmNumerics;
};

/* ---------------------------------------------------------------------------
 * One tensor (K or V) of a TqSpec
 * ------------------------------------------------------------------------ */
template <class Spec, bool IsKey> struct TensorSpec;

template <class Spec> struct TensorSpec<Spec, true> {
  static constexpr int kQuant = Spec::kKeyQuant;
  static constexpr int kBits = Spec::kKeyBits; // code bits (b-1 with QJL)
  static constexpr bool kNormCorrect = Spec::kKeyNormCorrect;
  static constexpr bool kQjl = Spec::kKeyQjl;
  static constexpr int kRotation = Spec::kKeyRotation;
  static constexpr int kRounds = Spec::kKeyRounds;
  static constexpr int kCodesOffset = Spec::kKeyCodesOffset;
  static constexpr int kCodesStride = Spec::kKeyCodesStride;
  static constexpr int kScaleOffset = Spec::kKeyScaleOffset;
  static constexpr int kScaleStride = Spec::kKeyScaleStride;
  static constexpr int kZeroOffset = KeyZeroField<Spec>::kOffset;
  static constexpr int kZeroStride = KeyZeroField<Spec>::kStride;
  static constexpr int kSignsOffset = Spec::kKeySignsOffset;
  static constexpr int kSignsStride = Spec::kKeySignsStride;
  static constexpr int kGammaOffset = Spec::kKeyGammaOffset;
  static constexpr int kGammaStride = Spec::kKeyGammaStride;
  TQ_INLINE static auto levels() { return Spec::keyLevels(); }
  // Level i of a Lloyd-Max codebook as a constant expression (the same
  // literals as levels()' array; only Lloyd-Max tensors may call it).
  __host__ __device__ static constexpr double level(int i) {
    return Spec::keyLevel(i);
  }
  TQ_INLINE static const uint32_t *signs() { return Spec::keySigns(); }
  // Word i of signs() as a constant expression (rotated tensors only).
  __host__ __device__ static constexpr uint32_t signWord(int i) {
    return Spec::keySignWord(i);
  }
};

template <class Spec> struct TensorSpec<Spec, false> {
  static constexpr int kQuant = Spec::kValueQuant;
  static constexpr int kBits = Spec::kValueBits;
  static constexpr bool kNormCorrect = Spec::kValueNormCorrect;
  static constexpr bool kQjl = false; // QJL is for keys only (numerics)
  static constexpr int kRotation = Spec::kValueRotation;
  static constexpr int kRounds = Spec::kValueRounds;
  static constexpr int kCodesOffset = Spec::kValueCodesOffset;
  static constexpr int kCodesStride = Spec::kValueCodesStride;
  static constexpr int kScaleOffset = Spec::kValueScaleOffset;
  static constexpr int kScaleStride = Spec::kValueScaleStride;
  static constexpr int kZeroOffset = Spec::kValueZeroOffset;
  static constexpr int kZeroStride = Spec::kValueZeroStride;
  static constexpr int kSignsOffset = -1, kSignsStride = 0;
  static constexpr int kGammaOffset = -1, kGammaStride = 0;
  TQ_INLINE static auto levels() { return Spec::valueLevels(); }
  __host__ __device__ static constexpr double level(int i) {
    return Spec::valueLevel(i);
  }
  TQ_INLINE static const uint32_t *signs() { return Spec::valueSigns(); }
  __host__ __device__ static constexpr uint32_t signWord(int i) {
    return Spec::valueSignWord(i);
  }
};

/* Derived facts about one tensor, checked once here. */
template <class Spec, bool IsKey> struct TensorInfo {
  using TS = TensorSpec<Spec, IsKey>;
  static constexpr int kDim = Spec::kHeadDim;
  static constexpr int kQuant = TS::kQuant;
  static constexpr bool kRotated =
      TS::kRotation == TQ_ROT_HADAMARD && TS::kRounds > 0;
  static constexpr int kRounds = kRotated ? TS::kRounds : 0;
  static constexpr bool kQjl = TS::kQjl && kQuant == TQ_QUANT_LLOYD_MAX;
  /* Bits per coordinate in the codes plane. */
  static constexpr int kCodeBits = kQuant == TQ_QUANT_NONE  ? 16
                                   : kQuant == TQ_QUANT_FP8 ? 8
                                                            : TS::kBits;
  static constexpr bool kPacked =
      kQuant == TQ_QUANT_LLOYD_MAX || kQuant == TQ_QUANT_UNIFORM;
  static constexpr int kLevels = kQuant == TQ_QUANT_LLOYD_MAX ? 1 << TS::kBits : 1;
  static constexpr int kCodeBytes = kDim * kCodeBits / 8;
  static constexpr int kCodesAlign =
      fieldAlignment(TS::kCodesOffset, TS::kCodesStride, Spec::kBlockStride,
                     Spec::kHeadStride);
  static constexpr int kSignsAlign =
      kQjl ? fieldAlignment(TS::kSignsOffset, TS::kSignsStride,
                            Spec::kBlockStride, Spec::kHeadStride)
           : 1;
  static constexpr bool kHasScale =
      kQuant == TQ_QUANT_LLOYD_MAX || kQuant == TQ_QUANT_UNIFORM;
  static constexpr bool kHasZero = kQuant == TQ_QUANT_UNIFORM;
  /* The vLLM layout's rules (FORMATS.md): a norm-corrected codebook tensor
   * stores ‖x‖ and the decoder divides by ‖c[idx]‖ (kNormAtRead); the store
   * runs vLLM's fp32 math, and uniform codes come from the unrounded scale
   * (kVllmStore). */
  static constexpr bool kVllmStore = VllmNumerics<Spec>::kValue;
  static constexpr bool kNormAtRead =
      kVllmStore && kQuant == TQ_QUANT_LLOYD_MAX && TS::kNormCorrect;

  static_assert(kQuant == TQ_QUANT_NONE || kQuant == TQ_QUANT_LLOYD_MAX ||
                    kQuant == TQ_QUANT_UNIFORM || kQuant == TQ_QUANT_FP8,
                "unknown TQ_QUANT_* kind");
  static_assert(TS::kRotation == TQ_ROT_NONE || TS::kRotation == TQ_ROT_HADAMARD,
                "unknown TQ_ROT_* kind");
  static_assert(!kPacked || (TS::kBits >= 1 && TS::kBits <= 8),
                "code bits must be 1..8");
  static_assert(kQuant != TQ_QUANT_LLOYD_MAX || kRotated,
                "a Lloyd-Max codebook assumes rotated coordinates");
  static_assert(TS::kCodesOffset >= 0, "the codes field is required");
  static_assert(!kHasScale || TS::kScaleOffset >= 0,
                "this quantizer needs its scale field");
  static_assert(!kHasZero || TS::kZeroOffset >= 0,
                "a uniform tensor needs its zero field (kKeyZeroOffset for keys)");
  static_assert(!kQjl || (TS::kSignsOffset >= 0 && TS::kGammaOffset >= 0),
                "QJL keys need the signs and gamma fields");
  static_assert(!(TS::kQjl && kQuant != TQ_QUANT_LLOYD_MAX),
                "QJL needs a Lloyd-Max key");
  static_assert(!(kVllmStore && kQjl), "the vLLM layout has no QJL");
};

/* ---------------------------------------------------------------------------
 * Activations: T (bf16_t / f16_t) <-> float
 * ------------------------------------------------------------------------ */
template <class T> struct DType;
template <> struct DType<bf16_t> {
  static constexpr bool kIsBf16 = true;
  TQ_INLINE static float toFloat(uint32_t b) { return bf16BitsToFloat(b); }
  TQ_INLINE static uint32_t fromFloat(float f) { return floatToBf16Bits(f); }
};
template <> struct DType<f16_t> {
  static constexpr bool kIsBf16 = false;
  TQ_INLINE static float toFloat(uint32_t b) { return f16BitsToFloat(b); }
  TQ_INLINE static uint32_t fromFloat(float f) { return floatToF16Bits(f); }
};

/* N consecutive 16-bit elements (N = 1, 2, 4 or 8), raw, two to a word; the
 * vector width is picked at run time from the address, since activation
 * strides are run-time values. Apart from rowFromBits so that a caller can
 * issue the load long before it needs the values (the decode's queries). */
template <int N>
TQ_INLINE void loadRowBits(const void *p, uint32_t (&w)[4]) {
  static_assert(N == 1 || N == 2 || N == 4 || N == 8, "row chunk of 1..8");
  const uint8_t *b = static_cast<const uint8_t *>(p);
  w[0] = w[1] = w[2] = w[3] = 0u;
  if (N == 8 && isAligned(b, 16)) {
    const u32x4 v = *reinterpret_cast<const u32x4 *>(b);
    w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
  } else if (N == 4 && isAligned(b, 8)) {
    const u32x2 v = *reinterpret_cast<const u32x2 *>(b);
    w[0] = v.x, w[1] = v.y;
  } else if (N == 2 && isAligned(b, 4)) {
    w[0] = *reinterpret_cast<const uint32_t *>(b);
  } else {
    TQ_UNROLL
    for (int i = 0; i < N; ++i)
      w[i / 2] |= uint32_t(*reinterpret_cast<const uint16_t *>(b + 2 * i))
                  << (16 * (i % 2));
  }
}
/* The floats of loadRowBits's words. */
template <class T, int N>
TQ_INLINE void rowFromBits(const uint32_t (&w)[4], float (&x)[N]) {
  TQ_UNROLL
  for (int i = 0; i < N; ++i)
    x[i] = DType<T>::toFloat((w[i / 2] >> (16 * (i % 2))) & 0xffffu);
}
/* N consecutive 16-bit elements (N = 1, 2, 4 or 8) as floats. */
template <class T, int N> TQ_INLINE void loadRow(const void *p, float (&x)[N]) {
  uint32_t w[4];
  loadRowBits<N>(p, w);
  rowFromBits<T, N>(w, x);
}

/* N consecutive 16-bit elements for any N <= 8 loadRow takes or a multiple
 * of 8 (rows of 8 elements, 16-byte loads where aligned). */
template <class T, int N>
TQ_INLINE void loadRows(const void *p, float (&x)[N]) {
  if constexpr (N <= 8) {
    loadRow<T, N>(p, x);
  } else {
    static_assert(N % 8 == 0, "a multiple of 8 elements");
    TQ_UNROLL
    for (int c = 0; c < N / 8; ++c) {
      float part[8];
      loadRow<T, 8>(static_cast<const uint8_t *>(p) + 16 * c, part);
      TQ_UNROLL
      for (int i = 0; i < 8; ++i)
        x[8 * c + i] = part[i];
    }
  }
}

/* N consecutive 16-bit elements (a multiple of 8), raw, two to a word:
 * 16-byte loads where aligned (loadRowBits). */
template <int N>
TQ_INLINE void loadRowWords(const void *p, uint32_t (&w)[N / 2]) {
  static_assert(N % 8 == 0, "a multiple of 8 elements");
  const uint8_t *b = static_cast<const uint8_t *>(p);
  // One alignment test for the row (its chunks are 16 bytes apart), and a
  // branch: per-chunk tests made the compiler predicate every chunk's
  // element-wise fallback into the common path (~12 issue slots a chunk).
  if (isAligned(b, 16)) {
    TQ_UNROLL
    for (int c = 0; c < N / 8; ++c) {
      const u32x4 v = *reinterpret_cast<const u32x4 *>(b + 16 * c);
      w[4 * c] = v.x, w[4 * c + 1] = v.y, w[4 * c + 2] = v.z, w[4 * c + 3] = v.w;
    }
  } else {
    TQ_UNROLL
    for (int c = 0; c < N / 8; ++c) {
      uint32_t part[4];
      loadRowBits<8>(b + 16 * c, part);
      TQ_UNROLL
      for (int i = 0; i < 4; ++i)
        w[4 * c + i] = part[i];
    }
  }
}
/* The floats of loadRowWords's words. */
template <class T, int N>
TQ_INLINE void floatsOfWords(const uint32_t (&w)[N / 2], float (&x)[N]) {
  TQ_UNROLL
  for (int i = 0; i < N; ++i)
    x[i] = DType<T>::toFloat((w[i / 2] >> (16 * (i % 2))) & 0xffffu);
}

template <class T, int N>
TQ_INLINE void storeRow(void *p, const float (&x)[N]) {
  static_assert(N == 1 || N == 2 || N == 4 || N == 8, "row chunk of 1..8");
  uint8_t *b = static_cast<uint8_t *>(p);
  uint32_t w[4] = {0u, 0u, 0u, 0u};
  TQ_UNROLL
  for (int i = 0; i < N; ++i)
    w[i / 2] |= DType<T>::fromFloat(x[i]) << (16 * (i % 2));
  if (N == 8 && isAligned(b, 16)) {
    u32x4 v;
    v.x = w[0], v.y = w[1], v.z = w[2], v.w = w[3];
    storeGlobal16(b, v);
  } else if (N == 4 && isAligned(b, 8)) {
    u32x2 v;
    v.x = w[0], v.y = w[1];
    storeGlobal8(b, v);
  } else if (N == 2 && isAligned(b, 4)) {
    storeGlobal4(b, w[0]);
  } else {
    TQ_UNROLL
    for (int i = 0; i < N; ++i)
      storeGlobal2(b + 2 * i, w[i / 2] >> (16 * (i % 2)));
  }
}

/* N consecutive floats (N = 1..8, a power of two), 16-byte vectors where the
 * address allows (workspace rows are 16-byte aligned when head_dim is). */
template <int N> TQ_INLINE void storeFloats(float *p, const float (&x)[N]) {
  if constexpr (N % 4 == 0) {
    if (isAligned(p, 16)) {
      TQ_UNROLL
      for (int i = 0; i < N; i += 4) {
        u32x4 v;
        v.x = floatToBits(x[i]), v.y = floatToBits(x[i + 1]),
        v.z = floatToBits(x[i + 2]), v.w = floatToBits(x[i + 3]);
        storeGlobal16(p + i, v);
      }
      return;
    }
  }
  TQ_UNROLL
  for (int i = 0; i < N; ++i)
    p[i] = x[i];
}
template <int N> TQ_INLINE void loadFloats(const float *p, float (&x)[N]) {
  if constexpr (N % 4 == 0) {
    if (isAligned(p, 16)) {
      TQ_UNROLL
      for (int i = 0; i < N; i += 4) {
        const u32x4 v = *reinterpret_cast<const u32x4 *>(p + i);
        x[i] = bitsToFloat(v.x), x[i + 1] = bitsToFloat(v.y),
        x[i + 2] = bitsToFloat(v.z), x[i + 3] = bitsToFloat(v.w);
      }
      return;
    }
  }
  TQ_UNROLL
  for (int i = 0; i < N; ++i)
    x[i] = p[i];
}

/* ---------------------------------------------------------------------------
 * Cache reads: NB bytes (1..16) at row + off, where row is ALIGN-aligned
 * (compile time) and off a multiple of NB. Returned little-endian in w[0..3]
 * (unused words 0). Uses one vector load when alignment allows, otherwise
 * the aligned 32-bit words that cover the bytes, funnel-shifted together
 * (e.g. 3 bytes of 3-bit codes per lane), otherwise bytes.
 * ------------------------------------------------------------------------ */
struct Chunk {
  uint32_t w[4];
  TQ_INLINE uint64_t lo64() const {
    return uint64_t(w[0]) | (uint64_t(w[1]) << 32);
  }
};

/* The NB (1..8) bytes at p, which lies `lead` bytes past a 4-byte boundary,
 * in two steps so that a caller can issue the loads long before it needs the
 * bytes: loadWordsAround reads the aligned words that hold requested bytes
 * (never past the field; a[] beyond them 0), shiftWordsIntoPlace makes them
 * two little-endian words (byte i at bits 8·(i mod 4) of w[i / 4]), bytes
 * beyond NB cleared (they belong to a neighbour). */
template <int NB>
TQ_INLINE void loadWordsAround(const uint8_t *p, int lead, uint32_t (&a)[3]) {
  static_assert(NB >= 1 && NB <= 8, "1..8 bytes");
  const uint32_t *q = reinterpret_cast<const uint32_t *>(p - lead);
  const int words = (lead + NB + 3) >> 2;
  a[0] = loadGlobal4(q);
  a[1] = words > 1 ? loadGlobal4(q + 1) : 0u;
  a[2] = words > 2 ? loadGlobal4(q + 2) : 0u;
}
template <int NB>
TQ_INLINE void shiftWordsIntoPlace(const uint32_t (&a)[3], int lead,
                                   uint32_t &w0, uint32_t &w1) {
  const uint32_t sh = uint32_t(lead) * 8u;
  w0 = funnelShiftRight(a[0], a[1], sh);
  if constexpr (NB < 4)
    w0 &= (1u << (8 * NB)) - 1u;
  w1 = 0u;
  if constexpr (NB > 4) { // the second word only when it holds bytes
    w1 = funnelShiftRight(a[1], a[2], sh);
    if constexpr (NB < 8)
      w1 &= (1u << (8 * (NB - 4))) - 1u;
  }
}
template <int NB>
TQ_INLINE void loadUnalignedWords(const uint8_t *p, int lead, uint32_t &w0,
                                  uint32_t &w1) {
  uint32_t a[3];
  loadWordsAround<NB>(p, lead, a);
  shiftWordsIntoPlace<NB>(a, lead, w0, w1);
}

template <int NB, int ALIGN>
TQ_INLINE Chunk loadChunk(const uint8_t *row, int off) {
  static_assert(NB >= 1 && NB <= 16, "chunk of 1..16 bytes");
  Chunk c;
  c.w[0] = c.w[1] = c.w[2] = c.w[3] = 0u;
  const uint8_t *p = row + off;
  if constexpr (isPow2(NB) && ALIGN >= NB) {
    if constexpr (NB == 16) {
      const u32x4 v = loadGlobal16(p);
      c.w[0] = v.x, c.w[1] = v.y, c.w[2] = v.z, c.w[3] = v.w;
    } else if constexpr (NB == 8) {
      const u32x2 v = loadGlobal8(p);
      c.w[0] = v.x, c.w[1] = v.y;
    } else if constexpr (NB == 4) {
      c.w[0] = loadGlobal4(p);
    } else if constexpr (NB == 2) {
      c.w[0] = loadGlobal2(p);
    } else {
      c.w[0] = loadGlobal1(p);
    }
  } else if constexpr (ALIGN >= 4 && NB <= 8) {
    loadUnalignedWords<NB>(p, off & 3, c.w[0], c.w[1]);
  } else {
    TQ_UNROLL
    for (int i = 0; i < NB; ++i)
      c.w[i / 4] |= loadGlobal1(p + i) << (8 * (i % 4));
  }
  return c;
}

/* loadChunk in two steps, for reads whose latency a caller hides: start()
 * issues the loads into registers, finish() returns loadChunk's Chunk. Only
 * the word-shifting form has work left for finish(), so between the two
 * nothing waits on a load. */
template <int NB, int ALIGN> struct ChunkLoad {
  static constexpr bool kShifted =
      !(isPow2(NB) && ALIGN >= NB) && ALIGN >= 4 && NB <= 8;
  uint32_t raw[3];
  int lead;
  Chunk ready;

  TQ_INLINE void start(const uint8_t *row, int off) {
    if constexpr (kShifted) {
      lead = off & 3;
      loadWordsAround<NB>(row + off, lead, raw);
    } else {
      ready = loadChunk<NB, ALIGN>(row, off);
    }
  }
  TQ_INLINE Chunk finish() const {
    if constexpr (!kShifted)
      return ready;
    Chunk c;
    c.w[2] = c.w[3] = 0u;
    shiftWordsIntoPlace<NB>(raw, lead, c.w[0], c.w[1]);
    return c;
  }
  /* Zero bytes, as if read from zeros. */
  TQ_INLINE void clear() {
    raw[0] = raw[1] = raw[2] = 0u;
    lead = 0;
    ready.w[0] = ready.w[1] = ready.w[2] = ready.w[3] = 0u;
  }
};

/* Code c (compile-time index) of BITS bits from a chunk whose bit 0 is the
 * first code's bit 0. */
template <int BITS> TQ_INLINE uint32_t codeOf(const Chunk &ch, int c) {
  if constexpr (BITS == 16) {
    return (ch.w[c / 2] >> (16 * (c % 2))) & 0xffffu;
  } else if constexpr (BITS == 8) {
    return (ch.w[c / 4] >> (8 * (c % 4))) & 0xffu;
  } else {
    return uint32_t(ch.lo64() >> (c * BITS)) & ((1u << BITS) - 1u);
  }
}

/* fp16 scalar field (little-endian) at a 2-byte-aligned address. */
TQ_INLINE float loadF16(const uint8_t *p) {
  return f16BitsToFloat(loadGlobal2(p));
}

/* ---------------------------------------------------------------------------
 * Cache writes of NB bytes (1..16) held little-endian in w[], at a row
 * aligned to ALIGN (compile time) plus a multiple of NB: stores of the
 * largest power of two that divides NB and ALIGN (6 bytes: three of 2).
 * ------------------------------------------------------------------------ */
template <int NB, int ALIGN>
TQ_INLINE void storeChunk(uint8_t *p, const uint32_t (&w)[4]) {
  static_assert(NB >= 1 && NB <= 16, "chunk of 1..16 bytes");
  constexpr int kUnit = minInt(int(lowBit(NB)), minInt(ALIGN, 16));
  if constexpr (kUnit == 16) {
    u32x4 v;
    v.x = w[0], v.y = w[1], v.z = w[2], v.w = w[3];
    storeGlobal16(p, v);
  } else if constexpr (kUnit == 8) {
    TQ_UNROLL
    for (int i = 0; i < NB / 8; ++i) {
      u32x2 v;
      v.x = w[(2 * i) % 4], v.y = w[(2 * i + 1) % 4];
      storeGlobal8(p + 8 * i, v);
    }
  } else if constexpr (kUnit == 4) {
    TQ_UNROLL
    for (int i = 0; i < NB / 4; ++i)
      storeGlobal4(p + 4 * i, w[i % 4]);
  } else if constexpr (kUnit == 2) {
    TQ_UNROLL
    for (int i = 0; i < NB / 2; ++i)
      storeGlobal2(p + 2 * i, w[(i / 2) % 4] >> (16 * (i % 2)));
  } else {
    TQ_UNROLL
    for (int i = 0; i < NB; ++i)
      storeGlobal1(p + i, w[(i / 4) % 4] >> (8 * (i % 4)));
  }
}

/* Packs E codes of BITS bits (c[i]: code of the lane's coordinate i) into
 * the lane's piece of a row's LSB-first bitstream, E·BITS bits from bit 0
 * of w (a multiple of 8, at most 128): the bits of codes lane·E .. lane·E +
 * E - 1 of the row, so the lane writes them at byte lane·E·BITS/8 with
 * storeChunk. No shared memory, no warp synchronization. */
template <int E, int BITS>
TQ_INLINE void packLaneCodes(const uint32_t (&c)[E], uint32_t (&w)[4]) {
  static_assert(E * BITS % 8 == 0 && E * BITS <= 128, "whole bytes, <= 16");
  TQ_UNROLL
  for (int k = 0; k < 4; ++k)
    w[k] = 0;
  TQ_UNROLL
  for (int i = 0; i < E; ++i) {
    constexpr int kWordBits = 32;
    const int bit = i * BITS, word = bit / kWordBits, sh = bit % kWordBits;
    w[word] |= c[i] << sh;
    if (sh + BITS > kWordBits) // the code straddles two words
      w[word + 1] |= c[i] >> (kWordBits - sh);
  }
}

/* packLaneCodes of c[i] = raw[i] - BIAS: the bias comes off each word once
 * (the stream is a sum of disjoint shifted codes, and a sum of shifts is
 * linear mod 2^32), so a code costs one multiply-add (IMAD, FMA pipe) where
 * a subtract, shift and OR took three. Codes that straddle two words are
 * unbiased first. */
template <int E, int BITS, uint32_t BIAS>
TQ_INLINE void packLaneCodesBiased(const uint32_t (&raw)[E], uint32_t (&w)[4]) {
  static_assert(E * BITS % 8 == 0 && E * BITS <= 128, "whole bytes, <= 16");
  constexpr int kWordBits = 32;
  uint32_t bias[4] = {0u, 0u, 0u, 0u};
  TQ_UNROLL
  for (int i = 0; i < E; ++i) {
    const int bit = i * BITS, sh = bit % kWordBits;
    if (sh + BITS <= kWordBits)
      bias[bit / kWordBits] += BIAS << sh;
  }
  TQ_UNROLL
  for (int k = 0; k < 4; ++k)
    w[k] = 0u - bias[k];
  TQ_UNROLL
  for (int i = 0; i < E; ++i) {
    const int bit = i * BITS, word = bit / kWordBits, sh = bit % kWordBits;
    if (sh + BITS <= kWordBits) {
      w[word] += raw[i] << sh;
    } else {
      const uint32_t c = raw[i] - BIAS;
      w[word] += c << sh;
      w[word + 1] += c >> (kWordBits - sh);
    }
  }
}

/* UNIT bytes (1, 2 or 4) of the little-endian bitstream of BITS-bit codes,
 * the unit-th such group: codes[] holds one code per byte (shared memory). */
template <int BITS, int UNIT>
TQ_INLINE uint32_t gatherCodeBits(const uint8_t *codes, int unit) {
  const int first = unit * UNIT * 8; // first stream bit of this unit
  const int end = first + UNIT * 8;
  uint32_t acc = 0;
  for (int j = first / BITS; j * BITS < end; ++j) {
    const int sh = j * BITS - first;
    const uint32_t v = codes[j];
    acc |= sh >= 0 ? v << sh : v >> -sh;
  }
  return UNIT == 4 ? acc : acc & ((1u << (8 * UNIT)) - 1u);
}

/* ---------------------------------------------------------------------------
 * Codebooks. A Lloyd-Max book's 2^b levels are ascending; cell i is
 * [b_{i-1}, b_i) with b_i the midpoint of levels i and i+1, and a value on a
 * boundary goes to the upper cell (numerics nearestIndex: upper_bound).
 * ------------------------------------------------------------------------ */
/* Index of the cell of u: the number of boundaries <= u, by binary search
 * over the 2^BITS - 1 boundaries (shared memory, bounds[K-1] unused). */
template <int BITS, class R>
TQ_INLINE uint32_t nearestIndex(const R *bounds, R u) {
  uint32_t idx = 0;
  TQ_UNROLL
  for (int step = 1 << (BITS - 1); step >= 1; step >>= 1)
    if (u >= bounds[idx + step - 1])
      idx += step;
  return idx;
}

} // namespace tq

#endif // TQ_NUMERIC_H
