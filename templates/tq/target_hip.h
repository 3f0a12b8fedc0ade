/*===- target_hip.h - The thin target layer for AMD GPUs (HIP, clang) -----===*
 *
 * The AMDGPU counterpart of target_cuda.h: the same names with the same
 * semantics, so numeric.h, rotate.h, store.h, and decode.h compile
 * unchanged. The generated translation unit includes this file instead of
 * tq/target_cuda.h and is compiled by clang as device-only HIP with no ROCm
 * installed (no HIP headers, no device libraries, no system header):
 *
 *   clang++-22 -x hip --offload-device-only --no-gpu-bundle-output
 *     --offload-arch=gfx942 -nogpulib -nogpuinc -nostdinc -O3 -std=c++17
 *     -mcode-object-version=5 -I templates -o kernels.hsaco kernels.hip
 *
 * (compiler/lib/HipToolchain.cpp runs exactly this)
 *
 * so everything here is a clang builtin (__builtin_amdgcn_*, __builtin_*),
 * a clang attribute or plain C++: no ocml/ockl call, no inline assembly.
 *
 * Warps on a wave64 machine. The kernels are written for 32-lane warps
 * (kWarpSize = 32: rotate.h gives lane l the D/32 coordinates [l·E, l·E+E),
 * the store's QJL sign words are 32-lane ballots, decode's lane groups, the
 * emitter's and runtime's kWarps·32 threads per CTA). CDNA (gfx90a, gfx942,
 * gfx950) only runs 64-lane wavefronts, so here a warp is one half of a
 * wavefront: lanes 0..31 of a wave are warp 2w, lanes 32..63 warp 2w+1 (for
 * 1-D workgroups work-item i is lane i % 64 of wave i / 64). Every collective
 * stays inside its half: xor shuffles with masks < 32 never leave it, index
 * shuffles add the half's base lane, ballots shift the 64-bit mask down by
 * it. This is correct whatever the other half does (it may be elsewhere in
 * the program, e.g. a different trip count of a per-warp loop: the hardware
 * masks it off with EXEC and no collective reads a lane of it), and the
 * data path pays nothing for it: the xor shuffles are DPP moves (mask 1, 2:
 * quad_perm; 8: row_ror:8; 4: quad_perm then row_half_mirror) or one
 * ds_swizzle in its 32-lane bit-mask mode (mask 16), what a native wave64
 * reduction spends on the same steps (it has one step more). What it does
 * cost: a warp-uniform value (warpIndex(), a per-warp loop bound) is not
 * wave-uniform, so it lives in a VGPR instead of an SGPR and a branch on it
 * may run both halves' paths one after the other. The kernels branch on the
 * warp only in prologues, epilogues and the warp-strided main loops, whose
 * halves take the same number of trips except in a split's last step, so
 * that cost is small. The alternative, kWarpSize = 64, would need changes to
 * rotate.h (E = D/64 is 0 at head_dim 32), the QJL sign words (64-bit
 * ballots), decode's lane-group plan and the kWarps·32 launch contract, for
 * no gain on the data path; wave32 (gfx10+) runs the same code with a warp
 * being a whole wave.
 *
 * Tensor cores. mma.sync m16n8k16, movmatrix, prmt-style byte permutes, lop3
 * and f16x2 arithmetic feed decode_tc.h on NVIDIA. AMD's matrix cores (MFMA)
 * have other shapes and 64-lane fragment layouts, so kTargetHasWarpMma is
 * false here (TQ_HAS_MMA_SYNC 0): TcPlan<Spec>::kEnabled is false and
 * tq::decode takes the scalar path (decode.h). decode_tc.h is still parsed,
 * and clang resolves its non-dependent calls when it parses the templates,
 * so every name it uses is declared below: the byte/bit/f16x2 helpers are
 * real implementations, the three warp-mma primitives trap (never
 * instantiated).
 *===----------------------------------------------------------------------===*/
#ifndef TQ_TARGET_HIP_H
#define TQ_TARGET_HIP_H

#if !defined(__HIP__) || !defined(__AMDGCN__)
#error "tq/target_hip.h: compile as HIP device code for amdgcn (clang -x hip --offload-device-only)"
#endif

