/*===- target_cuda.h - The thin target layer for NVIDIA GPUs --------------===*
 *
 * Every hardware-specific primitive the kernels use, and nothing else: a HIP
 * port re-implements this file (same names, same semantics) and keeps
 * numeric.h, rotate.h, store.h, and decode.h unchanged. The stage
 * headers never touch threadIdx, __shfl_*, inline PTX or CUDA types directly.
 *
 * NVRTC compiles the generated translation unit with only our headers, so
 * this file includes no system or CUDA header under NVRTC: the fixed-width
 * integer types are defined here, and conversions use inline PTX instead of
 * cuda_fp16.h / cuda_bf16.h / cuda_fp8.h. Everything works on sm_80; fp8
 * conversion instructions (sm_89+) are used only where __CUDA_ARCH__ allows,
 * with a bit-exact software path elsewhere.
 *===----------------------------------------------------------------------===*/
#ifndef TQ_TARGET_CUDA_H
#define TQ_TARGET_CUDA_H

#if defined(__CUDACC_RTC__)
/* No <stdint.h> under NVRTC. The compiler's predefined type macros give the
 * same types the host's <stdint.h> uses (int64_t is `long` on LP64 Linux), so
 * abi.h's structs have one layout on both sides. */
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
#if defined(__INT64_TYPE__) && defined(__UINT64_TYPE__)
typedef __INT64_TYPE__ int64_t;
typedef __UINT64_TYPE__ uint64_t;
#else
typedef long long int64_t;
typedef unsigned long long uint64_t;
#endif
#else
#include <stdint.h>
#endif

#include "tq/spec_constants.h"

#define TQ_DEVICE __device__
#define TQ_INLINE __device__ __forceinline__
/* Compile-time helpers usable in constant expressions of device code. */
#define TQ_CONSTEXPR __host__ __device__ constexpr
/* CTA-shared storage (static sizes only), and an alignment for it. */
#define TQ_SHARED __shared__
#define TQ_ALIGN(n) __align__(n)
/* Loops over register arrays must be fully unrolled (a register array indexed
 * by a run-time value lives in local memory). */
#define TQ_UNROLL _Pragma("unroll")
#define TQ_NO_UNROLL _Pragma("unroll 1")

