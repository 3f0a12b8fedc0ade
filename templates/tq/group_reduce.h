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

template <int WIDTH = kWarpSize, class R> TQ_INLINE R groupSum(R v) {
  TQ_UNROLL
  for (int m = 1; m < WIDTH; m <<= 1)
    v += shflXor(v, m);
  return v;
}
template <int WIDTH = kWarpSize, class R> TQ_INLINE R groupMax(R v) {
  TQ_UNROLL
  for (int m = 1; m < WIDTH; m <<= 1) {
    const R o = shflXor(v, m);
    v = o > v ? o : v;
  }
  return v;
}
template <int WIDTH = kWarpSize, class R> TQ_INLINE R groupMin(R v) {
  TQ_UNROLL
  for (int m = 1; m < WIDTH; m <<= 1) {
    const R o = shflXor(v, m);
    v = o < v ? o : v;
  }
  return v;
}
template <class R> TQ_INLINE R warpSum(R v) { return groupSum<kWarpSize>(v); }
template <class R> TQ_INLINE R warpMax(R v) { return groupMax<kWarpSize>(v); }
template <class R> TQ_INLINE R warpMin(R v) { return groupMin<kWarpSize>(v); }

} // namespace tq

#endif // TQ_GROUP_REDUCE_H