/* abi.h must not include <stdint.h>: the types come from here. */
#ifndef TQ_DEVICE_COMPILE
#define TQ_DEVICE_COMPILE 1
#endif

/* No <stdint.h>: the compiler's predefined type macros give the same types
 * the host's <stdint.h> uses (int64_t is `long` on LP64 Linux, and amdgcn is
 * LP64), so abi.h's structs have one layout on both sides. */
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef __INT64_TYPE__ int64_t;
typedef __UINT64_TYPE__ uint64_t;

#include "tq/spec_constants.h"

/* The CUDA/HIP spellings the generated translation unit uses. With -nogpuinc
 * clang's HIP wrapper header (which defines them) is not included, so they
 * are defined here from the attributes clang implements in HIP mode. */
#ifndef __host__
#define __host__ __attribute__((host))
#endif
#ifndef __device__
#define __device__ __attribute__((device))
#endif
#ifndef __global__
#define __global__ __attribute__((global))
#endif
#ifndef __shared__
#define __shared__ __attribute__((shared))
#endif
#ifndef __constant__
#define __constant__ __attribute__((constant))
#endif
#ifndef __forceinline__
#define __forceinline__ inline __attribute__((always_inline))
#endif
#ifndef __align__
#define __align__(n) __attribute__((aligned(n)))
#endif
/* Maximum threads per block. clang's HIP code generation ignores the CUDA
 * launch_bounds attribute; the flat work-group size is what bounds the
 * register budget (without it the compiler assumes 1024 threads). The
 * optional second argument (minimum blocks per multiprocessor) is ignored. */
#ifndef __launch_bounds__
#define __launch_bounds__(n, ...)                                              \
  __attribute__((amdgpu_flat_work_group_size(1, n)))
#endif

#define TQ_DEVICE __device__
#define TQ_INLINE __device__ __forceinline__
/* Compile-time helpers usable in constant expressions of device code. */
#define TQ_CONSTEXPR __host__ __device__ constexpr
/* CTA-shared storage (LDS; static sizes only), and an alignment for it. */
#define TQ_SHARED __shared__
#define TQ_ALIGN(n) __align__(n)
/* Loops over register arrays must be fully unrolled (a register array indexed
 * by a run-time value lives in scratch memory). */
#define TQ_UNROLL _Pragma("unroll")
#define TQ_NO_UNROLL _Pragma("unroll 1")

/* Hardware wavefront size: 64 on GFX9 (CDNA: gfx90a, gfx942, gfx950), 32 by
 * default on GFX10+ (define TQ_HIP_WAVE_SIZE=64 with -mwavefrontsize64). */
#ifndef TQ_HIP_WAVE_SIZE
#if defined(__GFX9__)
#define TQ_HIP_WAVE_SIZE 64
#else
#define TQ_HIP_WAVE_SIZE 32
#endif
#endif

/* The dispatch flag of the tensor-core decode (see kTargetHasWarpMma). */
#define TQ_HAS_MMA_SYNC 0

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

namespace hip_detail {
typedef __UINTPTR_TYPE__ uintptr;
/* Global (addrspace 1) and LDS (addrspace 3) views of generic pointers: the
 * accesses become global_load/store and ds_read/write instead of flat ones
 * (a flat access waits on both the vector-memory and the LDS counters). */
template <class T> using Global = __attribute__((address_space(1))) T;
template <class T> using Lds = __attribute__((address_space(3))) T;
typedef _Float16 half2v __attribute__((ext_vector_type(2)));
} // namespace hip_detail

/* ---------------------------------------------------------------------------
 * Threads, warps, blocks (1-D blocks of kWarps·32 threads)
 * ------------------------------------------------------------------------ */
constexpr int kWarpSize = 32;
constexpr int kLog2WarpSize = 5;
constexpr int kWaveSize = TQ_HIP_WAVE_SIZE; // hardware lanes per wavefront
static_assert(kWaveSize == 32 || kWaveSize == 64, "wave32 or wave64");

