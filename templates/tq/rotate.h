/*===- rotate.h - Randomized Hadamard rotation over one warp --------------===*
 *
 * numerics/rotation.h defines the rotation: per round r,
 *   x <- D2_r · H · D1_r · x,     H the Sylvester Hadamard scaled by 1/sqrt(D),
 * rounds applied in order 0, 1, ...; the inverse applies the rounds in reverse
 * order, each as D2_r, then H, then D1_r (H is symmetric and its own
 * inverse). Sign masks: TqSpec::{key,value}Signs() holds, for each round,
 * the D1 words then the D2 words, D/32 words each, bit j%32 of word j/32 set
 * where the sign is -1.
 *
 * One warp holds one D-vector: lane l owns the E = D/32 consecutive
 * coordinates [l·E, l·E + E) in registers. The butterflies of stride < E are
 * inside a lane, the others pair lanes through shuffles. The stages run in
 * the host's order (stride 1, 2, 4, ...) and the scale is applied once at the
 * end, exactly as numerics' fwht does, so in double precision the result is
 * bit-identical to the host's.
 *===----------------------------------------------------------------------===*/
#ifndef TQ_ROTATE_H
#define TQ_ROTATE_H

#include "tq/numeric.h"

namespace tq {

/* numerics' fwht scale 1 / std::sqrt(double(D)) for D = 2^k, as a constant
 * (two roundings on the host: sqrt, then the division; for odd k that is
 * 0x1.6a09e667f3bccp-1 · 2^-(k-1)/2, one ulp below sqrt(1/2)'s rounding). */
TQ_CONSTEXPR double hadamardScale(int D) {
  return (log2Int(D) % 2 == 0)
             ? 1.0 / double(1ll << (log2Int(D) / 2))
             : 0x1.6a09e667f3bccp-1 / double(1ll << ((log2Int(D) - 1) / 2));
}

/* The E bits of mask word w from bit first & 31 on (first: the lane's
 * first coordinate, gl·E; w: the mask's word first / 32). */
template <int E> TQ_INLINE uint32_t laneBitsOfWord(uint32_t w, int first) {
  static_assert(E >= 1 && E <= 32, "1..32 coordinates per lane");
  if constexpr (E == 32)
    return w;
  else
    return (w >> (first & 31)) & ((1u << E) - 1u);
}

/* This lane's E = D/G sign bits (bit i for coordinate gl·E + i, gl the
 * lane's index in its group of G lanes) of one D-bit mask. */
template <int D, int G = kWarpSize>
TQ_INLINE uint32_t laneSignBits(const uint32_t *mask, int gl) {
  const int first = gl * (D / G);
  return laneBitsOfWord<D / G>(mask[first >> 5], first);
}

/* A rotated tensor's sign masks as constant expressions (TensorSpec's
 * signWord), passed to the rotations below in place of a pointer to them:
 * the lane's bits then come from immediates and a select or two, with no
 * memory load. Why: the decode's query rotation and its final inverse
 * rotation sit on the short-context critical path, where the first read of
 * a __constant__ array is a cold miss, a DRAM round trip (decode.h). */
template <class TS> struct ImmediateSigns {};

/* This lane's bits (laneSignBits) of sign vector v (round r's D1 is 2r, its
 * D2 2r + 1) of a tensor's masks, from memory or from immediates. */
template <int D, int G>
TQ_INLINE uint32_t vectorSignBits(const uint32_t *signs, int v, int gl) {
  return laneSignBits<D, G>(signs + v * (D / kWarpSize), gl);
}
template <int D, int G, class TS>
TQ_INLINE uint32_t vectorSignBits(ImmediateSigns<TS>, int v, int gl) {
  constexpr int W = D / kWarpSize;
  const int first = gl * (D / G), k = first >> 5;
  uint32_t w = TS::signWord(v * W); // word k: a select among W immediates
  TQ_UNROLL
  for (int j = 1; j < W; ++j)
    if (k == j)
      w = TS::signWord(v * W + j);
  return laneBitsOfWord<D / G>(w, first);
}

/* a·b + c with one rounding (float or double). */
TQ_INLINE float fmaR(float a, float b, float c) { return fmaf(a, b, c); }
TQ_INLINE double fmaR(double a, double b, double c) { return fma(a, b, c); }

template <int E, class R> TQ_INLINE void applySigns(R (&x)[E], uint32_t bits) {
  TQ_UNROLL
  for (int i = 0; i < E; ++i)
    if ((bits >> i) & 1u)
      x[i] = -x[i];
}

/* The butterflies (a, b) -> (a + b, a - b) of strides FIRST .. E/2 within
 * a lane's E coordinates, in the host's stage order (unnormalized). */
template <int E, int FIRST, class R>
TQ_INLINE void inLaneButterflies(R (&x)[E]) {
  TQ_UNROLL
  for (int len = FIRST; len < E; len <<= 1) {
    TQ_UNROLL
    for (int i = 0; i < E; ++i) {
      if ((i & len) == 0) {
        const R a = x[i], b = x[i + len];
        x[i] = a + b;
        x[i + len] = a - b;
      }
    }
  }
}

/* x <- H·x (normalized Walsh-Hadamard transform) of a D-vector held by an
 * aligned group of G lanes (G a power of two <= 32; lane gl of the group
 * holds coordinates [gl·E, gl·E + E), E = D/G). Every lane of the warp must
 * call it (the shuffles are warp-wide; the groups never mix). */
template <int D, int G, class R> TQ_INLINE void groupFwht(R (&x)[D / G]) {
  constexpr int E = D / G;
  static_assert(isPow2(D) && isPow2(G) && G <= kWarpSize && D >= G,
                "head_dim and the group: powers of two, D >= G");
  // Strides 1 .. E/2: both ends of each butterfly are in this lane.
  inLaneButterflies<E, 1>(x);
  // Strides E .. D/2: the partner coordinate is in lane ^ m. The lower lane
  // holds a and computes a + b, the upper one holds b and computes a - b,
  // both as one fma: other + (±1)·mine rounds once, exactly like the sum.
  const int lane = laneIndex();
  TQ_UNROLL
  for (int m = 1; m < G; m <<= 1) {
    const R sgn = (lane & m) != 0 ? R(-1) : R(1);
    TQ_UNROLL
    for (int i = 0; i < E; ++i) {
      const R other = shflXor(x[i], m);
      x[i] = fmaR(sgn, x[i], other);
    }
  }
  // numerics: x *= T(1 / std::sqrt(double(n))) after all stages.
  constexpr R norm = R(hadamardScale(D));
  TQ_UNROLL
  for (int i = 0; i < E; ++i)
    x[i] *= norm;
}
template <int D, class R> TQ_INLINE void warpFwht(R (&x)[D / kWarpSize]) {
  groupFwht<D, kWarpSize>(x);
}

/* Rounds FIRST .. ROUNDS - 1 of R·x, the vector on a group of G lanes (the
 * store runs round 0 on tensor cores, rotate_mma.h, and the rest here). */
template <int D, int FIRST, int ROUNDS, int G, class R, class Signs>
TQ_INLINE void groupRotateRounds(R (&x)[D / G], Signs signs) {
  const int gl = laneIndex() & (G - 1);
  TQ_UNROLL
  for (int r = FIRST; r < ROUNDS; ++r) {
    applySigns(x, vectorSignBits<D, G>(signs, 2 * r, gl));
    groupFwht<D, G>(x);
    applySigns(x, vectorSignBits<D, G>(signs, 2 * r + 1, gl));
  }
}
/* x <- R·x with ROUNDS rounds of signs (ROUNDS = 0: identity), the vector
 * on a group of G lanes; signs: a pointer to the masks or ImmediateSigns. */
template <int D, int ROUNDS, int G, class R, class Signs>
TQ_INLINE void groupRotate(R (&x)[D / G], Signs signs) {
  groupRotateRounds<D, 0, ROUNDS, G>(x, signs);
}
template <int D, int ROUNDS, class R, class Signs>
TQ_INLINE void warpRotate(R (&x)[D / kWarpSize], Signs signs) {
  groupRotate<D, ROUNDS, kWarpSize>(x, signs);
}

/* x <- Rᵀ·x. */
template <int D, int ROUNDS, int G, class R, class Signs>
TQ_INLINE void groupRotateInverse(R (&x)[D / G], Signs signs) {
  const int gl = laneIndex() & (G - 1);
  TQ_UNROLL
  for (int r = ROUNDS - 1; r >= 0; --r) {
    applySigns(x, vectorSignBits<D, G>(signs, 2 * r + 1, gl));
    groupFwht<D, G>(x);
    applySigns(x, vectorSignBits<D, G>(signs, 2 * r, gl));
  }
}
template <int D, int ROUNDS, class R, class Signs>
TQ_INLINE void warpRotateInverse(R (&x)[D / kWarpSize], Signs signs) {
  groupRotateInverse<D, ROUNDS, kWarpSize>(x, signs);
}

/* The same transforms over NR vectors at once (x[v] the v-th, each on the
 * whole warp), stage by stage: the vectors' shuffle chains are independent,
 * so NR > 1 keeps NR of them in flight instead of paying each shuffle's
 * latency once per vector (the extend kernel's query staging and epilogue
 * rotate 16 rows per warp). Each coordinate sees the same operations in the
 * same order as in the single-vector forms above, which stay as they are:
 * written as batches of one (a cast of the vector), they spilled the QJL
 * store on sm_100 and sm_120. */
template <int D, int NR, class R>
TQ_INLINE void warpFwhtMany(R (&x)[NR][D / kWarpSize]) {
  constexpr int E = D / kWarpSize;
  TQ_UNROLL
  for (int v = 0; v < NR; ++v)
    inLaneButterflies<E, 1>(x[v]);
  const int lane = laneIndex();
  TQ_UNROLL
  for (int m = 1; m < kWarpSize; m <<= 1) {
    const R sgn = (lane & m) != 0 ? R(-1) : R(1);
    TQ_UNROLL
    for (int v = 0; v < NR; ++v) {
      TQ_UNROLL
      for (int i = 0; i < E; ++i)
        x[v][i] = fmaR(sgn, x[v][i], shflXor(x[v][i], m));
    }
  }
  constexpr R norm = R(hadamardScale(D));
  TQ_UNROLL
  for (int v = 0; v < NR; ++v) {
    TQ_UNROLL
    for (int i = 0; i < E; ++i)
      x[v][i] *= norm;
  }
}
/* One round on NR vectors: D2·H·D1 (forward) or D1·H·D2 (inverse). */
template <int D, int NR, class R>
TQ_INLINE void warpSignedFwhtMany(R (&x)[NR][D / kWarpSize],
                                  const uint32_t *signs, int r, bool inverse) {
  constexpr int W = D / kWarpSize; // mask words per sign vector
  const int lane = laneIndex();
  const uint32_t before =
      laneSignBits<D>(signs + (2 * r + (inverse ? 1 : 0)) * W, lane);
  TQ_UNROLL
  for (int v = 0; v < NR; ++v)
    applySigns(x[v], before);
  warpFwhtMany<D, NR>(x);
  const uint32_t after =
      laneSignBits<D>(signs + (2 * r + (inverse ? 0 : 1)) * W, lane);
  TQ_UNROLL
  for (int v = 0; v < NR; ++v)
    applySigns(x[v], after);
}
/* x[v] <- R·x[v] for NR vectors on the whole warp. */
template <int D, int ROUNDS, int NR, class R>
TQ_INLINE void warpRotateMany(R (&x)[NR][D / kWarpSize],
                              const uint32_t *signs) {
  TQ_UNROLL
  for (int r = 0; r < ROUNDS; ++r)
    warpSignedFwhtMany<D, NR>(x, signs, r, false);
}
/* x[v] <- Rᵀ·x[v]. */
template <int D, int ROUNDS, int NR, class R>
TQ_INLINE void warpRotateInverseMany(R (&x)[NR][D / kWarpSize],
                                     const uint32_t *signs) {
  TQ_UNROLL
  for (int r = ROUNDS - 1; r >= 0; --r)
    warpSignedFwhtMany<D, NR>(x, signs, r, true);
}

} // namespace tq

#endif // TQ_ROTATE_H
