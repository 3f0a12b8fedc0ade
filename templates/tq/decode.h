/*===- decode.h - Split-KV decode attention over the compressed cache -----===*
 *
 * tq::decode<Spec, T>(tq_decode_args): grid (num_q_heads / kHeadsPerCta,
 * max_batch, kSplits), block kWarps warps. A CTA serves kHeadsPerCta query
 * heads of one KV head (the GQA group, or a slice of it) for one sequence
 * and one split of its tokens, so every cache byte it reads is dequantized
 * once and used by all of its query heads.
 *
 * Attention stays in the rotated domains (ALGORITHM.md §4): the prologue
 * rotates each query with the key rotation and folds scale·log2(e) into it;
 * Lloyd-Max keys score s_t·<Rq, c[idx_t]> (the per-token scalar on the
 * score, never on vectors), QJL keys add γ_t·√(π/2)/D·<Sq, z_t> with S·q
 * taken from the original query. Values accumulate in the value rotation's
 * domain (uniform: acc += (p·s16)·code and a scalar bias += p·z16; Lloyd-Max:
 * acc += (p·s)·c[idx]); the output is un-rotated once, by the CTA of a
 * one-split sequence or by the CTA that merges the splits (finishHeads).
 * Online softmax in the exp2 domain.
 *
 * Work split: lane groups of LPT = D/C lanes each own one token at a time,
 * lane i of a group the C = max(8, D/32) consecutive coordinates
 * [i·C, i·C + C) (8 coordinates of b-bit codes are b whole bytes); a warp
 * runs TPW = 32/LPT tokens at once and keeps per-lane-group running
 * (max, sum, acc), merged at the end across lane groups (shuffles) and warps
 * (shared memory).
 *===----------------------------------------------------------------------===*/
#ifndef TQ_DECODE_H
#define TQ_DECODE_H

#include "tq/abi.h"
#include "tq/numeric.h"
#include "tq/rotate.h"