namespace tq {

/* 16-bit storage types of the activations (keys, values, queries, outputs):
 * the kernels' dtype template parameter. Plain bits; conversions below. */
struct bf16_t {
  uint16_t bits;
};
struct f16_t {
  uint16_t bits;
};

/* Vector register types for 16- and 8-byte memory accesses. */
struct alignas(16) u32x4 {
  uint32_t x, y, z, w;
};
struct alignas(8) u32x2 {
  uint32_t x, y;
};

/* ---------------------------------------------------------------------------
 * Threads, warps, blocks
 * ------------------------------------------------------------------------ */
constexpr int kWarpSize = 32;
constexpr int kLog2WarpSize = 5;

TQ_INLINE int threadIndex() { return int(threadIdx.x); }
TQ_INLINE int laneIndex() { return int(threadIdx.x) & (kWarpSize - 1); }
TQ_INLINE int warpIndex() { return int(threadIdx.x) >> kLog2WarpSize; }
TQ_INLINE int blockIndexX() { return int(blockIdx.x); }
TQ_INLINE int blockIndexY() { return int(blockIdx.y); }
TQ_INLINE int blockIndexZ() { return int(blockIdx.z); }
TQ_INLINE int gridSizeX() { return int(gridDim.x); }
TQ_INLINE int gridSizeY() { return int(gridDim.y); }
/* The device's SM count as the hardware numbers them (%nsmid: an upper
 * bound on %smid + 1; the SM count on the GPUs measured). */
TQ_INLINE int smIdCount() {
  unsigned n;
  asm("mov.u32 %0, %%nsmid;" : "=r"(n));
  return int(n);
}
/* A hint: the 128-byte line holding p into L2 (no register, no wait). */
TQ_INLINE void prefetchL2(const void *p) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

/* All threads of the CTA. */
TQ_INLINE void barrier() { __syncthreads(); }
/* Barrier `id` (1..15; 0 is barrier()'s) among `threads` threads (whole
 * warps), for a role of a warp-specialized CTA. */
TQ_INLINE void namedBarrier(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
/* Arrives at barrier `id` without waiting (the other side of a turn
 * handed between roles; pairs with namedBarrier's bar.sync). */
TQ_INLINE void namedBarrierArrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
/* All lanes of the warp (orders shared-memory accesses within a warp). */
TQ_INLINE void syncWarp() { __syncwarp(0xffffffffu); }

/* ---------------------------------------------------------------------------
 * Shuffles and warp reductions (all 32 lanes must take part)
 * ------------------------------------------------------------------------ */
TQ_INLINE float shflXor(float v, int mask) {
  return __shfl_xor_sync(0xffffffffu, v, mask);
}
TQ_INLINE double shflXor(double v, int mask) {
  return __shfl_xor_sync(0xffffffffu, v, mask);
}
TQ_INLINE uint32_t shflXor(uint32_t v, int mask) {
  return __shfl_xor_sync(0xffffffffu, v, mask);
}
TQ_INLINE float shflIdx(float v, int srcLane) {
  return __shfl_sync(0xffffffffu, v, srcLane);
}
TQ_INLINE uint32_t shflIdx(uint32_t v, int srcLane) {
  return __shfl_sync(0xffffffffu, v, srcLane);
}
/* Bit i of the result is lane i's predicate. */
TQ_INLINE uint32_t ballot(bool p) { return __ballot_sync(0xffffffffu, p); }


/* ---------------------------------------------------------------------------
 * Global memory. Loads of the cache go through the read-only (non-coherent)
 * path: the cache is not written during a decode launch. The address must be
 * aligned to the access size; callers decide the width at compile time from
 * the layout's alignment (numeric.h).
 * ------------------------------------------------------------------------ */
TQ_INLINE u32x4 loadGlobal16(const void *p) {
  u32x4 r;
  asm("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];"
      : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
      : "l"(p));
  return r;
}
TQ_INLINE u32x2 loadGlobal8(const void *p) {
  u32x2 r;
  asm("ld.global.nc.v2.u32 {%0, %1}, [%2];" : "=r"(r.x), "=r"(r.y) : "l"(p));
  return r;
}
TQ_INLINE uint32_t loadGlobal4(const void *p) {
  uint32_t r;
  asm("ld.global.nc.u32 %0, [%1];" : "=r"(r) : "l"(p));
  return r;
}
TQ_INLINE uint32_t loadGlobal2(const void *p) {
  unsigned short r;
  asm("ld.global.nc.u16 %0, [%1];" : "=h"(r) : "l"(p));
  return r;
}
TQ_INLINE uint32_t loadGlobal1(const void *p) {
  unsigned short r;
  asm("ld.global.nc.u8 %0, [%1];" : "=h"(r) : "l"(p));
  return r & 0xffu;
}

/* Stores are plain C++ so the compiler can schedule them. */
TQ_INLINE void storeGlobal16(void *p, u32x4 v) {
  *reinterpret_cast<u32x4 *>(p) = v;
}
TQ_INLINE void storeGlobal8(void *p, u32x2 v) {
  *reinterpret_cast<u32x2 *>(p) = v;
}
TQ_INLINE void storeGlobal4(void *p, uint32_t v) {
  *reinterpret_cast<uint32_t *>(p) = v;
}
TQ_INLINE void storeGlobal2(void *p, uint32_t v) {
  *reinterpret_cast<uint16_t *>(p) = uint16_t(v);
}
TQ_INLINE void storeGlobal1(void *p, uint32_t v) {
  *reinterpret_cast<uint8_t *>(p) = uint8_t(v);
}

/* Address alignment test for run-time strides (activations). */
TQ_INLINE bool isAligned(const void *p, int bytes) {
  return (reinterpret_cast<uint64_t>(p) & uint64_t(bytes - 1)) == 0;
}

/* ---------------------------------------------------------------------------
 * Bits
 * ------------------------------------------------------------------------ */
TQ_INLINE float bitsToFloat(uint32_t u) { return __uint_as_float(u); }
TQ_INLINE uint32_t floatToBits(float f) { return __float_as_uint(f); }
/* (hi:lo) >> shift, low 32 bits; shift in 0..31. */
TQ_INLINE uint32_t funnelShiftRight(uint32_t lo, uint32_t hi, uint32_t shift) {
  return __funnelshift_r(lo, hi, shift);
}
/* Set bits of x (POPC). */
TQ_INLINE int popCount(uint32_t x) { return __popc(x); }

/* ---------------------------------------------------------------------------
 * Small-float conversions (round to nearest even, like numerics/minifloat.h)
 * ------------------------------------------------------------------------ */
TQ_INLINE float bf16BitsToFloat(uint32_t b) {
  return __uint_as_float((b & 0xffffu) << 16);
}
TQ_INLINE uint32_t floatToBf16Bits(float f) {
  unsigned short r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(f));
  return r;
}
TQ_INLINE float f16BitsToFloat(uint32_t b) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"((unsigned short)b));
  return f;
}
TQ_INLINE uint32_t floatToF16Bits(float f) {
  unsigned short r;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(f));
  return r;
}
/* One rounding straight from double (the host codec rounds its float64
 * scalars to fp16 this way, so the stored bytes agree). */
