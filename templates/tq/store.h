/*===- store.h - The store kernel: compress K/V tokens into the cache -----===*
 *
 * tq::store<Spec, T>(tq_store_args): grid (max_tokens, 1, 1), block
 * Spec::kStoreWarps warps, one CTA per token (or token_tiles CTAs of
 * kStoreTileTokens tokens under the TQ_STORE_TILE_TOKENS developer knob,
 * StoreTile). A group of G lanes compresses
 * one token-head (its key, then its value): lane gl of the group holds
 * coordinates [gl·E, gl·E + E), E = head_dim/G (kStoreGroup). Up to
 * head_dim 128, G = 4 (eight token-heads per warp, 32 coordinates per lane
 * at 128): Lloyd-Max tensors then run their first rotation round on tensor
 * cores from the raw activations (rotate_mma.h; the later rounds and the
 * other formats a group FWHT, rotate.h) and search their cells against
 * boundaries held in registers (storeLloydMaxRegs); above 128, G =
 * head_dim/16, and QJL keys G = 32 (their sign sketch is one ballot per 32
 * rows). Codes are packed in registers and each lane stores its own bytes
 * of the code row (writeCodes); uniform codes take the host's rounded
 * quotient from one fma rounded down, without a division or a
 * conversion-unit op (roundHalfUpFloor), Lloyd-Max cells come from float
 * signs packed as they are made (signCellCodes).
 * k3v4 on sm_90, executed instructions per warp-token (a 4-lane group per
 * token-head, 32 + 32 coordinates per lane): 1439 -> 1126 with those two
 * (ncu source counters); the 16K-token chunk 43.8 -> 40.7 us, k4v4 55.3 ->
 * 42.4 us, a 32-token step 3.91 -> 3.68 us on the H200 (bench/results/
 * 2026-12-02-session16-h200 run2, run5; docs/NOTES.md "Store, session 16";
 * session 11's history there too). The groups of the CTA take the KV heads in turn;
 * groups past the last head compute on head 0 without writing, since every
 * lane must join the warp's shuffles and mma.
 *
 * The bytes written are those of numerics' HostCodec (cache.cpp, native
 * layout), which computes in float64, except where float32 rounding decides:
 * the per-vector math (norm, rotation, cell search, norm correction, uniform
 * min/max and codes) runs in float32 (StoreReal), so a coordinate within
 * float rounding (~1e-7 relative) of a cell boundary or of a half step of
 * the uniform grid (roundHalfUpFloor says where), or a scale within it of an
 * fp16 rounding midpoint, can
 * land on the other side: 0 to 3 of 5990 token-heads on the CPU emulator's
 * random data (`ctest -R emu_decode -V`; the GPU tier counts them too, both
 * bound them at 1e-3). Why float32:
 * float64 halves the arithmetic rate and doubles every shuffle of the
 * rotation and the reductions, and the store ran at 12 % of bandwidth with
 * it (bench/results/2026-11-30-store-bench-h200.txt). QJL keys keep float64
 * (StoreReal is double for them): their residual's norm γ can cancel almost
 * completely (e.g. a one-hot key), where float32 would lose it; what can
 * differ there is a QJL sign whose sketch value is within float rounding of
 * 0 (S·r runs in float32) and exact ties of the differently ordered sums.
 *
 * The vLLM layout (Info::kVllmStore) follows FORMATS.md instead: vLLM's own
 * float32 math (key: n = ‖k‖, y = H·(k/(n + 1e-8)), cells against fp32
 * midpoints, n stored; value: codes from the unrounded fp32 scale), so its
 * bytes match vLLM's store up to the summation order of ‖k‖ and H·x.
 *===----------------------------------------------------------------------===*/
#ifndef TQ_STORE_H
#define TQ_STORE_H

#include "tq/abi.h"
#include "tq/numeric.h"
#include "tq/rotate.h"
#include "tq/rotate_mma.h"