TQ_INLINE int threadIndex() { return int(__builtin_amdgcn_workitem_id_x()); }
TQ_INLINE int laneIndex() { return threadIndex() & (kWarpSize - 1); }
TQ_INLINE int warpIndex() { return threadIndex() >> kLog2WarpSize; }
TQ_INLINE int blockIndexX() { return int(__builtin_amdgcn_workgroup_id_x()); }
TQ_INLINE int blockIndexY() { return int(__builtin_amdgcn_workgroup_id_y()); }
TQ_INLINE int blockIndexZ() { return int(__builtin_amdgcn_workgroup_id_z()); }

namespace hip_detail {
/* Hardware lane of this warp's lane 0 within the wavefront: 0 or 32. */
TQ_INLINE int warpBaseLane() {
  return threadIndex() & (kWaveSize - 1) & ~(kWarpSize - 1);
}
} // namespace hip_detail

/* All threads of the CTA; orders global and LDS accesses like CUDA's
 * __syncthreads (release fence, s_barrier, acquire fence). */
TQ_INLINE void barrier() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
/* All lanes of the warp (orders shared-memory accesses within a warp). The
 * lanes of a wavefront execute in lockstep and its LDS accesses complete in
 * order, so this only has to stop the compiler from moving memory accesses
 * across it: wavefront-scope fences around a wave barrier. */
TQ_INLINE void syncWarp() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}

/* ---------------------------------------------------------------------------
 * Shuffles and warp reductions (all 32 lanes must take part)
 * ------------------------------------------------------------------------ */
namespace hip_detail {
/* DPP controls (GFX9+): quad_perm(p0..p3) = p0 | p1 << 2 | p2 << 4 | p3 << 6,
 * row_ror:n = 0x120 + n, row_half_mirror = 0x141 (lane i of 8 reads 7 - i). */
constexpr int kDppQuadXor1 = 0xb1;  // quad_perm(1, 0, 3, 2)
constexpr int kDppQuadXor2 = 0x4e;  // quad_perm(2, 3, 0, 1)
constexpr int kDppQuadXor3 = 0x1b;  // quad_perm(3, 2, 1, 0)
constexpr int kDppHalfMirror = 0x141; // i ^ 7 within 8 lanes
constexpr int kDppRowRor8 = 0x128;  // (i + 8) mod 16 = i ^ 8 within 16 lanes

template <int CTRL> TQ_INLINE int dppMov(int v) {
  return __builtin_amdgcn_mov_dpp(v, CTRL, 0xf, 0xf, false);
}
/* Lane (this lane ^ MASK) of the warp, MASK in 1..16 a power of two. */
template <int MASK> TQ_INLINE int xorLane(int v) {
  if constexpr (MASK == 1)
    return dppMov<kDppQuadXor1>(v);
  else if constexpr (MASK == 2)
    return dppMov<kDppQuadXor2>(v);
  else if constexpr (MASK == 4) // (i ^ 3) ^ 7 = i ^ 4: two DPP moves
    return dppMov<kDppHalfMirror>(dppMov<kDppQuadXor3>(v));
  else if constexpr (MASK == 8)
    return dppMov<kDppRowRor8>(v);
  else // ds_swizzle bit-mask mode over 32-lane groups: and 0x1f, xor MASK
    return __builtin_amdgcn_ds_swizzle(v, 0x1f | (MASK << 10));
}
/* Any lane of the warp (ds_bpermute addresses lanes of the whole wave). */
TQ_INLINE int laneOfWarp(int v, int srcLane) {
  const int lane = warpBaseLane() | (srcLane & (kWarpSize - 1));
  return __builtin_amdgcn_ds_bpermute(lane << 2, v);
}
/* 32-bit xor shuffle: DPP/swizzle when the mask is known at compile time
 * (always, once the kernels' loops are unrolled), else ds_bpermute. */
TQ_INLINE int shflXor32(int v, int mask) {
  if (__builtin_constant_p(mask)) {
    switch (mask) {
    case 1: return xorLane<1>(v);
    case 2: return xorLane<2>(v);
    case 4: return xorLane<4>(v);
    case 8: return xorLane<8>(v);
    case 16: return xorLane<16>(v);
    default: break;
    }
  }
  return laneOfWarp(v, laneIndex() ^ mask);
}
} // namespace hip_detail

