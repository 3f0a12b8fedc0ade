/*===- wgmma_cuda.h - Hopper warpgroup mma (sm_90a) for the target layer --===*
 *
 * wgmma.mma_async: a warpgroup (4 consecutive warps, 128 threads) multiplies
 * a 64 x 16 A by a 16 x N B into a 64 x N fp32 accumulator, asynchronously:
 * operands come from shared memory through 64-bit descriptors (A may come
 * from registers instead), the issuing warps go on until wgmmaWait. Only
 * sm_90a (compute_90a: the arch-specific feature set) has it; target_cuda.h
 * includes this file there and defines TQ_TARGET_HAS_WGMMA.
 *
 * Shared-memory operands use the 128-byte swizzle throughout: a tile is
 * stored as column blocks of 64 fp16 (128 bytes per row), rows 128 bytes
 * apart, and within each 1024-byte atom of 8 rows the 16-byte chunk c of
 * row r sits at chunk c ^ (r % 8) (swizzle128Offset). Atoms must start on
 * 1024-byte boundaries (the descriptor's base offset is 0).
 *   K-major (the operand's K dimension contiguous: Q and K for S = Q·Kᵀ):
 *     SBO = 1024 (8-row groups), LBO unused; a k step of 16 elements moves
 *     the start address 32 bytes within the atom, the next 64 elements are
 *     the next column block.
 *   MN-major (B's N dimension contiguous: V for O += P·V, trans-b = 1):
 *     LBO = the column blocks' distance (N beyond 64), SBO = 1024 (8-row
 *     groups of K); a k step of 16 rows moves the start address 2048 bytes.
 * Register fragments (per warp w of the group, g = lane / 4, t = lane % 4):
 *   accumulator element 4j + e: row 16w + g + 8(e / 2), column 8j + 2t +
 *   e % 2 (the mma.sync m16n8 C layout, repeated over N / 8);
 *   A from registers, k step of 16: {row g, k 2t..2t+1}, {row g + 8, same},
 *   {row g, k 2t+8..}, {row g + 8, k 2t+8..} (the m16n8k16 A layout).
 *===----------------------------------------------------------------------===*/
#ifndef TQ_WGMMA_CUDA_H
#define TQ_WGMMA_CUDA_H

namespace tq {

/* Byte offset of 16-byte chunk c (0..7) of row r in a 128-byte-swizzled
 * column block. */
TQ_INLINE uint32_t swizzle128Offset(uint32_t r, uint32_t c) {
  return (r << 7) | (((c ^ r) & 7u) << 4);
}

/* A shared-memory operand descriptor, 128-byte swizzle. */
TQ_INLINE uint64_t wgmmaDesc(uint32_t smemAddr, uint32_t lboBytes,
                             uint32_t sboBytes) {
  return uint64_t((smemAddr & 0x3ffffu) >> 4) |
         uint64_t((lboBytes & 0x3ffffu) >> 4) << 16 |
         uint64_t((sboBytes & 0x3ffffu) >> 4) << 32 | uint64_t(1) << 62;
}

/* The descriptor of the operand `bytes` further on: the address field is
 * the byte address / 16 in the low 14 bits, and shared memory (under 256
 * KiB) never carries out of them. Saves rebuilding a descriptor per
 * instruction. */
TQ_INLINE uint64_t wgmmaDescAdvance(uint64_t desc, uint32_t bytes) {
  return desc + (bytes >> 4);
}

/* Before the first wgmma that reads registers written since (accumulators,
 * A fragments); commit closes the warpgroup's batch of issued wgmmas;
 * wait<N> returns when at most N batches are in flight. */
TQ_INLINE void wgmmaFence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
TQ_INLINE void wgmmaCommit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int N> TQ_INLINE void wgmmaWait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
/* Warp specialization (sm_90a): a warpgroup hands registers back to the
 * SM's pool (lowerRegisters) or takes them from it (raiseRegisters), to N
 * per thread (a multiple of 8, 24..256); every warp of the warpgroup runs
 * it. Registers move only within the CTA's launch allocation (its launch
 * bounds' count per thread, 65536 / threads rounded down to 8, times the
 * threads): an increase the others' decreases do not cover waits forever. */
template <int N> TQ_INLINE void lowerRegisters() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N));
}
template <int N> TQ_INLINE void raiseRegisters() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N));
}

/* Keeps the compiler from moving accumulator accesses across an
 * asynchronous wgmma (the registers change behind its back until the
 * wait). */
template <int N> TQ_INLINE void wgmmaPin(float (&d)[N][4]) {
  TQ_UNROLL
  for (int j = 0; j < N; ++j)
    TQ_UNROLL
    for (int e = 0; e < 4; ++e)
      asm volatile("" : "+f"(d[j][e])::"memory");
}

/* d (+)= A·B, 16-bit operands (fp16, or bf16 where Bf16), fp32
 * accumulation, d[j][e] = accumulator element 4j + e; accumulate = false
 * overwrites d. SS: A and B K-major in shared memory. RS: A in registers, B
 * MN-major (trans-b) in shared memory. N = 64 or 128 (wgmmaSS<N>,
 * wgmmaRS<N> pick). The two element types' asm statements differ only in
 * the type's name: each shape's is one macro over it. */
#define TQ_WGMMA_OUT8 \
  "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), \
  "+f"(d[1][0]), "+f"(d[1][1]), "+f"(d[1][2]), "+f"(d[1][3]), \
  "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]), "+f"(d[2][3]), \
  "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3]), \
  "+f"(d[4][0]), "+f"(d[4][1]), "+f"(d[4][2]), "+f"(d[4][3]), \
  "+f"(d[5][0]), "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]), \
  "+f"(d[6][0]), "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]), \
  "+f"(d[7][0]), "+f"(d[7][1]), "+f"(d[7][2]), "+f"(d[7][3])