TQ_INLINE uint32_t doubleToF16Bits(double d) {
  unsigned short r;
  asm("cvt.rn.f16.f64 %0, %1;" : "=h"(r) : "d"(d));
  return r;
}

/* double -> float rounded to odd (truncate, then set the last bit if
 * anything was lost). Rounding that float once more to a format with at
 * least two fewer significand bits (bf16, fp8) gives the correctly rounded
 * result of the double: no double-rounding error. */
TQ_INLINE float doubleToFloatRoundOdd(double d) {
  float f;
  asm("cvt.rz.f32.f64 %0, %1;" : "=f"(f) : "d"(d));
  if (double(f) != d)
    f = __uint_as_float(__float_as_uint(f) | 1u);
  return f;
}

/* fp8 e4m3 ("FN": bias 7, max 448, no inf, 0x7F/0xFF NaN), saturating. */
TQ_INLINE uint32_t floatToE4m3Bits(float x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890 && !defined(TQ_SOFT_FP8)
  unsigned short r;
  // The second source operand lands in the low byte.
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(0.0f), "f"(x));
  return r & 0xffu;
#else
  // Software path for sm_80 (no cvt to e4m3), bit-exact with the above.
  const uint32_t u = __float_as_uint(x);
  const uint32_t sign = (u >> 24) & 0x80u;
  const uint32_t mag = u & 0x7fffffffu;
  if (mag > 0x7f800000u) // NaN
    return sign | 0x7fu;
  if (mag >= 0x43e00000u) // >= 448: saturate (448 is the largest finite)
    return sign | 0x7eu;
  if (mag < 0x3c800000u) { // below 2^-6: subnormal grid of step 2^-9
    // |x|·2^9 is exact; rint rounds half to even. 8 units carry into the
    // smallest normal (code 0x08) by themselves.
    return sign | uint32_t(__float2int_rn(__uint_as_float(mag) * 512.0f));
  }
  // Normal: round the 23-bit mantissa to 3 bits, half to even; a carry
  // moves into the exponent as it should. Rebias 127 -> 7.
  const uint32_t rounded = (mag + 0x7ffffu + ((mag >> 20) & 1u)) >> 20;
  return sign | (rounded - ((127u - 7u) << 3));