TQ_INLINE float shflXor(float v, int mask) {
  return __builtin_bit_cast(
      float, hip_detail::shflXor32(__builtin_bit_cast(int, v), mask));
}
TQ_INLINE double shflXor(double v, int mask) {
  const uint64_t u = __builtin_bit_cast(uint64_t, v);
  const uint32_t lo = uint32_t(hip_detail::shflXor32(int(uint32_t(u)), mask));
  const uint32_t hi =
      uint32_t(hip_detail::shflXor32(int(uint32_t(u >> 32)), mask));
  return __builtin_bit_cast(double, uint64_t(lo) | (uint64_t(hi) << 32));
}
TQ_INLINE uint32_t shflXor(uint32_t v, int mask) {
  return uint32_t(hip_detail::shflXor32(int(v), mask));
}
TQ_INLINE float shflIdx(float v, int srcLane) {
  return __builtin_bit_cast(
      float, hip_detail::laneOfWarp(__builtin_bit_cast(int, v), srcLane));
}
TQ_INLINE uint32_t shflIdx(uint32_t v, int srcLane) {
  return uint32_t(hip_detail::laneOfWarp(int(v), srcLane));
}
/* Bit i of the result is lane i's predicate (this warp's half of the
 * wavefront's ballot). */
TQ_INLINE uint32_t ballot(bool p) {
#if TQ_HIP_WAVE_SIZE == 64
  return uint32_t(__builtin_amdgcn_ballot_w64(p) >>
                  hip_detail::warpBaseLane());
#else
  return __builtin_amdgcn_ballot_w32(p);
#endif
}


/* ---------------------------------------------------------------------------
 * Global memory. AMD has no separate read-only path: cache loads are plain
 * global loads (the vector L1 and L2 serve them). The address must be
 * aligned to the access size; callers decide the width at compile time from
 * the layout's alignment (numeric.h).
 * ------------------------------------------------------------------------ */
TQ_INLINE u32x4 loadGlobal16(const void *p) {
  return *(const hip_detail::Global<u32x4> *)p;
}
TQ_INLINE u32x2 loadGlobal8(const void *p) {
  return *(const hip_detail::Global<u32x2> *)p;
}
TQ_INLINE uint32_t loadGlobal4(const void *p) {
  return *(const hip_detail::Global<uint32_t> *)p;
}
TQ_INLINE uint32_t loadGlobal2(const void *p) {
  return *(const hip_detail::Global<uint16_t> *)p;
}
TQ_INLINE uint32_t loadGlobal1(const void *p) {
  return *(const hip_detail::Global<uint8_t> *)p;
}

TQ_INLINE void storeGlobal16(void *p, u32x4 v) {
  *(hip_detail::Global<u32x4> *)p = v;
}
TQ_INLINE void storeGlobal8(void *p, u32x2 v) {
  *(hip_detail::Global<u32x2> *)p = v;
}
TQ_INLINE void storeGlobal4(void *p, uint32_t v) {
  *(hip_detail::Global<uint32_t> *)p = v;
}
TQ_INLINE void storeGlobal2(void *p, uint32_t v) {
  *(hip_detail::Global<uint16_t> *)p = uint16_t(v);
}
TQ_INLINE void storeGlobal1(void *p, uint32_t v) {
  *(hip_detail::Global<uint8_t> *)p = uint8_t(v);
}

/* target_cuda.h's dynamic shared memory (its bulk copies and barriers:
 * no_bulk_copy.h, included at the end; AMD targets have no warp mma, so the
 * decode never takes the ring that uses them). */
TQ_INLINE uint8_t *dynamicShared() {
  extern __shared__ uint8_t tqDynamicShared[];
  return tqDynamicShared;
}
TQ_INLINE uint32_t dynamicSharedBytes() { return 0u; }

/* Address alignment test for run-time strides (activations). */
TQ_INLINE bool isAligned(const void *p, int bytes) {
  return (uint64_t(hip_detail::uintptr(p)) & uint64_t(bytes - 1)) == 0;
}

