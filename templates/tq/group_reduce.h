/*===- group_reduce.h - Lane-group reductions over a target's shuffles ---===*
 *
 * Sum / max / min over groups of WIDTH consecutive lanes of a warp (WIDTH a
 * power of two <= kWarpSize); every lane of a group gets the group's result.
 * Xor butterflies: every lane combines the same operands in the same order,
 * so the results are bit-identical across the group. R is float, double or
 * uint32_t. Built on the target layer's shflXor only, so each target layer
 * (target_cuda.h, target_hip.h, the CPU emulation) includes it after its
 * shuffles instead of repeating it.
 *===----------------------------------------------------------------------===*/
#ifndef TQ_GROUP_REDUCE_H
#define TQ_GROUP_REDUCE_H

namespace tq {

/* v combined over the group by op(own, other) at each butterfly step (the
 * sums, maxima and minima below; store.h's NaN-keeping extremes). */
template <int WIDTH = kWarpSize, class R, class Op>
TQ_INLINE R groupReduce(R v, Op op) {
  TQ_UNROLL
  for (int m = 1; m < WIDTH; m <<= 1)
    v = op(v, shflXor(v, m));
  return v;
}
template <int WIDTH = kWarpSize, class R> TQ_INLINE R groupSum(R v) {
  return groupReduce<WIDTH>(v, [](R a, R b) { return a + b; });
}
template <int WIDTH = kWarpSize, class R> TQ_INLINE R groupMax(R v) {
  return groupReduce<WIDTH>(v, [](R a, R b) { return b > a ? b : a; });
}
template <int WIDTH = kWarpSize, class R> TQ_INLINE R groupMin(R v) {
  return groupReduce<WIDTH>(v, [](R a, R b) { return b < a ? b : a; });
}
/* v[i] <- its warp-wide combination for N values at once, step by step so
 * that their shuffles are in flight together (each value's result is the
 * same as groupReduce's). */
template <int N, class R, class Op>
TQ_INLINE void warpReduceMany(R (&v)[N], Op op) {
  TQ_UNROLL
  for (int m = 1; m < kWarpSize; m <<= 1) {
    TQ_UNROLL
    for (int i = 0; i < N; ++i)
      v[i] = op(v[i], shflXor(v[i], m));
  }
}
template <int N, class R> TQ_INLINE void warpSumMany(R (&v)[N]) {
  warpReduceMany(v, [](R a, R b) { return a + b; });
}
template <int N, class R> TQ_INLINE void warpMaxMany(R (&v)[N]) {
  warpReduceMany(v, [](R a, R b) { return b > a ? b : a; });
}
template <class R> TQ_INLINE R warpSum(R v) { return groupSum<kWarpSize>(v); }
template <class R> TQ_INLINE R warpMax(R v) { return groupMax<kWarpSize>(v); }
template <class R> TQ_INLINE R warpMin(R v) { return groupMin<kWarpSize>(v); }

} // namespace tq

#endif // TQ_GROUP_REDUCE_H