namespace tq {

/* log2(e): the softmax runs on 2^(log2(e)·score). */
constexpr float kLog2e = 1.4426950408889634f;
/* √(π/2), the QJL estimator's constant (divided by D where used). */
constexpr double kSqrtHalfPi = 1.2533141373155003;

/* The decode's static plan. */
template <class Spec> struct DecodePlan {
  static constexpr int D = Spec::kHeadDim;
  static constexpr int E = D / kWarpSize; // coordinates per lane, whole row
  static constexpr int C = maxInt(8, D / kWarpSize); // per lane, per token
  static constexpr int LPT = D / C;                   // lanes per token
  static constexpr int TPW = kWarpSize / LPT;         // tokens per warp
  static constexpr int NW = Spec::kWarps;
  static constexpr int G = Spec::kNumQHeads / Spec::kNumKVHeads;
  static constexpr int HPC = Spec::kHeadsPerCta;
  static constexpr int kSplits = Spec::kSplits;
  /* The rotated queries stay in registers (HPC·C floats per lane) up to 4
   * heads; beyond that they are read from shared memory per token, since
   * queries plus accumulators (2·HPC·C) would not fit 255 registers without
   * spilling at 8 heads (NVRTC's sm_80 code did spill). */
  static constexpr bool kQInShared = HPC * C > 32;
  static constexpr int kQRegHeads = kQInShared ? 1 : HPC;

  static_assert(isPow2(D) && D >= 32 && D <= 256,
                "head_dim: a power of two in 32..256");
  static_assert(Spec::kNumQHeads % Spec::kNumKVHeads == 0,
                "num_q_heads: a multiple of num_kv_heads");
  static_assert(HPC >= 1 && G % HPC == 0,
                "kHeadsPerCta must divide the GQA ratio");
  static_assert(NW >= 1 && NW <= 32, "kWarps: 1..32");
  static_assert(Spec::kBlockN % 16 == 0 && Spec::kBlockN % TPW == 0,
                "kBlockN: a multiple of 16 and of the tokens per warp");
  static_assert(kSplits >= 1, "kSplits >= 1");
  static_assert(isPow2(Spec::kBlockSize), "block_size: a power of two");
};

/* The plan of a whole-GQA-group plan's short-sequence path (decode(),
 * TQ_SHORT_HALF_HEADS): half the heads per CTA and half the splits, in the
 * same grid. A CTA (x, y, z) of the launch is the half-group plan's CTA
 * (2x + (z & 1), y, z >> 1) (TQ_CTA_X, TQ_CTA_Z), and its partials keep the launch
 * plan's workspace strides (WorkspaceSplits), so rows of either path share
 * one workspace. */
template <class S> struct HalfHeads : S {
  static constexpr int kHeadsPerCta = S::kHeadsPerCta / 2;
  static constexpr int kSplits = S::kSplits / 2;
};

/* The CTA's coordinates in its plan's grid: the block index, or for
 * HalfHeads the mapping above. Macros, not functions: an extra inline
 * level changed ptxas's register allocation of the decode enough to give
 * k3v3 at head_dim 256 (sm_90) a stack frame, as session 10 saw for the
 * scalar path's branches. */
template <class Spec> struct IsHalfHeads { static constexpr bool value = false; };
template <class S> struct IsHalfHeads<HalfHeads<S>> {
  static constexpr bool value = true;
};
#define TQ_CTA_X(Spec)                                                         \
  (::tq::IsHalfHeads<Spec>::value                                              \
       ? 2 * ::tq::blockIndexX() + (::tq::blockIndexZ() & 1)                   \
       : ::tq::blockIndexX())
#define TQ_CTA_Y(Spec) ::tq::blockIndexY()
#define TQ_CTA_Z(Spec)                                                         \
  (::tq::IsHalfHeads<Spec>::value ? ::tq::blockIndexZ() >> 1                   \
                                  : ::tq::blockIndexZ())
/* Whether splitsUsed adds the splits that only hide latency beyond
 * filling idle SMs: not on the half-group path (it serves short rows on
 * idle SMs, where each split's merge costs more than it hides: B=8, L=1K,
 * 2 heads per CTA, 8 warps, 1 split 10.0 us, 2 splits 13.3: session 12, run1). */
template <class Spec> struct DeepSplits { static constexpr bool value = true; };
template <class S> struct DeepSplits<HalfHeads<S>> {
  static constexpr bool value = false;
};
/* The launch's own plan (HalfHeads: the plan it halves). */
template <class Spec> struct RootSpec { using type = Spec; };
template <class S> struct RootSpec<HalfHeads<S>> { using type = S; };
/* Splits per (row, head) the workspace is laid out for: the launch plan's. */
template <class Spec> struct WorkspaceSplits {
  static constexpr int value = Spec::kSplits;
};
template <class S> struct WorkspaceSplits<HalfHeads<S>> {
  static constexpr int value = S::kSplits;
};

namespace decode_detail {

/* Copies a Lloyd-Max tensor's levels to shared memory (one warp). */
template <class Info, class L> // L: float or double (TqSpec's choice)
TQ_INLINE void fillLevels(float *dst, const L *src) {
  for (int i = laneIndex(); i < Info::kLevels; i += kWarpSize)
    dst[i] = float(src[i]);
}

/* This lane's part of the log2-domain score of one token, for every query
 * head of the CTA: the sum over its C coordinates, with the token's scalar
 * (Lloyd-Max scale) and QJL term already applied, so that one group sum
 * finishes it. With the norm corrected at read (vLLM layout), csq gets the
 * lane's part of ‖c[idx]‖², and the caller divides the summed score by
 * √(‖c[idx]‖² + 1e-16). */
template <class Spec>
TQ_INLINE void keyPartials(const uint8_t *region, int pos, int li,
                           const float (&q)[DecodePlan<Spec>::kQRegHeads]
                                           [DecodePlan<Spec>::C],
                           const float *qs,
                           const float *levels, const float *sq,
                           float (&sc)[Spec::kHeadsPerCta], float &csq) {
  using P = DecodePlan<Spec>;
  using Info = TensorInfo<Spec, true>;
  using TS = typename Info::TS;
  constexpr int C = P::C, HPC = P::HPC, D = P::D;
  constexpr int NB = C * Info::kCodeBits / 8;
  const Chunk ch = loadChunk<NB, Info::kCodesAlign>(
      region + TS::kCodesOffset + pos * TS::kCodesStride, li * NB);
  float ks = 1.f, kz = 0.f;
  if constexpr (Info::kHasScale)
    ks = loadF16(region + TS::kScaleOffset + pos * TS::kScaleStride);
  if constexpr (Info::kHasZero)
    kz = loadF16(region + TS::kZeroOffset + pos * TS::kZeroStride);

  TQ_UNROLL
  for (int h = 0; h < HPC; ++h)
    sc[h] = 0.f;
  csq = 0.f;
  TQ_UNROLL
  for (int c = 0; c < C; ++c) {
    const uint32_t code = codeOf<Info::kCodeBits>(ch, c);
    float k;
    if constexpr (Info::kQuant == TQ_QUANT_LLOYD_MAX)
      k = levels[code];
    else if constexpr (Info::kQuant == TQ_QUANT_UNIFORM)
      k = fmaf(ks, float(code), kz);
    else if constexpr (Info::kQuant == TQ_QUANT_FP8)
      k = e4m3BitsToFloat(code);
    else
      k = bf16BitsToFloat(code);
    if constexpr (Info::kNormAtRead)
      csq = fmaf(k, k, csq); // this lane's share of ‖c[idx]‖²
    TQ_UNROLL
    for (int h = 0; h < HPC; ++h) {
      if constexpr (P::kQInShared)
        sc[h] = fmaf(qs[h * D + li * C + c], k, sc[h]);
      else
        sc[h] = fmaf(q[h % P::kQRegHeads][c], k, sc[h]);
    }
  }
  if constexpr (Info::kQuant == TQ_QUANT_LLOYD_MAX) {
    TQ_UNROLL
    for (int h = 0; h < HPC; ++h)
      sc[h] *= ks;
  }
  if constexpr (Info::kQjl) {
    // γ·<Sq', z> with Sq' = S·q·scale·log2(e)·√(π/2)/D (prologue) and
    // z = ±1 from the sign bits.
    constexpr int SB = C / 8;
    static_assert(C % 8 == 0, "whole sign bytes per lane");
    const Chunk sg = loadChunk<SB, Info::kSignsAlign>(
        region + TS::kSignsOffset + pos * TS::kSignsStride, li * SB);
    const float gamma =
        loadF16(region + TS::kGammaOffset + pos * TS::kGammaStride);
    TQ_UNROLL
    for (int h = 0; h < HPC; ++h) {
      const float *sqh = sq + h * D + li * C;
      float z = 0.f;
      TQ_UNROLL
      for (int c = 0; c < C; ++c)
        z += ((sg.w[c / 32] >> (c % 32)) & 1u) ? sqh[c] : -sqh[c];
      sc[h] = fmaf(gamma, z, sc[h]);
    }
  }
}

/* acc = acc·corr + p·v for this lane's C value coordinates of one token, and
 * the uniform zero point's share in bias. */
template <class Spec>
TQ_INLINE void accumulateValue(const uint8_t *region, int pos, int li,
                               const float *levels,
                               const float (&p)[Spec::kHeadsPerCta],
                               const float (&corr)[Spec::kHeadsPerCta],
                               float (&acc)[Spec::kHeadsPerCta]
                                           [DecodePlan<Spec>::C],
                               float (&bias)[Spec::kHeadsPerCta]) {
  using P = DecodePlan<Spec>;
  using Info = TensorInfo<Spec, false>;
  using TS = typename Info::TS;
  constexpr int C = P::C, HPC = P::HPC;
  constexpr int NB = C * Info::kCodeBits / 8;
  const Chunk ch = loadChunk<NB, Info::kCodesAlign>(
      region + TS::kCodesOffset + pos * TS::kCodesStride, li * NB);
  float vs = 1.f;
  if constexpr (Info::kHasScale)
    vs = loadF16(region + TS::kScaleOffset + pos * TS::kScaleStride);
  if constexpr (Info::kHasZero) {
    const float vz = loadF16(region + TS::kZeroOffset + pos * TS::kZeroStride);
    TQ_UNROLL
    for (int h = 0; h < HPC; ++h)
      bias[h] = fmaf(bias[h], corr[h], p[h] * vz);
  }
  float w[HPC];
  TQ_UNROLL
  for (int h = 0; h < HPC; ++h)
    w[h] = p[h] * vs;
  TQ_UNROLL
  for (int c = 0; c < C; ++c) {
    const uint32_t code = codeOf<Info::kCodeBits>(ch, c);
    float v;
    if constexpr (Info::kQuant == TQ_QUANT_LLOYD_MAX)
      v = levels[code];
    else if constexpr (Info::kQuant == TQ_QUANT_UNIFORM)
      v = float(code);
    else if constexpr (Info::kQuant == TQ_QUANT_FP8)
      v = e4m3BitsToFloat(code);
    else
      v = bf16BitsToFloat(code);
    TQ_UNROLL
    for (int h = 0; h < HPC; ++h)
      acc[h][c] = fmaf(acc[h][c], corr[h], w[h] * v);
  }
}

/* Weight 2^(m - M) of a partial with max m in a merge with max M; 0 for an
 * empty partial (m = -inf), and no NaN when everything is empty. */
TQ_INLINE float mergeWeight(float m, float M) {
  return isNegInf(m) ? 0.f : exp2Fast(m - M);
}

/* The sign masks of the decode's own rotations (the queries', the output's
 * inverse): immediates (ImmediateSigns, rotate.h). Read from the
 * __constant__ array, the first use after the programmatic wait was a cold
 * miss, a DRAM round trip in series on the short-context critical path
 * (the ld.const right after the ring's first copies in k3v4's PTX; k3v4's
 * prologue 1.89 us against k8v4's 1.02, session 35's CTA traces).
 * TQ_DECODE_SIGN_IMMEDIATES=0 reads the array again, for A/B runs. */
#ifndef TQ_DECODE_SIGN_IMMEDIATES
#define TQ_DECODE_SIGN_IMMEDIATES 1
#endif
template <class Info> TQ_INLINE auto decodeSigns() {
  if constexpr (TQ_DECODE_SIGN_IMMEDIATES)
    return ImmediateSigns<typename Info::TS>{};
  else
    return Info::TS::signs();
}


/* Split-count policy knobs (defaults measured on the H200; a developer can
 * override them for an experiment with TQC_DEVICE_DEFINES, docs/NOTES.md). */
#ifndef TQ_SPLIT_MIN_TOKENS
#define TQ_SPLIT_MIN_TOKENS 128 /* tokens per split that fills idle SMs */
#endif
#ifndef TQ_SPLIT_DEEP_MIN_TOKENS
#define TQ_SPLIT_DEEP_MIN_TOKENS 512 /* per split that adds resident warps */
#endif
#ifndef TQ_SPLIT_WARPS_PER_SM
#define TQ_SPLIT_WARPS_PER_SM 16 /* resident warps per SM the splits fill */
#endif
#ifndef TQ_SPLIT_IDLE_WARPS_PER_SM
#define TQ_SPLIT_IDLE_WARPS_PER_SM (TQ_SPLIT_WARPS_PER_SM / 2) /* ... of them on idle SMs */
#endif

/* Splits a sequence of L tokens actually uses in a launch of `batch` rows,
 * 1..kSplits. The grid always has kSplits (fixed-grid rule); the CTAs of
 * unused splits return at once, and a sequence that uses one split gets its
 * output written by its CTA without any merge. The used CTAs (head groups x
 * batch x splits) are counted in warps per SM (kSmCount SMs):
 *  - up to TQ_SPLIT_IDLE_WARPS_PER_SM (half of TQ_SPLIT_WARPS_PER_SM),
 *    splits put warps on idle SMs and pay for themselves from
 *    TQ_SPLIT_MIN_TOKENS tokens on (B=1, L=1K on the H200: 8 splits of 128
 *    tokens 9.0 us, 1 split 17.8 us);
 *  - beyond, up to TQ_SPLIT_WARPS_PER_SM (the decode's residency at its
 *    128-register budget), they only hide latency, which pays from
 *    TQ_SPLIT_DEEP_MIN_TOKENS tokens on (B=8, 4 warps of 4 heads: L=1K, 4
 *    splits 14.5 us, 8 splits 17.1; L=8K, 4 splits 41.7, 8 splits 36.1);
 *  - never beyond: splits would only add merges and waves (B=8, L=8K: 32
 *    splits of 8 warps 124 us; B=32, L=1K: 1 split 23 us, 8 splits 40 us).
 * So one plan with many splits serves small and large batches alike. (The
 * times: exhaustive tuner grids, bench/results/2026-11-30-session5-h200 and
 * 2026-11-30-session6-h200.)
 * Depends on (L, batch) only, both uniform over a row's CTAs, so every CTA of
 * a row agrees, and the grid does not depend on either. splitCap(batch, w)
 * is the batch's cap at w warps per SM. */
template <class Spec>
TQ_INLINE int splitCap(int batch, int warpsPerSm = TQ_SPLIT_WARPS_PER_SM) {
  if constexpr (Spec::kSplits == 1)
    return 1;
  constexpr int kHeadGroups = Spec::kNumQHeads / Spec::kHeadsPerCta;
  const int fillCtas = Spec::kSmCount * maxInt(1, warpsPerSm / Spec::kWarps);
  const int s = fillCtas / (kHeadGroups * (batch < 1 ? 1 : batch));
  return s < 1 ? 1 : (s > Spec::kSplits ? Spec::kSplits : s);
}
template <class Spec> TQ_INLINE int splitsUsed(int L, int batch) {
  if constexpr (Spec::kSplits == 1)
    return 1;
  const int idle = minInt(splitCap<Spec>(batch, TQ_SPLIT_IDLE_WARPS_PER_SM),
                          (L + TQ_SPLIT_MIN_TOKENS - 1) / TQ_SPLIT_MIN_TOKENS);
  if constexpr (!DeepSplits<Spec>::value)
    return maxInt(1, idle);
  const int deep =
      minInt(splitCap<Spec>(batch),
             (L + TQ_SPLIT_DEEP_MIN_TOKENS - 1) / TQ_SPLIT_DEEP_MIN_TOKENS);
  return maxInt(1, maxInt(idle, deep));
}

/* Whether this CTA can have work, from the launch arguments alone (no
 * seq_lens): its row is below `batch` and its split below the batch's cap.
 * The others return before waiting for the previous kernel (programmatic
 * launch), so a plan with many splits costs a large batch nothing for the
 * splits it never uses: they would otherwise hold their SM slot until the
 * previous kernel ends. */
template <class Spec, bool HALF = false>
TQ_INLINE bool ctaMayWork(const tq_decode_args &a) {
  int cap = splitCap<Spec>(a.batch);
  if constexpr (HALF) // the short path's z = 2 * split + half
    cap = maxInt(cap, 2 * splitCap<HalfHeads<Spec>>(a.batch));
  return blockIndexY() < a.batch && int(blockIndexZ()) < cap;
}

#ifndef TQ_DEBUG_CTA_TRACE
#define TQ_DEBUG_CTA_TRACE 0
#endif
#if TQ_DEBUG_CTA_TRACE
/* The CTA trace's phase marks (CtaTrace below): globaltimer when thread 0
 * passes TQ_TRACE_MARK(i), 0 where it never does. */
TQ_INLINE unsigned long long *traceMarks() {
  TQ_SHARED unsigned long long sMarks[3];
  return sMarks;
}
#define TQ_TRACE_MARK(i)                                                       \
  do {                                                                         \
    if (threadIndex() == 0)                                                    \
      ::tq::decode_detail::traceMarks()[i] = globalTimer();                    \
  } while (0)
#else
#define TQ_TRACE_MARK(i)                                                       \
  do {                                                                         \
  } while (0)
#endif

/* The state of a diagnostic knob (TQ_DEBUG_CTA_TRACE): the workspace
 * `offset` bytes in, or nullptr for a plan without a workspace (one split).
 * The workspace must be large enough for it (bench/cta_trace.py). */
template <class U>
TQ_INLINE U *workspaceAt(const tq_decode_args &a, long long offset) {
  return a.workspace == nullptr
             ? nullptr
             : reinterpret_cast<U *>(reinterpret_cast<char *>(a.workspace) +
                                     offset);
}

/* Token range [tokBegin, tokEnd) of split `split` of S used splits: whole
 * kBlockN tiles, split in equal shares. */
template <class Spec>
TQ_INLINE void splitRange(int L, int split, int S, int &tokBegin,
                          int &tokEnd) {
  const int nTiles = (L + Spec::kBlockN - 1) / Spec::kBlockN;
  const int tilesPerSplit = (nTiles + S - 1) / S;
  const int tileBegin = split * tilesPerSplit;
  const int tileEnd = minInt(tileBegin + tilesPerSplit, nTiles);
  tokBegin = tileBegin * Spec::kBlockN;
  tokEnd = minInt(tileEnd * Spec::kBlockN, L);
}

/* What one decode CTA works on (fixed grid: the range comes from seq_lens,
 * read on the device): its sequence row and split (from its block index),
 * how many splits the row uses and the split's tokens
 * [tokBegin, tokEnd). False when the CTA has nothing to do: a row beyond
 * `batch`, or a split the row does not use.
 * Uniform over the CTA, so callers return before any barrier. */
struct SplitWork {
  int b, split, nSplits, tokBegin, tokEnd;
};
template <class Spec>
TQ_INLINE bool splitWork(const tq_decode_args &a, SplitWork &w) {
  w.b = TQ_CTA_Y(Spec);
  if (w.b >= a.batch)
    return false;
  w.split = TQ_CTA_Z(Spec);
  const int L = a.seq_lens[w.b];
  w.nSplits = splitsUsed<Spec>(L, a.batch);
  if (w.split >= w.nSplits)
    return false;
  splitRange<Spec>(L, w.split, w.nSplits, w.tokBegin, w.tokEnd);
  return true;
}

/* The raw bits of a warp's query rows (heads w, w + NW, ... of the CTA's),
 * for loadQueries. The tensor-core path's ring plans load them before
 * anything else, so their DRAM latency overlaps seq_lens, the page table
 * and the tables' fill instead of following them (at short contexts the
 * decode is a chain of such latencies). */
template <class Spec> struct QueryBits {
  static constexpr int kRows =
      (Spec::kHeadsPerCta + Spec::kWarps - 1) / Spec::kWarps;
  uint32_t w[kRows][4];
};
template <class Spec, class T>
TQ_INLINE void loadQueryBits(const tq_decode_args &a, int b, int qh0,
                             QueryBits<Spec> &q) {
  constexpr int E = Spec::kHeadDim / kWarpSize, HPC = Spec::kHeadsPerCta;
  const int warp = warpIndex(), lane = laneIndex();
  const T *query = static_cast<const T *>(a.query) + b * a.query_stride_batch;
  TQ_UNROLL
  for (int r = 0; r < QueryBits<Spec>::kRows; ++r) {
    const int h = warp + r * Spec::kWarps;
    if (h < HPC)
      loadRowBits<E>(query + (qh0 + h) * a.query_stride_head + lane * E,
                     q.w[r]);
  }
}

/* Prologue shared by both decode paths: the CTA's rotated queries (bits from
 * loadQueryBits), scaled by scale·log2(e), into sQ (warp w takes heads w,
 * w + NW, ...). With QJL keys the original queries go to sOrig. amax, when
 * given, receives each head's largest |coordinate| (the tensor-core path
 * normalizes its fp16 queries). */
template <class Spec, class T>
TQ_INLINE void loadQueries(const tq_decode_args &a, const QueryBits<Spec> &q,
                           float (*sQ)[Spec::kHeadDim],
                           float (*sOrig)[Spec::kHeadDim], float *amax) {
  using P = DecodePlan<Spec>;
  using KInfo = TensorInfo<Spec, true>;
  constexpr int D = P::D, E = P::E;
  const int warp = warpIndex(), lane = laneIndex();
  const float qscale = a.scale * kLog2e;
  TQ_UNROLL
  for (int r = 0; r < QueryBits<Spec>::kRows; ++r) {
    const int h = warp + r * P::NW;
    if (h >= P::HPC)
      break;
    float x[E];
    rowFromBits<T, E>(q.w[r], x);
    if constexpr (KInfo::kQjl) {
      TQ_UNROLL
      for (int i = 0; i < E; ++i)
        sOrig[h][lane * E + i] = x[i];
    }
    if constexpr (KInfo::kRotated)
      warpRotate<D, KInfo::kRounds>(x, decodeSigns<KInfo>());
    float mx = 0.f;
    TQ_UNROLL
    for (int i = 0; i < E; ++i) {
      x[i] *= qscale;
      sQ[h][lane * E + i] = x[i];
      mx = fmaxf(mx, fabsf(x[i]));
    }
    if (amax) {
      mx = warpMax(mx);
      if (lane == 0)
        amax[h] = mx;
    }
  }
}

/* loadQueries with the loads issued where it is called (the plans that do
 * not issue them early). */
template <class Spec, class T>
TQ_INLINE void loadQueries(const tq_decode_args &a, int b, int qh0,
                           float (*sQ)[Spec::kHeadDim],
                           float (*sOrig)[Spec::kHeadDim], float *amax) {
  QueryBits<Spec> q;
  loadQueryBits<Spec, T>(a, b, qh0, q);
  loadQueries<Spec, T>(a, q, sQ, sOrig, amax);
}

/* The log-sum-exp merge of the warps' (max, sum, bias) for head h. */
template <class Spec>
TQ_INLINE void mergeWarpStats(const float (*sMl)[Spec::kHeadsPerCta][3], int h,
                              float &M, float &L, float &B) {
  constexpr int NW = Spec::kWarps;
  M = negInf();
  for (int w = 0; w < NW; ++w)
    M = fmaxf(M, sMl[w][h][0]);
  L = 0.f, B = 0.f;
  for (int w = 0; w < NW; ++w) {
    const float ww = mergeWeight(sMl[w][h][0], M);
    L += sMl[w][h][1] * ww;
    B += sMl[w][h][2] * ww;
  }
}

/* Workspace regions (abi.h): the tickets, then the partials and (max, sum). */
template <class Spec> struct Workspace {
  static constexpr int kTicketsPerRow = TQ_TICKETS_PER_ROW(Spec::kNumQHeads);
  static TQ_INLINE uint32_t *ticket(const tq_decode_args &a, int b, int qh0) {
    return reinterpret_cast<uint32_t *>(a.workspace) +
           int64_t(b) * kTicketsPerRow + qh0;
  }
  /* Row (b, qh)'s first split partial: kSplits rows of kHeadDim floats. */
  static TQ_INLINE float *partial(const tq_decode_args &a, int b, int qh) {
    return a.workspace + int64_t(a.max_batch) * kTicketsPerRow +
           (int64_t(b) * Spec::kNumQHeads + qh) * kSplits * Spec::kHeadDim;
  }
  static TQ_INLINE float *ml(const tq_decode_args &a, int b, int qh) {
    return a.workspace + int64_t(a.max_batch) * kTicketsPerRow +
           int64_t(a.max_batch) * Spec::kNumQHeads * kSplits *
               Spec::kHeadDim +
           (int64_t(b) * Spec::kNumQHeads + qh) * kSplits * 2;
  }
  static constexpr int kSplits = WorkspaceSplits<Spec>::value;
};

/* The merge's early partial loads (mergeSplits); 0: after the weights (A/B).
 * H100, one process, alternating, two rounds (bench/results/
 * 2026-12-07-session37/run1): B=1 L=1K k3v4 7.3 -> 7.0 us, k4v2 7.6 -> 7.2,
 * k2v2 7.3 -> 7.0-7.1, k4v4 7.4 -> 7.0 (1.02-1.07x -> 1.09-1.13x SDPA);
 * B=8 L=1K unchanged. Taken only where a thread owns at most two columns:
 * at head_dim 256 with 4 warps (8 columns x 4 splits of loads and 8 column
 * pointers live across the weights) ptxas gave k4v4's decode an 8-byte
 * stack frame (the toolchain tier). */
#ifndef TQ_MERGE_EARLY_LOADS
#define TQ_MERGE_EARLY_LOADS 1
#endif
/* The merge of the CTA's heads' nSplits partials, by the whole CTA (the one
 * that drew the last ticket): log-sum-exp weights w_s = 2^(m_s - M)·l_s,
 * o = Σ_s w_s·partial_s / Σ_s w_s, the value rotation undone once, T output.
 * Empty splits (max = -inf, sum = 0) weigh 0; all empty (seq_len 0) gives
 * zeros, never NaN. It runs at the end of the kernel's critical path, so:
 *  1. warp w takes heads w, w + NW, ...: lane s reads split s's (max, sum)
 *     (all splits in one round trip), warp max / sum give M and Σw, and the
 *     weights go to shared memory;
 *  2. every thread then owns output coordinates (consecutive threads,
 *     consecutive coordinates: coalesced L2 reads) and sums their columns
 *     of the partials, up to 32 loads per batch, in split order (the same
 *     bits whichever CTA merges), into sOut;
 *  3. warp w un-rotates and writes heads w, w + NW, ... from sOut.
 * Registers stay few (<= 32 loads and a sum per column, not a row per
 * lane), so the merge adds nothing to the main loop's register budget.
 * sOut is the CTA's reduction buffer, free by now. Loads go through L2 (other CTAs wrote them). */
template <class Spec, class T>
TQ_INLINE void mergeSplits(const tq_decode_args &a, int nSplits,
                           float (*sOut)[Spec::kHeadDim]) {
  using VInfo = TensorInfo<Spec, false>;
  constexpr int D = Spec::kHeadDim, E = D / kWarpSize;
  constexpr int HPC = Spec::kHeadsPerCta, NW = Spec::kWarps;
  constexpr int S = Spec::kSplits, kPerLane = (S + kWarpSize - 1) / kWarpSize;
  TQ_SHARED float sW[HPC][S];
  TQ_SHARED float sInvW[HPC];
  // The row and heads from the block indices again, not carried through the
  // main loop in registers (ptxas keeps what is live across it).
  const int b = TQ_CTA_Y(Spec), qh0 = TQ_CTA_X(Spec) * HPC;
  const int warp = warpIndex(), lane = laneIndex();
  // Every load of a batch of kChunk splits, for all of the thread's columns,
  // is issued before the first is used: one L2 round trip per batch, not one
  // per split and column (the merge is on the kernel's critical path; a
  // 32-split merge was 8 dependent round trips per column). The sums still
  // run in split order, so the bits do not depend on which CTA merges.
  constexpr int kThreads = NW * kWarpSize;
  constexpr int kCols = (HPC * D + kThreads - 1) / kThreads;
  constexpr int kChunk = maxInt(1, minInt(S, 32 / kCols));
  const int tid = threadIndex();
  const float *col[kCols];
  int colHead[kCols];
  float sum[kCols];
  TQ_UNROLL
  for (int c = 0; c < kCols; ++c) {
    const int idx = minInt(tid + c * kThreads, HPC * D - 1);
    colHead[c] = idx / D;
    col[c] = Workspace<Spec>::partial(a, b, qh0 + idx / D) + idx % D;
    sum[c] = 0.f;
  }
  float x[kCols][kChunk];
  auto loadBatch = [&](int sp) {
    TQ_UNROLL
    for (int c = 0; c < kCols; ++c)
      TQ_UNROLL
      for (int j = 0; j < kChunk; ++j)
        x[c][j] = sp + j < nSplits
                      ? loadGlobalCoherentFloat(col[c] + (sp + j) * D)
                      : 0.f;
  };
  // The first batch goes out before the weights' (max, sum) loads, which it
  // does not depend on: the merging CTA, the last on the critical path,
  // then waits one L2 round trip for both instead of two in series.
  // TQ_MERGE_EARLY_LOADS=0 (above) issues it after the weights instead.
  constexpr bool kEarly = TQ_MERGE_EARLY_LOADS != 0 && kCols <= 2;
  if constexpr (kEarly)
    loadBatch(0);
  TQ_NO_UNROLL
  for (int h = warp; h < HPC; h += NW) {
    const float *ml = Workspace<Spec>::ml(a, b, qh0 + h);
    float m[kPerLane], l[kPerLane];
    float M = negInf();
    TQ_UNROLL
    for (int k = 0; k < kPerLane; ++k) {
      const int sp = lane + k * kWarpSize;
      m[k] = negInf();
      l[k] = 0.f;
      if (sp < nSplits) {
        m[k] = loadGlobalCoherentFloat(ml + 2 * sp);
        l[k] = loadGlobalCoherentFloat(ml + 2 * sp + 1);
      }
      M = fmaxf(M, m[k]);
    }
    M = warpMax(M);
    float W = 0.f;
    TQ_UNROLL
    for (int k = 0; k < kPerLane; ++k) {
      const float w = isNegInf(m[k]) ? 0.f : l[k] * exp2Fast(m[k] - M);
      const int sp = lane + k * kWarpSize;
      if (sp < S)
        sW[h][sp] = w;
      W += w;
    }
    W = warpSum(W);
    if (lane == 0)
      sInvW[h] = W > 0.f ? rcpFast(W) : 0.f;
  }
  barrier();
  TQ_NO_UNROLL
  for (int sp = 0; sp < nSplits; sp += kChunk) {
    if (!kEarly || sp > 0)
      loadBatch(sp);
    TQ_UNROLL
    for (int c = 0; c < kCols; ++c)
      TQ_UNROLL
      for (int j = 0; j < kChunk; ++j)
        if (sp + j < nSplits)
          sum[c] = fmaf(sW[colHead[c]][sp + j], x[c][j], sum[c]);
  }
  TQ_UNROLL
  for (int c = 0; c < kCols; ++c) {
    const int idx = tid + c * kThreads;
    if (idx < HPC * D)
      sOut[idx / D][idx % D] = sum[c] * sInvW[idx / D];
  }
  barrier();
  TQ_NO_UNROLL
  for (int h = warp; h < HPC; h += NW) {
    float o[E];
    TQ_UNROLL
    for (int i = 0; i < E; ++i)
      o[i] = sOut[h][lane * E + i];
    if constexpr (VInfo::kRotated)
      warpRotateInverse<D, VInfo::kRounds>(o, decodeSigns<VInfo>());
    T *out = static_cast<T *>(a.out) + b * a.out_stride_batch +
             (qh0 + h) * a.out_stride_head;
    storeRow<T, E>(out + lane * E, o);
  }
}

/* Epilogue shared by both paths, after a barrier: sRed[h] holds head h's
 * unnormalized Σ p·v (every warp's share weighted to the merged max) and sMl
 * the warps' statistics. Normalizes, then un-rotates and writes the output
 * (the sequence used one split) or writes the split's partial and takes a
 * ticket: the CTA that completes the row's last split merges every split
 * (mergeSplits) and writes the output, so a split decode is one kernel.
 * Warp w finishes heads w, w + NW, ... (h stays a compile-time index so the
 * per-head registers never need local memory). */
template <class Spec, class T>
TQ_INLINE void finishHeads(const tq_decode_args &a,
                           float (*sRed)[Spec::kHeadDim],
                           const float (*sMl)[Spec::kHeadsPerCta][3]) {
  using P = DecodePlan<Spec>;
  using VInfo = TensorInfo<Spec, false>;
  constexpr int D = P::D, E = P::E, HPC = P::HPC, NW = P::NW;
  constexpr int kSplits = P::kSplits;
  // The CTA's row, heads and split again from the block indices (and the
  // split count from seq_lens, an L2 hit by now) rather than values the
  // caller would keep in registers across its main loop: the decode runs at
  // ptxas's 128-register budget, and the epilogue must not push it over.
  const int b = TQ_CTA_Y(Spec), split = TQ_CTA_Z(Spec);
  const int qh0 = TQ_CTA_X(Spec) * HPC;
  const int nSplits = splitsUsed<Spec>(a.seq_lens[b], a.batch);
  const int warp = warpIndex(), lane = laneIndex();
  const bool whole = kSplits == 1 || nSplits == 1; // uniform over the CTA
  TQ_UNROLL
  for (int h = 0; h < HPC; ++h) {
    if (h % NW != warp)
      continue;
    float Mh, Lh, Bh;
    mergeWarpStats<Spec>(sMl, h, Mh, Lh, Bh);
    const float inv = Lh > 0.f ? rcpFast(Lh) : 0.f; // L = 0: zeros
    float o[E];
    TQ_UNROLL
    for (int i = 0; i < E; ++i)
      o[i] = (sRed[h][lane * E + i] + Bh) * inv;
    const int qh = qh0 + h;
    if (whole) { // the whole sequence: final output
      if constexpr (VInfo::kRotated)
        warpRotateInverse<D, VInfo::kRounds>(o, decodeSigns<VInfo>());
      T *out = static_cast<T *>(a.out) + b * a.out_stride_batch +
               qh * a.out_stride_head;
      storeRow<T, E>(out + lane * E, o);
    } else {
      storeFloats<E>(Workspace<Spec>::partial(a, b, qh) + split * D + lane * E,
                     o);
      if (lane == 0) {
        float *ml = Workspace<Spec>::ml(a, b, qh) + split * 2;
        ml[0] = Mh;
        ml[1] = Lh;
      }
    }
  }
  if constexpr (kSplits > 1) {
    if (whole)
      return;
    // Release: the barrier orders every thread's partial stores before
    // thread 0's fence (fences are cumulative), which orders them before the
    // ticket; one fence per CTA instead of one per thread.
    barrier();
    TQ_SHARED uint32_t sLast, sSplits;
    if (threadIndex() == 0) {
      fenceDevice();
      uint32_t *ticket = Workspace<Spec>::ticket(a, b, qh0);
      const uint32_t done = atomicAddGlobal(ticket, 1u);
      if (done >= uint32_t(nSplits))
        trap(); // garbage in a workspace that was never zeroed (abi.h)
      const bool last = done == uint32_t(nSplits) - 1u;
      if (last) {
        *ticket = 0u; // every split has drawn: ready for the next launch
        // Acquire: the other splits' partials, for every thread after the
        // barrier below (the merge reads them through L2).
        fenceDevice();
      }
      sLast = last ? 1u : 0u;
      sSplits = uint32_t(nSplits);
    }
    barrier();
    TQ_TRACE_MARK(2);
    if (sLast == 0u)
      return;
    // sRed's normalized rows went to the partials above: free for the merge.
    mergeSplits<Spec, T>(a, int(sSplits), sRed);
  }
}

/* The scalar path (QJL keys, and recipes the tensor-core path does not
 * take): lane groups own tokens, fp32 FMAs per coordinate and head. */
template <class Spec, class T>
TQ_INLINE void decodeScalar(const tq_decode_args &a) {
  using P = DecodePlan<Spec>;
  using KInfo = TensorInfo<Spec, true>;
  using VInfo = TensorInfo<Spec, false>;
  constexpr int D = P::D, E = P::E, C = P::C, LPT = P::LPT, TPW = P::TPW;
  constexpr int NW = P::NW, HPC = P::HPC, G = P::G;
  constexpr bool kQjl = KInfo::kQjl;

  SplitWork w;
  if (!splitWork<Spec>(a, w)) // uniform over the CTA, before any barrier
    return;
  const int b = w.b;
  const int tokBegin = w.tokBegin, tokEnd = w.tokEnd;
  const int qh0 = TQ_CTA_X(Spec) * HPC; // first query head of this CTA
  const int kvh = qh0 / G;
  const int warp = warpIndex(), lane = laneIndex();

  TQ_SHARED float sQ[HPC][D];   // rotated queries · scale · log2(e)
  TQ_SHARED float sRed[HPC][D]; // original queries (QJL), then the output
  TQ_SHARED float sSq[kQjl ? HPC : 1][kQjl ? D : 1];
  TQ_SHARED float sKeyLevels[KInfo::kLevels];
  TQ_SHARED float sValueLevels[VInfo::kLevels];
  TQ_SHARED float sMl[NW][HPC][3]; // per warp: max, sum, bias

  // ---- Prologue: codebooks and queries -----------------------------------
  if constexpr (KInfo::kQuant == TQ_QUANT_LLOYD_MAX)
    if (warp == 0)
      fillLevels<KInfo>(sKeyLevels, Spec::keyLevels());
  if constexpr (VInfo::kQuant == TQ_QUANT_LLOYD_MAX)
    if (warp == NW - 1)
      fillLevels<VInfo>(sValueLevels, Spec::valueLevels());
  loadQueries<Spec, T>(a, b, qh0, sQ, sRed, nullptr);
  barrier();
  if constexpr (kQjl) {
    // Sq'[h][i] = (S·q_h)_i · scale·log2(e)·√(π/2)/D; S row-major D×D. One
    // thread per row i, all heads at once (each S element is read once).
    const float f = a.scale * kLog2e * float(kSqrtHalfPi / D);
    const float *S = Spec::qjlMatrix();
    const bool vec = isAligned(S, 16);
    for (int i = threadIndex(); i < D; i += NW * kWarpSize) {
      float acc[HPC];
      TQ_UNROLL
      for (int h = 0; h < HPC; ++h)
        acc[h] = 0.f;
      const float *srow = S + i * D;
      TQ_NO_UNROLL
      for (int j = 0; j < D; j += 4) {
        float s4[4];
        if (vec) {
          const u32x4 v = loadGlobal16(srow + j);
          s4[0] = bitsToFloat(v.x), s4[1] = bitsToFloat(v.y),
          s4[2] = bitsToFloat(v.z), s4[3] = bitsToFloat(v.w);
        } else {
          TQ_UNROLL
          for (int u = 0; u < 4; ++u)
            s4[u] = srow[j + u];
        }
        TQ_UNROLL
        for (int u = 0; u < 4; ++u) {
          TQ_UNROLL
          for (int h = 0; h < HPC; ++h)
            acc[h] = fmaf(s4[u], sRed[h][j + u], acc[h]);
        }
      }
      TQ_UNROLL
      for (int h = 0; h < HPC; ++h)
        sSq[h][i] = acc[h] * f;
    }
    barrier();
  }
  const int g = lane / LPT;  // lane group = token slot within the warp
  const int li = lane % LPT; // lane within the group: coordinates li·C ..
  float q[P::kQRegHeads][C];
  TQ_UNROLL
  for (int h = 0; h < P::kQRegHeads; ++h) {
    TQ_UNROLL
    for (int c = 0; c < C; ++c)
      q[h][c] = P::kQInShared ? 0.f : sQ[h][li * C + c];
  }

  const int32_t *blockTable = a.block_tables + int64_t(b) * a.block_table_stride;
  const uint8_t *headBase = a.cache + int64_t(kvh) * Spec::kHeadStride;

  float m[HPC], l[HPC], bias[HPC], acc[HPC][C];
  TQ_UNROLL
  for (int h = 0; h < HPC; ++h) {
    m[h] = negInf();
    l[h] = 0.f;
    bias[h] = 0.f;
    TQ_UNROLL
    for (int c = 0; c < C; ++c)
      acc[h][c] = 0.f;
  }

  // ---- Main loop: TPW tokens per warp per step ---------------------------
  constexpr int kLog2Block = log2Int(Spec::kBlockSize);
  for (int t0 = tokBegin + warp * TPW; t0 < tokEnd; t0 += NW * TPW) {
    const int t = t0 + g;
    const bool valid = t < tokEnd;
    const uint8_t *region = headBase;
    int pos = 0;
    float sc[HPC], csq = 0.f;
    if (valid) {
      const int64_t phys = blockTable[t >> kLog2Block];
      pos = t & (Spec::kBlockSize - 1);
      region = headBase + phys * Spec::kBlockStride;
      keyPartials<Spec>(region, pos, li, q, &sQ[0][0], sKeyLevels, &sSq[0][0],
                        sc, csq);
    } else {
      TQ_UNROLL
      for (int h = 0; h < HPC; ++h)
        sc[h] = 0.f;
    }
    // Every lane takes part in the shuffles; invalid groups sum zeros.
    TQ_UNROLL
    for (int h = 0; h < HPC; ++h)
      sc[h] = groupSum<LPT>(sc[h]);
    if constexpr (KInfo::kNormAtRead) { // c[idx] / √(‖c[idx]‖² + 1e-16)
      const float r = rsqrtFast(groupSum<LPT>(csq) + 1e-16f);
      TQ_UNROLL
      for (int h = 0; h < HPC; ++h)
        sc[h] *= r;
    }
    if (valid) {
      float p[HPC], corr[HPC];
      TQ_UNROLL
      for (int h = 0; h < HPC; ++h) {
        const float mNew = fmaxf(m[h], sc[h]);
        corr[h] = exp2Fast(m[h] - mNew); // 0 on the first token (m = -inf)
        p[h] = exp2Fast(sc[h] - mNew);
        l[h] = fmaf(l[h], corr[h], p[h]);
        m[h] = mNew;
      }
      accumulateValue<Spec>(region, pos, li, sValueLevels, p, corr, acc, bias);
    }
  }

  // ---- Merge the lane groups of the warp ---------------------------------
  TQ_UNROLL
  for (int mask = LPT; mask < kWarpSize; mask <<= 1) {
    TQ_UNROLL
    for (int h = 0; h < HPC; ++h) {
      const float mo = shflXor(m[h], mask);
      const float lo = shflXor(l[h], mask);
      const float bo = shflXor(bias[h], mask);
      const float M = fmaxf(m[h], mo);
      const float a1 = mergeWeight(m[h], M), a2 = mergeWeight(mo, M);
      l[h] = l[h] * a1 + lo * a2;
      bias[h] = bias[h] * a1 + bo * a2;
      TQ_UNROLL
      for (int c = 0; c < C; ++c)
        acc[h][c] = acc[h][c] * a1 + shflXor(acc[h][c], mask) * a2;
      m[h] = M;
    }
  }

  // ---- Merge the warps (shared memory, in warp order: deterministic) -----
  if (lane == 0) {
    TQ_UNROLL
    for (int h = 0; h < HPC; ++h) {
      sMl[warp][h][0] = m[h];
      sMl[warp][h][1] = l[h];
      sMl[warp][h][2] = bias[h];
    }
  }
  barrier();
  for (int w = 0; w < NW; ++w) {
    if (warp == w && g == 0) {
      TQ_UNROLL
      for (int h = 0; h < HPC; ++h) {
        float Mh, Lh, Bh;
        mergeWarpStats<Spec>(sMl, h, Mh, Lh, Bh);
        const float f = mergeWeight(m[h], Mh);
        TQ_UNROLL
        for (int c = 0; c < C; ++c) {
          float *dst = &sRed[h][li * C + c];
          const float v = acc[h][c] * f;
          *dst = w == 0 ? v : *dst + v;
        }
      }
    }
    barrier();
  }
  finishHeads<Spec, T>(a, sRed, sMl);
}

} // namespace decode_detail
} // namespace tq