/* ---------------------------------------------------------------------------
 * Bits
 * ------------------------------------------------------------------------ */
TQ_INLINE float bitsToFloat(uint32_t u) { return __builtin_bit_cast(float, u); }
TQ_INLINE uint32_t floatToBits(float f) {
  return __builtin_bit_cast(uint32_t, f);
}
/* (hi:lo) >> shift, low 32 bits; shift in 0..31 (v_alignbit_b32). */
TQ_INLINE uint32_t funnelShiftRight(uint32_t lo, uint32_t hi, uint32_t shift) {
  return __builtin_amdgcn_alignbit(hi, lo, shift);
}
TQ_INLINE int popCount(uint32_t x) { return __builtin_popcount(x); }

/* ---------------------------------------------------------------------------
 * Math: the libm names the stage headers call, as builtins (no ocml).
 * ------------------------------------------------------------------------ */
TQ_INLINE float fmaf(float a, float b, float c) {
  return __builtin_fmaf(a, b, c);
}
TQ_INLINE double fma(double a, double b, double c) {
  return __builtin_fma(a, b, c);
}
TQ_INLINE float fmaxf(float a, float b) { return __builtin_fmaxf(a, b); }
TQ_INLINE float fminf(float a, float b) { return __builtin_fminf(a, b); }
TQ_INLINE float fabsf(float x) { return __builtin_fabsf(x); }
TQ_INLINE double fabs(double x) { return __builtin_fabs(x); }
TQ_INLINE float floorf(float x) { return __builtin_floorf(x); }
TQ_INLINE double floor(double x) { return __builtin_floor(x); }

/* ---------------------------------------------------------------------------
 * Small-float conversions (round to nearest even, like numerics/minifloat.h)
 * ------------------------------------------------------------------------ */
TQ_INLINE float bf16BitsToFloat(uint32_t b) {
  return __builtin_bit_cast(float, (b & 0xffffu) << 16);
}
/* v_cvt_pk_bf16_f32 on gfx950, an exact integer sequence before it. */
TQ_INLINE uint32_t floatToBf16Bits(float f) {
  return __builtin_bit_cast(uint16_t, (__bf16)f);
}
TQ_INLINE float f16BitsToFloat(uint32_t b) {
  return float(__builtin_bit_cast(_Float16, uint16_t(b)));
}
TQ_INLINE uint32_t floatToF16Bits(float f) {
  return __builtin_bit_cast(uint16_t, (_Float16)f);
}
/* One rounding straight from double (the host codec rounds its float64
 * scalars to fp16 this way, so the stored bytes agree). LLVM lowers the
 * f64 -> f16 truncation to an exact integer sequence (not through f32). */
TQ_INLINE uint32_t doubleToF16Bits(double d) {
  return __builtin_bit_cast(uint16_t, (_Float16)d);
}

/* double -> float rounded to odd (truncate, then set the last bit if
 * anything was lost). Rounding that float once more to a format with at
 * least two fewer significand bits (bf16, fp8) gives the correctly rounded
 * result of the double: no double-rounding error. AMD has no per-instruction
 * round-toward-zero convert: round to nearest, then step one ulp towards
 * zero if that went past d in magnitude (inf steps back to FLT_MAX, which is
 * the truncation of any finite double beyond it). */
TQ_INLINE float doubleToFloatRoundOdd(double d) {
  float f = float(d);
  if (__builtin_fabs(double(f)) > __builtin_fabs(d))
    f = bitsToFloat(floatToBits(f) - 1u);
  if (double(f) != d)
    f = bitsToFloat(floatToBits(f) | 1u);
  return f;
}

/* fp8 e4m3 ("FN": bias 7, max 448, no inf, 0x7F/0xFF NaN), saturating.
 * Software: gfx942's fp8 conversions use the FNUZ encoding (bias 8), and
 * this path is bit-exact with target_cuda.h's (cvt...satfinite.e4m3x2). */