#endif
}
/* Exact. The 7 magnitude bits placed at fp16 bits 13..7 give the same value
 * times 2^-8 (subnormals included), so one cvt and one multiply suffice.
 * (The NaN codes decode to ±480: the store never writes them.) */
TQ_INLINE float e4m3BitsToFloat(uint32_t b) {
  const uint32_t h = ((b & 0x80u) << 8) | ((b & 0x7fu) << 7);
  return f16BitsToFloat(h) * 256.0f;
}

/* ---------------------------------------------------------------------------
 * Math
 * ------------------------------------------------------------------------ */
/* 2^x; exp2(-inf) = 0. The decode's softmax runs in the exp2 domain. */
TQ_INLINE float exp2Fast(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
/* 1/x to about 1 ulp, no IEEE slow path (the decode normalizes by a softmax
 * sum >= 1). */
/* log2(x), fast approximation (the extend kernel's log-sum-exp). */
TQ_INLINE float log2Fast(float x) { return __log2f(x); }
TQ_INLINE float rcpFast(float x) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
/* 1/x rounded toward +infinity (IEEE): never below the true reciprocal. */
TQ_INLINE float rcpTowardInf(float x) { return __frcp_ru(x); }
/* a·b + c rounded once toward -infinity (one FFMA.RM): with c = 2^23 and
 * 0 <= a·b < 2^23, floor(a·b) in the low mantissa bits. */
TQ_INLINE float fmaDown(float a, float b, float c) { return __fmaf_rd(a, b, c); }
/* min / max that give NaN where either operand is NaN (min.NaN / max.NaN,
 * sm_80 on: one FMNMX, as fminf / fmaxf, which drop a NaN operand). */
TQ_INLINE float minNaN(float a, float b) {
  float r;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
TQ_INLINE float maxNaN(float a, float b) {
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
/* minNaN / maxNaN of two 16-bit floats per word (bf16x2 if BF16, else
 * f16x2), each half NaN where either operand's is (one HMNMX2 for two
 * FMNMX: the store's uniform extremes straight from the activations,
 * whose floats are exact in float). Only where kTargetHasPackedMinMax:
 * from sm_90, though sm_80 has the instructions, since there the extend
 * prep, capped at 128 registers, spills 24 B when the store keeps the raw
 * words for them (k3v4, the toolchain tier; sm_90 and later do not). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
constexpr bool kTargetHasPackedMinMax = false;
#else
constexpr bool kTargetHasPackedMinMax = true; // min/max.NaN.{bf16,f16}x2
#endif
template <bool BF16> TQ_INLINE uint32_t minNaN2(uint32_t a, uint32_t b) {
  uint32_t r;
  if constexpr (BF16)
    asm("min.NaN.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  else
    asm("min.NaN.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
template <bool BF16> TQ_INLINE uint32_t maxNaN2(uint32_t a, uint32_t b) {
  uint32_t r;
  if constexpr (BF16)
    asm("max.NaN.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  else
    asm("max.NaN.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
/* All ones where a < b, else 0 (NaN: 0): a mask that adds (as -1)
 * straight into counts (sm_90: a compare and a select). */
TQ_INLINE uint32_t maskLt(float a, float b) {
  uint32_t r;
  asm("set.lt.u32.f32 %0, %1, %2;" : "=r"(r) : "f"(a), "f"(b));
  return r;
}
TQ_INLINE float negInf() { return __uint_as_float(0xff800000u); }
TQ_INLINE float posInf() { return __uint_as_float(0x7f800000u); }
TQ_INLINE bool isNegInf(float x) { return __float_as_uint(x) == 0xff800000u; }
/* Float64 division and square root rounded to nearest, for the store's
 * host-matching math, without the IEEE slow path: ptxas expands div.rn.f64
 * and sqrt.rn.f64 into a subroutine call for denormal/special operands, and
 * the call costs a stack frame and spills. These use the approximate
 * hardware reciprocal (square root), two Newton steps and one FMA-based
 * correction, which gives the correctly rounded result (bit-identical to the
 * host's operator/ and std::sqrt, exact quotients and roots included) for
 * normal operands and results, except for a true result within ~2^-50 ulp
 * of a rounding midpoint. Domain: divRn needs b != 0 and normal operands or
 * a == 0; sqrtRn needs x >= 0 normal or 0. */
TQ_INLINE double divRn(double a, double b) {
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(b));
  double e = fma(-b, r, 1.0);
  r = fma(r, e, r);
  e = fma(-b, r, 1.0);
  r = fma(r, e, r);
  const double q = a * r;
  return fma(fma(-b, q, a), r, q);
}
TQ_INLINE double sqrtRn(double x) {
  if (x == 0.0)
    return x;
  double y; // ~ 1/sqrt(x)
  asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
  double e = fma(-(x * y), y, 1.0);
  y = fma(0.5 * y, e, y);
  e = fma(-(x * y), y, 1.0);
  y = fma(0.5 * y, e, y);
  const double s = x * y;
  return fma(fma(-s, s, x), 0.5 * y, s);
}
TQ_INLINE float floorF(float x) { return floorf(x); }
TQ_INLINE double floorD(double x) { return floor(x); }
/* IEEE float32 division and square root (the vLLM layout's store math), and
 * an approximate reciprocal square root (its decode's norm correction). */
TQ_INLINE float divF(float a, float b) { return __fdiv_rn(a, b); }
TQ_INLINE float sqrtF(float x) { return __fsqrt_rn(x); }
TQ_INLINE float rsqrtFast(float x) { return rsqrtf(x); }

/* ---------------------------------------------------------------------------
 * Cross-CTA hand-off (decode.h's split merge): a CTA writes its partial,
 * fenceDevice(), then takes a ticket with atomicAddGlobal; the CTA that
 * draws the last ticket calls fenceDevice() and reads every partial with
 * loadGlobalCoherent16 (through L2: another SM wrote them). trap() aborts the
 * launch (a broken invariant: an error the host sees instead of output).
 * ------------------------------------------------------------------------ */
TQ_INLINE void fenceDevice() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
TQ_INLINE uint32_t atomicAddGlobal(uint32_t *p, uint32_t v) {
  uint32_t old;
  asm volatile("atom.global.add.u32 %0, [%1], %2;"
               : "=r"(old)
               : "l"(p), "r"(v)
               : "memory");
  return old;
}
TQ_INLINE u32x4 loadGlobalCoherent16(const void *p) {
  u32x4 r;
  asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
               : "l"(p)
               : "memory");
  return r;
}
TQ_INLINE float loadGlobalCoherentFloat(const float *p) {
  float r;
  asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(r) : "l"(p) : "memory");
  return r;
}
TQ_INLINE void trap() { asm volatile("trap;"); }

