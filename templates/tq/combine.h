/*===- combine.h - Merge the split-KV partials of the decode --------------===*
 *
 * tq::combine<Spec, T>(tq_decode_args): grid (max_batch, num_q_heads, 1),
 * launched only when kSplits > 1. One warp per (sequence, query head) reads
 * the normalized partial outputs of the splits the sequence used
 * (decode.h: splitsUsed) and their (max, sum) pairs
 * (abi.h's workspace layout; max in the log2 domain), merges them with
 * log-sum-exp weights 2^(m_s - M)·l_s, un-rotates the value rotation once
 * and writes the T output. Empty splits (max = -inf, sum = 0) weigh 0; a
 * row whose splits are all empty (seq_len 0) outputs zeros, never NaN.
 * Further warps of the CTA, if any, have nothing to do.
 *===----------------------------------------------------------------------===*/
#ifndef TQ_COMBINE_H
#define TQ_COMBINE_H

#include "tq/decode.h"

namespace tq {

template <class Spec, class T> TQ_INLINE void combine(const tq_decode_args &a) {
  using P = DecodePlan<Spec>;
  using VInfo = TensorInfo<Spec, false>;
  constexpr int D = P::D, E = P::E, S = P::kSplits;
  const int b = blockIndexX(), qh = blockIndexY();
  if (b >= a.batch || warpIndex() != 0)
    return;
  // Launched programmatically, combine may start while decode still runs:
  // the partials are complete and visible only after this wait.
  waitForPrimaryGrid();
  // Only the splits the sequence used hold partials; with one, decode has
  // written the output itself (decode.h: splitsUsed).
  const int nSplits = decode_detail::splitsUsed<Spec>(a.seq_lens[b]);
  if (nSplits == 1)
    return;
  const int lane = laneIndex();
  const int64_t row0 = (int64_t(b) * Spec::kNumQHeads + qh) * S;
  const float *partial = a.workspace + row0 * D + lane * E;
  const float *ml = a.workspace +
                    int64_t(a.max_batch) * Spec::kNumQHeads * S * D + row0 * 2;

  float M = negInf();
  for (int s = 0; s < nSplits; ++s)
    M = fmaxf(M, ml[2 * s]);
  float o[E];
  TQ_UNROLL
  for (int i = 0; i < E; ++i)
    o[i] = 0.f;
  float W = 0.f;
  if (!isNegInf(M)) {
    for (int s = 0; s < nSplits; ++s) {
      const float ms = ml[2 * s];
      const float w = isNegInf(ms) ? 0.f : ml[2 * s + 1] * exp2Fast(ms - M);
      float x[E];
      loadFloats<E>(partial + s * D, x);
      TQ_UNROLL
      for (int i = 0; i < E; ++i)
        o[i] = fmaf(w, x[i], o[i]);
      W += w;
    }
  }
  const float inv = W > 0.f ? rcpFast(W) : 0.f;
  TQ_UNROLL
  for (int i = 0; i < E; ++i)
    o[i] *= inv;
  if constexpr (VInfo::kRotated)
    warpRotateInverse<D, VInfo::kRounds>(o, Spec::valueSigns());
  T *out = static_cast<T *>(a.out) + b * a.out_stride_batch +
           qh * a.out_stride_head;
  storeRow<T, E>(out + lane * E, o);
}

} // namespace tq

#endif // TQ_COMBINE_H
