/*===- rotate_mma.h - First Hadamard round of a 4-lane group on mma.sync ---===*
 *
 * The store's first rotation round, H·D1·x (rotate.h has the definition),
 * for a vector held as raw 16-bit activations by an aligned group of four
 * lanes: lane q of the group holds coordinates [q·E, q·E + E), E = D/4, two
 * to a 32-bit word (the lower coordinate in the low half), as loaded.
 *
 * Why: the store is instruction-bound (docs/NOTES.md, "Store, session 6"),
 * and an in-register FWHT costs log2(D) adds per coordinate plus a shuffle
 * and an fma per cross-lane stage. Sylvester's H factors over any split of
 * the index bits, H_D[i][j] = (-1)^popc(i & j) = (-1)^popc(i_in & j_in) ·
 * (-1)^popc(i_out & j_out), so four of the seven bits (D = 128) go through
 * one tensor-core product with a 16x16 ±1 matrix and the other three stay
 * as in-lane butterflies: 3 adds per coordinate and no shuffles.
 *
 * Which bits are "inner" (the mma's k and n) is chosen so that nothing moves
 * between registers: a lane's 16-byte load t holds its coordinates 8t..8t+7,
 * and the mma's A fragment (a0 = row g cols 2q..2q+1, a1 = row g+8 cols
 * 2q..2q+1, a2 = row g cols 2q+8..2q+9, a3 = row g+8 cols 2q+8..2q+9; g =
 * lane/4 is the group, which is the row, so the group's vector is rows g and
 * g + 8) takes those four words as they are, with in-lane coordinate
 * e = 8t + 4o + 2h + δ: δ (bit 0), h (bit 1) and the lane q (bits log2 E and
 * up) are inner, o (bit 2, row g or g+8) and t (the m-tile) outer. The
 * output columns map the same way (ν = bit 0, n-tile = bit 1, lane = the
 * high bits), so lane q receives its own coordinates back.
 *
 * Products of activations with ±1 are exact and the sums are fp32: the
 * float64 host codec and this differ by rounding only, as the float32 FWHT
 * did (the store's tie budget, store.h). Output unnormalized: y = H_u·D1·x,
 * H_u the ±1 Sylvester matrix (the caller applies 1/√D where it needs it).
 *===----------------------------------------------------------------------===*/
#ifndef TQ_ROTATE_MMA_H
#define TQ_ROTATE_MMA_H

#include "tq/numeric.h"
#include "tq/rotate.h"

namespace tq {

/* Parity of a 4-bit value (the sign of H_16's entry for popc(i & j)). */
TQ_INLINE uint32_t parity4(uint32_t x) {
  x ^= x >> 2;
  x ^= x >> 1;
  return x & 1u;
}

/* XOR mask flipping the 16-bit elements of word k (coordinates 2k, 2k+1 of
 * a 32-coordinate run) whose sign bit is set (bit i of `bits`: coordinate
 * i of the run). */
TQ_INLINE uint32_t pairSignMask(uint32_t bits, int k) {
  const uint32_t two = (bits >> (2 * k)) & 3u;
  // bit 0 -> bit 15, bit 1 -> bit 31 (the products do not overlap).
  return (two * 0x40008000u) & 0x80008000u;
}

/* The XOR masks of a D1 sign vector for every word of a row (D/2 words,
 * pairSignMask of each), written by one whole warp; the lanes of a warp
 * need them four ways, so one fill per CTA replaces 16 computations per
 * lane (~64 instructions at head_dim 128). */
template <int D>
TQ_INLINE void fillPairSignMasks(uint32_t *masks, const uint32_t *d1) {
  TQ_UNROLL
  for (int j = 0; j < (D / 2 + kWarpSize - 1) / kWarpSize; ++j) {
    const int k = laneIndex() + j * kWarpSize;
    if (D / 2 % kWarpSize == 0 || k < D / 2)
      masks[k] = pairSignMask(d1[k >> 4], k & 15);
  }
}

/* y = H_u·D1·x for the lane's E = D/4 coordinates (the group of four lanes
 * holding the vector); w: the lane's raw words (E/2); masks: the D1 masks
 * of the row's D/2 words (fillPairSignMasks; shared, 16-byte aligned).
 * Every lane of the warp must call it (mma.sync is warp-wide). */
template <int D, bool BF16>
TQ_INLINE void quadHadamardMma(const uint32_t (&w)[D / 8],
                               const uint32_t *masks, float (&y)[D / 4]) {
  constexpr int E = D / 4, kTiles = E / 8;
  static_assert(D >= 32 && D <= 128 && isPow2(D),
                "quadHadamardMma: head_dim 32..128, a power of two");
  const int lane = laneIndex(), g = lane >> 2, q = lane & 3;
  // B = the ±1 matrix in the permuted order: physical k = 2q' + 8h + δ is
  // inner index δ | h << 1 | q' << 2; physical n = 8·nt + g' is inner index
  // (g' & 1) | nt << 1 | (g' >> 1) << 2. This lane holds k = 2q + 8h + δ,
  // n = g of each n-tile.
  constexpr uint32_t kOne = BF16 ? 0x3f80u : 0x3c00u;
  uint32_t b[2][2];
  TQ_UNROLL
  for (int nt = 0; nt < 2; ++nt) {
    const uint32_t iOut = uint32_t((g & 1) | nt << 1 | (g >> 1) << 2);
    TQ_UNROLL
    for (int h = 0; h < 2; ++h) {
      uint32_t word = 0;
      TQ_UNROLL
      for (int delta = 0; delta < 2; ++delta) {
        const uint32_t iIn = uint32_t(delta | h << 1 | q << 2);
        word |= (kOne | parity4(iIn & iOut) << 15) << (16 * delta);
      }
      b[nt][h] = word;
    }
  }
  TQ_UNROLL
  for (int t = 0; t < kTiles; ++t) {
    const u32x4 m =
        *reinterpret_cast<const u32x4 *>(masks + q * (E / 2) + 4 * t);
    const uint32_t a[4] = {w[4 * t] ^ m.x, w[4 * t + 2] ^ m.z,
                           w[4 * t + 1] ^ m.y, w[4 * t + 3] ^ m.w};
    TQ_UNROLL
    for (int nt = 0; nt < 2; ++nt) {
      float c[4] = {0.f, 0.f, 0.f, 0.f};
      if constexpr (BF16)
        mmaBf16(c, a, b[nt]);
      else
        mmaF16(c, a, b[nt]);
      // c0, c1: row g (o = 0), columns ν = 0, 1; c2, c3: row g + 8 (o = 1).
      y[8 * t + 2 * nt] = c[0];
      y[8 * t + 2 * nt + 1] = c[1];
      y[8 * t + 4 + 2 * nt] = c[2];
      y[8 * t + 4 + 2 * nt + 1] = c[3];
    }
  }
  // The outer bits (2 .. log2 E - 1): in-lane butterflies.
  inLaneButterflies<E, 4>(y);
}

} // namespace tq

#endif // TQ_ROTATE_MMA_H
