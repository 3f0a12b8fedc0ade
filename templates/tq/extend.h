/*===- extend.h - Chunked-prefill (extend) attention on tensor cores -------===*
 *
 * A sequence's new chunk of n queries attends to its P-token compressed
 * prefix (read from the paged cache) and, causally, to the chunk's own keys
 * and values in full precision: chunk query i sees prefix tokens [0, P) and
 * chunk tokens [0, i]. One launch serves a batch of sequences with
 * different P and n (cu_seqlens_q, prefix_lens; abi.h tq_extend_args).
 *
 * Two kernels, launched back to back by the runtime:
 *  1. extendPrep: the chunk's keys and values, rotated like the stored ones
 *     (the query is rotated once for the keys; the output is un-rotated once
 *     for the values, tq-absorb-rotation), as fp16 scaled by a power of two
 *     per token-head into the workspace. Every query tile of the chunk reads
 *     them, so they are rotated once instead of once per tile. A sequence
 *     without a prefix is not rotated at all (chunkRotated: the rotation
 *     cancels between chunk rows), neither its rows nor its queries and
 *     outputs; where the attention reads such a sequence's rows from the
 *     inputs itself (the sm_90a kernel: ExtendRawChunkRows) the prep
 *     writes no workspace rows for it. With slot_mapping it also stores the
 *     chunk into the cache (the store kernel's code on the same words): a
 *     causal 4K chunk's store then adds 1.8-3.1 us to the extend where the
 *     prep rotates and writes its rows anyway (mma.sync, and sm_90a before
 *     session 28: bench/results/2026-12-06-session26), ~14.5 us where it
 *     reads them for the store alone (sm_90a, no prefix: session 28 run1),
 *     against 15.7 for the store kernel (H100). So there (ExtendWgmmaPlan::
 *     kChunkOnlyStores) the prep leaves those rows to the attention's
 *     chunk-only CTAs, whose producer stores its CTA's own tokens from its
 *     last tiles once it has issued them (storeTileRows): +9.6 us
 *     (bench/results/2026-12-06-session29 run1, H100).
 *  2. extend: FlashAttention-2 style. A CTA takes kRows = 16·kWarps query
 *     rows of one KV head: kTokTile = kRows / G consecutive chunk tokens ×
 *     the G query heads that share the KV head (GQA: one dequantized tile
 *     serves G heads), row r = (token r / G, head r % G). Warp w owns rows
 *     16w..16w+15, its rotated query as mma A fragments in registers (fp16,
 *     scaled per row by a power of two into [-2, 2), the factor returned on
 *     the score). Keys and values go through shared memory in tiles of
 *     kBlockN tokens, row-major fp16 (tokens × coordinates, row pitch ≡ 4
 *     words mod 32: ldmatrix without bank conflicts), with per-token scalars
 *     (key scale and zero, value scale and zero), double-buffered: while the
 *     warps compute on one tile, the next one is in flight — prefix tiles as
 *     raw codes and scalars loaded into registers (a few words per thread),
 *     dequantized into the other buffer after the compute (Lloyd-Max levels,
 *     uniform codes centered on 2^(bits-1), e4m3: all exact in fp16); chunk tiles as
 *     cp.async copies from the workspace. One barrier per tile. Per warp:
 *     S = Q·Kᵀ (m16n8k16, fp32 accumulation; K's B fragments by ldmatrix),
 *     ×(row factor · key scale) + key zero · Σq, masks (tile end, causal
 *     diagonal), online softmax in the exp2 domain, P (× value scale, fp16)
 *     · V into the fp32 output accumulators (V's B fragments by
 *     ldmatrix.trans from the row-major tile), Σ p·value zero kept per row.
 *     Epilogue: divide by the row sums, add the zero-point term, un-rotate
 *     (values rotated) through shared memory, write the output and, when
 *     asked, the natural-log log-sum-exp of the scaled scores per row (an
 *     engine merges it with attention it runs itself).
 *     v1 (no double buffering, values transposed by scattered 16-bit
 *     stores, 64-token tiles) ran a 4K causal chunk at 88 TFLOP/s on the
 *     H200 with 12.5 % occupancy and a third of the issue slots waiting on
 *     tile loads (bench/results/2026-11-30-extend-v1-h200).
 * Work mapping (fixed grid, abi.h): blockIdx.x enumerates the query tiles
 * of all sequences in order, each sequence's last (most causal work) tile
 * first; blockIdx.y is the KV head. A CTA finds its sequence by scanning
 * cu_seqlens_q (batch entries, L2 hits); CTAs beyond the last tile return.
 *
 * Supported (TQ_EXTEND_SUPPORTED, the compiler checks the same): keys
 * Lloyd-Max (no QJL), uniform or e4m3; values Lloyd-Max, uniform or e4m3;
 * the native layout (vLLM's norm-at-read needs a per-token ‖c‖ pass); head
 * dims 64 and 128; a target with warp mma.
 *===----------------------------------------------------------------------===*/
#ifndef TQ_EXTEND_H
#define TQ_EXTEND_H

#include "tq/abi.h"
#include "tq/decode.h"
#include "tq/numeric.h"
#include "tq/rotate.h"
#include "tq/store.h" // store_detail::VoidT

