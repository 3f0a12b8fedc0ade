/*===- decode_tc.h - Split-KV decode on tensor cores ----------------------===*
 *
 * tq::tc::decodeTc<Spec, T>: the same kernel contract as decode.h (grid
 * (num_q_heads / kHeadsPerCta, max_batch, kSplits), kWarps warps, the same
 * split ranges, workspace partials and epilogue), taken by tq::decode
 * whenever TcPlan<Spec>::kEnabled: keys that are Lloyd-Max of at most 4 bits
 * (no QJL), fp8 or bf16; values that are Lloyd-Max or uniform of at most 4
 * bits, uniform of 8 bits, fp8 or bf16; head_dim >= 64; a target with warp
 * mma (target_cuda.h: kTargetHasWarpMma).
 *
 * Why this shape. Decode reads every cache byte once and does ~4 FLOPs per
 * element per query head, so the scalar path spent ~36 instructions per cache
 * element and ran at the instruction limit whatever the bytes. Here each warp
 * takes 16 tokens at a time and:
 *  1. loads its lanes' slices of the raw code/scale planes straight into
 *     registers, in exactly the positions the mma fragments need them, so no
 *     shared-memory staging, ldmatrix or bank conflicts are involved. The
 *     next 16 tokens' loads are issued before the current ones are used
 *     (register double buffering) when the raw slices are small;
 *  2. scores S^T = K·Q^T with mma m16n8k16 (M = 16 tokens, N = 8 query heads
 *     padded, K = head_dim in 16-wide steps). The A operand is dequantized
 *     in registers: codes of <= 4 bits are looked up in pairs in a table in
 *     shared memory (entry (c0 | c1 << b) = half2(level c0, level c1),
 *     replicated per lane so no lookup ever has a bank conflict; one shift,
 *     one mask-or and one load per two coordinates); fp8 and bf16 convert or
 *     pass through. The reduction dimension is free to permute, so lane t
 *     owns the D/4 contiguous coordinates [t·D/4, t·D/4 + D/4) of its two
 *     token rows: whole code bytes, consecutive pairs, and the rotated
 *     query's B fragment (registers, loaded once per CTA) uses the same
 *     order. The per-token key scale multiplies the score (fold-norm);
 *  3. online softmax in the exp2 domain, one max per head per 16 tokens
 *     (shuffles across the 8 row lanes), the accumulator rescale skipped
 *     (warp vote) unless some head's max grew;
 *  4. O^T += V^T·P^T with mma (M = head_dim in 16-row tiles, N = 8 heads,
 *     K = the 16 tokens). P leaves step 3 in the accumulator layout, rows =
 *     tokens; one movmatrix per 8 tokens transposes it into the B operand,
 *     with the per-token value scale already folded into it and the uniform
 *     zero point kept as the scalar Σ p·z per head. V^T's fragment pairs
 *     two tokens of one coordinate: 4-bit uniform codes take one byte
 *     permute per two tokens and one mask per register, the code read as
 *     an fp16 subnormal (n·2^-24; kSubnormalCodes), and 1- to 3-bit uniform
 *     codes the same from the code's 2-byte window (kTcNarrow); Lloyd-Max
 *     levels use the pair table. Lane
 *     g owns the D/8 contiguous output coordinates [g·D/8, g·D/8 + D/8);
 *  5. each warp keeps (max, sum, Σ p·z, O^T) for its 16-token steps; warps
 *     merge at the end in warp order (deterministic), then decode.h's
 *     epilogue normalizes and un-rotates or writes the split's partial.
 * Operands are fp16 (fp32 accumulation): the rotated query is scaled per
 * head by a power of two into [-2, 2) so fp16 keeps full precision for any
 * input magnitude, and the factor returns on the score. bf16 keys use bf16
 * mma with the query split into two bf16 terms (hi + lo), bf16 values bf16
 * mma with bf16 P (relative error ~2^-9, well inside the 1e-2 budget).
 *
 * Fragment layouts are target_cuda.h's (lane = 4g + t). A warp's 16-token
 * step has rows r = 0..15 = tokens t0 + r; lane (g, t) scores rows g and
 * g + 8 for heads 2t and 2t + 1 and accumulates the output of heads 2t, 2t+1
 * at coordinates g·D/8 + 2i (tile i, row g) and g·D/8 + 2i + 1 (row g + 8).
 *===----------------------------------------------------------------------===*/
#ifndef TQ_DECODE_TC_H
#define TQ_DECODE_TC_H

/* Tuning knobs (defaults chosen on the H200, bench/results/..-v1-h200.txt). */
#ifndef TQ_TC_PREFETCH_WORDS
#define TQ_TC_PREFETCH_WORDS 28
#endif
#ifndef TQ_TC_RING_WORDS
#define TQ_TC_RING_WORDS 30 /* ring plans at head_dim <= 128: k8v4's step */
#endif
#ifndef TQ_TC_SCORE_CHAINS
#define TQ_TC_SCORE_CHAINS 2
#endif
#ifndef TQ_TC_REQUIRE_RING
#define TQ_TC_REQUIRE_RING 0 /* 1: a plan that does not take the ring fails */
#endif
#ifndef TQ_TC_QB_SHARED
#define TQ_TC_QB_SHARED 0 /* 1: the query's B fragments in shared memory at any D */
#endif
#ifndef TQ_TC_SUBNORMAL_CODES
#define TQ_TC_SUBNORMAL_CODES true
#endif
#ifndef TQ_TC_RING_PROXY_FENCE
#define TQ_TC_RING_PROXY_FENCE 1 /* 0: experiment only (what the fence costs) */
#endif
#ifndef TQ_TC_VALUE_PLANES
/* 1: 2-bit Lloyd-Max values as two planes (kTcPlanes2) instead of the pair
 * table (EmitCuda.cpp's lutEntries reads the same knob). Off: the GPU tier
 * passes with it, but at B=32 L=32K it was 3-7 % slower than the table on an
 * H100 (bench/results/2026-12-07-session37/run1/planes.txt). */
#define TQ_TC_VALUE_PLANES 0
#endif
#ifndef TQ_TC_FILL_BEFORE_WAIT
#define TQ_TC_FILL_BEFORE_WAIT 1 /* 0: the pair tables filled after the wait (A/B) */
#endif
#ifndef TQ_TC_LUT_BYTE_PERMUTE
/* 1: 4-bit key codes index their unaligned 32 KB pair table by byte
 * permute and multiply-add (byteEntryAddress), ~9 % fewer instructions per
 * step (k4v4, k4v2; bench/sass_loop.py, bench/results/2026-12-08-session38/
 * README.txt); 0: shift, mask, add. Off until timed on the GPU (moving
 * shifts to the FMA pipe at the same count cost 13-16 %, same README). */
#define TQ_TC_LUT_BYTE_PERMUTE 0
#endif
#ifndef TQ_TC_KEY_QUADS
/* 1: 2-bit Lloyd-Max keys look up four coordinates at once (a 256-entry
 * quad table, one 8-byte load per two A registers), and 2-bit Lloyd-Max
 * values of the same codebook read the same table (kTcQuadK); EmitCuda.cpp's
 * lutEntries reads the same knob. */
#define TQ_TC_KEY_QUADS 0
#endif
#ifndef TQ_TC_PARALLEL_WARP_SUMS
#define TQ_TC_PARALLEL_WARP_SUMS 1 /* 0: the warps' outputs summed one warp at a time */
#endif