TQ_INLINE uint32_t floatToE4m3Bits(float x) {
  const uint32_t u = floatToBits(x);
  const uint32_t sign = (u >> 24) & 0x80u;
  const uint32_t mag = u & 0x7fffffffu;
  if (mag > 0x7f800000u) // NaN
    return sign | 0x7fu;
  if (mag >= 0x43e00000u) // >= 448: saturate (448 is the largest finite)
    return sign | 0x7eu;
  if (mag < 0x3c800000u) { // below 2^-6: subnormal grid of step 2^-9
    // |x|·2^9 is exact; rint rounds half to even. 8 units carry into the
    // smallest normal (code 0x08) by themselves.
    return sign | uint32_t(int(__builtin_rintf(bitsToFloat(mag) * 512.0f)));
  }
  // Normal: round the 23-bit mantissa to 3 bits, half to even; a carry
  // moves into the exponent as it should. Rebias 127 -> 7.
  const uint32_t rounded = (mag + 0x7ffffu + ((mag >> 20) & 1u)) >> 20;
  return sign | (rounded - ((127u - 7u) << 3));
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
/* 2^x; exp2(-inf) = 0 (v_exp_f32; results below 2^-126 flush to 0). */
TQ_INLINE float exp2Fast(float x) { return __builtin_amdgcn_exp2f(x); }
/* 1/x to about 1 ulp (v_rcp_f32), no IEEE slow path (the decode normalizes
 * by a softmax sum >= 1). */
TQ_INLINE float log2Fast(float x) { return __builtin_amdgcn_logf(x); }
TQ_INLINE float rcpFast(float x) { return __builtin_amdgcn_rcpf(x); }
/* 1/x rounded toward +infinity (x > 0 finite): the IEEE quotient, one
 * step up where it rounded down. */
TQ_INLINE float rcpTowardInf(float x) {
  const float r = 1.0f / x;
  return __builtin_fmaf(r, x, -1.0f) < 0.0f
             ? __builtin_bit_cast(float, __builtin_bit_cast(uint32_t, r) + 1u)
             : r;
}
/* a·b + c rounded once toward -infinity, as target_cuda.h, for the store's
 * use (c = 2^23, results in [2^22, 2^24)): the nearest float r, one step
 * down where it lies above the exact value (the sign of a·b + (c - r) in
 * one fma; c - r is exact there by Sterbenz). Elsewhere it may be one step
 * high, and an exact zero is +0 (CUDA's FFMA.RM gives -0). */
TQ_INLINE float fmaDown(float a, float b, float c) {
  const float r = __builtin_fmaf(a, b, c);
  if (!(__builtin_fmaf(a, b, c - r) < 0.0f))
    return r;
  const uint32_t u = floatToBits(r);
  return bitsToFloat(r > 0.0f ? u - 1u : u + 1u); // r != 0 here
}
/* min / max that give NaN where either operand is NaN, as target_cuda.h. */
TQ_INLINE float minNaN(float a, float b) { return a < b || a != a ? a : b; }
TQ_INLINE float maxNaN(float a, float b) { return a > b || a != a ? a : b; }
/* No packed 16-bit min/max here yet (target_cuda.h's minNaN2 / maxNaN2):
 * the store takes its uniform extremes from floats. Declared for the
 * templates' discarded branches, never defined or called. */
constexpr bool kTargetHasPackedMinMax = false;
template <bool BF16> TQ_INLINE uint32_t minNaN2(uint32_t a, uint32_t b);
template <bool BF16> TQ_INLINE uint32_t maxNaN2(uint32_t a, uint32_t b);
/* All ones where a < b, else 0 (NaN: 0), as target_cuda.h. */
TQ_INLINE uint32_t maskLt(float a, float b) { return a < b ? 0xffffffffu : 0u; }
TQ_INLINE float negInf() { return bitsToFloat(0xff800000u); }
TQ_INLINE float posInf() { return bitsToFloat(0x7f800000u); }
TQ_INLINE bool isNegInf(float x) { return floatToBits(x) == 0xff800000u; }
/* Float64 division and square root rounded to nearest, for the store's
 * host-matching math. On AMDGPU the IEEE operations are inline sequences
 * (v_div_scale/v_rcp_f64/FMA/v_div_fmas/v_div_fixup; v_rsq_f64 with scaling
 * and FMA corrections), no subroutine call and no stack, and correctly
 * rounded for every operand: bit-identical to the host's operator/ and
 * std::sqrt, a superset of target_cuda.h's domain. */
TQ_INLINE double divRn(double a, double b) { return a / b; }
TQ_INLINE double sqrtRn(double x) { return __builtin_elementwise_sqrt(x); }
TQ_INLINE float floorF(float x) { return __builtin_floorf(x); }
/* IEEE float32 division and square root (the vLLM layout's store math;
 * clang's default for HIP), and the hardware reciprocal square root. */
TQ_INLINE float divF(float a, float b) { return a / b; }
TQ_INLINE float sqrtF(float x) { return __builtin_sqrtf(x); }
TQ_INLINE float rsqrtFast(float x) { return __builtin_amdgcn_rsqf(x); }
TQ_INLINE double floorD(double x) { return __builtin_floor(x); }

/* ---------------------------------------------------------------------------
 * Programmatic dependent launch (target_cuda.h: griddepcontrol on sm_90+).
 * HIP has no launch that overlaps a kernel with its predecessor in the
 * stream: kernels of one stream run to completion in order, so both calls
 * are no-ops (a kernel calling them is correct under a plain launch).
 * ------------------------------------------------------------------------ */
TQ_INLINE void waitForPrimaryGrid() {}
TQ_INLINE void allowDependentLaunch() {}

/* Cross-CTA hand-off (decode.h's split merge), as target_cuda.h: an
 * agent-scope release/acquire fence around a relaxed atomic ticket. After the
 * acquire fence (which invalidates the CU's vector L1) plain global loads
 * see the other CTAs' partials, so the coherent load is an ordinary one. */
TQ_INLINE void fenceDevice() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }
TQ_INLINE uint32_t atomicAddGlobal(uint32_t *p, uint32_t v) {
  return __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED,
                                __HIP_MEMORY_SCOPE_AGENT);
}
TQ_INLINE u32x4 loadGlobalCoherent16(const void *p) { return loadGlobal16(p); }
TQ_INLINE float loadGlobalCoherentFloat(const float *p) {
  return bitsToFloat(loadGlobal4(p));
}
/* A queue error; the ROCm runtime aborts the process on it. */
TQ_INLINE void trap() { __builtin_trap(); }