/* Diagnostics (TQ_DEBUG_CTA_TRACE): the global nanosecond timer and the
 * multiprocessor a CTA runs on. */
TQ_INLINE unsigned long long globalTimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
TQ_INLINE unsigned smId() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}
/* ---------------------------------------------------------------------------
 * Programmatic dependent launch (sm_90+). A kernel launched with
 * programmatic stream serialization may start before its predecessor in the
 * stream has finished: it must call waitForPrimaryGrid() before reading
 * anything the predecessor writes (the wait returns once that grid has
 * completed and its memory is visible), and allowDependentLaunch() lets the
 * next kernel's CTAs be scheduled once every CTA of this grid has called it
 * or exited. Without such a launch (or below sm_90) both are no-ops, so a
 * kernel that calls them is correct under either launch.
 * ------------------------------------------------------------------------ */
TQ_INLINE void waitForPrimaryGrid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
TQ_INLINE void allowDependentLaunch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* ---------------------------------------------------------------------------
 * Warp-level matrix multiply and the register tricks that feed it (the
 * tensor-core decode, decode_tc.h). A port provides the same operations with
 * the same per-lane fragment layouts, or sets kTargetHasWarpMma = false and
 * the decode keeps its scalar path.
 *
 * Fragment layouts (lane = 4·g + t, g = lane / 4, t = lane % 4), the ones of
 * PTX's mma.m16n8k16 with .row.col:
 *   A, 16×16 (row × k), four 32-bit registers of two 16-bit elements each,
 *      lower half = lower column: a0 = (g, 2t..2t+1), a1 = (g+8, 2t..2t+1),
 *      a2 = (g, 2t+8..2t+9), a3 = (g+8, 2t+8..2t+9);
 *   B, 16×8 (k × n): b0 = (k 2t..2t+1, n g), b1 = (k 2t+8..2t+9, n g);
 *   C/D, 16×8 fp32: c0, c1 = (g, 2t), (g, 2t+1); c2, c3 = (g+8, 2t), (g+8, 2t+1).
 * ------------------------------------------------------------------------ */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