namespace tq {
namespace store_detail {

/* The store's arithmetic type for a tensor: float32, float64 for QJL keys
 * (header comment). */
template <bool DOUBLE> struct StoreRealOf { using T = float; };
template <> struct StoreRealOf<true> { using T = double; };
template <class Info> using StoreReal = typename StoreRealOf<Info::kQjl>::T;

/* Correctly rounded division, square root, fp16 conversion and floor in the
 * store's type (float: IEEE fp32; double: target_*.h's divRn / sqrtRn). */
TQ_INLINE float divR(float a, float b) { return divF(a, b); }
TQ_INLINE double divR(double a, double b) { return divRn(a, b); }
TQ_INLINE float sqrtR(float x) { return sqrtF(x); }
TQ_INLINE double sqrtR(double x) { return sqrtRn(x); }
TQ_INLINE uint32_t toF16Bits(float x) { return floatToF16Bits(x); }
TQ_INLINE uint32_t toF16Bits(double x) { return doubleToF16Bits(x); }
TQ_INLINE float floorR(float x) { return floorF(x); }
/* The uniform grid's extremes: a NaN coordinate makes them NaN (min.NaN /
 * max.NaN, as cheap as fminf / fmaxf, which would drop it), so the vector
 * stores a NaN zero point and reads back as NaN, never as finite values
 * around a coordinate whose NaN code bits spilled into its neighbours'. */
TQ_INLINE float minR(float a, float b) { return minNaN(a, b); }
TQ_INLINE float maxR(float a, float b) { return maxNaN(a, b); }
/* The divisor of a Lloyd-Max vector's quotients y / n: float multiplies by
 * one correctly rounded reciprocal (within ~1.5 ulp of each quotient; a
 * cell boundary that close is one of the ties the 1e-3 budget covers),
 * saving an IEEE division per coordinate (the store is instruction-bound);
 * double (QJL keys) keeps exact division. */
struct InvF {
  float r;
  TQ_INLINE explicit InvF(float b) : r(divF(1.f, b)) {}
  TQ_INLINE float of(float a) const { return a * r; }
};
struct InvD {
  double b;
  TQ_INLINE explicit InvD(double d) : b(d) {}
  TQ_INLINE double of(double a) const { return divRn(a, b); }
};
template <class R> struct InvOf { using T = InvF; };
template <> struct InvOf<double> { using T = InvD; };
TQ_INLINE double floorR(double x) { return floorD(x); }
/* A value of the store's type as the float a bf16/fp8 conversion takes (one
 * rounding from double: round to odd, then the conversion's nearest). */
TQ_INLINE float toFloatOnce(float x) { return x; }
TQ_INLINE float toFloatOnce(double x) { return doubleToFloatRoundOdd(x); }

/* Shared-memory codebook of a Lloyd-Max tensor for the store: levels, then
 * the cell boundaries (the last entry is unused): midpoints computed in
 * double as the host does, then rounded to the store's type R; with the
 * vLLM layout's rules in fp32 as vLLM's store does, (c[i] + c[i+1]) / 2. */
template <class Info, class R, class L> // one whole warp; L float or double
TQ_INLINE void fillBook(R *book, const L *levels) {
  constexpr int K = Info::kLevels;
  for (int i = laneIndex(); i < K; i += kWarpSize) {
    const double c = levels[i];
    book[i] = R(c);
    if (i + 1 == K)
      book[K + i] = R(0);
    else if constexpr (Info::kVllmStore)
      book[K + i] = R((float(c) + float(levels[i + 1])) * 0.5f);
    else
      book[K + i] = R(0.5 * (c + double(levels[i + 1])));
  }
}

/* Writes the bitstream of D codes of BITS bits (one per byte in codes[],
 * shared) at row, in units of up to 4 bytes, by the G lanes of a group. */
template <int D, int BITS, int ALIGN, int G>
TQ_INLINE void writePacked(uint8_t *row, const uint8_t *codes) {
  constexpr int kBytes = D * BITS / 8;
  constexpr int kUnit = minInt(ALIGN, 4);
  static_assert(kBytes % kUnit == 0, "code row of whole units");
  for (int u = laneIndex() & (G - 1); u < kBytes / kUnit; u += G) {
    const uint32_t v = gatherCodeBits<BITS, kUnit>(codes, u);
    if constexpr (kUnit == 4)
      storeGlobal4(row + 4 * u, v);
    else if constexpr (kUnit == 2)
      storeGlobal2(row + 2 * u, v);
    else
      storeGlobal1(row + u, v);
  }
}

TQ_INLINE void writeF16(uint8_t *p, uint32_t bits) { storeGlobal2(p, bits); }

/* Writes a group's codes into a code row, c[i] being the code of the lane's
 * coordinate lane·E + i: packed in registers and stored by each lane
 * (numeric.h packLaneCodes) when its E codes fill whole bytes (E = 16, the
 * usual case), else through the group's shared row codes[] (writePacked);
 * so do whole-warp groups (QJL keys' loop: next to the float64 key math the
 * packed words spilled registers on sm_100 and sm_120).
 * The shared path costs a byte store per code and a gather of one load per
 * code and unit, all of it on the store's instruction budget. */
template <int D, int BITS, int G>
constexpr bool kLanePacked =
    G < kWarpSize && D / G * BITS % 8 == 0 && D / G * BITS <= 128;

/* A lane's packed code words (kLanePacked) at its place in the code row. */
template <int D, int BITS, int ALIGN, int G>
TQ_INLINE void writeLaneWords(uint8_t *row, const uint32_t (&w)[4], bool live) {
  constexpr int kBytes = D / G * BITS / 8;
  if (live)
    storeChunk<kBytes, ALIGN>(row + (laneIndex() & (G - 1)) * kBytes, w);
}

template <int D, int BITS, int ALIGN, int G>
TQ_INLINE void writeCodes(uint8_t *row, const uint32_t (&c)[D / G],
                          uint8_t *codes, bool live) {
  constexpr int E = D / G;
  const int lane = laneIndex() & (G - 1);
  if constexpr (kLanePacked<D, BITS, G>) {
    uint32_t w[4];
    packLaneCodes<E, BITS>(c, w);
    writeLaneWords<D, BITS, ALIGN, G>(row, w, live);
  } else {
    TQ_UNROLL
    for (int i = 0; i < E; ++i)
      codes[lane * E + i] = uint8_t(c[i]);
    syncWarp();
    if (live)
      writePacked<D, BITS, ALIGN, G>(row, codes);
    syncWarp(); // codes[] is reused by the next tensor
  }
}

/* The code row and the fp16 scale of a codebook vector (writeCodes; lane 0
 * of the group writes the scale). */
template <class Info, int G>
TQ_INLINE void writeCodesAndScale(uint8_t *region, int pos,
                                  const uint32_t (&c)[Info::kDim / G],
                                  uint8_t *codes, bool live,
                                  uint32_t scaleBits) {
  using TS = typename Info::TS;
  writeCodes<Info::kDim, TS::kBits, Info::kCodesAlign, G>(
      region + TS::kCodesOffset + pos * TS::kCodesStride, c, codes, live);
  if (live && (laneIndex() & (G - 1)) == 0)
    writeF16(region + TS::kScaleOffset + pos * TS::kScaleStride, scaleBits);
}

/* writeCodesAndScale from the lane's packed code words (kLanePacked). */
template <class Info, int G>
TQ_INLINE void writeWordsAndScale(uint8_t *region, int pos,
                                  const uint32_t (&w)[4], bool live,
                                  uint32_t scaleBits) {
  using TS = typename Info::TS;
  writeLaneWords<Info::kDim, TS::kBits, Info::kCodesAlign, G>(
      region + TS::kCodesOffset + pos * TS::kCodesStride, w, live);
  if (live && (laneIndex() & (G - 1)) == 0)
    writeF16(region + TS::kScaleOffset + pos * TS::kScaleStride, scaleBits);
}

constexpr float kTwo23 = 8388608.f;         // 2^23
constexpr uint32_t kTwo23Bits = 0x4b000000u; // 2^23 as a float's bits
/* 2^23 + floor(e·r) as a float's bits: roundHalfUpFloor before the bias
 * comes off (packLaneCodesBiased takes it off a word at a time). */
TQ_INLINE uint32_t roundHalfUpFloorBiased(float e, float r) {
  return floatToBits(fmaDown(e, r, kTwo23));
}
/* The uniform code floor(d / s + 1/2) of a coordinate y (d = y - z), as
 * the float64 host codec computes it, in one rounding: e = d + s/2 =
 * y - (z - s/2), r = 1/s rounded toward +infinity, and floor(e·r) from one
 * fma rounded toward -infinity onto 2^23 (the integer lands in the low
 * mantissa bits; a value below 0, of 2^23 and above, or NaN reads as a code
 * above any top, which the caller's range test on the extremes catches:
 * e·r is monotone in y). Exact half steps code up as on the host: e = k·s
 * exactly gives e·r >= k. Differs from the host's code only where e/s lies
 * within 2^b·2^-23 below an integer (r's rounding, b-bit codes), or where
 * z - s/2 or y - (z - s/2) rounds: with bf16 / fp16 inputs and an fp16 zero and scale, only vectors
 * with a coordinate or zero ~2^-19 of the scale, or an offset ~2^13 times
 * the scale, can put a coordinate there, and it then codes one step up from
 * a point indistinguishable from the boundary (a tie; the CPU emulator's
 * store check: 0 of 5990 token-heads for k3v4). Two instructions (the
 * subtraction and the fma) where an exact guess and check took seven and a
 * division ~10 (k3v4 store, sm_90: ~340 of its ~1440 instructions per
 * token). */
TQ_INLINE uint32_t roundHalfUpFloor(float e, float r) {
  return roundHalfUpFloorBiased(e, r) - kTwo23Bits;
}
/* roundHalfUpFloor clamped to [0, top] (the float clamps before the bits
 * are read, so no e·r wraps around). */
TQ_INLINE uint32_t roundHalfUpFloorClamped(float e, float r, int top) {
  const float f = fminf(fmaxf(fmaDown(e, r, kTwo23), kTwo23), kTwo23 + float(top));
  return floatToBits(f) - kTwo23Bits;
}

/* FORMATS.md's vLLM codebook key, in fp32: n = ‖k‖, y = H·(k/(n + 1e-8)),
 * idx = #{fp32 midpoints ≤ y}, n stored as fp16 (corrected at read). */
template <class Spec, bool IsKey, int G>
TQ_INLINE void storeLloydMaxVllm(const float (&x)[Spec::kHeadDim / G],
                                 uint8_t *region, int pos, const float *book,
                                 uint8_t *codes, bool live) {
  using Info = TensorInfo<Spec, IsKey>;
  using TS = typename Info::TS;
  constexpr int D = Spec::kHeadDim;
  constexpr int E = D / G;
  const float *mid = book + Info::kLevels; // fillBook's fp32 midpoints
  float y[E];
  float sq = 0.f;
  TQ_UNROLL
  for (int i = 0; i < E; ++i) {
    y[i] = x[i];
    sq = fmaf(y[i], y[i], sq);
  }
  const float n = sqrtF(groupSum<G>(sq));
  const float denom = n + 1e-8f;
  TQ_UNROLL
  for (int i = 0; i < E; ++i)
    y[i] = divF(y[i], denom);
  groupRotate<D, Info::kRounds, G>(y, TS::signs());
  uint32_t c[E];
  TQ_UNROLL
  for (int i = 0; i < E; ++i)
    c[i] = nearestIndex<TS::kBits>(mid, y[i]);
  writeCodesAndScale<Info, G>(region, pos, c, codes, live, floatToF16Bits(n));
}

/* Element formats (none / fp8 / uniform) of y = R·x. */
/* KNOWN: a uniform tensor's lane extremes come in as lo0 / hi0 (from its
 * 16-bit words, storeTensorWords) instead of from x. */
template <class Spec, bool IsKey, int G, bool KNOWN = false>
TQ_INLINE void storeElements(const float (&x)[Spec::kHeadDim / G],
                             uint8_t *region, int pos, uint8_t *codes,
                             bool live, float lo0 = 0.f, float hi0 = 0.f) {
  using Info = TensorInfo<Spec, IsKey>;
  using TS = typename Info::TS;
  constexpr int D = Spec::kHeadDim;
  constexpr int E = D / G;
  const int lane = laneIndex() & (G - 1);
  uint8_t *codesRow = region + TS::kCodesOffset + pos * TS::kCodesStride;
  using R = StoreReal<Info>;

  R y[E];
  TQ_UNROLL
  for (int i = 0; i < E; ++i)
    y[i] = x[i];
  if constexpr (Info::kRotated)
    groupRotate<D, Info::kRounds, G>(y, TS::signs());

  if constexpr (Info::kQuant == TQ_QUANT_NONE ||
                Info::kQuant == TQ_QUANT_FP8) {
    // The lane's E elements: little-endian bf16 or e4m3 of y, written in
    // chunks of up to 16 bytes.
    constexpr int kElemBytes = Info::kQuant == TQ_QUANT_NONE ? 2 : 1;
    constexpr int kBytes = E * kElemBytes, kChunk = minInt(kBytes, 16);
    constexpr int kPerWord = 4 / kElemBytes;
    uint32_t w[(kBytes + 15) / 16 * 4] = {};
    TQ_UNROLL
    for (int i = 0; i < E; ++i) {
      const uint32_t bits = kElemBytes == 2
                                ? floatToBf16Bits(toFloatOnce(y[i]))
                                : floatToE4m3Bits(toFloatOnce(y[i]));
      w[i / kPerWord] |= bits << (8 * kElemBytes * (i % kPerWord));
    }
    if (live) {
      TQ_UNROLL
      for (int c = 0; c < kBytes / kChunk; ++c) {
        const uint32_t part[4] = {w[4 * c], w[4 * c + 1], w[4 * c + 2],
                                  w[4 * c + 3]};
        storeChunk<kChunk, Info::kCodesAlign>(
            codesRow + kBytes * lane + kChunk * c, part);
      }
    }
  } else { // TQ_QUANT_UNIFORM
    constexpr int kTop = (1 << TS::kBits) - 1;
    R lo = y[0], hi = y[0];
    if constexpr (KNOWN) {
      lo = lo0, hi = hi0;
    } else {
      TQ_UNROLL
      for (int i = 1; i < E; ++i) { // min/max instructions, not compare + select
        lo = minR(lo, y[i]);
        hi = maxR(hi, y[i]);
      }
    }
    lo = groupReduce<G>(lo, [](float a, float b) { return minR(a, b); });
    hi = groupReduce<G>(hi, [](float a, float b) { return maxR(a, b); });
    // numerics uniformEncode: scale = (max − min)/(2^b − 1), at least 1e-8.
    // The codes use the fp16-rounded scale and zero, the grid the decoder
    // dequantizes on (FromStored), or with the vLLM layout's rules the
    // unrounded ones, as vLLM's store does (FromExact).
    R exact = divR(hi - lo, R(kTop));
    exact = exact > R(1e-8) ? exact : R(1e-8);
    const uint32_t s16 = toF16Bits(exact);
    const uint32_t z16 = toF16Bits(lo);
    const R s = Info::kVllmStore ? exact : R(f16BitsToFloat(s16));
    const R z = Info::kVllmStore ? lo : R(f16BitsToFloat(z16));
    // After the codes (written first, the scale and zero pushed sm_120's
    // QJL store into spills).
    auto writeScaleZero = [&] {
      if (live && lane == 0) {
        writeF16(region + TS::kScaleOffset + pos * TS::kScaleStride, s16);
        writeF16(region + TS::kZeroOffset + pos * TS::kZeroStride, z16);
      }
    };
    // bf16 inputs put (y - z) / s on exact half steps often (a
    // reciprocal's product rounded to nearest alone turned 5 of 5990
    // token-heads for k3v4 and 212 for the vLLM layout into ties on the CPU
    // emulator): the native layout rounds the half steps up as the float64
    // host does (roundHalfUpFloor), the vLLM layout takes vLLM's own fp32
    // division, then + 1/2 and floor.
    uint32_t c[E];
    if constexpr (Info::kVllmStore) {
      TQ_UNROLL
      for (int i = 0; i < E; ++i) {
        const R d = y[i] - z;
        R q = R(0);
        if (s > R(0))
          q = floorR(divR(d, s) + R(0.5));
        // NaN (a NaN coordinate, or the NaN zero point it makes) codes 0.
        q = q > R(0) ? (q > R(kTop) ? R(kTop) : q) : R(0);
        c[i] = uint32_t(q);
      }
    } else {
      // One floor per coordinate (roundHalfUpFloor); a vector with an
      // extreme code outside [0, top] (z rounded past its side) clamps every
      // coordinate. A zero scale (an fp16 underflow) has r = 0: every code
      // 0 on either path. Decided per vector, uniform over its group.
      const R zh = z - R(0.5) * s;
      const R r = s > R(0) ? rcpTowardInf(s) : R(0);
      if (roundHalfUpFloor(lo - zh, r) <= uint32_t(kTop) &&
          roundHalfUpFloor(hi - zh, r) <= uint32_t(kTop)) {
        TQ_UNROLL
        for (int i = 0; i < E; ++i)
          c[i] = roundHalfUpFloorBiased(y[i] - zh, r);
        if constexpr (kLanePacked<D, TS::kBits, G>) {
          uint32_t w[4];
          packLaneCodesBiased<E, TS::kBits, kTwo23Bits>(c, w);
          writeLaneWords<D, TS::kBits, Info::kCodesAlign, G>(codesRow, w, live);
          writeScaleZero();
          return;
        }
        TQ_UNROLL
        for (int i = 0; i < E; ++i)
          c[i] -= kTwo23Bits;
      } else {
        TQ_UNROLL
        for (int i = 0; i < E; ++i)
          c[i] = roundHalfUpFloorClamped(y[i] - zh, r, kTop);
      }
    }
    writeCodes<D, TS::kBits, Info::kCodesAlign, G>(codesRow, c, codes, live);
    writeScaleZero();
  }
}

/* Lloyd-Max (TurboQuant_mse), and with QJL TurboQuant_prod. book: levels
 * then boundaries (shared, StoreReal); codes / resid: this warp's scratch
 * (shared). */
template <class Spec, bool IsKey, int G>
TQ_INLINE void storeLloydMax(const float (&x)[Spec::kHeadDim / G],
                             uint8_t *region, int pos,
                             const StoreReal<TensorInfo<Spec, IsKey>> *book,
                             uint8_t *codes, float *resid, bool live) {
  using Info = TensorInfo<Spec, IsKey>;
  using TS = typename Info::TS;
  using R = StoreReal<Info>;
  constexpr int D = Spec::kHeadDim;
  constexpr int E = D / G;
  constexpr int K = Info::kLevels;
  static_assert(!Info::kQjl || G == kWarpSize,
                "QJL keys: one warp per token-head (one ballot per 32 rows)");
  const int lane = laneIndex() & (G - 1);

  R y[E];
  R sq = 0;
  TQ_UNROLL
  for (int i = 0; i < E; ++i) {
    y[i] = x[i];
    sq += y[i] * y[i];
  }
  const R n = sqrtR(groupSum<G>(sq));
  groupRotate<D, Info::kRounds, G>(y, TS::signs());

  // idx_j = cell of y_j / n (a zero vector quantizes 0s and stores s = 0).
  R lev[E];
  R g2 = 0;
  uint32_t c[E];
  const typename InvOf<R>::T per(n > R(0) ? n : R(1));
  TQ_UNROLL
  for (int i = 0; i < E; ++i) {
    const R u = n > R(0) ? per.of(y[i]) : R(0);
    c[i] = nearestIndex<TS::kBits>(book + K, u);
    lev[i] = book[c[i]];
    g2 += lev[i] * lev[i];
    if constexpr (Info::kQjl) // float64 registers are scarce: codes go out
      codes[lane * E + i] = uint8_t(c[i]);
  }
  g2 = groupSum<G>(g2);
  R s = n;
  if constexpr (TS::kNormCorrect)
    if (n > R(0))
      s = divR(n, sqrtR(g2));
  const uint32_t s16 = toF16Bits(s);
  uint8_t *codesRow = region + TS::kCodesOffset + pos * TS::kCodesStride;
  if constexpr (Info::kQjl) { // through shared memory (spilled at D=256)
    syncWarp();
    if (live)
      writePacked<D, TS::kBits, Info::kCodesAlign, G>(codesRow, codes);
  } else {
    writeCodes<D, TS::kBits, Info::kCodesAlign, G>(codesRow, c, codes, live);
  }
  if (live && lane == 0)
    writeF16(region + TS::kScaleOffset + pos * TS::kScaleStride, s16);

  if constexpr (Info::kQjl) {
    // Residual in the original domain against the stored (fp16) scale:
    // r = x − Rᵀ(s16·c[idx]), the residual the decoder's estimate sees.
    const double s16d = f16BitsToFloat(s16);
    double r[E];
    TQ_UNROLL
    for (int i = 0; i < E; ++i)
      r[i] = s16d * lev[i];
    warpRotateInverse<D, Info::kRounds>(r, TS::signs());
    double rr = 0;
    TQ_UNROLL
    for (int i = 0; i < E; ++i) {
      r[i] = double(x[i]) - r[i];
      rr += r[i] * r[i];
      resid[lane * E + i] = float(r[i]);
    }
    const uint32_t gamma16 = doubleToF16Bits(sqrtRn(warpSum(rr)));
    if (live && lane == 0)
      writeF16(region + TS::kGammaOffset + pos * TS::kGammaStride, gamma16);
    syncWarp();
    // Sign bit i = [ (S·r)_i >= 0 ]: lane l computes rows 32k + l, and one
    // ballot per k gives sign word k.
    const float *S = Spec::qjlMatrix();
    uint8_t *signsRow = region + TS::kSignsOffset + pos * TS::kSignsStride;
    const bool vec = isAligned(S, 16);
    TQ_UNROLL
    for (int k = 0; k < D / kWarpSize; ++k) {
      const float *srow = S + (k * kWarpSize + lane) * D;
      float p = 0.f;
      if (vec) {
        TQ_NO_UNROLL
        for (int j = 0; j < D; j += 4) {
          const u32x4 v = loadGlobal16(srow + j);
          p = fmaf(bitsToFloat(v.x), resid[j], p);
          p = fmaf(bitsToFloat(v.y), resid[j + 1], p);
          p = fmaf(bitsToFloat(v.z), resid[j + 2], p);
          p = fmaf(bitsToFloat(v.w), resid[j + 3], p);
        }
      } else {
        TQ_NO_UNROLL
        for (int j = 0; j < D; ++j)
          p = fmaf(srow[j], resid[j], p);
      }
      const uint32_t word = ballot(p >= 0.f);
      if (live && lane == k) {
        if constexpr (Info::kSignsAlign >= 4) {
          storeGlobal4(signsRow + 4 * k, word);
        } else {
          TQ_UNROLL
          for (int i = 0; i < 4; ++i)
            storeGlobal1(signsRow + 4 * k + i, word >> (8 * i));
        }
      }
    }
    syncWarp(); // codes[] and resid[] are reused by the next tensor
  }
}

/* Lloyd-Max codes of 2..4 bits from float signs, packed as they are made
 * (storeLloydMaxRegs). With NT = M - 1 positive thresholds t_0 < ... and
 * D_k = |u| - t_k, mm = #{k : D_k < 0} (the thresholds above |u|) is a
 * thermometer code: [mm >= j] is D_{M-1-j}'s sign bit, and bit b of mm is
 * the XOR of [mm >= j] over the multiples j of 2^b. A code is
 * mm ^ (~neg & (K - 1)) (storeLloydMaxRegs), so its bit b < BITS - 1 is
 * mm's bit b XOR n and its top bit is n, n = ~sign(u): every code bit is
 * bit 31 of a logic op on float bit patterns. A funnel shift then inserts
 * each at the bottom of its stream word, from the stream's top bit down
 * (Horner): one FADD per threshold, a logic op or two and one shift per
 * code bit, where compares, selects, adds and a shift-or took ~14
 * instructions per 3-bit code (k3v4 store, sm_90). */
template <int E, int BITS, int NT>
TQ_INLINE void signCellCodes(const float (&y)[E], const float (&thr)[NT],
                             uint32_t (&w)[4]) {
  constexpr int M = 1 << (BITS - 1);
  static_assert(BITS >= 2 && BITS <= 4 && NT == M - 1 && E * BITS <= 128,
                "2..4-bit codes, <= 16 bytes per lane");
  TQ_UNROLL
  for (int k = 0; k < 4; ++k)
    w[k] = 0;
  TQ_UNROLL
  for (int i = E - 1; i >= 0; --i) {
    // u's sign bit, with u = -0.0 as +0 (the host's -0.0 < 0 is false):
    // Y & (Y - 1) clears bit 31 only for Y = 0x80000000. The code bits are
    // inserted inverted (from the sign bit, not n) and the words flipped
    // once at the end.
    const uint32_t bits = floatToBits(y[i]);
    const uint32_t sign = bits & (bits - 1u);
    uint32_t d[NT];
    TQ_UNROLL
    for (int k = 0; k < NT; ++k)
      d[k] = floatToBits(fabsf(y[i]) - thr[k]);
    TQ_UNROLL
    for (int b = BITS - 1; b >= 0; --b) {
      uint32_t v = sign;
      if (b < BITS - 1) {
        TQ_UNROLL
        for (int j = 1 << b; j <= M - 1; j += 1 << b)
          v ^= d[M - 1 - j];
      }
      const int q = i * BITS + b; // stream bit
      w[q >> 5] = funnelShiftRight(v, w[q >> 5], 31u);
    }
  }
  TQ_UNROLL
  for (int k = 0; k < (E * BITS + 31) / 32; ++k)
    w[k] = ~w[k] & (E * BITS - 32 * k >= 32 ? ~0u : (1u << (E * BITS - 32 * k)) - 1u);
}

/* The stream bits of word wi that start a code (E codes of BITS bits). */
template <int E, int BITS>
constexpr uint32_t codeStartMask(int wi) {
  uint32_t m = 0;
  for (int p = 0; p < 32; ++p) {
    const int q = 32 * wi + p;
    if (q < E * BITS && q % BITS == 0)
      m |= 1u << p;
  }
  return m;
}

/* cnt[j - 1] = #{codes with mm >= j}, j = 1 .. M - 1, of signCellCodes'
 * words: mm's bits are each code's low bits XOR its top bit; compared
 * with j bit-sliced (32 codes' bit b at once) and counted. */
template <int E, int BITS>
TQ_INLINE void countCellsAbove(const uint32_t (&w)[4],
                               int (&cnt)[(1 << (BITS - 1)) - 1]) {
  constexpr int M = 1 << (BITS - 1), NW = (E * BITS + 31) / 32;
  TQ_UNROLL
  for (int j = 0; j < M - 1; ++j)
    cnt[j] = 0;
  TQ_UNROLL
  for (int wi = 0; wi < NW; ++wi) {
    const uint32_t hi = wi + 1 < NW ? w[wi + 1] : 0u;
    const uint32_t top = funnelShiftRight(w[wi], hi, uint32_t(BITS - 1));
    uint32_t q[BITS - 1]; // mm's bit b, at each code's first stream bit
    TQ_UNROLL
    for (int b = 0; b < BITS - 1; ++b)
      q[b] = (b == 0 ? w[wi] : funnelShiftRight(w[wi], hi, uint32_t(b))) ^ top;
    TQ_UNROLL
    for (int j = 1; j <= M - 1; ++j) {
      // mm >= j, bit-sliced from the top bit of mm down.
      uint32_t gt = 0u, eq = ~0u;
      TQ_UNROLL
      for (int b = BITS - 2; b >= 0; --b) {
        if ((j >> b) & 1)
          eq &= q[b];
        else
          gt |= eq & q[b], eq &= ~q[b];
      }
      cnt[j - 1] += popCount((gt | eq) & codeStartMask<E, BITS>(wi));
    }
  }
}

/* Whether storeLloydMaxRegs rotates a tensor's first round on tensor cores
 * (then the CTA fills its D1 masks, fillPairSignMasks). */
template <class Spec, int G>
constexpr bool kQuadMma = G == 4 && kTargetHasWarpMma;

/* The Lloyd-Max path of the native layout in float32 (every Lloyd-Max
 * tensor but QJL keys and the vLLM layout): the cell search against
 * boundaries held in registers, scaled by the vector's norm once, instead
 * of a binary search through shared memory per coordinate (three dependent
 * shared loads, compares and address math: ~210 of the k3v4 store's 1448
 * SASS instructions on sm_90). The codebook is symmetric by construction
 * (numerics codebook.cpp mirrors a positive half; boundary K/2 - 1 is 0),
 * so a coordinate's cell is its magnitude's cell among the M = K/2 positive
 * ones, mirrored below zero: code = M + m above zero, M - 1 - m below, m =
 * #{positive boundaries <= |u|}. A boundary exactly at |u| (float32 ties)
 * may fall on the other side than the float64 host's; the budget covers it.
 * Norm correction: Σ c[code]² from the counts of coordinates above each
 * positive boundary (the squared levels depend on m alone).
 * With four lanes per vector on a target with mma.sync, the first
 * rotation round runs on tensor cores (rotate_mma.h) from the raw
 * activations w; the norm then comes from the rotated vector (H is
 * orthogonal; the same float32 rounding as Σ x²). */
template <class Spec, bool IsKey, int G, class T>
TQ_INLINE void storeLloydMaxRegs(const uint32_t (&w)[Spec::kHeadDim / G / 2],
                                 const uint32_t *pairMasks, uint8_t *region,
                                 int pos, bool live) {
  using Info = TensorInfo<Spec, IsKey>;
  using TS = typename Info::TS;
  constexpr int D = Spec::kHeadDim, E = D / G, K = Info::kLevels, M = K / 2;
  static_assert(K >= 2 && E % 2 == 0, "Lloyd-Max: 1..8 bits, whole words");
  const int gl = laneIndex() & (G - 1);
  constexpr int W = D / kWarpSize; // sign words per mask
  const uint32_t *signs = TS::signs();

  float y[E];
  float yn; // the norm in y's units
  float n;  // the vector's norm
  if constexpr (kQuadMma<Spec, G>) {
    quadHadamardMma<D, DType<T>::kIsBf16>(w, pairMasks, y);
    applySigns(y, laneSignBits<D, G>(signs + W, gl)); // round 0's D2
    constexpr float kScale = float(hadamardScale(D));
    if constexpr (Info::kRounds > 1) { // later rounds: rotate.h, normalized
      TQ_UNROLL
      for (int i = 0; i < E; ++i)
        y[i] *= kScale;
      groupRotateRounds<D, 1, Info::kRounds, G>(y, signs);
    }
    float sq = 0.f;
    TQ_UNROLL
    for (int i = 0; i < E; ++i)
      sq = fmaf(y[i], y[i], sq);
    yn = sqrtF(groupSum<G>(sq));
    n = Info::kRounds > 1 ? yn : yn * kScale;
  } else {
    floatsOfWords<T, E>(w, y);
    float sq = 0.f;
    TQ_UNROLL
    for (int i = 0; i < E; ++i)
      sq = fmaf(y[i], y[i], sq);
    n = sqrtF(groupSum<G>(sq));
    yn = n;
    groupRotate<D, Info::kRounds, G>(y, signs);
  }

  // Positive boundaries 1 .. M-1 (the midpoints fillBook computes), scaled
  // by the norm; a zero vector quantizes u = 0 (code M): thresholds at
  // infinity. Squared levels as float, as Σ c² was summed before. The
  // levels are the Spec's constant expressions (TS::level), so the
  // midpoints and squares fold at compile time: from the `__constant__`
  // array they cost a cold load and a float64 add, multiply and convert
  // per boundary on every vector's path to its cell search.
  float thr[M > 1 ? M - 1 : 1], step[M > 1 ? M - 1 : 1];
  const float c0 = float(TS::level(M));
  float prev = c0 * c0;
  TQ_UNROLL
  for (int k = 1; k < M; ++k) {
    const float b = float(0.5 * (TS::level(M + k - 1) + TS::level(M + k)));
    thr[k - 1] = n > 0.f ? b * yn : posInf();
    const float c = float(TS::level(M + k));
    step[k - 1] = c * c - prev;
    prev = c * c;
  }
  float g2 = float(E) * c0 * c0;
  uint32_t cw[4]; // the lane's code stream (E codes, packLaneCodes' order)
  if constexpr (TS::kBits >= 2 && TS::kBits <= 4) {
    signCellCodes<E, TS::kBits, M - 1>(y, thr, cw);
    int atLeast[M - 1]; // #{mm >= j}; #{|u| >= t_k} = E - #{mm >= M - 1 - k}
    countCellsAbove<E, TS::kBits>(cw, atLeast);
    TQ_UNROLL
    for (int k = 0; k < M - 1; ++k)
      g2 = fmaf(float(E - atLeast[M - 2 - k]), step[k], g2);
  } else {
    // Other widths from masks (all ones = -1): mm = #{thresholds above
    // |u|} = M - 1 - m as the negated sum of the "below" masks, the code
    // mm ^ (~neg & (K - 1)): M + m = (K - 1) ^ mm above zero, M - 1 - m = mm
    // below. below[k] sums the masks too: -#{|u| < threshold k}.
    uint32_t c[E];
    uint32_t below[M > 1 ? M - 1 : 1] = {};
    TQ_UNROLL
    for (int i = 0; i < E; ++i) {
      const float a = fabsf(y[i]);
      uint32_t sum = 0;
      TQ_UNROLL
      for (int k = 0; k < M - 1; ++k) {
        const uint32_t lt = maskLt(a, thr[k]);
        sum += lt;
        below[k] += lt;
      }
      c[i] = (0u - sum) ^ (~maskLt(y[i], 0.f) & uint32_t(K - 1));
    }
    TQ_UNROLL
    for (int k = 0; k < M - 1; ++k)
      g2 = fmaf(float(E - int(0u - below[k])), step[k], g2);
    packLaneCodes<E, TS::kBits>(c, cw);
  }
  g2 = groupSum<G>(g2);
  float s = n;
  if constexpr (TS::kNormCorrect)
    if (n > 0.f)
      s = divF(n, sqrtF(g2));
  writeWordsAndScale<Info, G>(region, pos, cw, live, floatToF16Bits(s));
}

/* Whether a tensor takes storeLloydMaxRegs (float32 native Lloyd-Max, codes
 * packed in registers). */
template <class Spec, bool IsKey, int G>
constexpr bool kLloydMaxRegs =
    TensorInfo<Spec, IsKey>::kQuant == TQ_QUANT_LLOYD_MAX &&
    !TensorInfo<Spec, IsKey>::kQjl && !TensorInfo<Spec, IsKey>::kVllmStore &&
    kLanePacked<Spec::kHeadDim, TensorInfo<Spec, IsKey>::TS::kBits, G>;

template <class Spec, bool IsKey, int G>
TQ_INLINE void storeTensor(const float (&x)[Spec::kHeadDim / G],
                           uint8_t *region, int pos,
                           const StoreReal<TensorInfo<Spec, IsKey>> *book,
                           uint8_t *codes, float *resid, bool live) {
  using Info = TensorInfo<Spec, IsKey>;
  if constexpr (Info::kQuant == TQ_QUANT_LLOYD_MAX && Info::kVllmStore)
    storeLloydMaxVllm<Spec, IsKey, G>(x, region, pos, book, codes, live);
  else if constexpr (Info::kQuant == TQ_QUANT_LLOYD_MAX)
    storeLloydMax<Spec, IsKey, G>(x, region, pos, book, codes, resid, live);
  else
    storeElements<Spec, IsKey, G>(x, region, pos, codes, live);
}

/* The extremes of a lane's N 16-bit floats (two per word) in float, as
 * minR / maxR over their floats would give them (exact: a 16-bit float's
 * float is exact; NaN stays NaN): packed min/max, two coordinates per
 * instruction, in two chains (half the latency; a tree of pairs was not
 * unrolled and put the words on the stack). */
template <class T, int NW>
TQ_INLINE void wordExtremes(const uint32_t (&w)[NW], float &lo, float &hi) {
  constexpr bool BF = DType<T>::kIsBf16;
  static_assert(NW >= 2, "two chains of words");
  uint32_t l[2] = {w[0], w[1]}, h[2] = {w[0], w[1]};
  TQ_UNROLL
  for (int i = 2; i < NW; ++i) {
    l[i & 1] = minNaN2<BF>(l[i & 1], w[i]);
    h[i & 1] = maxNaN2<BF>(h[i & 1], w[i]);
  }
  l[0] = minNaN2<BF>(l[0], l[1]);
  h[0] = maxNaN2<BF>(h[0], h[1]);
  lo = minR(DType<T>::toFloat(l[0] & 0xffffu), DType<T>::toFloat(l[0] >> 16));
  hi = maxR(DType<T>::toFloat(h[0] & 0xffffu), DType<T>::toFloat(h[0] >> 16));
}

/* storeTensor from the raw 16-bit activations of a group of G < 32 lanes:
 * storeLloydMaxRegs where it applies (it may rotate the raw bits on tensor
 * cores), the float paths otherwise. */
template <class Spec, bool IsKey, int G, class T>
TQ_INLINE void storeTensorWords(const uint32_t (&w)[Spec::kHeadDim / G / 2],
                                const uint32_t *pairMasks, uint8_t *region,
                                int pos,
                                const StoreReal<TensorInfo<Spec, IsKey>> *book,
                                uint8_t *codes, float *resid, bool live) {
  using Info = TensorInfo<Spec, IsKey>;
  constexpr int E = Spec::kHeadDim / G;
  if constexpr (kLloydMaxRegs<Spec, IsKey, G>) {
    storeLloydMaxRegs<Spec, IsKey, G, T>(w, pairMasks, region, pos, live);
  } else if constexpr (kTargetHasPackedMinMax &&
                       Info::kQuant == TQ_QUANT_UNIFORM && !Info::kRotated) {
    // An unrotated uniform tensor's extremes from its raw words: half the
    // k3v4 value's 62 FMNMX, on the store's busiest pipe (ALU 64 %,
    // session 16). With session 32's other cut it moved the 32-token step
    // 3.69 -> 3.57 us and the 16K chunk not at all (H100,
    // bench/results/2026-12-07-session33 run1 against session 23's run1).
    float lo, hi;
    wordExtremes<T>(w, lo, hi);
    float x[E];
    floatsOfWords<T, E>(w, x);
    storeElements<Spec, IsKey, G, true>(x, region, pos, codes, live, lo, hi);
  } else {
    float x[E];
    floatsOfWords<T, E>(w, x);
    storeTensor<Spec, IsKey, G>(x, region, pos, book, codes, resid, live);
  }
}

/* Lanes per token-head (header comment): four up to head_dim 128 (E =
 * head_dim / 4 coordinates per lane: the rotation's first round on tensor
 * cores, rotate_mma.h, and two shuffle stages per reduction), head_dim / 16
 * above (16 per lane: 32 at head_dim 256 would hold 128 floats per lane),
 * or a warp for QJL keys. */
template <class Spec>
constexpr int kStoreGroup = TensorInfo<Spec, true>::kQjl ? kWarpSize
                            : Spec::kHeadDim <= 128  ? 4
                                                     : Spec::kHeadDim / 16;

/* What a CTA that stores tokens keeps in shared memory: the codebooks of the paths that search them there (QJL keys, the
 * vLLM layout; storeLloydMaxRegs keeps its boundaries in registers), the
 * code rows of the paths that pack through shared memory (one per lane
 * group), the QJL residuals (one per warp), and the D1 masks of the
 * tensors rotated on tensor cores. The kernel declares each array itself
 * (StoreTables' sizes), so ptxas drops the ones its paths never touch; the
 * store kernel and the extend prep (which stores the chunk it reads, when
 * asked) fill them with fillStoreTables. */
template <class Spec, int NW> struct StoreTables {
  using KInfo = TensorInfo<Spec, true>;
  using VInfo = TensorInfo<Spec, false>;
  static constexpr int D = Spec::kHeadDim, G = kStoreGroup<Spec>;
  static constexpr int kGroups = NW * (kWarpSize / G);
  static constexpr int kKeyLevels = 2 * KInfo::kLevels;
  static constexpr int kValueLevels = 2 * VInfo::kLevels;
  static constexpr int kResid = KInfo::kQjl ? D : 1;
  static constexpr bool kKeyBook = KInfo::kQuant == TQ_QUANT_LLOYD_MAX &&
                                   !kLloydMaxRegs<Spec, true, G>;
  static constexpr bool kValueBook = VInfo::kQuant == TQ_QUANT_LLOYD_MAX &&
                                     !kLloydMaxRegs<Spec, false, G>;
  static constexpr bool kKeyMma =
      kLloydMaxRegs<Spec, true, G> && kQuadMma<Spec, G>;
  static constexpr bool kValueMma =
      kLloydMaxRegs<Spec, false, G> && kQuadMma<Spec, G>;
};

/* Fills what the Spec needs of StoreTables (warps 0 and NW - 1 of the NW
 * that store; `warp`: this warp's index among them), then, where kSync,
 * one barrier if anything was filled: every thread of the CTA calls it.
 * Without kSync the caller orders the fill before the tables' first use. */
template <class Spec, int NW, bool kSync = true>
TQ_INLINE void fillStoreTables(StoreReal<TensorInfo<Spec, true>> *keyBook,
                               StoreReal<TensorInfo<Spec, false>> *valueBook,
                               uint32_t (*pairMasks)[Spec::kHeadDim / 2],
                               int warp = warpIndex()) {
  using Tb = StoreTables<Spec, NW>;
  if constexpr (Tb::kKeyBook)
    if (warp == 0)
      fillBook<typename Tb::KInfo>(keyBook, Spec::keyLevels());
  if constexpr (Tb::kValueBook)
    if (warp == NW - 1)
      fillBook<typename Tb::VInfo>(valueBook, Spec::valueLevels());
  if constexpr (Tb::kKeyMma)
    if (warp == 0)
      fillPairSignMasks<Tb::D>(pairMasks[0], Spec::keySigns());
  if constexpr (Tb::kValueMma)
    if (warp == NW - 1)
      fillPairSignMasks<Tb::D>(pairMasks[1], Spec::valueSigns());
  if constexpr (kSync && (Tb::kKeyBook || Tb::kValueBook || Tb::kKeyMma ||
                          Tb::kValueMma))
    barrier();
}

/* The KV head that lane group `group` takes in the round of heads starting
 * at h0: h0 + group, or head 0 past the last head (the group computes on
 * it without writing: every lane joins the warp's shuffles and mma). */
template <class Spec> TQ_INLINE bool roundHeadLive(int h0, int group) {
  return h0 + group < Spec::kNumKVHeads;
}
template <class Spec> TQ_INLINE int roundHead(int h0, int group) {
  return roundHeadLive<Spec>(h0, group) ? h0 + group : 0;
}

/* The raw words of KV head h of a token's key and value rows (keyRow /
 * valueRow) for this lane of its group of G < 32 lanes. */
template <class Spec, class T>
TQ_INLINE void loadStoreRound(
    const T *keyRow, int64_t keyStrideHead, const T *valueRow,
    int64_t valueStrideHead, int h,
    uint32_t (&wk)[Spec::kHeadDim / kStoreGroup<Spec> / 2],
    uint32_t (&wv)[Spec::kHeadDim / kStoreGroup<Spec> / 2]) {
  constexpr int G = kStoreGroup<Spec>, E = Spec::kHeadDim / G;
  const int gl = laneIndex() & (G - 1);
  loadRowWords<E>(keyRow + h * keyStrideHead + gl * E, wk);
  loadRowWords<E>(valueRow + h * valueStrideHead + gl * E, wv);
}

/* Compresses KV head h of a token (loadStoreRound's words) into cache slot
 * `slot` (>= 0), writing nothing unless `live`: every lane of the warp
 * calls it (a group with no head of its own computes on one without
 * writing, since every lane joins the warp's shuffles and mma). The
 * shared tables as fillStoreTables left them; codes: the group's row,
 * resid: the warp's. */
template <class Spec, class T>
TQ_INLINE void storeRoundWords(
    const uint32_t (*pairMasks)[Spec::kHeadDim / 2],
    const StoreReal<TensorInfo<Spec, true>> *keyBook,
    const StoreReal<TensorInfo<Spec, false>> *valueBook, uint8_t *codes,
    float *resid, uint8_t *cache, int64_t slot, int h, bool live,
    const uint32_t (&wk)[Spec::kHeadDim / kStoreGroup<Spec> / 2],
    const uint32_t (&wv)[Spec::kHeadDim / kStoreGroup<Spec> / 2]) {
  constexpr int G = kStoreGroup<Spec>;
  uint8_t *region = cache + (slot / Spec::kBlockSize) * Spec::kBlockStride +
                    int64_t(h) * Spec::kHeadStride;
  const int pos = int(slot % Spec::kBlockSize);
  storeTensorWords<Spec, true, G, T>(wk, pairMasks[0], region, pos, keyBook,
                                     codes, resid, live);
  storeTensorWords<Spec, false, G, T>(wv, pairMasks[1], region, pos,
                                      valueBook, codes, resid, live);
}

} // namespace store_detail

namespace store_detail {
template <class...> using VoidT = void;
} // namespace store_detail

/* Tokens per store CTA: the Spec's kStoreTileTokens where it has one (the
 * compiler's, TQ_STORE_TILE_TOKENS), else 1. */
template <class Spec, class = void> struct StoreTile {
  static constexpr int kTokens = 1;
};
template <class Spec>
struct StoreTile<Spec,
                 store_detail::VoidT<decltype(Spec::kStoreTileTokens)>> {
  static constexpr int kTokens = Spec::kStoreTileTokens;
};

template <class Spec, class T> TQ_INLINE void store(const tq_store_args &a) {
  using namespace store_detail;
  constexpr int D = Spec::kHeadDim;
  constexpr int NW = Spec::kStoreWarps;
  constexpr int kTile = StoreTile<Spec>::kTokens;
  static_assert(isPow2(D) && D >= 32 && D <= 256,
                "head_dim: a power of two in 32..256");
  static_assert(isPow2(Spec::kBlockSize), "block_size: a power of two");
  static_assert(NW >= 1 && NW <= 32, "kStoreWarps: 1..32");
  static_assert(kTile >= 1 && kTile <= 64, "kStoreTileTokens: 1..64");

  // CTA x stores tokens [x·kTile, x·kTile + kTile) (grid token_tiles; one
  // token per CTA by default, grid max_tokens).
  const int first = blockIndexX() * kTile;
  if (first >= a.num_tokens)
    return;

  constexpr int G = kStoreGroup<Spec>, GPW = kWarpSize / G; // groups / warp
  constexpr int kGroups = NW * GPW, E = D / G;
  const int warp = warpIndex(), gl = laneIndex() & (G - 1);
  const int group = warp * GPW + laneIndex() / G;
  auto keysOf = [&](int token) {
    return static_cast<const T *>(a.key) + token * a.key_stride_token;
  };
  auto valuesOf = [&](int token) {
    return static_cast<const T *>(a.value) + token * a.value_stride_token;
  };
  // A round's words per lane (lane groups: G < 32; 1 keeps the QJL
  // keys' warp-per-head path, which has no rounds, well-formed at D = 32).
  constexpr int EW = G < kWarpSize ? E / 2 : 1;
  auto loadRound = [&](int token, int h0, uint32_t(&wk)[EW],
                       uint32_t(&wv)[EW]) {
    if constexpr (G < kWarpSize)
      loadStoreRound<Spec, T>(keysOf(token), a.key_stride_head,
                              valuesOf(token), a.value_stride_head,
                              roundHead<Spec>(h0, group), wk, wv);
  };
  // A 1-token CTA's slot, then the first round's rows (lane groups), are
  // loaded ahead of the tables' fill, and the slot's padding test follows
  // the fill: one DRAM round trip per CTA. Before, the CTA waited for its
  // slot, then issued its row loads behind the fill's barrier and waited
  // again (ncu, session 33: 28 % of the stall samples); testing the slot
  // before the fill only moved that wait there. Every token's rows exist,
  // whatever its slot. A 32-token step 3.57 -> 3.35 us on an H100; the 16K
  // chunk flat in store_bench, 3 % slower under ncu (session 16 saw a
  // similar order cost its chunk 4 %; bench/results/2026-12-07-session33
  // runs 1-4). TQ_STORE_EARLY_LOADS=0 restores the order before (A/B
  // runs): session 34's run1 gave it the paged chunk 2.2 % faster (36.7 ->
  // 35.9 us) and the step 5.7 % slower (3.36 -> 3.55 us); the default
  // keeps the step (bench/results/2026-12-07-session34).
#ifdef TQ_STORE_EARLY_LOADS
  constexpr bool kEarlyLoads = TQ_STORE_EARLY_LOADS != 0;
#else
  constexpr bool kEarlyLoads = true;
#endif
  const int64_t slot0 = kTile == 1 ? a.slot_mapping[first] : -1;
  if (!kEarlyLoads && kTile == 1 && slot0 < 0)
    return; // the whole CTA leaves together, before any barrier
  uint32_t wk[EW], wv[EW];
  if constexpr (G < kWarpSize && kEarlyLoads)
    loadRound(first, 0, wk, wv);

  using Tb = StoreTables<Spec, NW>;
  TQ_SHARED StoreReal<typename Tb::KInfo> sKeyBook[Tb::kKeyLevels];
  TQ_SHARED StoreReal<typename Tb::VInfo> sValueBook[Tb::kValueLevels];
  TQ_SHARED uint8_t sCodes[kGroups][D];
  TQ_SHARED float sResid[NW][Tb::kResid];
  TQ_SHARED TQ_ALIGN(16) uint32_t sPairMasks[2][D / 2];
  fillStoreTables<Spec, NW>(sKeyBook, sValueBook, sPairMasks);
  if (kTile == 1 && slot0 < 0) // uniform: the whole CTA leaves, no barrier
    return;                    // follows
  if constexpr (G < kWarpSize && !kEarlyLoads)
    loadRound(first, 0, wk, wv);

  if constexpr (G == kWarpSize) {
    // A warp per token-head (QJL keys): the warps take the heads in turn,
    // the value row loaded after the key's float64 math (registers).
    for (int t = 0; t < kTile && first + t < a.num_tokens; ++t) {
      const int token = first + t;
      const int64_t slot = kTile == 1 ? slot0 : a.slot_mapping[token];
      if (slot < 0)
        continue;
      const int64_t block = slot / Spec::kBlockSize;
      const int pos = int(slot % Spec::kBlockSize);
      for (int h = warp; h < Spec::kNumKVHeads; h += NW) {
        uint8_t *region = a.cache + block * Spec::kBlockStride +
                          int64_t(h) * Spec::kHeadStride;
        float x[E];
        loadRows<T, E>(keysOf(token) + h * a.key_stride_head + gl * E, x);
        storeTensor<Spec, true, G>(x, region, pos, sKeyBook, sCodes[group],
                                   sResid[warp], true);
        loadRows<T, E>(valuesOf(token) + h * a.value_stride_head + gl * E, x);
        storeTensor<Spec, false, G>(x, region, pos, sValueBook,
                                    sCodes[group], sResid[warp], true);
      }
    }
  } else {
    // Rounds over the heads, uniform over the CTA: every lane of a warp
    // runs the same code (its groups' shuffles are warp-wide); a group past
    // the last head redoes head 0 without writing.
    auto storeRound = [&](int64_t slot, int h0, const uint32_t(&wk)[E / 2],
                          const uint32_t(&wv)[E / 2]) {
      storeRoundWords<Spec, T>(sPairMasks, sKeyBook, sValueBook,
                               sCodes[group], sResid[warp], a.cache, slot,
                               roundHead<Spec>(h0, group),
                               roundHeadLive<Spec>(h0, group), wk, wv);
    };
    // Both rows of a round first: the value's load overlaps the key's math.
    // With several tokens per CTA, the next token's first round (rows and
    // slot) is loaded before this token's math, so a warp's loads overlap
    // its own compute rather than only other warps'.
    int64_t slot = kTile == 1 ? slot0 : a.slot_mapping[first];
    TQ_NO_UNROLL
    for (int t = 0; t < kTile; ++t) {
      const int token = first + t;
      const bool more = t + 1 < kTile && token + 1 < a.num_tokens;
      uint32_t nk[E / 2], nv[E / 2];
      int64_t nextSlot = -1;
      if (kTile > 1 && more) {
        loadRound(token + 1, 0, nk, nv);
        nextSlot = a.slot_mapping[token + 1];
      }
      if (slot >= 0) { // uniform over the CTA
        storeRound(slot, 0, wk, wv);
        for (int h0 = kGroups; h0 < Spec::kNumKVHeads; h0 += kGroups) {
          uint32_t rk[E / 2], rv[E / 2];
          loadRound(token, h0, rk, rv);
          storeRound(slot, h0, rk, rv);
        }
      }
      if (!more)
        break;
      TQ_UNROLL
      for (int i = 0; i < E / 2; ++i)
        wk[i] = nk[i], wv[i] = nv[i];
      slot = nextSlot;
    }
  }
}

} // namespace tq

#endif // TQ_STORE_H