namespace tq {
namespace tc {

/* How a tensor's stored elements become mma operands. */
enum TcKind : int {
  kTcNone = 0, // not taken by this path
  kTcLut,      // codes of <= 4 bits: pair lookup table in shared memory
  kTcMagic4,   // 4-bit uniform values: fp16 exponent trick
  kTcMagic8,   // 8-bit uniform values: fp16 exponent trick
  kTcNarrow,   // 1- to 3-bit uniform values: fp16 subnormals, no table
  kTcPlanes2,  // 2-bit Lloyd-Max values: two planes of subnormals, no table
  kTcQuadK,    // 2-bit Lloyd-Max values: the keys' quad table (same levels)
  kTcFp8,      // e4m3 elements
  kTcBf16,     // uncompressed bf16 elements (bf16 mma)
};

/* Whether 2-bit Lloyd-Max keys and values share their four levels (one
 * quad table serves both). */
template <class Spec> constexpr bool sameTwoBitLevels() {
  if constexpr (TensorInfo<Spec, true>::kQuant == TQ_QUANT_LLOYD_MAX &&
                TensorInfo<Spec, false>::kQuant == TQ_QUANT_LLOYD_MAX &&
                TensorInfo<Spec, true>::kCodeBits == 2 &&
                TensorInfo<Spec, false>::kCodeBits == 2 &&
                !TensorInfo<Spec, true>::kQjl) {
    for (int i = 0; i < 4; ++i)
      if (Spec::keyLevel(i) != Spec::valueLevel(i))
        return false;
    return true;
  } else {
    return false;
  }
}

template <class Spec, bool IsKey> struct TcTensor {
  using Info = TensorInfo<Spec, IsKey>;
  using TS = typename Info::TS;
  static constexpr int D = Spec::kHeadDim;
  static constexpr int kBits = Info::kCodeBits;
  static constexpr int kQuant = Info::kQuant;
  static constexpr int kKeyKind =
      Info::kQjl                                             ? kTcNone
      : kQuant == TQ_QUANT_LLOYD_MAX && kBits <= 4           ? kTcLut
      : kQuant == TQ_QUANT_FP8                               ? kTcFp8
      : kQuant == TQ_QUANT_NONE                              ? kTcBf16
                                                             : kTcNone;
  static constexpr int kValueKind =
      kQuant == TQ_QUANT_LLOYD_MAX && kBits == 2 && TQ_TC_VALUE_PLANES
          ? kTcPlanes2
      : TQ_TC_KEY_QUADS && sameTwoBitLevels<Spec>() ? kTcQuadK
      : kQuant == TQ_QUANT_LLOYD_MAX && kBits <= 4 ? kTcLut
      : kQuant == TQ_QUANT_UNIFORM && kBits == 4 ? kTcMagic4
      : kQuant == TQ_QUANT_UNIFORM && kBits == 8 ? kTcMagic8
      : kQuant == TQ_QUANT_UNIFORM && kBits <= 3
          ? (TQ_TC_SUBNORMAL_CODES ? kTcNarrow : kTcLut)
      : kQuant == TQ_QUANT_FP8                   ? kTcFp8
      : kQuant == TQ_QUANT_NONE                  ? kTcBf16
                                                 : kTcNone;
  static constexpr int kKind = IsKey ? kKeyKind : kValueKind;
  static constexpr bool kBf16 = kKind == kTcBf16;
  /* Coordinates of one token a lane holds: keys D/4 (lane t of a row),
   * values D/8 (lane g). */
  static constexpr int kDims = IsKey ? D / 4 : D / 8;
  static constexpr int kSliceBits = kDims * kBits;
  static constexpr int kSliceBytes = kSliceBits / 8;
  static constexpr int kWords = (kSliceBytes + 3) / 4;
  /* 2-bit keys: the table's entries are quads (a coordinate pair of two
   * rows, two half2, 8 bytes replicated 16 times: a 64-bit load is served
   * per half-warp), 128 bytes apart like a pair table's. */
  static constexpr bool kQuad = IsKey && kKind == kTcLut && kBits == 2 &&
                                TQ_TC_KEY_QUADS;
  static constexpr int kLutEntries =
      kKind == kTcLut ? 1 << ((kQuad ? 4 : 2) * kBits) : 0;
  static constexpr int kRowAlign = Info::kCodesAlign;
};

/* The static plan of the tensor-core path. */
template <class Spec> struct TcPlan {
  using K = TcTensor<Spec, true>;
  using V = TcTensor<Spec, false>;
  template <bool IsKey> using Tensor = TcTensor<Spec, IsKey>;
  static constexpr int D = Spec::kHeadDim;
  static constexpr int KC = D / 16; // k steps of QK^T = row tiles of V^T P^T
  static constexpr int kLutBytes = (K::kLutEntries + V::kLutEntries) * 128;
  /* Static shared memory stays under 48 KB with the query buffer. */
  static constexpr bool kEnabled =
      kTargetHasWarpMma && D >= 64 && D <= 256 && K::kKind != kTcNone &&
      V::kKind != kTcNone && kLutBytes <= 36 * 1024 &&
      K::kSliceBits % 8 == 0 && V::kSliceBits % 8 == 0 &&
      Spec::kBlockSize >= 8 && Spec::kHeadsPerCta <= 8;
  /* Registers of one 16-token step's raw data per lane. */
  static constexpr int kRawWords = 2 * K::kWords + 4 * V::kWords + 6;
  /* Bytes of one (page, head) region: one 16-token step of a ring slot. */
  static constexpr int kRegionBytes = int(Spec::kHeadStride);
  /* Steps that the shared-memory ring below could hold: whole 16-token
   * pages of the native layout, copied in bulk (sm_90+), lane slices of
   * whole 16-bit units. */
  static constexpr bool kRingLayout =
      kTargetHasBulkCopy && Spec::kBlockSize == 16 &&
      !VllmNumerics<Spec>::kValue && kRegionBytes % 16 == 0 &&
      Spec::kBlockStride % 16 == 0 &&
      minInt(K::kRowAlign, int(lowBit(K::kSliceBytes))) >= 2 &&
      minInt(V::kRowAlign, int(lowBit(V::kSliceBytes))) >= 2;
  /* Double-buffer the raw registers when they are few (the big ones, bf16
   * and fp8 keys above head_dim 128, rely on occupancy instead). Ring plans
   * allow a little more at head_dim <= 128: k8v4's 30-word step (fp8 keys,
   * 4-bit values) takes 127 registers with the ring on sm_90, where the
   * register double buffer would take 152 (one 8-warp CTA per SM). */
  static constexpr bool kPrefetch =
      Spec::kStages >= 2 && // 1: none
      (kRawWords <= TQ_TC_PREFETCH_WORDS ||
       (Spec::kStages >= 3 && kRingLayout && D <= 128 &&
        kRawWords <= TQ_TC_RING_WORDS));
  /* Independent accumulator chains of the score mma (a step's 8 k steps at
   * head_dim 128 in one chain are 8 dependent mma latencies); one at 256,
   * where the second chain's registers made ptxas spill (k3v3, sm_90). */
  static constexpr int kScoreChains =
      D <= 128 ? minInt(TQ_TC_SCORE_CHAINS, KC) : 1; // D = 256: registers
  /* Tables up to 8 KB are aligned to their size, so that a lane's base
   * address ORs with the byte offset of an entry (no add per lookup). */
  static constexpr bool kLutAlignedK =
      K::kLutEntries > 0 && K::kLutEntries * 128 <= 8192;
  static constexpr bool kLutAlignedV =
      V::kLutEntries > 0 && V::kLutEntries * 128 <= 8192;
  static constexpr int kLutAlignK = kLutAlignedK ? K::kLutEntries * 128 : 16;
  static constexpr int kLutAlignV = kLutAlignedV ? V::kLutEntries * 128 : 16;
  static constexpr int kLutPadK = (kLutAlignK - 16) / 4; // words
  static constexpr int kLutPadV = (kLutAlignV - 16) / 4;
  /* The query's B fragments live in registers up to head_dim 128 and in
   * shared memory (one 8-byte load per lane and k step) at 256, where 32 +
   * 32 more registers pushed ptxas to spill (when static shared memory
   * stays under 48 KB). */
  static constexpr int kSmemLut = K::kLutEntries * 128 + (K::kLutEntries ? kLutPadK * 4 : 0) +
                                  V::kLutEntries * 128 + (V::kLutEntries ? kLutPadV * 4 : 0);
  static constexpr int kSmemQ = Spec::kHeadsPerCta * D * 4;
  static constexpr int kSmemQb = KC * (K::kBf16 ? 2 : 1) * kWarpSize * 8;
  static constexpr bool kQbShared =
      (D > 128 || TQ_TC_QB_SHARED) &&
      kSmemLut + kSmemQ + kSmemQb + 1024 <= 48 * 1024;
  /* The query as two terms (hi + lo) of the mma's operand type: bf16 keys
   * need it (a bf16 query alone costs ~1% of accuracy on peaked softmaxes);
   * for fp16 it would halve the error again (worst 5.7e-3 -> 2.9e-3 on the
   * GPU tier's data, CPU-emulated) at 8 more mma and 16 more registers. */
  static constexpr bool kQuerySplit = K::kBf16;
  /* Uniform value codes as fp16 subnormals: n in the low mantissa bits with
   * a zero exponent is exactly n·2^-24 (n·2^-20 for a high nibble), one AND
   * per register and no exponent trick to undo; the powers of two return on
   * the output coordinates at the end. Needs mma to honour fp16 subnormal
   * operands: checked exact on the H200 (bench/results/..-v1-h200.txt). */
  static constexpr bool kSubnormalCodes = TQ_TC_SUBNORMAL_CODES;
  /* Page-table lookups per 16 tokens: one, or two with 8-token pages. */
  static constexpr int kPagesPerStep = Spec::kBlockSize >= 16 ? 1 : 2;
  /* Bytes between two tokens' fp16 scalars (key scale, value scale and
   * zero): 2 in the native layout's planes, the slot stride in vLLM's. */
  static constexpr int kScalarStride =
      K::Info::kHasScale   ? K::TS::kScaleStride
      : V::Info::kHasScale ? V::TS::kScaleStride
                           : 2;
  static_assert((!K::Info::kHasScale || K::TS::kScaleStride == kScalarStride) &&
                    (!V::Info::kHasScale || V::TS::kScaleStride == kScalarStride) &&
                    (!V::Info::kHasZero || V::TS::kZeroStride == kScalarStride),
                "the fp16 scalars of a token share one stride");
  /* Keys whose norm is corrected at read (vLLM layout): one more mma per k
   * step sums the squared levels of each token row (ones as B operand). */
  static constexpr bool kNormAtRead = K::Info::kNormAtRead;
  /* The shared-memory ring (plans of 3 or more stages, sm_90): with
   * 16-token pages of the native layout a step is one contiguous (page,
   * head) region (1888 bytes for k3v4 at head_dim 128), so one lane of each
   * warp has the copy engine bring whole steps into the warp's slots of
   * dynamic shared memory (cp.async.bulk completing on a barrier per slot)
   * and the lanes read their slices from there: kStages (rounded up to
   * even) steps in flight per warp instead of one, without their registers
   * or per-lane copy instructions. The compiler sizes the launch's dynamic shared memory
   * (Spec::kDynamicSharedBytes, manifest dynamic_shared_bytes) only for the
   * plans it predicts take the ring (EmitCuda.cpp decodeRingBytes), and a
   * plan given the memory must take it (static_assert below), so the two
   * cannot disagree silently. Measured: bench/results/2026-11-30-session7-h200.
   * (A first ring of per-lane cp.async copies, session 6, cost ~90 more
   * instructions per step than it saved and was removed.) */
  static constexpr int kRingStages = Spec::kStages;
  /* Slots hold two steps each (one barrier, one refill per two steps: the
   * refill's lane-0 branch, fence and address chain cost ~20 % of the
   * loop's time when paid per step, ncu source counters,
   * bench/results/2026-12-01-session8-h200), so the ring has
   * ceil(stages / 2) slots, stages rounded up to even. */
  static constexpr int kRingStepsPerSlot = 2;
  static constexpr int kRingSlots = (kRingStages + 1) / 2;
  static constexpr int kSmemRing =
      kRingSlots * kRingStepsPerSlot * Spec::kWarps * kRegionBytes;
  static constexpr bool kRingShape = kRingLayout && kPrefetch;
  static constexpr bool kRing = kRingStages >= 3 && kRingShape &&
                                Spec::kDynamicSharedBytes >= kSmemRing;
  /* Static shared memory of this path besides the pair tables (sQ, sAmax,
   * sMl, the ring's barriers, sQb, the merge's weights, the ticket words,
   * with room for alignment): what it adds as the second path of a kernel
   * (decode.h shortHalfHeads), whose static total must stay under 48 KB. */
  static constexpr int kSmemOwn =
      kSmemQ + Spec::kHeadsPerCta * 8 + Spec::kWarps * Spec::kHeadsPerCta * 12 +
      (kRing ? Spec::kWarps * kRingSlots * 8 : 8) + (kQbShared ? kSmemQb : 8) +
      Spec::kHeadsPerCta * Spec::kSplits * 4 + 256;
  // Where decodeTc's epilogue sums the warps' outputs in parallel: shared
  // memory idle by then that holds every warp's (the ring, else the larger
  // pair table); 0: one warp at a time (TQ_TC_PARALLEL_WARP_SUMS=0 forces
  // it, for A/B runs).
  static constexpr int kWarpSumBytes =
      Spec::kWarps * Spec::kHeadsPerCta * Spec::kHeadDim * 4;
  enum { kSumsSerial, kSumsInRing, kSumsInLutK, kSumsInLutV };
  static constexpr int kWarpSumsIn =
      !TQ_TC_PARALLEL_WARP_SUMS || Spec::kWarps == 1 ? kSumsSerial
      : kRing && kWarpSumBytes <= kSmemRing          ? kSumsInRing
      : kWarpSumBytes <= K::kLutEntries * 128        ? kSumsInLutK
      : kWarpSumBytes <= V::kLutEntries * 128        ? kSumsInLutV
                                                     : kSumsSerial;
};

/* One 16-token step's raw cache data, as this lane needs it. Absent fields
 * and rows past the split's end are zeros. */
template <class Spec> struct TcRaw {
  using Pl = TcPlan<Spec>;
  uint32_t k[2][Pl::K::kWords]; // key rows g, g + 8: coordinates of lane t
  uint32_t v[4][Pl::V::kWords]; // value rows 2t, 2t+1, 2t+8, 2t+9: lane g's
  uint32_t ks[2], vs[2], vz[2]; // fp16 bits of rows g, g + 8
  const uint8_t *vp[2];         // value rows 2t, 2t + 8 (deferred loads)
};

/* Where a step's raw data is read from: the cache in global memory (the
 * read-only path), or a warp's shared-memory ring slot holding a copy of
 * the step's page region (plain loads of a shared pointer). */
struct FromGlobal {
  static constexpr bool kShared = false;
  static TQ_INLINE u32x4 l16(const uint8_t *p) { return loadGlobal16(p); }
  static TQ_INLINE u32x2 l8(const uint8_t *p) { return loadGlobal8(p); }
  static TQ_INLINE uint32_t l4(const uint8_t *p) { return loadGlobal4(p); }
  static TQ_INLINE uint32_t l2(const uint8_t *p) { return loadGlobal2(p); }
  static TQ_INLINE uint32_t l1(const uint8_t *p) { return loadGlobal1(p); }
};
struct FromRing {
  static constexpr bool kShared = true;
  static TQ_INLINE u32x4 l16(const uint8_t *p) {
    return *reinterpret_cast<const u32x4 *>(p);
  }
  static TQ_INLINE u32x2 l8(const uint8_t *p) {
    return *reinterpret_cast<const u32x2 *>(p);
  }
  static TQ_INLINE uint32_t l4(const uint8_t *p) {
    return *reinterpret_cast<const uint32_t *>(p);
  }
  static TQ_INLINE uint32_t l2(const uint8_t *p) {
    return *reinterpret_cast<const uint16_t *>(p);
  }
  static TQ_INLINE uint32_t l1(const uint8_t *p) { return *p; }
};

/* A lane's NB-byte slice at p, whose alignment is at least ALIGN (a power
 * of two) and whose address is lead (0..3) bytes past a 4-byte boundary:
 * the widest loads the alignment allows, little-endian words; a slice that
 * is not word-aligned (3- or 6-byte slices of 3-bit codes) is read as the
 * aligned words covering it, funnel-shifted. */
template <int NB, int ALIGN, class M = FromGlobal>
TQ_INLINE void loadSlice(const uint8_t *p, int lead,
                         uint32_t (&w)[(NB + 3) / 4]) {
  if constexpr (NB % 16 == 0 && ALIGN >= 16) {
    TQ_UNROLL
    for (int i = 0; i < NB / 16; ++i) {
      const u32x4 v = M::l16(p + 16 * i);
      w[4 * i] = v.x, w[4 * i + 1] = v.y, w[4 * i + 2] = v.z,
             w[4 * i + 3] = v.w;
    }
  } else if constexpr (NB % 8 == 0 && ALIGN >= 8) {
    TQ_UNROLL
    for (int i = 0; i < NB / 8; ++i) {
      const u32x2 v = M::l8(p + 8 * i);
      w[2 * i] = v.x, w[2 * i + 1] = v.y;
    }
  } else if constexpr (NB % 4 == 0 && ALIGN >= 4) {
    TQ_UNROLL
    for (int i = 0; i < NB / 4; ++i)
      w[i] = M::l4(p + 4 * i);
  } else if constexpr (NB == 2 && ALIGN >= 2) {
    w[0] = M::l2(p);
  } else if constexpr (NB == 1) {
    w[0] = M::l1(p);
  } else if constexpr (ALIGN < 4) {
    // Slices only 2-byte aligned (vLLM's rows; 6-byte slices of 3-bit
    // codes, in global memory or the ring): the aligned words covering the
    // slice, from the address's own offset, funnel-shifted. The ring's
    // slots are 16-byte aligned like the regions they copy, so the offset
    // is the same in both.
    constexpr int W = (NB + 3) / 4;
    const int off = int(reinterpret_cast<unsigned long long>(p) & 3u);
    const uint8_t *q = p - off;
    uint32_t x[W + 1];
    TQ_UNROLL
    for (int i = 0; i < W; ++i)
      x[i] = M::l4(q + 4 * i);
    x[W] = off + NB > 4 * W ? M::l4(q + 4 * W) : 0u;
    TQ_UNROLL
    for (int i = 0; i < W; ++i)
      w[i] = funnelShiftRight(x[i], x[i + 1], uint32_t(off) * 8u);
  } else {
    static_assert(!M::kShared, "the ring takes word-aligned slices only");
    static_assert(NB < 8, "a slice of 8 bytes or more is word-aligned");
    uint32_t w1;
    loadUnalignedWords<NB>(p, lead, w[0], w1);
    if constexpr (NB > 4)
      w[1] = w1;
  }
}

/* The W-bit field at stream bit p of w[] (bit 0 = w[0] bit 0), moved to bit
 * DEST of the result; the other bits of the result are arbitrary. p is a
 * compile-time value once the callers' loops are unrolled. */
template <int W, int DEST, int N>
TQ_INLINE uint32_t fieldAt(const uint32_t (&w)[N], int p) {
  const int i = p >> 5, o = p & 31;
  if (o + W <= 32)
    return o >= DEST ? w[i] >> (o - DEST) : w[i] << (DEST - o);
  // Straddles words i and i + 1 (o > 32 - W >= 24 > DEST).
  return funnelShiftRight(w[i], w[i + 1], uint32_t(o - DEST));
}

/* Entry of a pair table: FIELD holds the entry index at bit 7 (other bits
 * arbitrary, cleared by MASK); base = the table's shared address plus this
 * lane's 4·lane. A table aligned to its size takes the entry offset with
 * the same mask-or instruction; an unaligned one needs an add. */
template <bool ALIGNED>
TQ_INLINE uint32_t lutWord(uint32_t base, uint32_t field, uint32_t mask) {
  return loadShared4(ALIGNED ? (field & mask) | base : (field & mask) + base);
}

/* Address of the table entry whose index is byte j of w, for tables of
 * 128-byte entries not aligned to their size (32 KB): one byte permute
 * zero-extends the index and one multiply-add scales it onto base (table
 * address plus this lane's column), on the ALU and FMA pipes, where
 * lutWord<false> takes a shift, a mask and an add. */
TQ_INLINE uint32_t byteEntryAddress(uint32_t base, uint32_t w, int j) {
  return bytePerm(w, 0u, 0x4440u | uint32_t(j)) * 128u + base;
}

/* The first word of p at or after p whose shared-window address is a
 * multiple of ALIGN (a power of two; p is 16-byte aligned). */
TQ_INLINE uint32_t *alignShared(uint32_t *p, int align) {
  const uint32_t a = sharedAddress(p);
  return p + (((uint32_t(align) - (a & uint32_t(align - 1))) &
               uint32_t(align - 1)) >> 2);
}

/* fp16x2 1024 | 1024: OR-ing an integer n < 1024 into its mantissa gives
 * exactly 1024 + n. */
constexpr uint32_t kMagic = 0x64006400u;
/* (x & mask) | c in one instruction (two constants do not fit one). */
TQ_INLINE uint32_t maskOr(uint32_t x, uint32_t mask, uint32_t c) {
  return lop3<0xea>(x, mask, c); // (a & b) | c
}

/* Level c of a Lloyd-Max tensor's codebook, from the Spec's constant
 * expressions (keyLevel / valueLevel): one compare and select per level, no
 * memory access. The levels' `__constant__` array is a cold load in every
 * CTA's prologue, issued after the page table's (the ring's copies wait on
 * that one), so two DRAM latencies ran in series before the first step: the
 * presets with a table were ~1 us slower than k8v4 at B=1 L=1K (bench/
 * results/2026-12-02-session16-h200 run1, after the fill's bank conflicts
 * were gone). */
template <class Spec, bool IsKey> TQ_INLINE float codebookLevel(int c) {
  constexpr int K = 1 << TensorSpec<Spec, IsKey>::kBits;
  float v = 0.f;
  TQ_UNROLL
  for (int i = 0; i < K; ++i) {
    float l;
    if constexpr (IsKey)
      l = float(Spec::keyLevel(i));
    else
      l = float(Spec::valueLevel(i));
    v = c == i ? l : v;
  }
  return v;
}

/* Pair table of a tensor with b-bit codes: entry f = c0 | c1 << b holds
 * half2(level(c0), level(c1)) (uniform codes: the integers), replicated 32
 * times so that lane l reads word f·32 + l: byte offset (f << 7) | (l << 2),
 * never a bank conflict. */
template <class Spec, bool IsKey, int NTHREADS>
TQ_INLINE void fillPairTable(uint32_t *lut) {
  using Tn = TcTensor<Spec, IsKey>;
  constexpr int B = Tn::kBits, N = Tn::kLutEntries;
  // Thread f writes entry f's 32 replicas as eight 16-byte pieces, lane l
  // starting at piece l % 8: a 16-byte store runs as four 8-lane phases,
  // and in each the 8 lanes then write 8 different bank quads. In piece
  // order (every lane piece i at once) the 8 entries of a phase, 128 bytes
  // apart, all hit the same 4 banks: 8-way conflicts, ~2048 cycles of
  // shared-memory writes for a 4-bit table's 32 KB per CTA (B=1 L=1K, H200:
  // k4v4 8.9 -> 8.0 us, k4v2 9.2 -> 8.3, bench/results/
  // 2026-12-02-session16-h200 run1 against session 15's run3).
  const int rot = threadIndex() & 7;
  for (int f = threadIndex(); f < N; f += NTHREADS) {
    auto level = [](int c) {
      if constexpr (Tn::kQuant == TQ_QUANT_LLOYD_MAX)
        return codebookLevel<Spec, IsKey>(c);
      else
        return float(c);
    };
    constexpr int kMask = (1 << B) - 1;
    u32x4 x;
    if constexpr (Tn::kQuad) { // half2(c0, c1), half2(c2, c3), twice
      x.x = x.z = packHalf2(level(f & kMask), level((f >> B) & kMask));
      x.y = x.w =
          packHalf2(level((f >> 2 * B) & kMask), level((f >> 3 * B) & kMask));
    } else {
      x.x = x.y = x.z = x.w = packHalf2(level(f & kMask), level(f >> B));
    }
    u32x4 *row = reinterpret_cast<u32x4 *>(lut + f * 32);
    TQ_UNROLL
    for (int i = 0; i < 8; ++i)
      row[(i + rot) & 7] = x;
  }
}

/* Largest power of two <= x (x > 0 normal), else 1; and its inverse. */
TQ_INLINE float pow2Floor(float x) {
  const uint32_t e = floatToBits(x) & 0x7f800000u;
  return (e == 0u || e >= 0x7e800000u) ? 1.f : bitsToFloat(e);
}
TQ_INLINE float pow2FloorInv(float x) {
  const uint32_t e = floatToBits(x) & 0x7f800000u;
  return (e == 0u || e >= 0x7e800000u) ? 1.f : bitsToFloat(0x7f000000u - e);
}

/* Lane-constant byte offsets of this lane's slices within a page region,
 * for the step's first row at position 0. */
struct TcLane {
  int k;     // key codes of row g, lane t's slice
  int v;     // value codes of row 2t, lane g's slice
  int kLead; // k's address mod 4 (slices that are not word-aligned)
  int vLead;
  int s;     // g·kScalarStride: the fp16 scalars of row g
};

template <class Spec> TQ_INLINE TcLane tcLane(int g, int t) {
  using Pl = TcPlan<Spec>;
  using KS = typename Pl::K::TS;
  using VS = typename Pl::V::TS;
  TcLane ln;
  ln.k = KS::kCodesOffset + g * KS::kCodesStride + t * Pl::K::kSliceBytes;
  ln.v = VS::kCodesOffset + 2 * t * VS::kCodesStride + g * Pl::V::kSliceBytes;
  ln.kLead = (t * Pl::K::kSliceBytes) & 3;
  ln.vLead = (g * Pl::V::kSliceBytes) & 3;
  ln.s = g * Pl::kScalarStride;
  return ln;
}

/* Loads one 16-token step (rows t0 .. t0 + 15; rows < 8 live in page regLo,
 * rows >= 8 in regHi, the same page unless pages hold 8 tokens). CHECK:
 * rows at or past tokEnd are not read and stay zero (only a split's last
 * step can have them). */
template <class Spec, bool CHECK, class M = FromGlobal>
TQ_INLINE void loadValues(TcRaw<Spec> &r, int t0, int tokEnd, const TcLane &ln,
                          int t);

template <class Spec, bool CHECK, bool VALUES, class M = FromGlobal>
TQ_INLINE void loadStep(TcRaw<Spec> &r, const uint8_t *regLo,
                        const uint8_t *regHi, int t0, int tokEnd,
                        const TcLane &ln, int g, int t) {
  using Pl = TcPlan<Spec>;
  using K = typename Pl::K;
  using V = typename Pl::V;
  using KS = typename K::TS;
  using VS = typename V::TS;
  constexpr int SS = Pl::kScalarStride;
  constexpr int kMask = Spec::kBlockSize - 1;
  constexpr int kKAlign = minInt(K::kRowAlign, int(lowBit(K::kSliceBytes)));
  constexpr int kVAlign = minInt(V::kRowAlign, int(lowBit(V::kSliceBytes)));
  // Row 0 of each half-step (rows 0..7, 8..15): one pointer per plane, the
  // lane's rows at immediate offsets from it.
  const uint8_t *kp[2], *vp[2], *sp[2];
  {
    const int pos0 = t0 & kMask;
    kp[0] = regLo + (pos0 * KS::kCodesStride + ln.k);
    vp[0] = regLo + (pos0 * VS::kCodesStride + ln.v);
    sp[0] = regLo + (pos0 * SS + ln.s);
    if constexpr (Pl::kPagesPerStep == 1) {
      kp[1] = kp[0] + 8 * KS::kCodesStride;
      vp[1] = vp[0] + 8 * VS::kCodesStride;
      sp[1] = sp[0] + 8 * SS;
    } else {
      const int pos8 = (t0 + 8) & kMask;
      kp[1] = regHi + (pos8 * KS::kCodesStride + ln.k);
      vp[1] = regHi + (pos8 * VS::kCodesStride + ln.v);
      sp[1] = regHi + (pos8 * SS + ln.s);
    }
  }
  if constexpr (CHECK) {
    TQ_UNROLL
    for (int i = 0; i < 2; ++i) {
      TQ_UNROLL
      for (int j = 0; j < K::kWords; ++j)
        r.k[i][j] = 0u;
      r.ks[i] = r.vs[i] = r.vz[i] = 0u;
    }
  }
  TQ_UNROLL
  for (int i = 0; i < 2; ++i) { // rows g, g + 8
    if (!CHECK || t0 + g + 8 * i < tokEnd) {
      loadSlice<K::kSliceBytes, kKAlign, M>(kp[i], ln.kLead, r.k[i]);
      if constexpr (K::Info::kHasScale)
        r.ks[i] = M::l2(sp[i] + KS::kScaleOffset);
      if constexpr (V::Info::kHasScale)
        r.vs[i] = M::l2(sp[i] + VS::kScaleOffset);
      if constexpr (V::Info::kHasZero)
        r.vz[i] = M::l2(sp[i] + VS::kZeroOffset);
    }
  }
  r.vp[0] = vp[0], r.vp[1] = vp[1];
  if constexpr (VALUES)
    loadValues<Spec, CHECK, M>(r, t0, tokEnd, ln, t);
}

/* loadStep with rows past tokEnd checked only where the step has them (a
 * split's last step). */
template <class Spec, bool VALUES, class M = FromGlobal>
TQ_INLINE void loadStepChecked(TcRaw<Spec> &r, const uint8_t *regLo,
                               const uint8_t *regHi, int t0, int tokEnd,
                               const TcLane &ln, int g, int t) {
  if (t0 + 16 <= tokEnd)
    loadStep<Spec, false, VALUES, M>(r, regLo, regHi, t0, tokEnd, ln, g, t);
  else
    loadStep<Spec, true, VALUES, M>(r, regLo, regHi, t0, tokEnd, ln, g, t);
}

/* The value slices of a step whose pointers loadStep recorded: loaded with
 * the keys when steps are double-buffered, otherwise after the scores so
 * that the key and value slices of a big step are never live together. */
template <class Spec, bool CHECK, class M>
TQ_INLINE void loadValues(TcRaw<Spec> &r, int t0, int tokEnd, const TcLane &ln,
                          int t) {
  using Pl = TcPlan<Spec>;
  using V = typename Pl::V;
  using VS = typename V::TS;
  constexpr int kVAlign = minInt(V::kRowAlign, int(lowBit(V::kSliceBytes)));
  if constexpr (CHECK) {
    TQ_UNROLL
    for (int j = 0; j < 4; ++j)
      TQ_UNROLL
      for (int w = 0; w < V::kWords; ++w)
        r.v[j][w] = 0u;
  }
  TQ_UNROLL
  for (int j = 0; j < 4; ++j) { // rows 2t, 2t+1, 2t+8, 2t+9
    if (!CHECK || t0 + 2 * t + (j & 1) + 8 * (j >> 1) < tokEnd)
      loadSlice<V::kSliceBytes, kVAlign, M>(
          r.vp[j >> 1] + (j & 1) * VS::kCodesStride, ln.vLead, r.v[j]);
  }
}

/* A fragment of K for k step kc: rows g, g + 8; lane t's coordinates
 * t·D/4 + 4kc + {0, 1} (a0, a1) and + {2, 3} (a2, a3). */
template <class Spec>
TQ_INLINE void keyFragment(const TcRaw<Spec> &r, int kc, uint32_t lutBase,
                           uint32_t (&a)[4]) {
  using K = typename TcPlan<Spec>::K;
  if constexpr (K::kQuad) {
    // Entry = rows g and g + 8 of one coordinate pair: (a_2h, a_2h+1) in
    // one 8-byte load into consecutive registers, as the mma takes them.
    // Index byte: row g's two codes | row g + 8's << 4; the nibble
    // interleave of the two rows' words serves four k steps.
    const int w = kc >> 2;
    TQ_UNROLL
    for (int half = 0; half < 2; ++half) { // coordinates +0,+1 / +2,+3
      const uint32_t x =
          half ? lop3<0xe4>(r.k[0][w] >> 4, r.k[1][w], 0x0f0f0f0fu)
               : lop3<0xe4>(r.k[0][w], r.k[1][w] << 4, 0x0f0f0f0fu);
      const u32x2 q = loadShared8(byteEntryAddress(lutBase, x, kc & 3));
      a[2 * half] = q.x, a[2 * half + 1] = q.y;
    }
    return;
  }
  TQ_UNROLL
  for (int i = 0; i < 2; ++i) {     // row g (a0, a2), row g + 8 (a1, a3)
    TQ_UNROLL
    for (int half = 0; half < 2; ++half) { // coordinates +0,+1 / +2,+3
      uint32_t x;
      if constexpr (K::kKind == kTcLut && K::kBits == 4 &&
                    !TcPlan<Spec>::kLutAlignedK && TQ_TC_LUT_BYTE_PERMUTE) {
        const int p = (2 * kc + half) * 8; // byte p / 8 of the slice
        x = loadShared4(byteEntryAddress(lutBase, r.k[i][p >> 5], (p >> 3) & 3));
      } else if constexpr (K::kKind == kTcLut) {
        constexpr int FW = 2 * K::kBits;
        constexpr uint32_t kFieldMask = ((1u << FW) - 1u) << 7;
        x = lutWord<TcPlan<Spec>::kLutAlignedK>(
            lutBase, fieldAt<FW, 7>(r.k[i], (2 * kc + half) * FW), kFieldMask);
      } else if constexpr (K::kKind == kTcFp8) {
        const uint32_t w = r.k[i][kc];
        x = e4m3x2ToHalf2(half ? w >> 16 : w & 0xffffu);
      } else { // bf16
        x = r.k[i][2 * kc + half];
      }
      a[i + 2 * half] = x;
    }
  }
}

/* Where a narrow uniform value code (kTcNarrow: b = 1..3 bits) enters its
 * mma register: the 16-bit half of each token is the 2-byte window of the
 * lane's slice that starts at byte s, and the code is the field at bit k of
 * that window, so that the half read as fp16 (after one mask) is the
 * subnormal n·2^(k-24), exact while k + b <= 10 (the mantissa). Coordinate c
 * (0 .. D/8 - 1 of the lane's slice) lies at stream bit p = b·c, window
 * p / 8, bit p % 8 (<= 7, so k + b <= 10 always holds). An odd coordinate
 * (the row g + 8 of the pair 2mt, 2mt + 1) takes its even neighbour's window
 * where it still fits there: one byte permute serves both registers. The
 * output row's 2^(24-k) returns at the end (decodeTc's rowScale). */
struct NarrowPlace {
  int s, k;
};
constexpr NarrowPlace narrowPlace(int b, int c) {
  if (c & 1) {
    const int p0 = b * (c - 1);
    const int k = (p0 & 7) + b;
    if (k + b <= 10)
      return {p0 >> 3, k};
  }
  return {(b * c) >> 3, (b * c) & 7};
}

/* 2-bit Lloyd-Max values as two planes (kTcPlanes2). With symmetric levels
 * l0 < l1 < l2 < l3 (l3 - l2 = l1 - l0, as every Lloyd-Max codebook of a
 * symmetric density has), level(c) = l0 + α·c + β·b1 for c = b0 + 2·b1,
 * α = l1 - l0, β = l2 - 2·l1 + l0. The code c enters one mma as kTcNarrow's
 * subnormal c·2^(k-24); its high bit, masked from the same window, is
 * b1·2^(k+1-24) and enters a second mma, against P·γ (γ = β / 2α, fp16),
 * into the same accumulator. The row then holds 2^(k-24)·Σ P·(c + (β/α)·b1),
 * and the row scale α·2^(24-k) plus l0·Σ P (kept like a uniform zero point)
 * give Σ P·level(c): two masks and a second mma per register pair instead of
 * a shift, a mask-or and a shared load per register (the pair table). */
template <class Spec> struct ValuePlanes {
  static constexpr double l0 = Spec::valueLevel(0), l1 = Spec::valueLevel(1);
  static constexpr double l2 = Spec::valueLevel(2), l3 = Spec::valueLevel(3);
  static constexpr bool kSymmetric = l3 - l2 == l1 - l0;
  static constexpr float kAlpha = float(l1 - l0);
  static constexpr float kGamma = float((l2 - 2.0 * l1 + l0) / (2.0 * (l1 - l0)));
  static constexpr float kL0 = float(l0);
};

/* The word of a slice w[] (little-endian words, byte 0 = the slice's first
 * byte) that holds the 2-byte window at byte s: w[s / 4], the window at byte
 * s % 4, or for `mid` (s % 4 == 3 and the field crosses into the next word)
 * the funnel-shifted middle word of bytes s - 1 .. s + 2, the window at byte
 * 1. */
template <int N>
TQ_INLINE uint32_t narrowWord(const uint32_t (&w)[N], int s, bool mid) {
  const int i = s >> 2;
  return mid ? funnelShiftRight(w[i], w[minInt(i + 1, N - 1)], 16u) : w[i];
}

/* A fragment of V^T for row tile mt: rows g (coordinate g·D/8 + 2mt) and
 * g + 8 (coordinate + 1); columns = tokens 2t, 2t+1 (a0, a1) and 2t+8,
 * 2t+9 (a2, a3), each register one coordinate of two tokens. */
template <class Spec>
TQ_INLINE void valueFragment(const TcRaw<Spec> &r, int mt, uint32_t lutBase,
                             uint32_t (&a)[4], uint32_t (&a2)[4]) {
  using V = typename TcPlan<Spec>::V;
  TQ_UNROLL
  for (int pr = 0; pr < 2; ++pr) { // token pairs (2t, 2t+1), (2t+8, 2t+9)
    const uint32_t(&wa)[V::kWords] = r.v[2 * pr];
    const uint32_t(&wb)[V::kWords] = r.v[2 * pr + 1];
    uint32_t lo, hi; // coordinates 2mt (row g) and 2mt + 1 (row g + 8)
    uint32_t lo2 = 0u, hi2 = 0u; // kTcPlanes2: their codes' high bits
    if constexpr (V::kKind == kTcMagic4) {
      // Byte mt of each slice holds both coordinates (low, high nibble).
      const uint32_t s = uint32_t(mt & 3);
      const uint32_t x =
          bytePerm(wa[mt >> 2], wb[mt >> 2], s | s << 4 | (s + 4) << 8 |
                                                 (s + 4) << 12);
      if constexpr (TcPlan<Spec>::kSubnormalCodes) {
        lo = x & 0x000f000fu; // n·2^-24
        hi = x & 0x00f000f0u; // n·2^-20
      } else {
        // 0x6400 | n = 1024 + n exactly; the high nibble gives 1024 + 16n.
        lo = hsub2(maskOr(x, 0x000f000fu, kMagic), kMagic);
        hi = hfma2(maskOr(x, 0x00f000f0u, kMagic), 0x2c002c00u /* 1/16 */,
                   0xd400d400u /* -64 */);
      }
    } else if constexpr (V::kKind == kTcMagic8) {
      const int w = (2 * mt) >> 2;
      const uint32_t s = uint32_t((2 * mt) & 3);
      const uint32_t x0 = bytePerm(wa[w], wb[w], s | (s + 4) << 8);
      const uint32_t x1 =
          bytePerm(wa[w], wb[w], (s + 1) | (s + 5) << 8);
      if constexpr (TcPlan<Spec>::kSubnormalCodes) {
        lo = x0 & 0x00ff00ffu, hi = x1 & 0x00ff00ffu; // n·2^-24
      } else {
        lo = hsub2(maskOr(x0, 0x00ff00ffu, kMagic), kMagic);
        hi = hsub2(maskOr(x1, 0x00ff00ffu, kMagic), kMagic);
      }
    } else if constexpr (V::kKind == kTcFp8) {
      const int w = (2 * mt) >> 2;
      const uint32_t s = uint32_t((2 * mt) & 3);
      const uint32_t x = bytePerm(wa[w], wb[w],
                                  s | (s + 4) << 4 | (s + 1) << 8 |
                                      (s + 5) << 12);
      lo = e4m3x2ToHalf2(x & 0xffffu);
      hi = e4m3x2ToHalf2(x >> 16);
    } else if constexpr (V::kKind == kTcBf16) {
      lo = bytePerm(wa[mt], wb[mt], 0x5410);
      hi = bytePerm(wa[mt], wb[mt], 0x7632);
    } else if constexpr (V::kKind == kTcNarrow || V::kKind == kTcPlanes2) {
      // Per register: one byte permute puts the code's 2-byte window of
      // token A in half 0 and of token B in half 1, one AND keeps the two
      // fields (narrowPlace); the pair's second register mostly shares the
      // first one's permute. Planes: one more AND keeps the high bits.
      constexpr int B = V::kBits;
      constexpr uint32_t kField = (1u << B) - 1u;
      const NarrowPlace p0 = narrowPlace(B, 2 * mt);
      const NarrowPlace p1 = narrowPlace(B, 2 * mt + 1);
      const bool shared = p1.s == p0.s;
      // The window at byte s of both tokens, whose highest field used sits
      // at bit kTop (it decides whether the window's second byte is needed).
      auto window = [&](int s, int kTop) {
        const bool mid = (s & 3) == 3 && kTop + B > 8;
        const int at = mid ? 1 : s & 3;
        const uint32_t ua = narrowWord(wa, s, mid), ub = narrowWord(wb, s, mid);
        const uint32_t at1 = uint32_t(minInt(at + 1, 3));
        return bytePerm(ua, ub, uint32_t(at) | at1 << 4 |
                                    uint32_t(4 + at) << 8 | (4 + at1) << 12);
      };
      const uint32_t x0 = window(p0.s, shared ? p1.k : p0.k);
      const uint32_t x1 = shared ? x0 : window(p1.s, p1.k);
      lo = x0 & (kField << p0.k | kField << (16 + p0.k));
      hi = x1 & (kField << p1.k | kField << (16 + p1.k));
      if constexpr (V::kKind == kTcPlanes2) {
        static_assert(B == 2 && ValuePlanes<Spec>::kSymmetric,
                      "value planes: 2-bit codes, symmetric levels");
        lo2 = x0 & (2u << p0.k | 2u << (16 + p0.k));
        hi2 = x1 & (2u << p1.k | 2u << (16 + p1.k));
      }
    } else if constexpr (V::kKind == kTcQuadK) {
      // The keys' quad table: entry (a | b << 2 | c << 4 | d << 6) =
      // half2(a, b), half2(c, d), so the index of (lo, hi) is token A's
      // and B's codes of coordinate 2mt (X, below), then of 2mt + 1 (Y):
      // the 2-bit interleave X/Y of the two tokens' words, then the nibble
      // interleave of X and Y, serve eight register pairs per word.
      static_assert(V::kBits == 2, "quad values: 2-bit codes");
      const int w = mt >> 3, j = (mt >> 1) & 3;
      const uint32_t xw = lop3<0xe4>(wa[w], wb[w] << 2, 0x33333333u);
      const uint32_t yw = lop3<0xe4>(wa[w] >> 2, wb[w], 0x33333333u);
      const uint32_t z = (mt & 1)
                             ? lop3<0xe4>(xw >> 4, yw, 0x0f0f0f0fu)
                             : lop3<0xe4>(xw, yw << 4, 0x0f0f0f0fu);
      const u32x2 q = loadShared8(byteEntryAddress(lutBase, z, j));
      lo = q.x, hi = q.y;
    } else if constexpr (8 % V::kBits == 0) {
      // Pair table, codes of 1, 2 or 4 bits: interleave the two tokens' codes
      // once per word (X: fields codeA(2i) | codeB(2i) << b at bit 2ib, Y:
      // the same for coordinate 2i + 1), then one shift, one mask-or and one
      // load per register.
      constexpr int B = V::kBits, FW = 2 * B, kPerWord = 16 / B;
      constexpr uint32_t kAlt = B == 4 ? 0x0f0f0f0fu : B == 2 ? 0x33333333u
                                                              : 0x55555555u;
      constexpr uint32_t kMask = ((1u << FW) - 1u) << 7;
      const int w = mt / kPerWord, p = (mt % kPerWord) * FW;
      const uint32_t xw[1] = {lop3<0xe4>(wa[w], wb[w] << B, kAlt)};
      const uint32_t yw[1] = {lop3<0xe4>(wa[w] >> B, wb[w], kAlt)};
      lo = lutWord<TcPlan<Spec>::kLutAlignedV>(lutBase, fieldAt<FW, 7>(xw, p),
                                               kMask);
      hi = lutWord<TcPlan<Spec>::kLutAlignedV>(lutBase, fieldAt<FW, 7>(yw, p),
                                               kMask);
    } else { // pair table (3-bit codes): entry codeA | codeB << b
      constexpr int B = V::kBits;
      constexpr uint32_t kMaskA = ((1u << B) - 1u) << 7;
      constexpr uint32_t kMaskB = kMaskA << B;
      uint32_t x[2];
      TQ_UNROLL
      for (int c = 0; c < 2; ++c) {
        const int p = (2 * mt + c) * B;
        const uint32_t fa = fieldAt<B, 7>(wa, p);
        const uint32_t fb = fieldAt<B, 7 + B>(wb, p);
        x[c] = lutWord<TcPlan<Spec>::kLutAlignedV>(
            lutBase, (fa & kMaskA) | (fb & kMaskB), kMaskA | kMaskB);
      }
      lo = x[0], hi = x[1];
    }
    a[2 * pr] = lo;
    a[2 * pr + 1] = hi;
    a2[2 * pr] = lo2;
    a2[2 * pr + 1] = hi2;
  }
}

/* The pair tables' shared memory, with room to start an aligned one at an
 * address aligned to its size (a variable's alignment is relative to the
 * start of the CTA's shared memory, which is not 0 everywhere: sm_90
 * reserves 1 KB). Declared per root plan, so that a kernel with a second
 * path (decode.h HalfHeads: the same tensors) holds them once. */
template <class Spec, bool IsKey> TQ_INLINE uint32_t *pairTable() {
  using Pl = TcPlan<Spec>;
  using Tn = typename Pl::template Tensor<IsKey>;
  constexpr int kPad = IsKey ? Pl::kLutPadK : Pl::kLutPadV;
  TQ_SHARED TQ_ALIGN(16) uint32_t
      sLutRaw[Tn::kLutEntries ? Tn::kLutEntries * 32 + kPad : 1];
  return sLutRaw;
}

/* A tensor's pair table as decodeTc reads it: the root plan's (HalfHeads
 * plans share it), aligned per TcPlan. */
template <class Spec, bool IsKey> TQ_INLINE uint32_t *alignedPairTable() {
  using Root = typename RootSpec<Spec>::type;
  using Pl = TcPlan<Root>;
  return alignShared(pairTable<Root, IsKey>(),
                     IsKey ? Pl::kLutAlignK : Pl::kLutAlignV);
}

/* Fills the tables of a plan's lookup-table tensors. They depend on no
 * input, so decode.h fills them before it waits for the previous grid:
 * under a programmatic launch the CTA is resident while that grid
 * finishes, and the fill (up to 36 KB of shared stores and the level
 * selects) leaves the chain after the wait (seq_lens, page table, ring
 * data) that short sequences are timed by. A CTA has the root plan's
 * threads on either path. */
template <class Spec> TQ_INLINE void fillPairTables() {
  using Root = typename RootSpec<Spec>::type;
  using Pl = TcPlan<Root>;
  constexpr int NT = DecodePlan<Root>::NW * kWarpSize;
  if constexpr (Pl::K::kKind == kTcLut)
    fillPairTable<Root, true, NT>(alignedPairTable<Root, true>());
  if constexpr (Pl::V::kKind == kTcLut)
    fillPairTable<Root, false, NT>(alignedPairTable<Root, false>());
}

/* `qbits`: ring plans' queries, loaded by the caller (decode.h
 * startQueryBits) first thing after the programmatic-launch wait; unused
 * otherwise. */
template <class Spec, class T>
TQ_INLINE void decodeTc(const tq_decode_args &a,
                        const decode_detail::QueryBits<Spec> &qbits) {
  using namespace decode_detail;
  using P = DecodePlan<Spec>;
  using Pl = TcPlan<Spec>;
  using K = typename Pl::K;
  using V = typename Pl::V;
  constexpr int D = P::D, HPC = P::HPC, NW = P::NW, KC = Pl::KC;
  constexpr bool kKeyBf16 = K::kBf16, kValueBf16 = V::kBf16;
  constexpr bool kQSplit = Pl::kQuerySplit;
  static_assert(D % 16 == 0 && HPC <= 8, "tensor-core plan");
  static_assert(!TQ_TC_REQUIRE_RING || Pl::kRing,
                "TQ_TC_REQUIRE_RING: this plan does not take the ring");

  SplitWork w;
  if (!splitWork<Spec>(a, w)) // uniform over the CTA, before any barrier
    return;
  if constexpr (TQ_TRIGGER_WITH_WORK)
    allowDependentLaunch(); // decode.h: only CTAs with work trigger
  const int b = w.b;
  const int tokBegin = w.tokBegin, tokEnd = w.tokEnd;
  const int qh0 = TQ_CTA_X(Spec) * HPC;
  const int kvh = qh0 / P::G;
  const int warp = warpIndex(), lane = laneIndex();
  const int g = lane >> 2, t = lane & 3;

  // sQ holds the rotated queries until every lane has its B fragments, then
  // (after the merge barrier) the warps' weighted outputs.
  TQ_SHARED float sQ[HPC][D];
  TQ_SHARED float sAmax[HPC];
  TQ_SHARED float sMl[NW][HPC][3];
  // Pair tables (pairTable: one copy per kernel, whichever path runs).
  uint32_t *sLutK = alignedPairTable<Spec, true>();
  uint32_t *sLutV = alignedPairTable<Spec, false>();

  // This lane's column of each pair table (shared-window addresses): 4·lane,
  // or for a quad table's 8-byte entries 8·(lane % 16) (a 64-bit load is
  // served per half-warp).
  const uint32_t lutKBase =
      sharedAddress(sLutK) + (K::kQuad ? uint32_t(lane & 15) << 3
                                       : uint32_t(lane) << 2);
  const uint32_t lutVBase = sharedAddress(sLutV) + (uint32_t(lane) << 2);

  // Warp w takes the 16-token steps w, w + NW, ... of the range.
  const int cFirst = tokBegin / 16 + warp;
  const int cEnd = (tokEnd + 15) / 16;
  const int nSteps = cFirst < cEnd ? (cEnd - cFirst + NW - 1) / NW : 0;

  const int32_t *blockTable = a.block_tables + int64_t(b) * a.block_table_stride;
  const uint8_t *headBase = a.cache + int64_t(kvh) * Spec::kHeadStride;
  constexpr int kLog2Block = log2Int(Spec::kBlockSize);
  constexpr int H = Pl::kPagesPerStep;
  constexpr int kBatch = kWarpSize / H; // steps per page-table batch
  // Lane i holds the page of step (batch start + i / H), 8-token half i % H:
  // one coalesced table load per kBatch steps instead of one per token.
  int pages = 0;
  auto pagesFrom = [&](int k0) {
    const int c = cFirst + (k0 + lane / H) * NW;
    const int tok = c * 16 + (lane % H) * 8;
    return (c < cEnd && tok < tokEnd) ? blockTable[tok >> kLog2Block] : 0;
  };
  const TcLane ln = tcLane<Spec>(g, t);
  auto loadStepK = [&](TcRaw<Spec> &r, int k) {
    if (k % kBatch == 0)
      pages = pagesFrom(k);
    const int src = (k % kBatch) * H;
    const int pLo = int(shflIdx(uint32_t(pages), src));
    const int pHi = H == 2 ? int(shflIdx(uint32_t(pages), src + 1)) : pLo;
    const uint8_t *regLo = headBase + int64_t(pLo) * Spec::kBlockStride;
    const uint8_t *regHi =
        H == 2 ? headBase + int64_t(pHi) * Spec::kBlockStride : regLo;
    const int t0 = (cFirst + k * NW) * 16;
    loadStepChecked<Spec, Pl::kPrefetch>(r, regLo, regHi, t0, tokEnd, ln, g,
                                         t);
  };

  // The ring: warp w's S slots of dynamic shared memory, each holding two
  // steps (2j, 2j + 1 in slot j % S), whose barrier completes phase
  // (j / S) & 1 when both have landed. ringIssue(j, slot): lane 0 has the
  // copy engine bring the page regions of steps 2j and 2j + 1 (those before
  // nSteps) into `slot` (= j % S, which the caller tracks: no division per
  // step); after the first batch the page table is read a batch of steps
  // ahead, so the copies do not wait for it.
  constexpr int SPS = Pl::kRingStepsPerSlot;
  constexpr int S = Pl::kRing ? Pl::kRingSlots : 1, R = Pl::kRegionBytes;
  static_assert(!Pl::kRing || (H == 1 && kBatch % SPS == 0),
                "ring slots: whole page-table batches of 16-token pages");
  TQ_SHARED uint64_t sRingBar[Pl::kRing ? NW * S : 1];
  uint8_t *const ring = dynamicShared() + (Pl::kRing ? warp * S * SPS * R : 0);
  uint64_t *bars = sRingBar + (Pl::kRing ? warp * S : 0);
  int pagesNext = 0;
  auto ringIssue = [&](int j, int slot) {
    const int k = SPS * j;
    if (k >= nSteps) // uniform over the warp
      return;
    if (k % kBatch == 0) {
      pages = k == 0 ? pagesFrom(0) : pagesNext;
      pagesNext = pagesFrom(k + kBatch); // used kBatch steps from now
    }
    int pg[SPS];
    TQ_UNROLL
    for (int i = 0; i < SPS; ++i)
      pg[i] = int(shflIdx(uint32_t(pages), k % kBatch + i));
    const int n = minInt(SPS, nSteps - k);
    if (lane == 0) {
      if constexpr (TQ_TC_RING_PROXY_FENCE) // the slot's reads before the copy
        fenceProxyAsyncShared();
      arriveExpectBytes(&bars[slot], uint32_t(n * R));
      TQ_UNROLL
      for (int i = 0; i < SPS; ++i)
        if (i < n)
          bulkCopyToShared(ring + (slot * SPS + i) * R,
                           headBase + int64_t(pg[i]) * Spec::kBlockStride,
                           uint32_t(R), &bars[slot]);
    }
  };

  // The first step's loads (page table, then cache) go out before the
  // prologue, so that their latency overlaps the tables and the queries.
  TcRaw<Spec> ra, rb;
  if constexpr (Pl::kRing) {
    // A launch with less dynamic shared memory than the plan's (a manifest
    // edited by hand) must not write past it.
    if (dynamicSharedBytes() < uint32_t(Pl::kSmemRing))
      trap();
    if (lane == 0) {
      for (int i = 0; i < S; ++i)
        barrierInit(&bars[i], 1);
      fenceBarrierInit();
    }
    syncWarp();
    for (int j = 0; j < S; ++j)
      ringIssue(j, j);
  } else if constexpr (Pl::kPrefetch) {
    if (nSteps > 0)
      loadStepK(ra, 0);
  }

  // ---- Prologue: pair tables (unless filled before the wait: decode.h),
  // queries, B fragments ---------------------------------------------------
  if constexpr (!TQ_TC_FILL_BEFORE_WAIT)
    fillPairTables<Spec>();
  if constexpr (Pl::kRing)
    loadQueries<Spec, T>(a, qbits, sQ, nullptr, sAmax);
  else
    loadQueries<Spec, T>(a, b, qh0, sQ, nullptr, sAmax);
  barrier();
  TQ_TRACE_MARK(0);

  // B fragment of Q^T for k step kc: b0 = coordinates t·D/4 + 4kc + {0, 1}
  // of head g, b1 = + {2, 3} (zeros for padding heads g >= HPC).
  uint32_t qb[Pl::kQbShared ? 1 : KC][2];
  uint32_t qlo[kQSplit && !Pl::kQbShared ? KC : 1][2];
  TQ_SHARED u32x2 sQb[Pl::kQbShared ? KC : 1][kQSplit ? 2 : 1][kWarpSize];
  float hf[2]; // score factor of heads 2t, 2t + 1
  {
    float qs = 1.f;
    if constexpr (!kKeyBf16)
      if (g < HPC)
        qs = pow2FloorInv(sAmax[g]);
    TQ_UNROLL
    for (int hh = 0; hh < 2; ++hh) {
      const int h = 2 * t + hh;
      hf[hh] = (!kKeyBf16 && h < HPC) ? pow2Floor(sAmax[h < HPC ? h : 0]) : 1.f;
    }
    TQ_UNROLL
    for (int kc = 0; kc < KC; ++kc) {
      float q[4] = {0.f, 0.f, 0.f, 0.f};
      if (g < HPC) {
        TQ_UNROLL
        for (int i = 0; i < 4; ++i)
          q[i] = sQ[g][t * (D / 4) + 4 * kc + i] * qs;
      }
      TQ_UNROLL
      for (int j = 0; j < 2; ++j) {
        uint32_t hi, lo = 0u;
        if constexpr (kKeyBf16) {
          hi = packBf16x2(q[2 * j], q[2 * j + 1]);
          lo = packBf16x2(q[2 * j] - bf16BitsToFloat(hi & 0xffffu),
                          q[2 * j + 1] - bf16BitsToFloat(hi >> 16));
        } else {
          hi = packHalf2(q[2 * j], q[2 * j + 1]);
          if constexpr (kQSplit)
            lo = packHalf2(q[2 * j] - f16BitsToFloat(hi & 0xffffu),
                           q[2 * j + 1] - f16BitsToFloat(hi >> 16));
        }
        if constexpr (Pl::kQbShared) {
          (j ? sQb[kc][0][lane].y : sQb[kc][0][lane].x) = hi;
          if constexpr (kQSplit)
            (j ? sQb[kc][kQSplit ? 1 : 0][lane].y
               : sQb[kc][kQSplit ? 1 : 0][lane].x) = lo;
        } else {
          qb[kc][j] = hi;
          if constexpr (kQSplit)
            qlo[kc][j] = lo;
        }
      }
    }
  }

  // The running maximum of the true scores, negated (the exponent's addend).
  float nm[2] = {posInf(), posInf()};
  float l[2] = {0.f, 0.f}, zb[2] = {0.f, 0.f};
  float acc[KC][4];
  TQ_UNROLL
  for (int i = 0; i < KC; ++i)
    acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.f;

  // One 16-token step in three parts, so that the ring's loop can overlap
  // one step's softmax and values with the next step's scores.
  // scoreStep: scores of rows g, g + 8 for heads 2t, 2t + 1 (rows at or past
  // tokEnd -inf); k steps accumulate in kScoreChains independent mma chains
  // (shorter dependent latency).
  auto scoreStep = [&](const TcRaw<Spec> &r, int t0, float (&s)[4]) {
    constexpr int NCH = Pl::kScoreChains;
    float sc[NCH][4];
    TQ_UNROLL
    for (int c = 0; c < NCH; ++c)
      sc[c][0] = sc[c][1] = sc[c][2] = sc[c][3] = 0.f;
    float csq[4] = {0.f, 0.f, 0.f, 0.f}; // ‖c[idx]‖² of rows g, g, g+8, g+8
    TQ_UNROLL
    for (int kc = 0; kc < KC; ++kc) {
      uint32_t af[4];
      keyFragment<Spec>(r, kc, lutKBase, af);
      float(&acc2)[4] = sc[kc % NCH];
      uint32_t bh[2], bl[2];
      if constexpr (Pl::kQbShared) {
        const u32x2 x = sQb[kc][0][lane];
        bh[0] = x.x, bh[1] = x.y;
        if constexpr (kQSplit) {
          const u32x2 y = sQb[kc][kQSplit ? 1 : 0][lane];
          bl[0] = y.x, bl[1] = y.y;
        }
      } else {
        bh[0] = qb[kc][0], bh[1] = qb[kc][1];
        if constexpr (kQSplit)
          bl[0] = qlo[kc][0], bl[1] = qlo[kc][1];
      }
      if constexpr (kKeyBf16) {
        mmaBf16(acc2, af, bh);
        mmaBf16(acc2, af, bl);
      } else {
        mmaF16(acc2, af, bh);
        if constexpr (kQSplit)
          mmaF16(acc2, af, bl);
      }
      if constexpr (Pl::kNormAtRead) { // Σ c² per row: squares · ones
        uint32_t sq[4];
        TQ_UNROLL
        for (int i = 0; i < 4; ++i)
          sq[i] = hmul2(af[i], af[i]);
        const uint32_t ones[2] = {0x3c003c00u, 0x3c003c00u};
        mmaF16(csq, sq, ones);
      }
    }
    TQ_UNROLL
    for (int i = 0; i < 4; ++i) {
      s[i] = sc[0][i];
      TQ_UNROLL
      for (int c = 1; c < NCH; ++c)
        s[i] += sc[c][i];
    }
    float ks0 = 1.f, ks1 = 1.f;
    if constexpr (K::Info::kHasScale)
      ks0 = f16BitsToFloat(r.ks[0]), ks1 = f16BitsToFloat(r.ks[1]);
    if constexpr (Pl::kNormAtRead) { // c[idx] / √(‖c[idx]‖² + 1e-16)
      ks0 *= rsqrtFast(csq[0] + 1e-16f);
      ks1 *= rsqrtFast(csq[2] + 1e-16f);
    }
    // Without the heads' factors hf: they enter softmaxStep's exponent.
    const bool v0 = t0 + g < tokEnd, v1 = t0 + g + 8 < tokEnd;
    s[0] = v0 ? s[0] * ks0 : negInf(), s[1] = v0 ? s[1] * ks0 : negInf();
    s[2] = v1 ? s[2] * ks1 : negInf(), s[3] = v1 ? s[3] * ks1 : negInf();
  };
  // softmaxStep: the online softmax of a step's scores. Only when some score
  // exceeds its head's running max (rare once the max has settled) does the
  // warp reduce the step max over the 16 rows (lanes of equal t) and
  // rescale; otherwise p = 2^(s - m) directly, with no shuffle. Returns P
  // (value scale folded in) as the PV mma's B operand: P leaves in the C
  // layout, rows = tokens, and is transposed per 8 tokens (k = tokens, n =
  // heads).
  auto softmaxStep = [&](const TcRaw<Spec> &r, const float (&s)[4],
                         uint32_t (&pb)[2]) {
    // c·hf + nm > 0 exactly when the true score c·hf exceeds the max.
    float c0 = fmaxf(s[0], s[2]), c1 = fmaxf(s[1], s[3]);
    if (anyLane(fmaf(c0, hf[0], nm[0]) > 0.f || fmaf(c1, hf[1], nm[1]) > 0.f)) {
      TQ_UNROLL
      for (int mask = 4; mask < kWarpSize; mask <<= 1) {
        c0 = fmaxf(c0, shflXor(c0, mask));
        c1 = fmaxf(c1, shflXor(c1, mask));
      }
      const float mn0 = fmaxf(-nm[0], c0 * hf[0]);
      const float mn1 = fmaxf(-nm[1], c1 * hf[1]);
      const float r0 = exp2Fast(-nm[0] - mn0), r1 = exp2Fast(-nm[1] - mn1);
      l[0] *= r0, l[1] *= r1, zb[0] *= r0, zb[1] *= r1;
      TQ_UNROLL
      for (int i = 0; i < KC; ++i) {
        acc[i][0] *= r0, acc[i][2] *= r0;
        acc[i][1] *= r1, acc[i][3] *= r1;
      }
      nm[0] = -mn0, nm[1] = -mn1;
    }
    // 2^(S - m) for the true score S = s·hf in one fma: hf is a power of
    // two, so s·hf is exact and p is what rounding S first gave, with one
    // multiply per score fewer.
    const float p0 = exp2Fast(fmaf(s[0], hf[0], nm[0]));
    const float p1 = exp2Fast(fmaf(s[1], hf[1], nm[1]));
    const float p2 = exp2Fast(fmaf(s[2], hf[0], nm[0]));
    const float p3 = exp2Fast(fmaf(s[3], hf[1], nm[1]));
    l[0] += p0 + p2;
    l[1] += p1 + p3;
    float vs0 = 1.f, vs1 = 1.f;
    if constexpr (V::Info::kHasScale)
      vs0 = f16BitsToFloat(r.vs[0]), vs1 = f16BitsToFloat(r.vs[1]);
    if constexpr (V::Info::kHasZero || V::kKind == kTcPlanes2) {
      float z0, z1; // the uniform zero point, or the planes' l0·scale
      if constexpr (V::Info::kHasZero)
        z0 = f16BitsToFloat(r.vz[0]), z1 = f16BitsToFloat(r.vz[1]);
      else
        z0 = ValuePlanes<Spec>::kL0 * vs0, z1 = ValuePlanes<Spec>::kL0 * vs1;
      zb[0] += p0 * z0 + p2 * z1;
      zb[1] += p1 * z0 + p3 * z1;
    }
    if constexpr (kValueBf16) {
      pb[0] = transpose8x8b16(packBf16x2(p0 * vs0, p1 * vs0));
      pb[1] = transpose8x8b16(packBf16x2(p2 * vs1, p3 * vs1));
    } else {
      pb[0] = transpose8x8b16(packHalf2(p0 * vs0, p1 * vs0));
      pb[1] = transpose8x8b16(packHalf2(p2 * vs1, p3 * vs1));
    }
  };
  // valueStep: O^T += V^T·P^T over the step's value slices.
  uint32_t gamma2 = 0u; // kTcPlanes2: γ in both halves, converted once
  if constexpr (V::kKind == kTcPlanes2)
    gamma2 = packHalf2(ValuePlanes<Spec>::kGamma, ValuePlanes<Spec>::kGamma);
  auto valueStep = [&](const TcRaw<Spec> &r, const uint32_t (&pb)[2]) {
    uint32_t pg[2] = {0u, 0u}; // kTcPlanes2: P·γ for the high-bit plane
    if constexpr (V::kKind == kTcPlanes2)
      pg[0] = hmul2(pb[0], gamma2), pg[1] = hmul2(pb[1], gamma2);
    TQ_UNROLL
    for (int mt = 0; mt < KC; ++mt) {
      uint32_t af[4], af2[4];
      valueFragment<Spec>(r, mt, V::kKind == kTcQuadK ? lutKBase : lutVBase,
                          af, af2);
      if constexpr (kValueBf16)
        mmaBf16(acc[mt], af, pb);
      else
        mmaF16(acc[mt], af, pb);
      if constexpr (V::kKind == kTcPlanes2)
        mmaF16(acc[mt], af2, pg);
    }
  };
  auto process = [&](TcRaw<Spec> &r, int t0) {
    float s[4];
    scoreStep(r, t0, s);
    uint32_t pb[2];
    softmaxStep(r, s, pb);
    if constexpr (!Pl::kPrefetch) {
      if (t0 + 16 <= tokEnd)
        loadValues<Spec, false>(r, t0, tokEnd, ln, t);
      else
        loadValues<Spec, true>(r, t0, tokEnd, ln, t);
    }
    valueStep(r, pb);
  };

  // ---- Main loop ----------------------------------------------------------
  if constexpr (Pl::kRing) {
    // Software-pipelined by one step: each half of an iteration runs step
    // k's softmax and values and step k + 1's scores in one basic block
    // (the branches are the rare rescale, and between the halves the refill
    // or the next slot's barrier wait), so the score mma chain of one
    // step and the dequantization and value mma of the other fill each
    // other's latencies instead of waiting on their own. Step k + 1 is read
    // whole from its slot there; a slot is refilled once both its steps have
    // been read (after its first half). The slot data are read unchecked:
    // rows past the split's end hold whatever the page holds, their scores
    // become -inf, their scalars are zeroed, and their value codes only
    // ever meet p = 0 (finite for tables and integer codes; fp8 and bf16
    // values, where stale bits can be NaN, take the checked load on the
    // split's last step).
    constexpr bool kAnyBitsFinite =
        V::kKind == kTcLut || V::kKind == kTcQuadK || V::kKind == kTcMagic4 ||
        V::kKind == kTcMagic8 || V::kKind == kTcNarrow ||
        V::kKind == kTcPlanes2;
    auto ringLoad = [&](TcRaw<Spec> &r, const uint8_t *data, int t0) {
      if constexpr (kAnyBitsFinite)
        loadStep<Spec, false, true, FromRing>(r, data, data, t0, tokEnd, ln,
                                              g, t);
      else
        loadStepChecked<Spec, true, FromRing>(r, data, data, t0, tokEnd, ln,
                                              g, t);
      const bool v0 = t0 + g < tokEnd, v1 = t0 + g + 8 < tokEnd;
      r.vs[0] = v0 ? r.vs[0] : 0u, r.vz[0] = v0 ? r.vz[0] : 0u;
      r.vs[1] = v1 ? r.vs[1] : 0u, r.vz[1] = v1 ? r.vz[1] : 0u;
    };
    int slot = 0;        // (k / 2) % S
    uint32_t parity = 0; // (k / 2 / S) & 1
    TcRaw<Spec> cur;
    float s[4];
    if (nSteps > 0) {
      barrierWait(&bars[0], 0u);
      ringLoad(cur, ring, cFirst * 16);
      scoreStep(cur, cFirst * 16, s);
    }
    // Two steps per iteration, the two halves of `slot`.
    for (int k = 0; k < nSteps; k += 2) {
      uint8_t *const data = ring + slot * (SPS * R);
      {
        // Step k (half 0); step k + 1 is half 1 of the same slot (after the
        // last step a phantom over half 0, whose rows are all past the end).
        const int t0 = (cFirst + k * NW) * 16, t1 = t0 + NW * 16;
        uint32_t pb[2];
        softmaxStep(cur, s, pb);
        TcRaw<Spec> nxt;
        ringLoad(nxt, data + (k + 1 < nSteps ? R : 0), t1);
        scoreStep(nxt, t1, s);
        valueStep(cur, pb);
        syncWarp();                  // every lane has read both halves:
        ringIssue(k / 2 + S, slot);  // refill the slot
        cur = nxt;
      }
      if (k + 1 >= nSteps)
        break;
      {
        // Step k + 1 (half 1); step k + 2 is half 0 of the next slot (after
        // the last step a phantom over this slot, whose refill was not
        // issued: no copy is in flight any more).
        const int t0 = (cFirst + (k + 1) * NW) * 16, t1 = t0 + NW * 16;
        const bool more = k + 2 < nSteps; // uniform over the warp
        const int nslot = slot + 1 == S ? 0 : slot + 1;
        const uint32_t nparity = nslot == 0 ? parity ^ 1u : parity;
        if (more)
          barrierWait(&bars[nslot], nparity);
        uint32_t pb[2];
        softmaxStep(cur, s, pb);
        TcRaw<Spec> nxt;
        ringLoad(nxt, more ? ring + nslot * (SPS * R) : data, t1);
        scoreStep(nxt, t1, s);
        valueStep(cur, pb);
        cur = nxt;
        slot = nslot, parity = nparity;
      }
    }
  } else if constexpr (Pl::kPrefetch) {
    // Two buffers in turn (unrolled by two so that no register copies are
    // needed): step k + 1's loads are in flight while step k computes.
    for (int k = 0; k < nSteps; k += 2) {
      if (k + 1 < nSteps)
        loadStepK(rb, k + 1);
      process(ra, (cFirst + k * NW) * 16);
      if (k + 1 >= nSteps)
        break;
      if (k + 2 < nSteps)
        loadStepK(ra, k + 2);
      process(rb, (cFirst + (k + 1) * NW) * 16);
    }
  } else {
    for (int k = 0; k < nSteps; ++k) {
      TcRaw<Spec> cur;
      loadStepK(cur, k);
      process(cur, (cFirst + k * NW) * 16);
    }
  }

  // ---- Merge the 8 row lanes of each head, then the warps ----------------
  TQ_UNROLL
  for (int mask = 4; mask < kWarpSize; mask <<= 1) {
    TQ_UNROLL
    for (int hh = 0; hh < 2; ++hh) {
      l[hh] += shflXor(l[hh], mask);
      zb[hh] += shflXor(zb[hh], mask);
    }
  }
  if (g == 0) {
    TQ_UNROLL
    for (int hh = 0; hh < 2; ++hh) {
      const int h = 2 * t + hh;
      if (h < HPC) {
        sMl[warp][h][0] = -nm[hh];
        sMl[warp][h][1] = l[hh];
        sMl[warp][h][2] = zb[hh];
      }
    }
  }
  barrier();
  TQ_TRACE_MARK(1);
  float (*sRed)[D] = sQ; // every lane has read its queries by now
  // Output rows g, g + 8 of tile mt (coordinates 2mt, 2mt + 1 of the
  // lane's) carry the codes' power-of-two scale when the value codes went
  // in as fp16 subnormals.
  auto rowScale = [](int mt, int j) -> float {
    if constexpr (Pl::kSubnormalCodes && V::kKind == kTcMagic4)
      return j ? 1048576.f : 16777216.f; // 2^20 (high nibble), 2^24
    else if constexpr (Pl::kSubnormalCodes && V::kKind == kTcMagic8)
      return 16777216.f;
    else if constexpr (V::kKind == kTcNarrow || V::kKind == kTcPlanes2) {
      const float s = float(1u << (24 - narrowPlace(V::kBits, 2 * mt + j).k));
      if constexpr (V::kKind == kTcPlanes2)
        return s * ValuePlanes<Spec>::kAlpha;
      else
        return s;
    } else
      return 1.f;
  };
  // Warp w's output weighted to the merged max: element (h, i) of the
  // CTA's sum over warps, with dst(h, i) where it goes.
  auto eachWeighted = [&](auto &&dst) {
    TQ_UNROLL
    for (int hh = 0; hh < 2; ++hh) {
      const int h = 2 * t + hh;
      if (h < HPC) {
        float Mh, Lh, Bh;
        mergeWarpStats<Spec>(sMl, h, Mh, Lh, Bh);
        const float f = mergeWeight(-nm[hh], Mh);
        TQ_UNROLL
        for (int mt = 0; mt < KC; ++mt)
          TQ_UNROLL
          for (int j = 0; j < 2; ++j)
            dst(h, g * (D / 8) + 2 * mt + j,
                acc[mt][2 * j + hh] * (f * rowScale(mt, j)));
      }
    }
  };
  if constexpr (Pl::kWarpSumsIn != Pl::kSumsSerial) {
    // The barrier above has every warp past its loop, so the pair tables are
    // idle, and so is the ring (every copy it was given has been waited
    // for): each warp writes its output to its own slice, then all threads
    // sum the slices in warp order (the same additions, in the same order,
    // as the loop below), two barriers instead of one per warp.
    float *const sums = reinterpret_cast<float *>(
        Pl::kWarpSumsIn == Pl::kSumsInRing  ? static_cast<void *>(dynamicShared())
        : Pl::kWarpSumsIn == Pl::kSumsInLutK ? static_cast<void *>(sLutK)
                                             : static_cast<void *>(sLutV));
    float *const mine = sums + warp * (HPC * D);
    eachWeighted([&](int h, int i, float v) { mine[h * D + i] = v; });
    barrier();
    for (int e = threadIndex(); e < HPC * D; e += NW * kWarpSize) {
      float v = sums[e];
      TQ_UNROLL
      for (int w = 1; w < NW; ++w)
        v += sums[w * (HPC * D) + e];
      sRed[e / D][e % D] = v;
    }
    barrier();
  } else {
    for (int w = 0; w < NW; ++w) {
      if (warp == w)
        eachWeighted([&](int h, int i, float v) {
          sRed[h][i] = w == 0 ? v : sRed[h][i] + v;
        });
      barrier();
    }
  }
  finishHeads<Spec, T>(a, sRed, sMl);
}

} // namespace tc
} // namespace tq

#endif // TQ_DECODE_TC_H