#define TQ_WGMMA_OUT16 \
  TQ_WGMMA_OUT8, "+f"(d[8][0]), "+f"(d[8][1]), "+f"(d[8][2]), \
  "+f"(d[8][3]), "+f"(d[9][0]), "+f"(d[9][1]), "+f"(d[9][2]), \
  "+f"(d[9][3]), "+f"(d[10][0]), "+f"(d[10][1]), "+f"(d[10][2]), \
  "+f"(d[10][3]), "+f"(d[11][0]), "+f"(d[11][1]), "+f"(d[11][2]), \
  "+f"(d[11][3]), "+f"(d[12][0]), "+f"(d[12][1]), "+f"(d[12][2]), \
  "+f"(d[12][3]), "+f"(d[13][0]), "+f"(d[13][1]), "+f"(d[13][2]), \
  "+f"(d[13][3]), "+f"(d[14][0]), "+f"(d[14][1]), "+f"(d[14][2]), \
  "+f"(d[14][3]), "+f"(d[15][0]), "+f"(d[15][1]), "+f"(d[15][2]), \
  "+f"(d[15][3])
#define TQ_WGMMA_ACC32 \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11," \
  " %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23," \
  " %24, %25, %26, %27, %28, %29, %30, %31}"
#define TQ_WGMMA_ACC64 \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11," \
  " %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23," \
  " %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35," \
  " %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47," \
  " %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59," \
  " %60, %61, %62, %63}"
#define TQ_WGMMA_SS64(TY)                                                    \
  asm volatile("{ .reg .pred p;\n\tsetp.ne.b32 p, %34, 0;\n\t"               \
               "wgmma.mma_async.sync.aligned.m64n64k16.f32." TY "." TY " "  \
               TQ_WGMMA_ACC32 ", %32, %33, p, 1, 1, 0, 0; }" \
               : TQ_WGMMA_OUT8                                              \
               : "l"(descA), "l"(descB), "r"(uint32_t(accumulate))          \
               : "memory")
#define TQ_WGMMA_SS128(TY)                                                   \
  asm volatile("{ .reg .pred p;\n\tsetp.ne.b32 p, %66, 0;\n\t"               \
               "wgmma.mma_async.sync.aligned.m64n128k16.f32." TY "." TY " " \
               TQ_WGMMA_ACC64 ", %64, %65, p, 1, 1, 0, 0; }" \
               : TQ_WGMMA_OUT16                                             \
               : "l"(descA), "l"(descB), "r"(uint32_t(accumulate))          \
               : "memory")
#define TQ_WGMMA_RS64(TY)                                                    \
  asm volatile("{ .reg .pred p;\n\tsetp.ne.b32 p, %37, 0;\n\t"               \
               "wgmma.mma_async.sync.aligned.m64n64k16.f32." TY "." TY " "  \
               TQ_WGMMA_ACC32 ", {%32, %33, %34, %35}, %36, p, 1, 1, 1; }" \
               : TQ_WGMMA_OUT8                                              \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(descB),     \
                 "r"(uint32_t(accumulate))                                  \
               : "memory")
#define TQ_WGMMA_RS128(TY)                                                   \
  asm volatile("{ .reg .pred p;\n\tsetp.ne.b32 p, %69, 0;\n\t"               \
               "wgmma.mma_async.sync.aligned.m64n128k16.f32." TY "." TY " " \
               TQ_WGMMA_ACC64 ", {%64, %65, %66, %67}, %68, p, 1, 1, 1; }" \
               : TQ_WGMMA_OUT16                                             \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(descB),     \
                 "r"(uint32_t(accumulate))                                  \
               : "memory")

template <int N, bool Bf16 = false>
TQ_INLINE void wgmmaSS(float (&d)[N / 8][4], uint64_t descA, uint64_t descB,
                       bool accumulate) {
  static_assert(N == 64 || N == 128, "wgmmaSS: N = 64 or 128");
  if constexpr (N == 64 && Bf16)
    TQ_WGMMA_SS64("bf16");
  else if constexpr (N == 64)
    TQ_WGMMA_SS64("f16");
  else if constexpr (Bf16)
    TQ_WGMMA_SS128("bf16");
  else
    TQ_WGMMA_SS128("f16");
}
template <int N, bool Bf16 = false>
TQ_INLINE void wgmmaRS(float (&d)[N / 8][4], const uint32_t (&a)[4],
                       uint64_t descB, bool accumulate) {
  static_assert(N == 64 || N == 128, "wgmmaRS: N = 64 or 128");
  if constexpr (N == 64 && Bf16)
    TQ_WGMMA_RS64("bf16");
  else if constexpr (N == 64)
    TQ_WGMMA_RS64("f16");
  else if constexpr (Bf16)
    TQ_WGMMA_RS128("bf16");
  else
    TQ_WGMMA_RS128("f16");
}

#undef TQ_WGMMA_SS64
#undef TQ_WGMMA_SS128
#undef TQ_WGMMA_RS64
#undef TQ_WGMMA_RS128
#undef TQ_WGMMA_OUT8
#undef TQ_WGMMA_OUT16
#undef TQ_WGMMA_ACC32
#undef TQ_WGMMA_ACC64

} // namespace tq

#endif // TQ_WGMMA_CUDA_H