/* ---------------------------------------------------------------------------
 * Warp-level matrix multiply (decode_tc.h). Not available: see the header
 * comment. The byte / bit / f16x2 helpers below are exact implementations
 * of target_cuda.h's definitions (usable by any future AMD path); the three
 * mma-fragment primitives trap, and decode_tc.h never instantiates them
 * while kTargetHasWarpMma is false.
 * ------------------------------------------------------------------------ */
constexpr bool kTargetHasWarpMma = TQ_HAS_MMA_SYNC != 0;

TQ_INLINE void mmaF16(float (&d)[4], const uint32_t (&a)[4],
                      const uint32_t (&b)[2]) {
  (void)d, (void)a, (void)b;
  __builtin_trap();
}
TQ_INLINE void mmaBf16(float (&d)[4], const uint32_t (&a)[4],
                       const uint32_t (&b)[2]) {
  (void)d, (void)a, (void)b;
  __builtin_trap();
}
TQ_INLINE uint32_t transpose8x8b16(uint32_t x) {
  (void)x;
  __builtin_trap();
  return 0u;
}

/* Byte i of the result is byte ((sel >> 4i) & 7) of the 8-byte value
 * (hi:lo); the selector nibbles' bit 3 must be clear. v_perm_b32 takes one
 * selector byte per result byte, 0..3 = bytes of its second operand. */
TQ_INLINE uint32_t bytePerm(uint32_t lo, uint32_t hi, uint32_t sel) {
  const uint32_t s = ((sel & 0xfu) | ((sel & 0xf0u) << 4) |
                      ((sel & 0xf00u) << 8) | ((sel & 0xf000u) << 12)) &
                     0x07070707u;
  return __builtin_amdgcn_perm(hi, lo, s);
}