constexpr bool kTargetHasWarpMma = false;
#else
constexpr bool kTargetHasWarpMma = true; // mma.sync f16/bf16 and movmatrix
#endif

/* d += A·B, fp16 operands, fp32 accumulation. */
TQ_INLINE void mmaF16(float (&d)[4], const uint32_t (&a)[4],
                      const uint32_t (&b)[2]) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]),
                 "r"(b[1]));
}
/* d += A·B, bf16 operands, fp32 accumulation. */
TQ_INLINE void mmaBf16(float (&d)[4], const uint32_t (&a)[4],
                       const uint32_t (&b)[2]) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]),
                 "r"(b[1]));
}
/* Transpose of an 8×8 matrix of 16-bit elements held one row-pair per lane
 * (lane 4·r + c holds elements (r, 2c) low and (r, 2c+1) high): afterwards
 * the lane holds elements (2c, r) low and (2c+1, r) high. Turns a C-layout
 * row block into a B fragment without shared memory. */
TQ_INLINE uint32_t transpose8x8b16(uint32_t x) {
  uint32_t r;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;"
               : "=r"(r)
               : "r"(x));
  return r;
}

/* Four 8x8 matrices of 16-bit elements from shared memory
 * (ldmatrix.m8n8.x4): lane l gives the 16-byte-aligned address of row l % 8
 * of matrix l / 8; r[i] receives matrix i in the mma fragment layout (lane
 * l: row l / 4, elements 2(l % 4) and 2(l % 4) + 1, the lower in the low
 * half). The .trans form delivers the transposed matrices. */
TQ_INLINE void ldmatrixX4(uint32_t (&r)[4], const void *row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(uint32_t(__cvta_generic_to_shared(row))));
}
TQ_INLINE void ldmatrixX4Trans(uint32_t (&r)[4], const void *row) {
  asm volatile(
      "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
      : "r"(uint32_t(__cvta_generic_to_shared(row))));
}

/* Asynchronous 16-byte copies global -> shared (cp.async, sm_80+): commit
 * closes the thread's group of copies issued so far; wait<N> returns when at
 * most N of its groups are still in flight (a barrier then publishes the
 * data to the CTA). */
TQ_INLINE void copyAsync16(void *smem, const void *gmem) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(
                   uint32_t(__cvta_generic_to_shared(smem))),
               "l"(gmem)
               : "memory");
}
TQ_INLINE void copyAsyncCommit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
/* copyAsync16 of the first `bytes` (16 or 0) of gmem, zeros after them
 * (src-size: a row past the data's end lands as zeros without a branch or
 * an ordinary store). */
TQ_INLINE void copyAsync16Fill(void *smem, const void *gmem, uint32_t bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(
                   uint32_t(__cvta_generic_to_shared(smem))),
               "l"(gmem), "r"(bytes)
               : "memory");
}
template <int N> TQ_INLINE void copyAsyncWait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

/* The CTA's dynamic shared memory (the launch's sharedMemBytes), 128-byte
 * aligned, and its size in bytes as launched. */
