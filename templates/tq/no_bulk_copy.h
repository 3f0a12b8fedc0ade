/*===- no_bulk_copy.h - The bulk-copy interface where there is none -------===*
 *
 * target_cuda.h's bulk copies and mbarriers (cp.async.bulk, sm_90+) for the
 * targets without them: CUDA below sm_90 and AMD. kTargetHasBulkCopy is
 * false there, so the decode never takes the copy ring that uses them
 * (decode_tc.h TcPlan::kRing); they keep the templates compiling and trap if
 * reached. Built on the target layer's trap() only, so each of those target
 * layers includes it after trap() instead of repeating it.
 *===----------------------------------------------------------------------===*/
#ifndef TQ_NO_BULK_COPY_H
#define TQ_NO_BULK_COPY_H

namespace tq {

constexpr bool kTargetHasBulkCopy = false;
TQ_INLINE void barrierInit(uint64_t *, uint32_t) { trap(); }
TQ_INLINE void fenceBarrierInit() { trap(); }
TQ_INLINE void fenceProxyAsyncShared() { trap(); }
TQ_INLINE void arriveExpectBytes(uint64_t *, uint32_t) { trap(); }
TQ_INLINE void bulkCopyToShared(void *, const void *, uint32_t, uint64_t *) {
  trap();
}
TQ_INLINE void bulkCopyToGlobal(void *, const void *, uint32_t) { trap(); }
TQ_INLINE void bulkCommit() { trap(); }
TQ_INLINE void bulkWaitRead() { trap(); }
TQ_INLINE void barrierArrive(uint64_t *) { trap(); }
TQ_INLINE void barrierWait(uint64_t *, uint32_t) { trap(); }

} // namespace tq

#endif // TQ_NO_BULK_COPY_H