/* Two floats as f16x2 / bf16x2 bits (lo in the low half), round to nearest. */
TQ_INLINE uint32_t packHalf2(float lo, float hi) {
  return floatToF16Bits(lo) | (floatToF16Bits(hi) << 16);
}
TQ_INLINE uint32_t packBf16x2(float lo, float hi) {
  return floatToBf16Bits(lo) | (floatToBf16Bits(hi) << 16);
}
/* f16x2 arithmetic on bit patterns (a·b + c, a·b, a - b), round to nearest
 * (v_pk_fma_f16, v_pk_mul_f16, v_pk_add_f16); never contracted. */
TQ_INLINE uint32_t hfma2(uint32_t a, uint32_t b, uint32_t c) {
  using hip_detail::half2v;
  return __builtin_bit_cast(
      uint32_t, __builtin_elementwise_fma(__builtin_bit_cast(half2v, a),
                                          __builtin_bit_cast(half2v, b),
                                          __builtin_bit_cast(half2v, c)));
}
TQ_INLINE uint32_t hmul2(uint32_t a, uint32_t b) {
#pragma clang fp contract(off)
  using hip_detail::half2v;
  return __builtin_bit_cast(uint32_t, __builtin_bit_cast(half2v, a) *
                                          __builtin_bit_cast(half2v, b));
}
TQ_INLINE uint32_t hsub2(uint32_t a, uint32_t b) {
#pragma clang fp contract(off)
  using hip_detail::half2v;
  return __builtin_bit_cast(uint32_t, __builtin_bit_cast(half2v, a) -
                                          __builtin_bit_cast(half2v, b));
}
/* Two e4m3 bytes (bits 0..15, lower element in the low byte) as exact f16x2
 * (every e4m3 value is an fp16 value). Each byte into the high byte of its
 * half, then sign | magnitude >> 1: the 7 magnitude bits at fp16 bits 13..7
 * are the value times 2^-8 (see e4m3BitsToFloat), and the exact multiply by
 * 256 restores it. */
TQ_INLINE uint32_t e4m3x2ToHalf2(uint32_t x) {
  const uint32_t y = bytePerm(x, 0u, 0x1404); // [0, b0, 0, b1]
  const uint32_t h = ((y >> 1) & 0x3f803f80u) | (y & 0x80008000u);
  return hmul2(h, 0x5c005c00u); // x 256
}

/* a & b | c style bitwise functions of three words (LUT = the truth table
 * of f(0xf0, 0xcc, 0xaa)): the sum of the LUT's minterms, which the
 * compiler folds to a few instructions (v_bfi_b32, v_and_or_b32, v_xor3_b32,
 * ...) since LUT is a constant. */
template <uint32_t LUT>
TQ_INLINE uint32_t lop3(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r = 0u;
  TQ_UNROLL
  for (int i = 0; i < 8; ++i)
    if ((LUT >> i) & 1u)
      r |= ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c);
  return r;
}

/* Shared memory by 32-bit LDS address (the offset of p in the workgroup's
 * LDS allocation, which starts at 0). */
TQ_INLINE uint32_t sharedAddress(const void *p) {
  return uint32_t(hip_detail::uintptr((const hip_detail::Lds<void> *)p));
}
TQ_INLINE uint32_t loadShared4(uint32_t addr) {
  return *(const hip_detail::Lds<uint32_t> *)addr;
}
TQ_INLINE u32x2 loadShared8(uint32_t addr) {
  return *(const hip_detail::Lds<u32x2> *)addr;
}
TQ_INLINE void storeShared4(uint32_t addr, uint32_t v) {
  *(hip_detail::Lds<uint32_t> *)addr = v;
}

/* True on every lane when p is true on any lane of the warp. */
TQ_INLINE bool anyLane(bool p) { return ballot(p) != 0u; }

} // namespace tq

/* Lane-group reductions, built on shflXor above. */
#include "tq/group_reduce.h"
/* No bulk copies (the decode's copy ring): trapping stand-ins on trap(). */
#include "tq/no_bulk_copy.h"

#endif // TQ_TARGET_HIP_H