TQ_INLINE uint8_t *dynamicShared() {
  extern __shared__ __align__(128) uint8_t tqDynamicShared[];
  return tqDynamicShared;
}
TQ_INLINE uint32_t dynamicSharedBytes() {
  uint32_t r;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
  return r;
}

/* Byte i of the result is byte ((sel >> 4i) & 7) of the 8-byte value
 * (hi:lo); the selector nibbles' bit 3 must be clear. */
TQ_INLINE uint32_t bytePerm(uint32_t lo, uint32_t hi, uint32_t sel) {
  return __byte_perm(lo, hi, sel);
}

/* Two floats as f16x2 / bf16x2 bits (lo in the low half), round to nearest. */
TQ_INLINE uint32_t packHalf2(float lo, float hi) {
  uint32_t r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
TQ_INLINE uint32_t packBf16x2(float lo, float hi) {
  uint32_t r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
/* f16x2 arithmetic on bit patterns (a·b + c, a·b, a - b), round to nearest. */
TQ_INLINE uint32_t hfma2(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r;
  asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
TQ_INLINE uint32_t hmul2(uint32_t a, uint32_t b) {
  uint32_t r;
  asm("mul.rn.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
TQ_INLINE uint32_t hsub2(uint32_t a, uint32_t b) {
  uint32_t r;
  asm("sub.rn.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
/* Two e4m3 bytes (bits 0..15, lower element in the low byte) as exact f16x2
 * (every e4m3 value is an fp16 value). */
TQ_INLINE uint32_t e4m3x2ToHalf2(uint32_t x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890 && !defined(TQ_SOFT_FP8)
  uint32_t r;
  asm("{ .reg .b16 lo, hi;\n\t"
      "mov.b32 {lo, hi}, %1;\n\t"
      "cvt.rn.f16x2.e4m3x2 %0, lo; }"
      : "=r"(r)
      : "r"(x));
  return r;
#else
  // Each byte into the high byte of its half, then sign | magnitude >> 1:
  // the 7 magnitude bits at fp16 bits 13..7 are the value times 2^-8 (see
  // e4m3BitsToFloat), and the exact multiply by 256 restores it.
  const uint32_t y = __byte_perm(x, 0u, 0x1404); // [0, b0, 0, b1]
  const uint32_t h = ((y >> 1) & 0x3f803f80u) | (y & 0x80008000u);
  return hmul2(h, 0x5c005c00u); // x 256
#endif
}

/* a & b | c style bitwise functions of three words (LUT = the truth table
 * of f(0xf0, 0xcc, 0xaa)), one instruction whatever the constants. */
template <uint32_t LUT>
TQ_INLINE uint32_t lop3(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r;
  asm("lop3.b32 %0, %1, %2, %3, %4;"
      : "=r"(r)
      : "r"(a), "r"(b), "r"(c), "n"(LUT));
  return r;
}

/* Shared memory by 32-bit shared-window address: the decode's lookup tables
 * are read at a base plus a byte offset built with one mask-or from the
 * codes. */
TQ_INLINE uint32_t sharedAddress(const void *p) {
  return uint32_t(__cvta_generic_to_shared(p));
}
TQ_INLINE void storeShared4(uint32_t addr, uint32_t v) {
  asm volatile("st.shared.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}
TQ_INLINE uint32_t loadShared4(uint32_t addr) {
  uint32_t r;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(r) : "r"(addr));
  return r;
}
TQ_INLINE u32x2 loadShared8(uint32_t addr) {
  u32x2 r;
  asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];"
               : "=r"(r.x), "=r"(r.y)
               : "r"(addr));
  return r;
}

/* ---------------------------------------------------------------------------
 * Bulk copies global -> shared by the copy engine, completing on an mbarrier
 * (sm_90+: cp.async.bulk, no registers and one instruction per copy). A
 * barrier is initialized once with the number of arrivals per phase
 * (barrierInit, then fenceBarrierInit before any copy uses it); a phase
 * completes when its arrivals have happened and every byte announced by
 * arriveExpectBytes has landed; barrierWait(bar, parity) returns once the
 * phase of that parity has completed (phases alternate 0, 1, 0, ...), and
 * the copied bytes are then visible to the waiting thread. Sizes and both
 * addresses are multiples of 16. Below sm_90 no_bulk_copy.h (included at
 * the end) has kTargetHasBulkCopy false and functions that trap.
 * ------------------------------------------------------------------------ */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
constexpr bool kTargetHasBulkCopy = true;
TQ_INLINE void barrierInit(uint64_t *bar, uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(
                   sharedAddress(bar)), "r"(arrivals) : "memory");
}
/* Makes initialized barriers visible to the copy engine (the async proxy). */
TQ_INLINE void fenceBarrierInit() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
/* Orders this thread's earlier shared-memory accesses before later copies by
 * the copy engine (a slot read by ordinary loads, then refilled). */
TQ_INLINE void fenceProxyAsyncShared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
TQ_INLINE void arriveExpectBytes(uint64_t *bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(
                   sharedAddress(bar)), "r"(bytes) : "memory");
}
TQ_INLINE void bulkCopyToShared(void *smem, const void *gmem, uint32_t bytes,
                                uint64_t *bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::"
               "bytes [%0], [%1], %2, [%3];" ::"r"(sharedAddress(smem)),
               "l"(gmem), "r"(bytes), "r"(sharedAddress(bar))
               : "memory");
}
/* Bulk copies shared -> global by the copy engine (one instruction per
 * copy): the thread's copies since its last bulkCommit form a group, and
 * bulkWaitRead returns once every group of the thread has finished reading
 * shared memory (which may then be reused or released). The writes to
 * shared memory they copy must precede them behind fenceProxyAsyncShared
 * (by the writing threads) and a barrier. */
TQ_INLINE void bulkCopyToGlobal(void *gmem, const void *smem,
                                uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
               ::"l"(gmem), "r"(sharedAddress(smem)), "r"(bytes)
               : "memory");
}
TQ_INLINE void bulkCommit() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
TQ_INLINE void bulkWaitRead() {
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}
/* One arrival on the barrier by this thread (release: its earlier shared-
 * memory writes are visible to threads that then wait on the phase). */
TQ_INLINE void barrierArrive(uint64_t *bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(
                   sharedAddress(bar)) : "memory");
}
/* One arrival on the barrier once this thread's earlier cp.async copies
 * have landed (counted against the barrier's arrivals: .noinc), without
 * waiting for them; the copied bytes are then visible to threads that wait
 * on the phase (generic proxy: fenceProxyAsyncShared there before the
 * tensor cores read them). */
TQ_INLINE void copyAsyncArrive(uint64_t *bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(
                   sharedAddress(bar)) : "memory");
}
TQ_INLINE void barrierWait(uint64_t *bar, uint32_t parity) {
  const uint32_t addr = sharedAddress(bar);
  uint32_t done = 0;
  do {
    asm volatile("{ .reg .pred p;\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(addr), "r"(parity)
                 : "memory");
  } while (!done);
}
#endif

/* True on every lane when p is true on any lane. */
TQ_INLINE bool anyLane(bool p) { return __any_sync(0xffffffffu, p); }

} // namespace tq

/* Lane-group reductions, built on shflXor above. */
#include "tq/group_reduce.h"
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
/* No bulk copies below sm_90: the interface's trapping stand-ins. */
#include "tq/no_bulk_copy.h"
#endif
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
/* sm_90a: warpgroup mma (extend_wgmma.h's Hopper extend). */
#define TQ_TARGET_HAS_WGMMA 1
#endif
/* Declared everywhere (nvcc's front-end passes parse the device code of a
 * probe like bench/wgmma_probe.cu without the sm_90a feature macro); the
 * instructions reach ptxas only where a kernel uses them. */
#include "tq/wgmma_cuda.h"

#endif // TQ_TARGET_CUDA_H