/* Tensor-core plans let the next kernel launch only from CTAs that have
 * work, after splitWork, rather than from every CTA right after the wait;
 * CTAs without work let it by returning. So the next launch's CTAs are
 * placed after this launch's idle CTAs have left their SM slots: placed
 * into those slots, they doubled up with working CTAs on SMs, launch after
 * launch (bench/cta_trace.py; docs/NOTES.md, "Idle split CTAs under
 * programmatic launch"): B=8, L=1K, a 4-split plan using 2 splits 15.6 ->
 * 12.1 us per decode, long contexts unchanged. TQ_TRIGGER_WITH_WORK=0 (a
 * developer knob, for A/B runs) triggers from every CTA after the wait. */
#ifndef TQ_TRIGGER_WITH_WORK
#define TQ_TRIGGER_WITH_WORK 1
#endif
#include "tq/decode_tc.h"

namespace tq {

#if TQ_DEBUG_CTA_TRACE
/* Where and when the CTA ran, in the workspace TQ_DEBUG_CTA_TRACE bytes in
 * (bench/cta_trace.py passes a workspace that large): a record counter, then
 * 64-byte records {x | y << 16 | z << 32, smid, entry, waited, exit,
 * marks 0..2} (globaltimer ns; waited 0 for a CTA that returned before the
 * wait; a mark 0 where the CTA never passed it: on the tensor-core path 0 =
 * the prologue's barrier, 1 = every warp past the main loop, 2 = the merge
 * ticket drawn, split sequences only), in the order the CTAs finish. Plans
 * without a workspace (one split) record nothing. */
struct CtaTrace {
  const tq_decode_args &a;
  unsigned long long entry = globalTimer(), waited = 0;
  explicit CtaTrace(const tq_decode_args &args) : a(args) {
    if (threadIndex() == 0) // the same thread writes and reads them
      for (int i = 0; i < 3; ++i)
        decode_detail::traceMarks()[i] = 0;
  }
  ~CtaTrace() {
    auto *base = decode_detail::workspaceAt<unsigned long long>(
        a, TQ_DEBUG_CTA_TRACE);
    if (threadIndex() != 0 || base == nullptr)
      return;
    const unsigned long long slot = atomicAdd(base, 1ull);
    unsigned long long *r = base + 8 * (slot + 1);
    r[0] = (unsigned long long)blockIndexX() |
           ((unsigned long long)blockIndexY() << 16) |
           ((unsigned long long)blockIndexZ() << 32);
    r[1] = smId();
    r[2] = entry;
    r[3] = waited;
    r[4] = globalTimer();
    for (int i = 0; i < 3; ++i)
      r[5 + i] = decode_detail::traceMarks()[i];
  }
};
#endif

/* Short sequences of a whole-GQA-group plan on the half-group plan
 * (HalfHeads: two CTAs per group, each with half the heads and up to half
 * the splits; TQ_SHORT_HALF_HEADS=0 leaves it out, for A/B runs;
 * docs/NOTES.md, "Run-time head split"): on the H200 the 2-heads-per-CTA plans beat the
 * 4-heads ones at L=1K (B=1 7.4 vs 8.5 us, B=8 10.1 vs 10.6) and lose at
 * long contexts, and masking half a 4-heads CTA's heads did not give their
 * speed, so this path runs the 2-heads kernel's own code, in the launch's
 * grid. A row takes it when it has at most TQ_SHORT_HALF_MAX_TOKENS tokens
 * and its whole-group CTAs (groups x batch x splitsUsed) would not fill
 * the SMs once. */
#ifndef TQ_SHORT_HALF_HEADS
#define TQ_SHORT_HALF_HEADS 1
#endif
#ifndef TQ_SHORT_HALF_MAX_TOKENS
#define TQ_SHORT_HALF_MAX_TOKENS 2048
#endif
/* Where it was measured to pay: Hopper and later (kTargetHasBulkCopy:
 * sm_90+; elsewhere its second copy of the decode would double the kernel's
 * compile time for a gain nobody has timed) and plans of 8 or more warps
 * (session 13's H200 grids, k3v4 L=1K: 8-warp whole-group plans took 0.86x
 * (B=1) and 0.92x (B=8) of their time with it, 4-warp ones 1.00x median and
 * up to 1.23x; and k4v2's 4-warp 3-stage plan spilled with it). */
template <class Spec> constexpr bool shortHalfHeads() {
  if constexpr (!TQ_SHORT_HALF_HEADS || !kTargetHasBulkCopy ||
                Spec::kWarps < 8 || Spec::kSplits < 2 ||
                Spec::kHeadsPerCta % 2 != 0 ||
                Spec::kHeadsPerCta != Spec::kNumQHeads / Spec::kNumKVHeads)
    return false;
  else
    return tc::TcPlan<Spec>::kEnabled && tc::TcPlan<HalfHeads<Spec>>::kEnabled &&
           tc::TcPlan<Spec>::kRing == tc::TcPlan<HalfHeads<Spec>>::kRing &&
           tc::TcPlan<Spec>::kSmemLut + tc::TcPlan<Spec>::kSmemOwn +
                   tc::TcPlan<HalfHeads<Spec>>::kSmemOwn + 1024 <=
               48 * 1024; // static shared memory of both paths
}
template <class Spec> TQ_INLINE bool shortHalfRow(int L, int batch) {
  constexpr int kHeadGroups = Spec::kNumQHeads / Spec::kHeadsPerCta;
  return L <= TQ_SHORT_HALF_MAX_TOKENS &&
         kHeadGroups * (batch < 1 ? 1 : batch) *
                 decode_detail::splitsUsed<Spec>(L, batch) <
             Spec::kSmCount;
}

/* Ring plans load the queries first: the CTA's row and heads come from the
 * block indices (a row beyond the batch has returned in ctaMayWork), so the
 * loads' latency overlaps seq_lens, the page table and the pair tables'
 * fill. The others load them where they are used: held across the split
 * work and the page table they pushed two plans into spills (k3v3 at
 * head_dim 256 and bf16 at 64, sm_90; the toolchain tier), and those plans
 * are not the fast path anyway. */
template <class Spec, class T>
TQ_INLINE void startQueryBits(const tq_decode_args &a,
                              decode_detail::QueryBits<Spec> &q) {
  if constexpr (tc::TcPlan<Spec>::kEnabled && tc::TcPlan<Spec>::kRing)
    decode_detail::loadQueryBits<Spec, T>(
        a, TQ_CTA_Y(Spec), TQ_CTA_X(Spec) * Spec::kHeadsPerCta, q);
}

/* The decode kernel body: the tensor-core path wherever the recipe and the
 * target allow it (decode_tc.h), the scalar path otherwise. */
template <class Spec, class T> TQ_INLINE void decode(const tq_decode_args &a) {
  // The compiler gives a decode dynamic shared memory only for the ring of
  // decode_tc.h; a plan given it that does not take the ring means the
  // compiler's prediction (EmitCuda.cpp) and the template disagree.
  static_assert(Spec::kDynamicSharedBytes == 0 ||
                    (tc::TcPlan<Spec>::kEnabled && tc::TcPlan<Spec>::kRing),
                "dynamic shared memory for a decode plan without the ring");
  // CTAs that cannot have work (decided from the arguments alone) leave
  // first. Under a programmatic launch the previous kernel (the store, say)
  // may still run: the others wait before the first read (seq_lens, the
  // cache). Then let the next kernel's CTAs launch as soon as every decode
  // CTA has started (they wait for this grid in turn before reading its
  // output).
#if TQ_DEBUG_CTA_TRACE
  // Diagnostics only (TQC_DEVICE_DEFINES="TQ_DEBUG_CTA_TRACE=<offset>"):
  // thread 0 of every CTA records where and when it ran, on every return
  // path (bench/cta_trace.py).
  CtaTrace trace(a);
#endif
  if (!decode_detail::ctaMayWork<Spec, shortHalfHeads<Spec>()>(a))
    return;
  // The pair tables depend on no input: filled while the previous kernel
  // may still run (decodeTc's prologue barrier orders them before use).
  if constexpr (tc::TcPlan<Spec>::kEnabled && TQ_TC_FILL_BEFORE_WAIT)
    tc::fillPairTables<Spec>();
  waitForPrimaryGrid();
#if TQ_DEBUG_CTA_TRACE
  trace.waited = globalTimer();
#endif
  if constexpr (!TQ_TRIGGER_WITH_WORK || !tc::TcPlan<Spec>::kEnabled)
    allowDependentLaunch();
  if constexpr (shortHalfHeads<Spec>()) {
    // The half path's queries are loaded before the branch, which waits
    // for seq_lens: loaded after it, they cost the short rows one more DRAM
    // latency in series (B=1 L=1K 7.87 -> 7.79 us, B=8 10.96 -> 10.69 on
    // the H200, session 13). The whole-group path's wait until after it,
    // as before: its long rows do not notice the latency, and the branch
    // then holds one set of registers, not two. Uniform over a row's CTAs
    // (its length and the batch), so each row's CTAs all take one path;
    // rows beyond the batch leave in splitWork.
    decode_detail::QueryBits<HalfHeads<Spec>> halfBits;
    startQueryBits<HalfHeads<Spec>, T>(a, halfBits);
    const int b = blockIndexY();
    if (b < a.batch && shortHalfRow<Spec>(a.seq_lens[b], a.batch)) {
      tc::decodeTc<HalfHeads<Spec>, T>(a, halfBits);
      return;
    }
  }
  decode_detail::QueryBits<Spec> qbits;
  startQueryBits<Spec, T>(a, qbits);
  if constexpr (tc::TcPlan<Spec>::kEnabled)
    tc::decodeTc<Spec, T>(a, qbits);
  else
    decode_detail::decodeScalar<Spec, T>(a);
}

} // namespace tq

#endif // TQ_DECODE_H