namespace tq {

constexpr float kLn2 = 0.6931471805599453f;

template <class Spec> struct ExtendPlan {
  using KInfo = TensorInfo<Spec, true>;
  using VInfo = TensorInfo<Spec, false>;
  static constexpr int D = Spec::kHeadDim;
  static constexpr int G = Spec::kNumQHeads / Spec::kNumKVHeads;
  static constexpr int NW = Spec::kExtendWarps;
  static constexpr int NT = NW * kWarpSize;
  static constexpr int BN = Spec::kExtendBlockN;
  static constexpr int kRows = 16 * NW;
  static constexpr int kTokTile = kRows / G;
  static constexpr int kKSteps = D / 16;  // score mma k steps
  static constexpr int kNTiles = BN / 8;  // score n tiles (8 tokens)
  static constexpr int kVSteps = BN / 16; // output mma k steps (16 tokens)
  static constexpr int kOTiles = D / 8;   // output n tiles (8 coordinates)
  static constexpr int kPitch = D + 8;    // halves per key / value row
  static constexpr int kOPitch = D + 4;   // floats per staged output row
  static constexpr int kQBytes = kRows * kPitch * 2;
  static constexpr int kBufHalves = 2 * BN * kPitch; // K rows, then V rows
  static constexpr int kTileBytes = 2 * kBufHalves * 2; // double-buffered
  static constexpr int kOutBytes = kRows * kOPitch * 4;
  static constexpr int kUnionBytes =
      maxInt(kQBytes, maxInt(kTileBytes, kOutBytes));

  static constexpr bool kKeyOk =
      !KInfo::kQjl && (KInfo::kQuant == TQ_QUANT_LLOYD_MAX ||
                       KInfo::kQuant == TQ_QUANT_UNIFORM ||
                       KInfo::kQuant == TQ_QUANT_FP8);
  static constexpr bool kValueOk = VInfo::kQuant == TQ_QUANT_LLOYD_MAX ||
                                   VInfo::kQuant == TQ_QUANT_UNIFORM ||
                                   VInfo::kQuant == TQ_QUANT_FP8;
  static constexpr bool kSupported = kTargetHasWarpMma && kKeyOk && kValueOk &&
                                     !KInfo::kVllmStore && !VInfo::kVllmStore &&
                                     (D == 64 || D == 128);

  static_assert(Spec::kNumQHeads % Spec::kNumKVHeads == 0,
                "num_q_heads: a multiple of num_kv_heads");
  static_assert(kRows % G == 0,
                "extend: the GQA ratio must divide 16 x kExtendWarps rows");
  static_assert(BN % 16 == 0 && BN >= 16, "kExtendBlockN: a multiple of 16");
  static_assert(NW >= 1 && NW <= 16, "kExtendWarps: 1..16");
  static_assert(BN <= NT, "a thread per token for the tile's scalars");
  static_assert(kKSteps % 2 == 0 && kOTiles % 2 == 0,
                "ldmatrix.x4 pairs of k steps and of output tiles");
};

namespace extend_detail {

/* The power of two 2^e with |x| < 2^e for the largest |x| = amax (1 when
 * amax is 0 or not finite, which the caller's data then shows). */
TQ_INLINE float pow2Above(float amax) {
  const uint32_t e = (floatToBits(amax) >> 23) & 0xffu;
  if (amax == 0.f || e == 0xffu)
    return 1.f;
  return bitsToFloat((e + 1u) << 23); // > amax: 2^(exponent + 1)
}

/* 8 consecutive halves (16 bytes) into shared memory. */
TQ_INLINE void storeHalves8(uint16_t *dst, const float (&x)[8]) {
  u32x4 v;
  v.x = packHalf2(x[0], x[1]);
  v.y = packHalf2(x[2], x[3]);
  v.z = packHalf2(x[4], x[5]);
  v.w = packHalf2(x[6], x[7]);
  *reinterpret_cast<u32x4 *>(dst) = v;
}

/* The raw codes of coordinates [8c, 8c + 8) of a stored tensor's token
 * (8·bits bits, at most two words), loaded ahead of their tile in two steps
 * (startUnitCodes issues the loads, UnitCodeLoad::finish() aligns them where
 * the tile is staged, so nothing waits on them in between); then the values
 * the tile holds: Lloyd-Max level, uniform integer code or e4m3 value (the
 * per-token scale and zero are applied per column). */
template <class Info>
using UnitCodeLoad = ChunkLoad<Info::kCodeBits, Info::kCodesAlign>;
template <class Info>
TQ_INLINE void startUnitCodes(const uint8_t *region, int pos, int c,
                              UnitCodeLoad<Info> &l) {
  using TS = typename Info::TS;
  static_assert(Info::kCodeBits <= 8, "at most 8 bits per coordinate");
  l.start(region + TS::kCodesOffset + pos * TS::kCodesStride,
          c * Info::kCodeBits);
}
/* Uniform codes go into the tiles centered, c - 2^(bits-1) (exact in
 * fp16), and the token's zero point takes 2^(bits-1)·scale instead
 * (centeredZero, where KvTileStream::stage writes the scalars): with c·s +
 * z the fp16 product p·s·c and the fp32 term p·z cancel wherever a value
 * sits mid-range, so p·s's rounding (2^-11 of it) came out relative to the
 * larger term (up to 15x for 4-bit codes). `EMU_OUTLIERS=1
 * templates/emu/run.sh k3v4 128 4 1 extend`, prefix only: median rel.
 * error 1.30e-3 -> 1.13e-3, worst 4.17e-3 -> 3.47e-3 (k4v4 64 4 1: 1.11e-3
 * -> 0.95e-3). */
template <class Info> constexpr int codeCenter() {
  return Info::kQuant == TQ_QUANT_UNIFORM ? 1 << (Info::kCodeBits - 1) : 0;
}
/* A prefix token's zero point for its centered codes: z + center·s. */
template <class Info> TQ_INLINE float centeredZero(float z, float s) {
  if constexpr (codeCenter<Info>() != 0)
    return fmaf(float(codeCenter<Info>()), s, z); // exact product, one rounding
  else
    return z;
}

template <class Info>
TQ_INLINE void unitValues(const uint32_t (&w)[2], const float *levels,
                          float (&x)[8]) {
  Chunk ch;
  ch.w[0] = w[0], ch.w[1] = w[1], ch.w[2] = 0u, ch.w[3] = 0u;
  TQ_UNROLL
  for (int i = 0; i < 8; ++i) {
    const uint32_t code = codeOf<Info::kCodeBits>(ch, i);
    if constexpr (Info::kQuant == TQ_QUANT_LLOYD_MAX)
      x[i] = levels[code];
    else if constexpr (Info::kQuant == TQ_QUANT_UNIFORM)
      x[i] = float(int(code) - codeCenter<Info>());
    else
      x[i] = e4m3BitsToFloat(code);
  }
}

/* The widest Lloyd-Max codes that take the pair table: 4 (256 entries, 1
 * KiB per tensor: a unit's 8 values are 4 lookups instead of 8 lookups
 * and 4 conversions; k4v4 4K over a 28K prefix 6288 -> 5878 us with the
 * producer warpgroup this lets it take, session 21 run1), or 3 (64
 * entries; TQC_DEVICE_DEFINES, for comparison). The compiler's producer
 * rule (EmitCuda.cpp extendProducerWarps) reads the same define. */
#ifndef TQ_EXTEND_PAIR_TABLE_BITS
#define TQ_EXTEND_PAIR_TABLE_BITS 4
#endif
static_assert(TQ_EXTEND_PAIR_TABLE_BITS == 3 || TQ_EXTEND_PAIR_TABLE_BITS == 4,
              "TQ_EXTEND_PAIR_TABLE_BITS: 3 or 4");

/* A tensor's dequantization table in shared memory (32-bit words):
 * Lloyd-Max codes of up to TQ_EXTEND_PAIR_TABLE_BITS bits take the pair
 * table, entry c0 | c1 << b = half2(level c0, level c1), so a unit's 8
 * values are 4 lookups and no conversions; other Lloyd-Max codes the float
 * levels; the rest none. */
template <class Info> struct UnitLut {
  static constexpr bool kPairs = Info::kQuant == TQ_QUANT_LLOYD_MAX &&
                                 Info::kCodeBits <= TQ_EXTEND_PAIR_TABLE_BITS;
  static constexpr int kWords =
      kPairs ? 1 << (2 * Info::kCodeBits) : Info::kLevels;
};

/* Fills the table from the Spec's levels, called by one warp (any: the
 * warp-specialized kernel's producer warpgroup fills it from its first
 * warp), whose lanes take the entries in turn. */
template <class Info, class L>
TQ_INLINE void fillUnitLut(uint32_t *lut, const L *levels) {
  if constexpr (Info::kQuant == TQ_QUANT_LLOYD_MAX) {
    constexpr int B = Info::kCodeBits, M = (1 << B) - 1;
    for (int f = laneIndex(); f < UnitLut<Info>::kWords; f += kWarpSize) {
      if constexpr (UnitLut<Info>::kPairs)
        lut[f] = packHalf2(float(levels[f & M]), float(levels[f >> B]));
      else
        lut[f] = floatToBits(float(levels[f]));
    }
  }
}

/* A unit's 8 values as fp16 pairs (coordinate 2i in the low half of word
 * i): the Lloyd-Max level, uniform integer code or e4m3 value (the per-
 * token scale and zero are applied per column). Every path gives the bits
 * packHalf2 gives for the float value; 4-bit uniform codes by fp16 bit
 * tricks (13 instructions, not 28). The wgmma kernel's; the mma.sync
 * kernel keeps unitValues and float levels (this form's different register
 * schedule spills it at its 168-register cap). */
template <class Info>
TQ_INLINE u32x4 unitHalves(const uint32_t (&w)[2], const uint32_t *lut) {
  constexpr int B = Info::kCodeBits;
  uint32_t h[4];
  if constexpr (UnitLut<Info>::kPairs) {
    TQ_UNROLL
    for (int i = 0; i < 4; ++i)
      h[i] = lut[(w[0] >> (2 * B * i)) & ((1u << (2 * B)) - 1u)];
  } else if constexpr (Info::kQuant == TQ_QUANT_UNIFORM && B == 4) {
    // Nibbles c0..c7 of w[0]: bytes (c0, c2, c4, c6) and (c1, c3, c5, c7),
    // interleaved to (c0..c3), (c4..c7), each byte under 0x64 is the fp16
    // 1024 + c, less 1032 (kCentered) exactly c - 8 (codeCenter).
    constexpr uint32_t kMagic = 0x64006400u, kCentered = 0x64086408u;
    static_assert(codeCenter<Info>() == 8, "1032 = 1024 + the center");
    const uint32_t e = w[0] & 0x0f0f0f0fu, o = (w[0] >> 4) & 0x0f0f0f0fu;
    const uint32_t lo = bytePerm(e, o, 0x5140u), hi = bytePerm(e, o, 0x7362u);
    // (Byte 5 of (kMagic:x) is kMagic's byte 1, 0x64.)
    h[0] = hsub2(bytePerm(lo, kMagic, 0x5150u), kCentered);
    h[1] = hsub2(bytePerm(lo, kMagic, 0x5352u), kCentered);
    h[2] = hsub2(bytePerm(hi, kMagic, 0x5150u), kCentered);
    h[3] = hsub2(bytePerm(hi, kMagic, 0x5352u), kCentered);
  } else { // the float path (a Lloyd-Max table here holds float levels)
    float x[8];
    unitValues<Info>(w, reinterpret_cast<const float *>(lut), x);
    TQ_UNROLL
    for (int i = 0; i < 4; ++i)
      h[i] = packHalf2(x[2 * i], x[2 * i + 1]);
  }
  u32x4 v;
  v.x = h[0], v.y = h[1], v.z = h[2], v.w = h[3];
  return v;
}
/* A token's fp16 scale and zero-point bits (those of 1 and 0 where the
 * tensor has none), loaded ahead of their tile and converted where it is
 * staged. */
template <class Info>
TQ_INLINE void tokenScalarBits(const uint8_t *region, int pos, uint32_t &s,
                               uint32_t &z) {
  using TS = typename Info::TS;
  s = 0x3c00u, z = 0u;
  if constexpr (Info::kHasScale)
    s = loadGlobal2(region + TS::kScaleOffset + pos * TS::kScaleStride);
  if constexpr (Info::kHasZero)
    z = loadGlobal2(region + TS::kZeroOffset + pos * TS::kZeroStride);
}

/* Grouped units (KvTileStream's Group > 1): the codes of units
 * [Group·q, Group·q + Group) of a token, Group·bits bytes = W whole words at
 * a word-aligned offset, loaded as wide as their alignment allows. */
template <class Info, int Group, int W = Group * Info::kCodeBits / 4>
TQ_INLINE void loadGroupWords(const uint8_t *region, int pos, int q,
                              uint32_t (&w)[W]) {
  using TS = typename Info::TS;
  constexpr int NB = Group * Info::kCodeBits; // bytes per group
  constexpr int kAlign = minInt(Info::kCodesAlign, int(lowBit(NB)));
  const uint8_t *p = region + TS::kCodesOffset + pos * TS::kCodesStride + q * NB;
  if constexpr (W % 4 == 0 && kAlign >= 16) {
    TQ_UNROLL
    for (int i = 0; i < W; i += 4) {
      const u32x4 v = loadGlobal16(p + 4 * i);
      w[i] = v.x, w[i + 1] = v.y, w[i + 2] = v.z, w[i + 3] = v.w;
    }
  } else if constexpr (W % 2 == 0 && kAlign >= 8) {
    TQ_UNROLL
    for (int i = 0; i < W; i += 2) {
      const u32x2 v = loadGlobal8(p + 4 * i);
      w[i] = v.x, w[i + 1] = v.y;
    }
  } else {
    TQ_UNROLL
    for (int i = 0; i < W; ++i)
      w[i] = loadGlobal4(p + 4 * i);
  }
}
/* Unit j of a group's words as a unit's two code words (NB = bits bytes:
 * bits [8·NB·j, 8·NB·(j + 1)) of the group; compile-time shifts). */
template <int NB, int W>
TQ_INLINE void groupUnit(const uint32_t (&a)[W], int j, uint32_t (&w)[2]) {
  const int byte = NB * j, wi = byte / 4;
  auto word = [&](int i) { return i < W ? a[i] : 0u; };
  const uint32_t around[3] = {word(wi), word(wi + 1), word(wi + 2)};
  shiftWordsIntoPlace<NB>(around, byte % 4, w[0], w[1]);
}

/* Workspace of the prepared chunk (abi.h TQ_EXTEND_WORKSPACE_BYTES):
 * keys, values as [max_tokens][num_kv_heads][D] halves, then their
 * per-token-head scales as floats. */
template <class Spec> struct ChunkWs {
  static constexpr int D = Spec::kHeadDim, H = Spec::kNumKVHeads;
  static TQ_INLINE uint16_t *rows(const tq_extend_args &a, bool value) {
    return static_cast<uint16_t *>(a.workspace) +
           (value ? int64_t(a.max_tokens) * H * D : 0);
  }
  static TQ_INLINE float *scales(const tq_extend_args &a, bool value) {
    return reinterpret_cast<float *>(static_cast<uint16_t *>(a.workspace) +
                                     int64_t(a.max_tokens) * H * D * 2) +
           (value ? int64_t(a.max_tokens) * H : 0);
  }
};

/* The CTA's sequence b and query tile (tile = -1: none, the CTA returns):
 * blockIdx.x enumerates the tiles of kTok chunk tokens of all sequences in
 * order, each sequence's last (most causal work) tile first. */
template <int kTok>
TQ_INLINE void findQueryTile(const tq_extend_args &a, int id, int &b,
                             int &tile) {
  tile = -1;
  for (b = 0; b < a.batch; ++b) {
    const int n = a.cu_seqlens_q[b + 1] - a.cu_seqlens_q[b];
    const int tiles = (n + kTok - 1) / kTok;
    if (id < tiles) {
      tile = tiles - 1 - id;
      return;
    }
    id -= tiles;
  }
}
template <int kTok>
TQ_INLINE void findQueryTile(const tq_extend_args &a, int &b, int &tile) {
  findQueryTile<kTok>(a, blockIndexX(), b, tile);
}

/* Whether sequence b's chunk lives rotated: its prep rows, its queries and
 * (un-rotated) its outputs. Only with a prefix, whose stored codes are
 * rotated: with P = 0 every score and output is between chunk rows alone,
 * where the rotation (orthogonal) cancels, q·k = Rq·Rk and Σ p·v =
 * Rᵀ Σ p·Rv, so skipping it changes only the rounding. It saves the prep's
 * rotations of every key and value row, and the query staging's and
 * epilogue's per CTA: in the causal 4K chunk (no prefix) the code before
 * the role split went 21.3M -> 13.5M executed instructions and 14.6 % ->
 * 11.0 % of the stall samples (ncu source counters,
 * bench/results/2026-12-06-session24-h100 run3 -> 2026-12-06-session25
 * run3), the whole 390.0 -> 377.8 us (H200, session 25 run1; edc39f5 has
 * the A/B knob that measured it). */
TQ_INLINE bool chunkRotated(int prefixLen) { return prefixLen > 0; }

/* The sequence of chunk row `row` (< cu_seqlens_q[batch]): the last b with
 * cu_seqlens_q[b] <= row, by bisection (empty chunks share a start; the
 * last of them is followed by a larger one). */
TQ_INLINE int sequenceOfRow(const tq_extend_args &a, int row) {
  int lo = 0, hi = a.batch; // cu[lo] <= row < cu[hi]
  while (hi - lo > 1) {
    const int mid = (lo + hi) >> 1;
    if (a.cu_seqlens_q[mid] <= row)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* Whether KvTileStream's grouped form (Group consecutive units of a token
 * row per thread, NT threads) holds for this Spec: whole token rows of
 * groups per pass and, for keys and values, whole aligned 32-bit code
 * words per group. */
template <class Spec, int NT, int Group>
constexpr bool unitsGroupable() {
  using KInfo = TensorInfo<Spec, true>;
  using VInfo = TensorInfo<Spec, false>;
  constexpr int UPR = Spec::kHeadDim / 8;
  return Group == 1 ||
         (UPR % Group == 0 && NT % (UPR / Group) == 0 &&
          Group * KInfo::kCodeBits % 4 == 0 &&
          Group * VInfo::kCodeBits % 4 == 0 && KInfo::kCodesAlign >= 4 &&
          VInfo::kCodesAlign >= 4);
}

/* The key/value tiles one extend CTA walks, in order: its sequence's
 * prefix (raw codes from the paged cache, dequantized into fp16), then,
 * causally, the chunk's up to the CTA's last token (the prep's fp16 rows by
 * cp.async). issue(i) starts tile i's loads (a prefix tile's codes and
 * scalars into registers, a chunk tile's copies in flight); stage(i)
 * finishes them into the shared-memory buffer i % 2 (dst(nn, c, value):
 * where 16-byte unit c of token nn of the key or value tile goes; the
 * kernel's layout) and the per-token scalars into ks/kz/vs/vz[i % 2].
 * Thread tid's units are c = tid % UPR of tokens tid / UPR + k·kStep.
 * RowPitch > 0: the layout places token nn + kStep·k at dst(nn, c, v) +
 * kStep·k·RowPitch (fp16 elements), and the chunk copies take each unit's
 * addresses from one per-tile base by compile-time offsets (the wgmma
 * kernel: ~170 -> fewer issue instructions per tile and warp); 0: each
 * unit's addresses are computed afresh (the mma.sync kernel, whose
 * 168-register cap spills on the extra live pointers). */
template <class Spec, int NT, int BN, int RowPitch, int Group = 1>
struct KvTileStream {
  using KInfo = TensorInfo<Spec, true>;
  using VInfo = TensorInfo<Spec, false>;
  static constexpr int D = Spec::kHeadDim, H = Spec::kNumKVHeads;
  static constexpr int UPR = D / 8, kUnits = BN * UPR,
                       UPT = (kUnits + NT - 1) / NT, kStep = NT / UPR;
  static_assert(NT % UPR == 0, "whole token rows per pass of the CTA");
  // The wgmma kernel's form (RowPitch > 0): hoisted chunk addresses and
  // prefix dequantization to fp16 pairs over UnitLut tables; the mma.sync
  // kernel's: per-unit addresses, unitValues over float levels.
  static constexpr bool kLean = RowPitch > 0;
  // Grouped prefix units (Group > 1, lean form only): a thread takes Group
  // consecutive units of one token row, whose codes are Group·bits bytes of
  // whole aligned words (3 loads for 32 3-bit codes, against 2 per unit),
  // at one block-table lookup per token instead of one per unit.
  static constexpr int GPR = UPR / Group, kGroups = BN * GPR,
                       GPT = (kGroups + NT - 1) / NT;
  static constexpr int KW = Group * KInfo::kCodeBits / 4,
                       VW = Group * VInfo::kCodeBits / 4;
  static_assert(Group == 1 || (kLean && unitsGroupable<Spec, NT, Group>()),
                "grouped units: whole aligned code words per group");

  const tq_extend_args &a;
  const int32_t *table;
  int kvh, row0, P, upto, prefixTiles, numTiles, tid;
  // In flight between issue() and stage(): the codes as loaded (the lean
  // form aligns them in stage(), the other in issue(), where its registers
  // are freed sooner) and the scalars' bits (fp16 for a prefix tile, float
  // for a chunk tile).
  UnitCodeLoad<KInfo> pk[Group > 1 ? 1 : UPT];
  UnitCodeLoad<VInfo> pv[Group > 1 ? 1 : UPT];
  uint32_t gk[Group > 1 ? GPT : 1][KW > 0 ? KW : 1],
      gv[Group > 1 ? GPT : 1][VW > 0 ? VW : 1]; // grouped units' words
  uint32_t pks = 0u, pkz = 0u, pvs = 0u, pvz = 0u;

  TQ_INLINE KvTileStream(const tq_extend_args &args, int b, int kvHead,
                         int firstRow, int prefix, int chunkVisible,
                         int thread = threadIndex()) // 0..NT-1
      : a(args), table(args.block_tables + int64_t(b) * args.block_table_stride),
        kvh(kvHead), row0(firstRow), P(prefix), upto(chunkVisible),
        prefixTiles((prefix + BN - 1) / BN),
        numTiles(prefixTiles + (chunkVisible + BN - 1) / BN), tid(thread) {}

  TQ_INLINE bool isChunk(int i) const { return i >= prefixTiles; }
  /* After stage(i): whether this thread's token reads back unit scales
   * (a chunk token whose prep scales are 1, or no token); a tile where
   * every thread's does needs no per-column multiplies (the prefix's codes
   * carry their scales apart: never). */
  TQ_INLINE bool unitScales(int i) const {
    if (tid >= count(i))
      return true;
    return i >= prefixTiles && pks == 0x3f800000u && pvs == 0x3f800000u;
  }
  TQ_INLINE int start(int i) const {
    return i < prefixTiles ? i * BN : (i - prefixTiles) * BN;
  }
  TQ_INLINE int count(int i) const {
    return i < prefixTiles ? minInt(BN, P - i * BN)
                           : minInt(BN, upto - (i - prefixTiles) * BN);
  }
  TQ_INLINE const uint8_t *cacheRegion(int tokn) const {
    return a.cache +
           int64_t(table[tokn / Spec::kBlockSize]) * Spec::kBlockStride +
           int64_t(kvh) * Spec::kHeadStride;
  }

  /* One 16-byte unit of a chunk tile's key and value rows: copied, or
   * past the chunk's end zeros (never NaN in the mma). */
  static TQ_INLINE void chunkUnit(bool in, uint16_t *dk, uint16_t *dv,
                                  const uint16_t *sk, const uint16_t *sv) {
    if (in) {
      copyAsync16(dk, sk);
      copyAsync16(dv, sv);
    } else {
      const u32x4 z = {0u, 0u, 0u, 0u};
      *reinterpret_cast<u32x4 *>(dk) = z;
      *reinterpret_cast<u32x4 *>(dv) = z;
    }
  }

  template <class Dst> TQ_INLINE void issue(int i, Dst dst) {
    const int s0 = start(i), cnt = count(i);
    if (i < prefixTiles) {
      if constexpr (Group > 1) {
        TQ_UNROLL
        for (int k = 0; k < GPT; ++k) {
          const int gi = tid + k * NT, nn = gi / GPR, q = gi % GPR;
          TQ_UNROLL
          for (int w = 0; w < KW; ++w)
            gk[k][w] = 0u;
          TQ_UNROLL
          for (int w = 0; w < VW; ++w)
            gv[k][w] = 0u;
          if (gi < kGroups && nn < cnt) {
            const uint8_t *region = cacheRegion(s0 + nn);
            const int pos = (s0 + nn) % Spec::kBlockSize;
            loadGroupWords<KInfo, Group>(region, pos, q, gk[k]);
            loadGroupWords<VInfo, Group>(region, pos, q, gv[k]);
          }
        }
      } else {
        TQ_UNROLL
        for (int k = 0; k < UPT; ++k) {
          const int u = tid + k * NT, nn = u / UPR, c = u % UPR;
          pk[k].clear();
          pv[k].clear();
          if (u < kUnits && nn < cnt) {
            const uint8_t *region = cacheRegion(s0 + nn);
            const int pos = (s0 + nn) % Spec::kBlockSize;
            startUnitCodes<KInfo>(region, pos, c, pk[k]);
            startUnitCodes<VInfo>(region, pos, c, pv[k]);
            if constexpr (!kLean) {
              pk[k].ready = pk[k].finish();
              pv[k].ready = pv[k].finish();
            }
          }
        }
      }
      pks = pkz = pvs = pvz = 0u; // 0 past the end: those columns drop out
      if (tid < cnt) {
        const uint8_t *region = cacheRegion(s0 + tid);
        const int pos = (s0 + tid) % Spec::kBlockSize;
        tokenScalarBits<KInfo>(region, pos, pks, pkz);
        tokenScalarBits<VInfo>(region, pos, pvs, pvz);
      }
    } else {
      if constexpr (kLean) {
        // One base per tile, compile-time steps per unit.
        const int nn0 = tid / UPR, c = tid % UPR;
        const int64_t at = (int64_t(row0 + s0 + nn0) * H + kvh) * D + c * 8;
        const uint16_t *wk = ChunkWs<Spec>::rows(a, false) + at;
        const uint16_t *wv = ChunkWs<Spec>::rows(a, true) + at;
        uint16_t *const dk0 = dst(nn0, c, false), *const dv0 =
                                                      dst(nn0, c, true);
        TQ_UNROLL
        for (int k = 0; k < UPT; ++k) {
          const int nn = nn0 + k * kStep;
          if (nn >= BN)
            break;
          chunkUnit(nn < cnt, dk0 + k * kStep * RowPitch,
                    dv0 + k * kStep * RowPitch, wk + k * kStep * H * D,
                    wv + k * kStep * H * D);
        }
      } else {
        // Each unit's addresses from scratch (fewer live registers).
        const uint16_t *wk = ChunkWs<Spec>::rows(a, false);
        const uint16_t *wv = ChunkWs<Spec>::rows(a, true);
        TQ_UNROLL
        for (int k = 0; k < UPT; ++k) {
          const int u = tid + k * NT, nn = u / UPR, c = u % UPR;
          if (u >= kUnits)
            break;
          const int64_t at = (int64_t(row0 + s0 + nn) * H + kvh) * D + c * 8;
          chunkUnit(nn < cnt, dst(nn, c, false), dst(nn, c, true), wk + at,
                    wv + at);
        }
      }
      copyAsyncCommit();
      const bool in = tid < cnt;
      const int64_t sat = int64_t(row0 + s0 + tid) * H + kvh;
      pks = in ? floatToBits(ChunkWs<Spec>::scales(a, false)[sat]) : 0u;
      pvs = in ? floatToBits(ChunkWs<Spec>::scales(a, true)[sat]) : 0u;
      pkz = pvz = 0u;
    }
  }

  /* The chunk-only CTAs' tiles (lean form, no prefix): tile i's key or
   * value rows straight from the extend's own 16-bit inputs (a.key /
   * a.value, T), by cp.async only, zeros past the chunk's end, so the
   * producer never waits for them (copyAsyncArrive hands the tile over once
   * they land). Without a prefix nothing is rotated (chunkRotated) and the
   * tensor cores take the inputs' own type, so the prep's fp16 rows and
   * scales are not needed: the prep skips those rows (ExtendRawChunkRows). */
  template <class T, bool IsValue, class Dst>
  TQ_INLINE void issueRawChunkTensor(int i, Dst dst) {
    static_assert(kLean, "the wgmma kernel's form");
    const int s0 = start(i), cnt = count(i);
    const int nn0 = tid / UPR, c = tid % UPR;
    const int64_t st = IsValue ? a.value_stride_token : a.key_stride_token;
    const int64_t sh = IsValue ? a.value_stride_head : a.key_stride_head;
    // Token s0 (the tile's first: cnt >= 1) is the address a zero fill
    // names: valid, nothing read.
    const T *w = static_cast<const T *>(IsValue ? a.value : a.key) +
                 int64_t(row0 + s0) * st + int64_t(kvh) * sh + c * 8;
    uint16_t *const d0 = dst(nn0, c, IsValue);
    // The source steps by kStep rows from unit to unit: one running
    // pointer (per-unit offsets nn·st, all live at once, spilled the
    // 88-register producer).
    const int64_t step = int64_t(kStep) * st;
    const T *src = w + int64_t(nn0) * st;
    TQ_UNROLL
    for (int k = 0; k < UPT; ++k) {
      const int nn = nn0 + k * kStep;
      if (nn >= BN)
        break;
      const bool in = nn < cnt;
      copyAsync16Fill(d0 + k * kStep * RowPitch, in ? src : w, in ? 16u : 0u);
      src += step;
    }
  }

  /* A group's units of one tensor into the tile: where they take table
   * lookups (shared loads), all of them before the stores, else unit by
   * unit (register arithmetic only). */
  template <class Info, int W, class Lut, class At>
  static TQ_INLINE void stageGroup(const uint32_t (&g)[W], const Lut *lut,
                                   At at) {
    constexpr bool kLookups = Info::kQuant == TQ_QUANT_LLOYD_MAX;
    u32x4 h[kLookups ? Group : 1];
    TQ_UNROLL
    for (int j = 0; j < Group; ++j) {
      uint32_t w[2];
      groupUnit<Info::kCodeBits>(g, j, w);
      h[kLookups ? j : 0] = unitHalves<Info>(w, lut);
      if constexpr (!kLookups)
        *reinterpret_cast<u32x4 *>(at(j)) = h[0];
    }
    if constexpr (kLookups) {
      TQ_UNROLL
      for (int j = 0; j < Group; ++j)
        *reinterpret_cast<u32x4 *>(at(j)) = h[j];
    }
  }

  template <class Dst, class Lut>
  TQ_INLINE void stage(int i, Dst dst, const Lut *lutK, const Lut *lutV,
                       float (*ks)[BN], float (*kz)[BN], float (*vs)[BN],
                       float (*vz)[BN]) {
    if (i < prefixTiles) {
      if constexpr (Group > 1) {
        // A group's table lookups all before its stores: the compiler
        // cannot move a lookup (shared load) above an earlier tile store
        // (shared store; it cannot tell them apart), so unit by unit each
        // store waited on its own lookups' latency and the next unit's
        // lookups on that store (session 22's ncu: the producer, not the
        // consumers, set the prefix case's pace).
        TQ_UNROLL
        for (int k = 0; k < GPT; ++k) {
          const int gi = tid + k * NT, nn = gi / GPR, q = gi % GPR;
          if (gi >= kGroups)
            break;
          stageGroup<KInfo>(gk[k], lutK, [&](int j) {
            return dst(nn, q * Group + j, false);
          });
          stageGroup<VInfo>(gv[k], lutV, [&](int j) {
            return dst(nn, q * Group + j, true);
          });
        }
      } else {
        TQ_UNROLL
        for (int k = 0; k < UPT; ++k) {
          const int u = tid + k * NT, nn = u / UPR, c = u % UPR;
          if (u >= kUnits)
            break;
          // Zero codes past the end are finite; their scalars are 0.
          const Chunk ck = kLean ? pk[k].finish() : pk[k].ready;
          const Chunk cv = kLean ? pv[k].finish() : pv[k].ready;
          const uint32_t wk[2] = {ck.w[0], ck.w[1]}, wv[2] = {cv.w[0], cv.w[1]};
          if constexpr (kLean) { // UnitLut tables
            *reinterpret_cast<u32x4 *>(dst(nn, c, false)) =
                unitHalves<KInfo>(wk, lutK);
            *reinterpret_cast<u32x4 *>(dst(nn, c, true)) =
                unitHalves<VInfo>(wv, lutV);
          } else { // float levels
            float xk[8], xv[8];
            unitValues<KInfo>(wk, lutK, xk);
            unitValues<VInfo>(wv, lutV, xv);
            storeHalves8(dst(nn, c, false), xk);
            storeHalves8(dst(nn, c, true), xv);
          }
        }
      }
    } else {
      copyAsyncWait<0>();
    }
    const int buf = i & 1;
    if (tid < BN) {
      const bool prefix = i < prefixTiles;
      auto value = [&](uint32_t bits) {
        return prefix ? f16BitsToFloat(bits) : bitsToFloat(bits);
      };
      // Prefix tiles hold centered uniform codes (codeCenter).
      const float sk = value(pks), sv = value(pvs);
      ks[buf][tid] = sk, vs[buf][tid] = sv;
      kz[buf][tid] = prefix ? centeredZero<KInfo>(value(pkz), sk) : value(pkz);
      vz[buf][tid] = prefix ? centeredZero<VInfo>(value(pvz), sv) : value(pvz);
    }
  }
};

/* The CTA's query rows (kRows = 16·warps: row r = chunk token r / G, query
 * head r % G of KV head kvh), rotated like the keys when `rotated`
 * (chunkRotated), × scale·log2(e), each
 * row scaled by a power of two into (-2, 2) and rounded to fp16: warp w
 * prepares rows 16w..16w+15 and hands each f16x2 pair (row, coordinate
 * pair) to put(r, col, bits); rowF[r] = the row's factor back, rowQs[r] =
 * Σ of the row's fp16 values (for key zero points). Padding rows (past the
 * tile's tokens) are zero. */
template <class Spec, class T, int kBatch, class Put>
TQ_INLINE void stageQueries(const tq_extend_args &a, int kvh, int row0,
                            int tok0, int ntok, bool rotated, float *rowF,
                            float *rowQs, Put put) {
  using KInfo = TensorInfo<Spec, true>;
  constexpr int D = Spec::kHeadDim, E = D / kWarpSize;
  constexpr int G = Spec::kNumQHeads / Spec::kNumKVHeads;
  const int warp = warpIndex(), lane = laneIndex();
  const float qscale = a.scale * kLog2e;
  const T *query = static_cast<const T *>(a.query);
  // Rows in batches of kBatch: a batch's loads are all in flight before
  // the first is used (one row at a time, each row pays a full global-load
  // latency: ~6 % of the wgmma kernel's stall samples, session 18 run2;
  // the mma.sync kernel keeps 1 for its register cap).
  static_assert(16 % kBatch == 0, "whole batches of a warp's 16 rows");
  for (int r0 = warp * 16; r0 < warp * 16 + 16; r0 += kBatch) {
    float x[kBatch][E];
    TQ_UNROLL
    for (int b = 0; b < kBatch; ++b) {
      const int r = r0 + b, tk = r / G, qh = kvh * G + r % G;
      if (tk < ntok) {
        loadRow<T, E>(query + int64_t(row0 + tok0 + tk) * a.query_stride_token +
                          int64_t(qh) * a.query_stride_head + lane * E,
                      x[b]);
      } else {
        TQ_UNROLL
        for (int i = 0; i < E; ++i)
          x[b][i] = 0.f;
      }
    }
    // The batch's rows rotate together (padding rows are zeros and stay
    // zeros): no branch between them, so their shuffle chains interleave.
    if (KInfo::kRotated && rotated)
      warpRotateMany<D, KInfo::kRounds, kBatch>(x, Spec::keySigns());
    float f[kBatch], mx[kBatch], qsum[kBatch];
    TQ_UNROLL
    for (int b = 0; b < kBatch; ++b) {
      mx[b] = 0.f;
      TQ_UNROLL
      for (int i = 0; i < E; ++i) {
        x[b][i] *= qscale;
        mx[b] = fmaxf(mx[b], fabsf(x[b][i]));
      }
    }
    warpMaxMany(mx);
    TQ_UNROLL
    for (int b = 0; b < kBatch; ++b) {
      const int r = r0 + b;
      f[b] = pow2Above(mx[b]);
      // 2 / f into (-2, 2), exact from the exponent (f is a power of two
      // from pow2Above; inf gives 0): no IEEE division's slow-path check.
      const float inv = bitsToFloat((255u - (floatToBits(f[b]) >> 23)) << 23);
      qsum[b] = 0.f;
      TQ_UNROLL
      for (int i = 0; i < E; i += 2) {
        const uint32_t h2 = packHalf2(x[b][i] * inv, x[b][i + 1] * inv);
        put(r, lane * E + i, h2);
        qsum[b] += f16BitsToFloat(h2 & 0xffffu) + f16BitsToFloat(h2 >> 16);
      }
    }
    if constexpr (KInfo::kHasZero)
      warpSumMany(qsum);
    if (lane == 0) {
      TQ_UNROLL
      for (int b = 0; b < kBatch; ++b) {
        rowF[r0 + b] = f[b] * 0.5f;
        rowQs[r0 + b] = qsum[b];
      }
    }
  }
}

/* The chunk-only CTAs' query rows (stageQueries's rows: row r = chunk token
 * r / G, query head kvh·G + r % G) as they are, by cp.async: the tensor
 * cores take the inputs' own 16-bit type there and the softmax applies
 * scale·log2(e) (the row factor), so there is nothing to compute. Thread
 * tid of kThreads copies the 16-byte units u = tid + k·kThreads (row
 * u / (D/8), unit u % (D/8)) to dst(r, c); padding rows are zeros. */
template <class Spec, class T, int kRows, int kThreads, class Dst>
TQ_INLINE void issueRawQueries(const tq_extend_args &a, int kvh, int row0,
                               int tok0, int ntok, int tid, Dst dst) {
  constexpr int UPR = Spec::kHeadDim / 8;
  constexpr int G = Spec::kNumQHeads / Spec::kNumKVHeads;
  static_assert(kRows * UPR % kThreads == 0, "whole passes of the threads");
  // The tile's first row is the address a zero fill names (ntok >= 1).
  const T *q = static_cast<const T *>(a.query) +
               int64_t(row0 + tok0) * a.query_stride_token +
               int64_t(kvh * G) * a.query_stride_head;
  TQ_UNROLL
  for (int k = 0; k < kRows * UPR / kThreads; ++k) {
    const int u = tid + k * kThreads, r = u / UPR, c = u % UPR, tk = r / G;
    const bool in = tk < ntok;
    copyAsync16Fill(dst(r, c),
                    q + (in ? int64_t(tk) * a.query_stride_token +
                                  int64_t(r % G) * a.query_stride_head + c * 8
                            : 0),
                    in ? 16u : 0u);
  }
}

/* Two adjacent per-token scalars, one 8-byte shared load. */
struct TQ_ALIGN(8) float2v {
  float x, y;
};

TQ_INLINE float2v loadPair(const float *p) {
  return *reinterpret_cast<const float2v *>(p);
}

/* s[j][e] (column 8j + 2t + e % 2) times that column's per-token scale:
 * the key scales on raw scores, the value scales on probabilities, for a
 * tile whose scales are not all 1 (KvTileStream::unitScales). */
template <int NTL>
TQ_INLINE void scaleColumns(float (&s)[NTL][4], const float *scale, int t) {
  TQ_UNROLL
  for (int j = 0; j < NTL; ++j) {
    const float2v k2 = loadPair(scale + j * 8 + 2 * t);
    s[j][0] *= k2.x, s[j][1] *= k2.y, s[j][2] *= k2.x, s[j][3] *= k2.y;
  }
}

/* The maximum of N values (N a power of two) by pairs, level by level. */
template <int N> TQ_INLINE float treeMax(const float (&u)[N]) {
  if constexpr (N == 1) {
    return u[0];
  } else {
    float h[N / 2];
    TQ_UNROLL
    for (int j = 0; j < N / 2; ++j)
      h[j] = fmaxf(u[j], u[j + N / 2]);
    return treeMax(h);
  }
}

/* One tile's raw scores s (this thread's elements of its rows g, g + 8 of
 * the warp's 16: s[j][e] at row e / 2, column 8j + 2t + e % 2) into fp16-
 * ready probabilities, with the online softmax state (m, l,
 * zb per row) updated; corr[i] is the factor the row's output accumulators
 * must be multiplied by, and the result says whether any row of the warp
 * has one other than 1 (else the caller skips the multiply: exact, and
 * once the running max settles most tiles need none). Columns past cnt,
 * padding rows (rTok < 0) and, on chunk tiles (causal), chunk tokens after
 * the row's own are masked; the decision is the warp's (a vote), so a tile
 * that needs none of that (most of them) runs a branch-free body. The row
 * factor rf (a power of two) is applied once, in the exponent's fma:
 * rf·(s·k + z·qs) is bit for bit the (s·rf)·k + z·(qs·rf) of scaling
 * first. KeyZero / ValueZero: the stored tensors have zero points (else kz,
 * vz are unread). The per-column key and value scales are the caller's
 * (scaleColumns before and after; none on tiles of unit scales).
 * The per-token scalars are read in pairs (8-byte aligned arrays). */
template <bool KeyZero, bool ValueZero, bool Mask, int NTL>
TQ_INLINE void tileScores(float (&s)[NTL][4], const float (&qs)[2],
                          const int (&lim)[2], const float *kz, int t,
                          float (&mx)[2]) {
  TQ_UNROLL
  for (int j = 0; j < NTL; ++j) {
    const int c0 = j * 8 + 2 * t;
    float2v z2 = {0.f, 0.f};
    if constexpr (KeyZero)
      z2 = loadPair(kz + c0);
    TQ_UNROLL
    for (int e = 0; e < 4; ++e) {
      const int i = e >> 1;
      float v = s[j][e];
      if constexpr (KeyZero)
        v = fmaf(e & 1 ? z2.y : z2.x, qs[i], v);
      // lim[i]: the row's last live column, less 2t (a compile-time
      // column offset against one register per row).
      if constexpr (Mask)
        v = j * 8 + (e & 1) > lim[i] ? negInf() : v;
      s[j][e] = v;
    }
  }
  // The rows' maxima as trees (depth log2(2·NTL), not a chain of 2·NTL
  // dependent FMNMX; max is exact, so the order does not change it).
  TQ_UNROLL
  for (int i = 0; i < 2; ++i) {
    float u[NTL];
    TQ_UNROLL
    for (int j = 0; j < NTL; ++j)
      u[j] = fmaxf(s[j][2 * i], s[j][2 * i + 1]);
    mx[i] = treeMax(u);
  }
}

/* p = 2^(s·rf - m) per score into s, each row's Σp into l and, with value
 * zero points, Σp·z into zb; the sums in four interleaved partial sums per
 * row (four short dependency chains instead of one of 2·NTL adds). */
template <bool ValueZero, int NTL>
TQ_INLINE void tileProbs(float (&s)[NTL][4], const float (&rf)[2],
                         const float (&mSub)[2], const float *vz, int t,
                         float (&l)[2], float (&zb)[2]) {
  constexpr int kParts = NTL >= 4 ? 4 : NTL;
  float lp[2][kParts], zp[2][kParts];
  TQ_UNROLL
  for (int i = 0; i < 2; ++i) {
    TQ_UNROLL
    for (int k = 0; k < kParts; ++k)
      lp[i][k] = zp[i][k] = 0.f;
  }
  TQ_UNROLL
  for (int j = 0; j < NTL; ++j) {
    const int c0 = j * 8 + 2 * t, k = j % kParts;
    float2v z2 = {0.f, 0.f};
    if constexpr (ValueZero)
      z2 = loadPair(vz + c0);
    TQ_UNROLL
    for (int e = 0; e < 4; ++e) {
      const int i = e >> 1;
      const float p = exp2Fast(fmaf(s[j][e], rf[i], mSub[i]));
      lp[i][k] += p;
      if constexpr (ValueZero)
        zp[i][k] = fmaf(p, e & 1 ? z2.y : z2.x, zp[i][k]);
      s[j][e] = p;
    }
  }
  TQ_UNROLL
  for (int i = 0; i < 2; ++i) {
    float ls = lp[i][0], zs = zp[i][0];
    TQ_UNROLL
    for (int k = 1; k < kParts; ++k) {
      ls += lp[i][k];
      zs += zp[i][k];
    }
    l[i] += ls;
    if constexpr (ValueZero)
      zb[i] += zs;
  }
}

/* How far (log2 units) a chunk tile lets a row's running maximum lag its
 * true one before rescaling (FA4's lazy rescale): p = 2^(s - m) then stays
 * below 2^8, exact in range for fp16 and for the fp32 sums, and most tiles
 * past the first few skip the output accumulators' rescale (D/2
 * multiplies per thread). Prefix tiles
 * rescale exactly: their probabilities are multiplied by value scales in
 * fp16 (scaleColumns), which p up to 2^8 could overflow. Chunk tiles come
 * after every prefix tile, so a prefix tile never sees a lagging max. */
constexpr float kLazyRescaleLog2 = 8.f;

template <bool KeyZero, bool ValueZero, int NTL>
TQ_INLINE bool scoresToProbs(float (&s)[NTL][4], const float (&rf)[2],
                             const float (&qs)[2], const int (&rTok)[2],
                             const float *kz, const float *vz, int cnt,
                             bool causal, int chunkBase, int t, float (&m)[2],
                             float (&l)[2], float (&zb)[2], float (&corr)[2]) {
  const bool needMask = anyLane(
      cnt < NTL * 8 || rTok[0] < 0 || rTok[1] < 0 ||
      (causal && chunkBase + NTL * 8 - 1 > minInt(rTok[0], rTok[1])));
  float mx[2];
  if (needMask) {
    // Column c of row i is live while c <= lim: before the tile's end, on
    // a real row and, on chunk tiles, not after the row's own token.
    int lim[2];
    TQ_UNROLL
    for (int i = 0; i < 2; ++i) {
      const int last = causal ? minInt(cnt - 1, rTok[i] - chunkBase) : cnt - 1;
      lim[i] = (rTok[i] < 0 ? -1 : last) - 2 * t;
    }
    tileScores<KeyZero, ValueZero, true>(s, qs, lim, kz, t, mx);
  } else {
    const int lim[2] = {0, 0};
    tileScores<KeyZero, ValueZero, false>(s, qs, lim, kz, t, mx);
  }
  float mSub[2];
  TQ_UNROLL
  for (int i = 0; i < 2; ++i) {
    mx[i] = fmaxf(mx[i], shflXor(mx[i], 1));
    mx[i] = fmaxf(mx[i], shflXor(mx[i], 2));
    const float seen = mx[i] * rf[i];
    // A chunk tile keeps a finite running max within kLazyRescaleLog2 of
    // the tile's (the quad agrees: mx and m are the quad's).
    const bool lag = causal && !isNegInf(m[i]) && seen <= m[i] + kLazyRescaleLog2;
    const float mNew = lag ? m[i] : fmaxf(m[i], seen);
    // Nothing seen yet (mNew = -inf): keep everything at zero; exp2 of a
    // masked -inf score minus a finite max is 0.
    corr[i] = isNegInf(mNew) ? 1.f : decode_detail::mergeWeight(m[i], mNew);
    mSub[i] = isNegInf(mNew) ? 0.f : -mNew;
    m[i] = mNew;
    l[i] *= corr[i];
    zb[i] *= corr[i];
  }
  // Chunk tiles' value zero points are 0 (KvTileStream): their p·z terms
  // add nothing, so they skip them (an FFMA per score and a shared load per
  // four, of ~6 instructions per score).
  if (ValueZero && !causal)
    tileProbs<ValueZero>(s, rf, mSub, vz, t, l, zb);
  else
    tileProbs<false>(s, rf, mSub, vz, t, l, zb);
  return anyLane(corr[0] != 1.f || corr[1] != 1.f);
}

/* scoresToProbs (above) as the mma.sync kernel takes it: every tile
 * masked, every scalar read. Kept apart because that kernel runs at a
 * 168-register cap (3 CTAs per SM on sm_90) and the leaner form's branch
 * and paired loads make ptxas spill there. */
template <int NTL>
TQ_INLINE void scoresToProbsMasked(float (&s)[NTL][4], const float (&rf)[2],
                             const float (&rq)[2], const int (&rTok)[2],
                             const float *ks, const float *kz,
                             const float *vsc, const float *vz, int cnt,
                             bool causal, int chunkBase, int t, float (&m)[2],
                             float (&l)[2], float (&zb)[2], float (&corr)[2]) {
  float mx[2] = {negInf(), negInf()};
  TQ_UNROLL
  for (int j = 0; j < NTL; ++j) {
    TQ_UNROLL
    for (int e = 0; e < 4; ++e) {
      const int col = j * 8 + 2 * t + (e & 1), i = e >> 1;
      float v = fmaf(s[j][e] * rf[i], ks[col], kz[col] * rq[i]);
      const bool dead = col >= cnt || rTok[i] < 0 ||
                        (causal && chunkBase + col > rTok[i]);
      v = dead ? negInf() : v;
      s[j][e] = v;
      mx[i] = fmaxf(mx[i], v);
    }
  }
  TQ_UNROLL
  for (int i = 0; i < 2; ++i) {
    mx[i] = fmaxf(mx[i], shflXor(mx[i], 1));
    mx[i] = fmaxf(mx[i], shflXor(mx[i], 2));
    const float mNew = fmaxf(m[i], mx[i]);
    // Nothing seen yet (mNew = -inf): keep everything at zero.
    corr[i] = isNegInf(mNew) ? 1.f : decode_detail::mergeWeight(m[i], mNew);
    m[i] = mNew;
    l[i] *= corr[i];
    zb[i] *= corr[i];
  }
  TQ_UNROLL
  for (int j = 0; j < NTL; ++j) {
    TQ_UNROLL
    for (int e = 0; e < 4; ++e) {
      const int col = j * 8 + 2 * t + (e & 1), i = e >> 1;
      const float p = isNegInf(s[j][e]) ? 0.f : exp2Fast(s[j][e] - m[i]);
      l[i] += p;
      zb[i] = fmaf(p, vz[col], zb[i]);
      s[j][e] = p * vsc[col];
    }
  }
}

/* The m16n8k16 A fragment of probabilities for tokens 16kv..16kv+15, in
 * fp16 (bf16 where Bf16: the wgmma kernel's raw bf16 chunk tiles). */
template <bool Bf16 = false, int NTL>
TQ_INLINE void probFragment(const float (&s)[NTL][4], int kv,
                            uint32_t (&pa)[4]) {
  auto pack = [](float lo, float hi) {
    return Bf16 ? packBf16x2(lo, hi) : packHalf2(lo, hi);
  };
  pa[0] = pack(s[2 * kv][0], s[2 * kv][1]);
  pa[1] = pack(s[2 * kv][2], s[2 * kv][3]);
  pa[2] = pack(s[2 * kv + 1][0], s[2 * kv + 1][1]);
  pa[3] = pack(s[2 * kv + 1][2], s[2 * kv + 1][3]);
}

/* The thread's two row sums over its quad (the mma row layout: four lanes
 * per row), and their inverses (0 for a row that saw nothing). */
TQ_INLINE void rowSumsAndInverses(float (&l)[2], float (&inv)[2]) {
  TQ_UNROLL
  for (int i = 0; i < 2; ++i) {
    l[i] += shflXor(l[i], 1);
    l[i] += shflXor(l[i], 2);
    inv[i] = l[i] > 0.f ? 1.f / l[i] : 0.f;
  }
}

/* The natural-log log-sum-exp of the thread's two rows when asked (the
 * quad's first lane; l already summed over the quad). */
template <class Spec>
TQ_INLINE void writeRowLse(const tq_extend_args &a, const float (&m)[2],
                           const float (&l)[2], const int (&rTok)[2], int kvh,
                           int row0) {
  constexpr int G = Spec::kNumQHeads / Spec::kNumKVHeads;
  const int lane = laneIndex();
  if (a.lse == nullptr || (lane & 3) != 0)
    return;
  TQ_UNROLL
  for (int i = 0; i < 2; ++i) {
    const int r = warpIndex() * 16 + (lane >> 2) + 8 * i;
    if (rTok[i] >= 0)
      a.lse[int64_t(row0 + rTok[i]) * Spec::kNumQHeads + kvh * G + r % G] =
          l[i] > 0.f ? (m[i] + log2Fast(l[i])) * kLn2 : negInf();
  }
}

/* The epilogue of CTAs whose rows are neither rotated nor zero-pointed (the
 * wgmma kernel's raw chunk CTAs): each warp's 16 rows, divided by their
 * sums and rounded to T, into its own rows of sOut (Pitch bytes apart: 16
 * bytes more than a row, so a quad's 4-byte stores for its 8 rows fall in
 * distinct banks; a region of its own, so no other warp or the producer
 * waits), then each row to `out` by one bulk copy where the output strides
 * keep rows 16-byte aligned (the runtime checks `out` itself), else by the
 * lanes, an element at a time. The fp32 staging of finishRows (stores,
 * barrier, loads, per-row address arithmetic) was 12 % of the consumers'
 * stall samples of a causal 4K chunk (session 28's ncu, run4), the
 * tensor cores idle meanwhile (one CTA per SM). */
template <class Spec, class T, int OT, int Pitch>
TQ_INLINE void finishRawRows(const tq_extend_args &a, const float (&o)[OT][4],
                             const float (&m)[2], float (&l)[2],
                             const int (&rTok)[2], int kvh, int row0,
                             int tok0, int ntok, uint8_t *sOut) {
  constexpr int D = Spec::kHeadDim;
  constexpr int G = Spec::kNumQHeads / Spec::kNumKVHeads;
  static_assert(OT * 8 == D && Pitch % 16 == 0 && Pitch >= 2 * D,
                "whole rows of 16-byte units");
  const int warp = warpIndex(), lane = laneIndex(), g = lane >> 2,
            t = lane & 3;
  float inv[2];
  rowSumsAndInverses(l, inv);
  writeRowLse<Spec>(a, m, l, rTok, kvh, row0);
  const uint32_t row = sharedAddress(sOut) + (warp * 16 + g) * Pitch + 4 * t;
  TQ_UNROLL
  for (int j = 0; j < OT; ++j) {
    TQ_UNROLL
    for (int i = 0; i < 2; ++i) {
      const float lo = o[j][2 * i] * inv[i], hi = o[j][2 * i + 1] * inv[i];
      storeShared4(row + i * 8 * Pitch + 16 * j,
                   DType<T>::kIsBf16 ? packBf16x2(lo, hi) : packHalf2(lo, hi));
    }
  }
  T *out = static_cast<T *>(a.out);
  const bool bulk = a.out_stride_token % 8 == 0 && a.out_stride_head % 8 == 0;
  if (bulk) {
    fenceProxyAsyncShared(); // the rows are read by the copy engine
    syncWarp();
    const int r = warp * 16 + lane, tk = r / G;
    if (lane < 16 && tk < ntok)
      bulkCopyToGlobal(out + int64_t(row0 + tok0 + tk) * a.out_stride_token +
                           int64_t(kvh * G + r % G) * a.out_stride_head,
                       sOut + r * Pitch, uint32_t(2 * D));
    bulkCommit();
    bulkWaitRead(); // sOut is read before the CTA ends
  } else {
    syncWarp();
    for (int rr = 0; rr < 16; ++rr) {
      const int r = warp * 16 + rr, tk = r / G;
      if (tk >= ntok)
        break; // rows are in token order: the rest are padding too
      const uint16_t *src =
          reinterpret_cast<const uint16_t *>(sOut + r * Pitch);
      uint16_t *dst = reinterpret_cast<uint16_t *>(
          out + int64_t(row0 + tok0 + tk) * a.out_stride_token +
          int64_t(kvh * G + r % G) * a.out_stride_head);
      for (int c = lane; c < D; c += kWarpSize)
        dst[c] = src[c];
    }
  }
}

/* Epilogue: the rows' sums over the quad, the output normalized plus the
 * zero-point term into sO (floats, row pitch OP), the log-sum-exp when
 * asked; then each warp un-rotates (when `rotated`: chunkRotated) and
 * writes its 16 rows. The caller has
 * made sO free (a barrier after the last tile's reads). */
template <class Spec, class T, int OT, int OP, int kRowBatch>
TQ_INLINE void finishRows(const tq_extend_args &a, float (&o)[OT][4],
                          float (&m)[2], float (&l)[2], float (&zb)[2],
                          const int (&rTok)[2], int kvh, int row0, int tok0,
                          int ntok, bool rotated, float *sO) {
  using VInfo = TensorInfo<Spec, false>;
  constexpr int D = Spec::kHeadDim, E = D / kWarpSize;
  constexpr int G = Spec::kNumQHeads / Spec::kNumKVHeads;
  const int warp = warpIndex(), lane = laneIndex(), g = lane >> 2,
            t = lane & 3;
  float inv[2];
  rowSumsAndInverses(l, inv);
  TQ_UNROLL
  for (int i = 0; i < 2; ++i) {
    zb[i] += shflXor(zb[i], 1);
    zb[i] += shflXor(zb[i], 2);
  }
  TQ_UNROLL
  for (int j = 0; j < OT; ++j) {
    TQ_UNROLL
    for (int e = 0; e < 4; ++e) {
      const int i = e >> 1, r = warp * 16 + g + 8 * i;
      sO[r * OP + j * 8 + 2 * t + (e & 1)] = (o[j][e] + zb[i]) * inv[i];
    }
  }
  writeRowLse<Spec>(a, m, l, rTok, kvh, row0);
  syncWarp();
  T *out = static_cast<T *>(a.out);
  // kRowBatch rows at a time: their un-rotations have no branch between
  // them, so their shuffle chains interleave (one row at a time, every
  // stage of every row waited out a shuffle's latency).
  static_assert(16 % kRowBatch == 0, "whole batches of a warp's 16 rows");
  for (int r0 = warp * 16; r0 < warp * 16 + 16; r0 += kRowBatch) {
    if (r0 / G >= ntok)
      break; // rows are in token order: the rest are padding too
    float x[kRowBatch][E];
    TQ_UNROLL
    for (int b = 0; b < kRowBatch; ++b) {
      TQ_UNROLL
      for (int i = 0; i < E; ++i)
        x[b][i] = sO[(r0 + b) * OP + lane * E + i];
    }
    if (VInfo::kRotated && rotated)
      warpRotateInverseMany<D, VInfo::kRounds, kRowBatch>(x,
                                                          Spec::valueSigns());
    TQ_UNROLL
    for (int b = 0; b < kRowBatch; ++b) {
      const int r = r0 + b, tk = r / G;
      if (tk < ntok)
        storeRow<T, E>(out + int64_t(row0 + tok0 + tk) * a.out_stride_token +
                           int64_t(kvh * G + r % G) * a.out_stride_head +
                           lane * E,
                       x[b]);
    }
  }
}

} // namespace extend_detail

namespace extend_detail {
/* Chunk row `row`'s KV head h of one tensor (the raw words of the store's
 * lane groups, G lanes of E coordinates each) into the workspace: rotated
 * like the stored codes where `rotated`, then as fp16 at scale 1 where fp16
 * holds the row (max |x| in [2^-8, 65504], or 0): the wgmma kernel's
 * consumers then skip the per-column multiplies, and the probabilities
 * times the value scale cannot overflow fp16 (with every row scaled into
 * [-1, 1), a row past 32768 took scale 65536 and p·65536 did). Other rows
 * are scaled by a power of two into [-1, 1) (exact): tiny rows keep their
 * precision; rows past fp16's range (bf16 inputs only) overflow there
 * still. Every lane of the warp calls it (shuffles); only `live` groups
 * write. */
template <class Spec, class T, bool IsValue>
TQ_INLINE void prepHead(const tq_extend_args &a, int row, int h, bool live,
                        bool rotated,
                        const uint32_t (&w)[Spec::kHeadDim /
                                            store_detail::kStoreGroup<Spec> /
                                            2]) {
  using Info = TensorInfo<Spec, !IsValue>;
  constexpr int D = Spec::kHeadDim, H = Spec::kNumKVHeads;
  constexpr int G = store_detail::kStoreGroup<Spec>, E = D / G;
  const int gl = laneIndex() & (G - 1);
  float x[E];
  floatsOfWords<T, E>(w, x);
  if (Info::kRotated && rotated)
    groupRotate<D, Info::kRounds, G>(
        x, IsValue ? Spec::valueSigns() : Spec::keySigns());
  float mx = 0.f;
  TQ_UNROLL
  for (int i = 0; i < E; ++i)
    mx = fmaxf(mx, fabsf(x[i]));
  const float rowMax = groupMax<G>(mx);
  const bool asIs =
      rowMax <= 65504.f && (rowMax >= 0.00390625f || rowMax == 0.f);
  const float s = asIs ? 1.f : pow2Above(rowMax), inv = 1.f / s;
  if (!live)
    return;
  uint16_t *dst =
      ChunkWs<Spec>::rows(a, IsValue) + (int64_t(row) * H + h) * D + gl * E;
  TQ_UNROLL
  for (int c = 0; c < E / 8; ++c) {
    u32x4 v;
    v.x = packHalf2(x[8 * c] * inv, x[8 * c + 1] * inv);
    v.y = packHalf2(x[8 * c + 2] * inv, x[8 * c + 3] * inv);
    v.z = packHalf2(x[8 * c + 4] * inv, x[8 * c + 5] * inv);
    v.w = packHalf2(x[8 * c + 6] * inv, x[8 * c + 7] * inv);
    storeGlobal16(dst + 8 * c, v);
  }
  if (gl == 0)
    ChunkWs<Spec>::scales(a, IsValue)[int64_t(row) * H + h] = s;
}

/* The fused store (slot_mapping) of one attention CTA's own chunk tokens
 * [tok0, tok0 + ntok) of the sequence whose chunk starts at row0, KV head
 * kvh, by NWS warps (`w`: this warp's index among them) in the store's lane
 * groups: group q = w·GPW + lane / G takes token tok0 + q + k·NWS·GPW. The
 * store kernel's code on the same words (store_detail::storeTensorWords),
 * and the same bytes. words(tok, value, x) gives the group lane's E/2 words
 * (its E coordinates, 16-bit pairs) of chunk token tok's key or value row,
 * as the store's row loads would (the wgmma kernel: from its last tiles in
 * shared memory; the emulator's check: from the inputs). Used by the wgmma
 * kernel's chunk-only CTAs, whose rows the prep does not read
 * (ExtendRawChunkRows): every chunk token of such a sequence is some CTA's
 * own for each KV head. A group without a token, or whose token's slot is
 * -1, computes on the round's first token without writing (every lane
 * joins the warp's shuffles and mma). The tables as fillStoreTables<Spec,
 * NWS> left them. */
template <class Spec, class T, int NWS, class Words>
TQ_INLINE void storeTileRows(
    const tq_extend_args &a, int kvh, int row0, int tok0, int ntok, int w,
    const uint32_t (*pairMasks)[Spec::kHeadDim / 2],
    const store_detail::StoreReal<TensorInfo<Spec, true>> *keyBook,
    const store_detail::StoreReal<TensorInfo<Spec, false>> *valueBook,
    uint8_t (*codes)[Spec::kHeadDim],
    float (*resid)[store_detail::StoreTables<Spec, NWS>::kResid],
    Words words) {
  using namespace store_detail;
  constexpr int G = kStoreGroup<Spec>, GPW = kWarpSize / G;
  constexpr int E = Spec::kHeadDim / G, kPerRound = NWS * GPW;
  static_assert(G < kWarpSize, "the store's lane groups of < 32 lanes");
  const int q = w * GPW + laneIndex() / G;
  for (int t0 = 0; t0 < ntok; t0 += kPerRound) { // uniform over the CTA
    const int t = t0 + q < ntok ? t0 + q : t0;
    const int64_t slot = a.slot_mapping[row0 + tok0 + t];
    const bool live = t0 + q < ntok && slot >= 0;
    const int64_t at = live ? slot : 0;
    uint8_t *region = a.cache +
                      (at / Spec::kBlockSize) * Spec::kBlockStride +
                      int64_t(kvh) * Spec::kHeadStride;
    const int pos = int(at % Spec::kBlockSize);
    // One tensor's words at a time (storeRoundWords holds both): the
    // producer's 88 registers spilled with both (k4v4, k4v2).
    uint32_t x[E / 2];
    words(tok0 + t, false, x);
    storeTensorWords<Spec, true, G, T>(x, pairMasks[0], region, pos, keyBook,
                                       codes[q], resid[w], live);
    words(tok0 + t, true, x);
    storeTensorWords<Spec, false, G, T>(x, pairMasks[1], region, pos,
                                        valueBook, codes[q], resid[w], live);
  }
}
} // namespace extend_detail

/* The extend Spec's kExtendWgmma (absent: false): the compiler chose the
 * warpgroup-mma kernel (extend_wgmma.h, sm_90a). */
template <class Spec, class = void> struct ExtendUsesWgmma {
  static constexpr bool value = false;
};
template <class Spec>
struct ExtendUsesWgmma<Spec, store_detail::VoidT<decltype(Spec::kExtendWgmma)>> {
  static constexpr bool value = Spec::kExtendWgmma;
};

template <class Spec> struct ExtendWgmmaPlan;
/* Whether the attention reads the rows of sequences without a prefix from
 * the extend's inputs itself (the wgmma kernel's chunk-only CTAs:
 * KvTileStream::issueRawChunkTensor), so the prep writes no workspace rows
 * for them (value), and whether it also stores them (stores:
 * storeTileRows), so the prep does nothing for them. */
template <class Spec, bool = ExtendUsesWgmma<Spec>::value>
struct ExtendRawChunkRows {
  static constexpr bool value = false, stores = false;
};
template <class Spec> struct ExtendRawChunkRows<Spec, true> {
  static constexpr bool value = ExtendWgmmaPlan<Spec>::kRawChunkCtas;
  static constexpr bool stores = ExtendWgmmaPlan<Spec>::kChunkOnlyStores;
};

/* Kernel 1. Grid (ceil(max_tokens / kExtendPrepTileTokens), 1, 1),
 * kExtendPrepWarps (W) warps: CTA x takes chunk rows [x·kTile, x·kTile +
 * kTile), warp w rows x·kTile + w + W·j. A warp holds one row at a time in
 * the store's lane groups (store.h: G = 4 lanes of E = D/4 coordinates per
 * KV head, 16-byte loads and stores, the warp's groups taking the heads in
 * rounds), and writes it into the workspace (prepHead). With slot_mapping
 * it also stores the row into the cache from the same words (the store
 * kernel's code, store_detail::storeRoundWords): the chunk is read from
 * memory once for both. All of a warp's first-round rows (and slots) are
 * loaded before the first is used and before the sequence lookup (a chain
 * of dependent loads) decides the rotation. */
template <class Spec, class T>
TQ_DEVICE void extendPrep(const tq_extend_args &a) {
  using namespace extend_detail;
  using store_detail::kStoreGroup;
  constexpr int D = Spec::kHeadDim, H = Spec::kNumKVHeads;
  constexpr int W = Spec::kExtendPrepWarps;
  constexpr int kTile = Spec::kExtendPrepTileTokens, kPerWarp = kTile / W;
  constexpr int G = kStoreGroup<Spec>, GPW = kWarpSize / G, E = D / G;
  static_assert(kTile % W == 0 && kPerWarp >= 1,
                "kExtendPrepTileTokens: a multiple of kExtendPrepWarps");
  static_assert(G < kWarpSize && E % 8 == 0,
                "the store's lane groups of whole 16-byte units");
  // The attention behind it (a programmatic launch on sm_90+) may place
  // its CTAs, stage its queries and walk its prefix tiles while this
  // kernel's last CTAs run; it waits for this grid before reading the
  // workspace (waitForChunkRows).
  allowDependentLaunch();
  const int total = a.cu_seqlens_q[a.batch];
  const int first = blockIndexX() * kTile;
  if (first >= total) // the whole CTA, before any barrier
    return;
  const bool storing = a.slot_mapping != nullptr;
  using Tb = store_detail::StoreTables<Spec, W>;
  using store_detail::StoreReal;
  TQ_SHARED StoreReal<typename Tb::KInfo> sKeyBook[Tb::kKeyLevels];
  TQ_SHARED StoreReal<typename Tb::VInfo> sValueBook[Tb::kValueLevels];
  TQ_SHARED uint8_t sCodes[Tb::kGroups][D];
  TQ_SHARED float sResid[W][Tb::kResid];
  TQ_SHARED TQ_ALIGN(16) uint32_t sPairMasks[2][D / 2];
  if (storing) // uniform over the CTA
    store_detail::fillStoreTables<Spec, W>(sKeyBook, sValueBook, sPairMasks);
  const int warp = warpIndex(), g = laneIndex() / G;
  const T *key = static_cast<const T *>(a.key);
  const T *value = static_cast<const T *>(a.value);
  auto load = [&](int row, int h, uint32_t(&wk)[E / 2],
                  uint32_t(&wv)[E / 2]) {
    store_detail::loadStoreRound<Spec, T>(
        key + row * a.key_stride_token, a.key_stride_head,
        value + row * a.value_stride_token, a.value_stride_head, h, wk, wv);
  };
  // Rows of sequences without a prefix need no workspace row where the
  // attention reads them itself (ExtendRawChunkRows), and nothing at all
  // where it also stores them or nothing is stored: there the sequence
  // lookup comes before the loads.
  constexpr bool kRawRows = ExtendRawChunkRows<Spec>::value;
  const bool rawStored = !storing || ExtendRawChunkRows<Spec>::stores;
  uint32_t wk[kPerWarp][E / 2], wv[kPerWarp][E / 2];
  int64_t slot[kPerWarp];
  bool rot[kPerWarp];
  const int h0 = store_detail::roundHead<Spec>(0, g);
  TQ_UNROLL
  for (int j = 0; j < kPerWarp; ++j) {
    const int row = first + warp + W * j;
    slot[j] = -1;
    rot[j] = false;
    if (row < total) {
      if (kRawRows)
        rot[j] = chunkRotated(a.prefix_lens[sequenceOfRow(a, row)]);
      if (!kRawRows || rot[j] || !rawStored) {
        load(row, h0, wk[j], wv[j]);
        if (storing)
          slot[j] = a.slot_mapping[row];
      }
    }
  }
  TQ_UNROLL
  for (int j = 0; j < kPerWarp; ++j) {
    const int row = first + warp + W * j;
    if (row >= total) // uniform over the warp; later rows are beyond too
      break;
    const bool rotated =
        kRawRows ? rot[j]
                 : chunkRotated(a.prefix_lens[sequenceOfRow(a, row)]);
    // Unprefixed rows the attention reads itself: the prep's only where it
    // stores them (their workspace rows then written too, unread: a branch
    // around prepHead made ptxas fail register allocation, C7600).
    if (kRawRows && !rotated && rawStored) // uniform over the warp
      continue;
    auto round = [&](int r0, const uint32_t(&rk)[E / 2],
                     const uint32_t(&rv)[E / 2]) {
      const bool live = store_detail::roundHeadLive<Spec>(r0, g);
      const int h = store_detail::roundHead<Spec>(r0, g);
      prepHead<Spec, T, false>(a, row, h, live, rotated, rk);
      prepHead<Spec, T, true>(a, row, h, live, rotated, rv);
      if (slot[j] >= 0) // uniform over the warp
        store_detail::storeRoundWords<Spec, T>(
            sPairMasks, sKeyBook, sValueBook, sCodes[warp * GPW + g],
            sResid[warp], a.cache, slot[j], h, live, rk, rv);
    };
    round(0, wk[j], wv[j]);
    for (int r0 = GPW; r0 < H; r0 += GPW) {
      uint32_t rk[E / 2], rv[E / 2];
      load(row, store_detail::roundHead<Spec>(r0, g), rk, rv);
      round(r0, rk, rv);
    }
  }
}

/* The attention kernel may be launched with programmatic stream
 * serialization (the manifest's programmatic_launch, sm_90+), so it may
 * start before its predecessor in the stream has finished. With a chunk
 * that predecessor is its prep (the runtime launches them back to back,
 * and the prep itself plainly, so everything before the prep is done and
 * visible): only the workspace must wait, and this is called before the
 * first read of it. Without a chunk the predecessor is anything (the
 * queries, the cache, the sequence arrays may be its outputs): the kernel
 * waits first thing (waitUnlessChunk). */
TQ_INLINE void waitForChunkRows() { waitForPrimaryGrid(); }
TQ_INLINE void waitUnlessChunk(const tq_extend_args &a) {
  if (a.key == nullptr)
    waitForPrimaryGrid();
}

/* Kernel 2 on warp mma.sync. Grid (ceil(max_tokens / kTokTile) +
 * max_batch, num_kv_heads, 1), kExtendWarps warps. */
template <class Spec, class T>
TQ_DEVICE void extendMma(const tq_extend_args &a) {
  using namespace extend_detail;
  using Pl = ExtendPlan<Spec>;
  static_assert(Pl::kUnionBytes + 2048 <= 48 * 1024,
                "extend: tiles exceed 48 KiB of static shared memory");
  using KInfo = typename Pl::KInfo;
  using VInfo = typename Pl::VInfo;
  static_assert(Pl::kSupported, "extend: unsupported spec (see extend.h)");
  constexpr int D = Pl::D, G = Pl::G, NW = Pl::NW, NT = Pl::NT, BN = Pl::BN;
  constexpr int kRows = Pl::kRows, kTok = Pl::kTokTile;
  constexpr int KS = Pl::kKSteps, NTL = Pl::kNTiles, VS = Pl::kVSteps,
                OT = Pl::kOTiles, E = D / kWarpSize;
  constexpr int KP = Pl::kPitch, OP = Pl::kOPitch;
  // Rows per batch of the query staging and the epilogue's un-rotation
  // (more interleave their shuffle chains): one, as before. At its
  // 168-register cap ptxas spilled this kernel for every larger pair tried
  // (sm_90 k3v4 head_dim 128: 2/4 12 B, 2/2, 1/4, 1/2 32 B); the wgmma
  // kernel's 16-row batches are checked against one row at a time by the
  // CPU emulator (emu_extend.cpp checkRowBatches).
  constexpr int kQueryRows = 1, kEpilogueRows = 1;
  // This kernel (every target but sm_90a; griddepcontrol only on sm_90+)
  // simply waits first thing, chunk or not: its speed was never measured
  // under a programmatic launch, and the wgmma kernel is sm_90's fast one.
  waitForPrimaryGrid();

  // --- Which sequence and query tile (uniform over the CTA). ---
  int b = 0, tile = -1;
  findQueryTile<kTok>(a, b, tile);
  if (tile < 0)
    return;
  const int kvh = blockIndexY();
  const int row0 = a.cu_seqlens_q[b];
  const int n = a.cu_seqlens_q[b + 1] - row0;
  const int P = a.prefix_lens[b];
  const int tok0 = tile * kTok, ntok = minInt(kTok, n - tok0);
  const bool haveChunk = a.key != nullptr;

  TQ_SHARED u32x4 sRaw[Pl::kUnionBytes / 16];
  TQ_SHARED TQ_ALIGN(16) float sKs[2][BN], sKz[2][BN], sVs[2][BN], sVz[2][BN];
  TQ_SHARED float sRowF[kRows], sRowQs[kRows];
  TQ_SHARED float sLevK[KInfo::kLevels], sLevV[VInfo::kLevels];
  uint16_t *sQ = reinterpret_cast<uint16_t *>(sRaw);
  uint16_t *sTile = reinterpret_cast<uint16_t *>(sRaw); // [buf][K|V][BN][KP]
  float *sO = reinterpret_cast<float *>(sRaw);

  const int warp = warpIndex(), lane = laneIndex(), tid = threadIndex();
  const int g = lane >> 2, t = lane & 3;

  if (warp == 0) {
    if constexpr (KInfo::kQuant == TQ_QUANT_LLOYD_MAX)
      decode_detail::fillLevels<KInfo>(sLevK, Spec::keyLevels());
    if constexpr (VInfo::kQuant == TQ_QUANT_LLOYD_MAX)
      decode_detail::fillLevels<VInfo>(sLevV, Spec::valueLevels());
  }

  // --- Queries: rotated, × scale·log2(e), per-row power-of-two into fp16.
  const bool rotated = chunkRotated(P);
  stageQueries<Spec, T, kQueryRows>(a, kvh, row0, tok0, ntok, rotated, sRowF,
                                    sRowQs,
                        [&](int r, int col, uint32_t h2) {
                          *reinterpret_cast<uint32_t *>(sQ + r * KP + col) = h2;
                        });
  barrier();
  uint32_t qa[KS][4];
  TQ_UNROLL
  for (int kk = 0; kk < KS; ++kk) {
    const uint16_t *q0 = sQ + (warp * 16 + g) * KP + kk * 16 + 2 * t;
    qa[kk][0] = *reinterpret_cast<const uint32_t *>(q0);
    qa[kk][1] = *reinterpret_cast<const uint32_t *>(q0 + 8 * KP);
    qa[kk][2] = *reinterpret_cast<const uint32_t *>(q0 + 8);
    qa[kk][3] = *reinterpret_cast<const uint32_t *>(q0 + 8 * KP + 8);
  }
  // This lane's two rows (g, g + 8 of the warp): factor, Σq, chunk index.
  float rf[2], rq[2];
  int rTok[2];
  TQ_UNROLL
  for (int i = 0; i < 2; ++i) {
    const int r = warp * 16 + g + 8 * i;
    rf[i] = sRowF[r];
    rq[i] = sRowQs[r] * rf[i];
    rTok[i] = r / G < ntok ? tok0 + r / G : -1; // -1: padding row
  }
  barrier(); // sQ is overwritten by the first tile

  float m[2] = {negInf(), negInf()}, l[2] = {0.f, 0.f}, zb[2] = {0.f, 0.f};
  float o[OT][4];
  TQ_UNROLL
  for (int j = 0; j < OT; ++j)
    o[j][0] = o[j][1] = o[j][2] = o[j][3] = 0.f;

  // The tiles in order: the prefix's, then (causal) the chunk's up to the
  // CTA's last token.
  KvTileStream<Spec, NT, BN, 0> tiles(a, b, kvh, row0, P,
                                   haveChunk ? tok0 + ntok : 0);
  // Tile i lives in buffer i % 2: K rows, then V rows, row pitch KP.
  auto unitAt = [&](int i) {
    return [=](int nn, int c, bool value) {
      return sTile + (i & 1) * Pl::kBufHalves + (value ? BN * KP : 0) +
             nn * KP + c * 8;
    };
  };

  // One tile of cnt tokens in buffer buf; chunk tiles mask tokens after
  // the row's own (causal), chunkBase = the tile's first chunk index.
  auto attendTile = [&](int buf, int cnt, bool causal, int chunkBase) {
    const uint16_t *bufK = sTile + buf * Pl::kBufHalves, *bufV = bufK + BN * KP;
    const float *ks = sKs[buf], *kz = sKz[buf], *vsc = sVs[buf], *vz = sVz[buf];
    float s[NTL][4];
    TQ_UNROLL
    for (int j = 0; j < NTL; ++j)
      s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.f;
    // Lane l addresses row l % 8 of matrix l / 8: token 8j + l % 8,
    // coordinates 16kk + 8(l / 8): B fragments of k steps kk and kk + 1.
    const uint16_t *kRow = bufK + (lane & 7) * KP + (lane >> 3) * 8;
    TQ_UNROLL
    for (int kk = 0; kk < KS; kk += 2) {
      TQ_UNROLL
      for (int j = 0; j < NTL; ++j) {
        uint32_t r4[4];
        ldmatrixX4(r4, kRow + j * 8 * KP + kk * 16);
        const uint32_t b0[2] = {r4[0], r4[1]}, b1[2] = {r4[2], r4[3]};
        mmaF16(s[j], qa[kk], b0);
        mmaF16(s[j], qa[kk + 1], b1);
      }
    }
    float corr[2];
    scoresToProbsMasked(s, rf, rq, rTok, ks, kz, vsc, vz, cnt, causal,
                        chunkBase, t, m, l, zb, corr);
    TQ_UNROLL
    for (int j = 0; j < OT; ++j) {
      o[j][0] *= corr[0], o[j][1] *= corr[0];
      o[j][2] *= corr[1], o[j][3] *= corr[1];
    }
    // Lane l addresses row l % 8 of matrix l / 8: token 16kv + 8((l / 8) % 2)
    // + l % 8, coordinates 8(j + l / 16): transposed, the B fragments of
    // output tiles j and j + 1.
    const uint16_t *vRow =
        bufV + ((lane & 7) + ((lane >> 3) & 1) * 8) * KP + (lane >> 4) * 8;
    TQ_UNROLL
    for (int kv = 0; kv < VS; ++kv) {
      uint32_t pa[4];
      probFragment(s, kv, pa);
      TQ_UNROLL
      for (int j = 0; j < OT; j += 2) {
        uint32_t r4[4];
        ldmatrixX4Trans(r4, vRow + kv * 16 * KP + j * 8);
        const uint32_t b0[2] = {r4[0], r4[1]}, b1[2] = {r4[2], r4[3]};
        mmaF16(o[j], pa, b0);
        mmaF16(o[j + 1], pa, b1);
      }
    }
  };

  // --- The pipeline: tile i + 1 in flight while tile i is computed. ---
  auto stage = [&](int i) {
    tiles.stage(i, unitAt(i), sLevK, sLevV, sKs, sKz, sVs, sVz);
  };
  const int numTiles = tiles.numTiles;
  if (numTiles > 0) {
    tiles.issue(0, unitAt(0));
    stage(0);
    barrier();
  }
  for (int i = 0; i < numTiles; ++i) {
    if (i + 1 < numTiles)
      tiles.issue(i + 1, unitAt(i + 1));
    attendTile(i & 1, tiles.count(i), tiles.isChunk(i), tiles.start(i));
    if (i + 1 < numTiles)
      stage(i + 1);
    barrier();
  }

  // --- Epilogue: normalize, zero-point term, un-rotate, write. ---
  finishRows<Spec, T, OT, OP, kEpilogueRows>(a, o, m, l, zb, rTok, kvh, row0,
                                             tok0, ntok, rotated, sO);
}

} // namespace tq

#include "tq/extend_wgmma.h"

namespace tq {

/* Kernel 2: the attention, on the tensor-core path the compiler chose. */
template <class Spec, class T> TQ_DEVICE void extend(const tq_extend_args &a) {
  static_assert(ExtendPlan<Spec>::kSupported,
                "extend: unsupported spec (see extend.h)");
  if constexpr (ExtendUsesWgmma<Spec>::value)
    extendWgmma<Spec, T>(a);
  else
    extendMma<Spec, T>(a);
}

} // namespace tq

#endif // TQ_EXTEND_H
