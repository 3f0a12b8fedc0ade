// Host emulation of templates/tq/target_cuda.h (templates/emu/run.sh): every
// CUDA thread is a fiber; warp collectives and barriers rendezvous through
// the scheduler. For checking the kernels on a CPU only.
#ifndef TQ_TARGET_CUDA_H
#define TQ_TARGET_CUDA_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmath>
#include <ucontext.h>
#include <vector>
#include <functional>
#include <map>
#include "tq/spec_constants.h"

#define __device__
#define __host__
#define __global__
#define __constant__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) alignas(n)
#define TQ_DEVICE
#define TQ_INLINE inline
#define TQ_CONSTEXPR constexpr
#define TQ_SHARED static
#define TQ_ALIGN(n) __attribute__((aligned(n)))
#define TQ_UNROLL
#define TQ_NO_UNROLL

namespace emu {
#if defined(__x86_64__)
// Fiber switch: the callee-saved registers and the stack pointer, nothing
// else. swapcontext also saves the signal mask with a system call per switch
// (10 M calls, most of a decode test's time); the emulated kernels never
// touch signals or the FP control words.
extern "C" void emu_switch_stack(void **save_sp, void *load_sp);
asm(R"(
  .pushsection .text
  .weak emu_switch_stack
  .hidden emu_switch_stack
  .type emu_switch_stack,@function
emu_switch_stack:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size emu_switch_stack,.-emu_switch_stack
  .popsection
)");
struct Context {
  void *sp = nullptr;
  // A new context whose first switch enters `entry` (never returns) on
  // `stack`: six zero registers, then entry as the return address, then a
  // fake return address of entry's own, leaving the ABI's stack alignment.
  void start(std::vector<char> &stack, void (*entry)()) {
    uintptr_t top = (reinterpret_cast<uintptr_t>(stack.data()) + stack.size()) & ~uintptr_t(15);
    void **p = reinterpret_cast<void **>(top);
    *--p = nullptr;
    *--p = reinterpret_cast<void *>(entry);
    for (int i = 0; i < 6; ++i) *--p = nullptr;
    sp = p;
  }
};
inline void switchContext(Context &from, Context &to) { emu_switch_stack(&from.sp, to.sp); }
#else
struct Context {
  ucontext_t uc;
  void start(std::vector<char> &stack, void (*entry)()) {
    getcontext(&uc); uc.uc_stack.ss_sp = stack.data(); uc.uc_stack.ss_size = stack.size();
    uc.uc_link = nullptr; makecontext(&uc, entry, 0);
  }
};
inline void switchContext(Context &from, Context &to) { swapcontext(&from.uc, &to.uc); }
#endif
struct Fiber { Context ctx; int tid; bool done; std::vector<char> stack; };
struct Warp { uint64_t in[32][12]; int arrive = 0; int gen = 0; };
struct State {
  Context sched; std::vector<Fiber> fibers; int cur = 0;
  int bx, by, bz, nthreads; Warp warps[32]; int barArrive = 0, barGen = 0;
};
inline State &S() { static State s; return s; }
inline void yield() { State &s = S(); switchContext(s.fibers[s.cur].ctx, s.sched); }
inline int tid() { return S().fibers[S().cur].tid; }
inline void warpRendezvous() {
  Warp &w = S().warps[tid() >> 5]; int g = w.gen;
  if (++w.arrive == 32) { w.arrive = 0; w.gen++; } else while (w.gen == g) yield();
}
// Lane exchange: deposit n words, rendezvous, read, rendezvous.
template <class F> inline void exchange(const uint64_t *mine, int n, F &&use) {
  Warp &w = S().warps[tid() >> 5]; int lane = tid() & 31;
  for (int i = 0; i < n; ++i) w.in[lane][i] = mine[i];
  warpRendezvous(); use(w.in); warpRendezvous();
}
inline void ctaBarrier() {
  State &s = S(); int g = s.barGen;
  if (++s.barArrive == s.nthreads) { s.barArrive = 0; s.barGen++; } else while (s.barGen == g) yield();
}
extern std::function<void()> gBody;
inline void trampoline() {
  gBody();
  S().fibers[S().cur].done = true;
  switchContext(S().fibers[S().cur].ctx, S().sched);
  abort(); // a finished fiber is never resumed
}
inline void runCta(int bx, int by, int bz, int nthreads, std::function<void()> body) {
  State &s = S(); s.bx = bx; s.by = by; s.bz = bz; s.nthreads = nthreads; s.barArrive = 0;
  for (auto &w : s.warps) w.arrive = 0;
  gBody = body;
  s.fibers.resize(nthreads);
  for (int i = 0; i < nthreads; ++i) {
    Fiber &f = s.fibers[i]; f.tid = i; f.done = false; f.stack.resize(256 << 10);
    f.ctx.start(f.stack, trampoline);
  }
  for (;;) { bool any = false;
    for (int i = 0; i < nthreads; ++i) if (!s.fibers[i].done) { any = true; s.cur = i; switchContext(s.sched, s.fibers[i].ctx); }
    if (!any) break; }
}
extern uintptr_t gSharedBase;
// Dynamic shared memory of the CTA being run (the harness sets its size).
alignas(128) inline uint8_t gDynShared[256 << 10];
inline uint32_t gDynSharedBytes = 0;
// mbarriers by address: a phase completes when its arrivals are in and its
// announced bytes have landed (bulk copies complete at once here).
struct MBar { uint32_t phase = 0, pending = 0, expected = 0; int64_t tx = 0; };
inline std::map<const void *, MBar> &mbars() { static std::map<const void *, MBar> m; return m; }
inline MBar &mbar(const void *p) {
  auto it = mbars().find(p);
  if (it == mbars().end()) { fprintf(stderr, "emu: mbarrier used before barrierInit\n"); abort(); }
  return it->second;
}
inline void mbarSettle(MBar &b) { if (b.pending == 0 && b.tx == 0) { b.phase ^= 1u; b.pending = b.expected; } }
} // namespace emu

namespace tq {
struct bf16_t { uint16_t bits; };
struct f16_t { uint16_t bits; };
struct alignas(16) u32x4 { uint32_t x, y, z, w; };
struct alignas(8) u32x2 { uint32_t x, y; };
constexpr int kWarpSize = 32, kLog2WarpSize = 5;
inline int threadIndex() { return emu::tid(); }
inline int laneIndex() { return emu::tid() & 31; }
inline int warpIndex() { return emu::tid() >> 5; }
inline int blockIndexX() { return emu::S().bx; }
inline int blockIndexY() { return emu::S().by; }
inline int blockIndexZ() { return emu::S().bz; }
inline void barrier() { emu::ctaBarrier(); }
inline void syncWarp() { emu::warpRendezvous(); }
// The emulator runs decode and combine one after the other.
inline void waitForPrimaryGrid() {}
inline void allowDependentLaunch() {}
// CTAs run one after another: the hand-off needs no ordering.
inline void fenceDevice() {}
inline uint32_t atomicAddGlobal(uint32_t *p, uint32_t v) { uint32_t o = *p; *p = o + v; return o; }
inline u32x4 loadGlobalCoherent16(const void *p) { u32x4 r; memcpy(&r, p, 16); return r; }
inline float loadGlobalCoherentFloat(const float *p) { return *p; }
inline void trap() { fprintf(stderr, "emu: trap\n"); abort(); }
template <class R> inline R shflGeneric(R v, int src, bool isXor) {
  uint64_t m = 0; memcpy(&m, &v, sizeof(R)); R r;
  int lane = laneIndex(); int s = isXor ? (lane ^ src) : (src & 31);
  emu::exchange(&m, 1, [&](uint64_t (*in)[12]) { memcpy(&r, &in[s][0], sizeof(R)); });
  return r;
}
inline float shflXor(float v, int m) { return shflGeneric(v, m, true); }
inline double shflXor(double v, int m) { return shflGeneric(v, m, true); }
inline uint32_t shflXor(uint32_t v, int m) { return shflGeneric(v, m, true); }
inline float shflIdx(float v, int s) { return shflGeneric(v, s, false); }
inline uint32_t shflIdx(uint32_t v, int s) { return shflGeneric(v, s, false); }
inline uint32_t ballot(bool p) { uint64_t m = p; uint32_t r = 0;
  emu::exchange(&m, 1, [&](uint64_t (*in)[12]) { for (int i = 0; i < 32; ++i) r |= uint32_t(in[i][0] & 1) << i; }); return r; }
inline bool anyLane(bool p) { return ballot(p) != 0; }
inline void chkAlign(const void *p, int n) { if (((uintptr_t)p) & (n - 1)) { fprintf(stderr, "misaligned %d-byte access\n", n); abort(); } }
inline u32x4 loadGlobal16(const void *p) { chkAlign(p, 16); u32x4 r; memcpy(&r, p, 16); return r; }
inline u32x2 loadGlobal8(const void *p) { chkAlign(p, 8); u32x2 r; memcpy(&r, p, 8); return r; }
inline uint32_t loadGlobal4(const void *p) { chkAlign(p, 4); uint32_t r; memcpy(&r, p, 4); return r; }
inline uint32_t loadGlobal2(const void *p) { chkAlign(p, 2); uint16_t r; memcpy(&r, p, 2); return r; }
inline uint32_t loadGlobal1(const void *p) { return *(const uint8_t *)p; }
inline void storeGlobal16(void *p, u32x4 v) { memcpy(p, &v, 16); }
inline void storeGlobal8(void *p, u32x2 v) { memcpy(p, &v, 8); }
inline void storeGlobal4(void *p, uint32_t v) { memcpy(p, &v, 4); }
inline void storeGlobal2(void *p, uint32_t v) { uint16_t x = v; memcpy(p, &x, 2); }
inline void storeGlobal1(void *p, uint32_t v) { *(uint8_t *)p = v; }
inline bool isAligned(const void *p, int b) { return ((uintptr_t)p & (b - 1)) == 0; }
inline float bitsToFloat(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
inline uint32_t floatToBits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
inline uint32_t funnelShiftRight(uint32_t lo, uint32_t hi, uint32_t s) { s &= 31; return s ? (lo >> s) | (hi << (32 - s)) : lo; }
inline int popCount(uint32_t x) { return __builtin_popcount(x); }
inline float bf16BitsToFloat(uint32_t b) { return bitsToFloat((b & 0xffffu) << 16); }
inline uint32_t floatToBf16Bits(float f) { uint32_t u = floatToBits(f); if ((u & 0x7fffffff) > 0x7f800000) return 0x7fc0; u += 0x7fff + ((u >> 16) & 1); return u >> 16; }
// fp16 -> fp32 through a table of all 65536 values (exact, filled once by
// the compiler's conversion): libgcc's software conversion was ~3/4 of an
// emulated decode's time (every mma operand).
inline const float *f16Table() {
  static const std::vector<float> t = [] {
    std::vector<float> v(65536);
    for (uint32_t i = 0; i < 65536; ++i) { uint16_t x = uint16_t(i); _Float16 h; memcpy(&h, &x, 2); v[i] = (float)h; }
    return v;
  }();
  return t.data();
}
inline float f16BitsToFloat(uint32_t b) { return f16Table()[b & 0xffffu]; }
inline uint32_t floatToF16Bits(float f) { _Float16 h = (_Float16)f; uint16_t x; memcpy(&x, &h, 2); return x; }
inline uint32_t doubleToF16Bits(double d) { _Float16 h = (_Float16)d; uint16_t x; memcpy(&x, &h, 2); return x; }
inline float doubleToFloatRoundOdd(double d) { float f = (float)d; /* approx */ return f; }
inline float e4m3BitsToFloat(uint32_t b) { uint32_t h = ((b & 0x80u) << 8) | ((b & 0x7fu) << 7); return f16BitsToFloat(h) * 256.0f; }
// cvt.rn.satfinite.e4m3: nearest of the finite codes (ties to an even code), saturating at 448.
inline uint32_t floatToE4m3Bits(float f) {
  if (f != f) return 0x7f;
  const uint32_t sign = signbit(f) ? 0x80u : 0u; const float a = fabsf(f);
  uint32_t best = 0; float bestErr = INFINITY;
  for (uint32_t c = 0; c <= 0x7e; ++c) { const float e = fabsf(e4m3BitsToFloat(c) - a); if (e < bestErr || (e == bestErr && !(c & 1))) { best = c; bestErr = e; } }
  return sign | best;
}
inline float exp2Fast(float x) { return exp2f(x); }
inline float log2Fast(float x) { return log2f(x); }
inline float rcpFast(float x) { return 1.0f / x; }
// 1/x rounded toward +infinity: the double quotient's float, stepped up
// where it rounded down (x > 0 finite).
inline float rcpTowardInf(float x) {
  const double q = 1.0 / double(x);
  float f = float(q);
  if (double(f) < q) f = std::nextafter(f, INFINITY);
  return f;
}
// a·b + c rounded once toward -infinity: the nearest float, stepped down
// where it lies above the exact value (the sign of a·b + (c - r) in one
// double fma: a·b is exact in double, and c - r is where c and r are within
// 2^29 of each other, as in the store's use: c = 2^23).
inline float fmaDown(float a, float b, float c) {
  float r = std::fmaf(a, b, c);
  if (std::fma(double(a), double(b), double(c) - double(r)) < 0.0)
    r = std::nextafter(r, -INFINITY);
  return r;
}
inline float minNaN(float a, float b) { return a < b || a != a ? a : b; }
inline float maxNaN(float a, float b) { return a > b || a != a ? a : b; }
inline uint32_t maskLt(float a, float b) { return a < b ? 0xffffffffu : 0u; }
// min/max.NaN.{bf16,f16}x2 per half: the chosen operand's bits, or the
// canonical NaN 0x7fff where either is NaN.
constexpr bool kTargetHasPackedMinMax = true;
template <bool BF16, bool MAX> inline uint32_t minMaxNaN2(uint32_t a, uint32_t b) {
  uint32_t r = 0;
  for (int h = 0; h < 2; ++h) {
    const uint32_t x = (a >> (16 * h)) & 0xffffu, y = (b >> (16 * h)) & 0xffffu;
    const float fx = BF16 ? bf16BitsToFloat(x) : f16BitsToFloat(x);
    const float fy = BF16 ? bf16BitsToFloat(y) : f16BitsToFloat(y);
    const uint32_t pick = fx != fx || fy != fy ? 0x7fffu
                          : (MAX ? fx > fy : fx < fy) ? x : y;
    r |= pick << (16 * h);
  }
  return r;
}
template <bool BF16> inline uint32_t minNaN2(uint32_t a, uint32_t b) { return minMaxNaN2<BF16, false>(a, b); }
template <bool BF16> inline uint32_t maxNaN2(uint32_t a, uint32_t b) { return minMaxNaN2<BF16, true>(a, b); }
inline float negInf() { return -INFINITY; }
inline float posInf() { return INFINITY; }
inline bool isNegInf(float x) { return x == -INFINITY; }
inline double divRn(double a, double b) { return a / b; }
inline double sqrtRn(double x) { return sqrt(x); }
inline float floorF(float x) { return floorf(x); }
inline float divF(float a, float b) { return a / b; }
inline float sqrtF(float x) { return sqrtf(x); }
inline float rsqrtFast(float x) { return 1.0f / sqrtf(x); }
inline double floorD(double x) { return floor(x); }

constexpr bool kTargetHasWarpMma = true;
inline float h2lo(uint32_t x) { return f16BitsToFloat(x & 0xffff); }
inline float h2hi(uint32_t x) { return f16BitsToFloat(x >> 16); }
inline float b2lo(uint32_t x) { return bf16BitsToFloat(x & 0xffff); }
inline float b2hi(uint32_t x) { return bf16BitsToFloat(x >> 16); }
template <bool BF> inline void mmaGeneric(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  uint64_t mine[6] = {a[0], a[1], a[2], a[3], b[0], b[1]};
  int lane = laneIndex(), g = lane >> 2, t = lane & 3; float out[4];
  emu::exchange(mine, 6, [&](uint64_t (*in)[12]) {
    float A[16][16], B[16][8];
    for (int l = 0; l < 32; ++l) { int gg = l >> 2, tt = l & 3;
      auto lo = [&](uint64_t x) { return BF ? b2lo(x) : h2lo(x); };
      auto hi = [&](uint64_t x) { return BF ? b2hi(x) : h2hi(x); };
      A[gg][2*tt] = lo(in[l][0]); A[gg][2*tt+1] = hi(in[l][0]);
      A[gg+8][2*tt] = lo(in[l][1]); A[gg+8][2*tt+1] = hi(in[l][1]);
      A[gg][2*tt+8] = lo(in[l][2]); A[gg][2*tt+9] = hi(in[l][2]);
      A[gg+8][2*tt+8] = lo(in[l][3]); A[gg+8][2*tt+9] = hi(in[l][3]);
      B[2*tt][gg] = lo(in[l][4]); B[2*tt+1][gg] = hi(in[l][4]);
      B[2*tt+8][gg] = lo(in[l][5]); B[2*tt+9][gg] = hi(in[l][5]); }
    int rows[4] = {g, g, g + 8, g + 8}, cols[4] = {2*t, 2*t+1, 2*t, 2*t+1};
    for (int i = 0; i < 4; ++i) { float s = 0; for (int k = 0; k < 16; ++k) s += A[rows[i]][k] * B[k][cols[i]]; out[i] = s; }
  });
  for (int i = 0; i < 4; ++i) d[i] += out[i];
}
inline void mmaF16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) { mmaGeneric<false>(d, a, b); }
inline void mmaBf16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) { mmaGeneric<true>(d, a, b); }
inline uint32_t transpose8x8b16(uint32_t x) {
  uint64_t m = x; int lane = laneIndex(), r = lane >> 2, c = lane & 3; uint32_t out = 0;
  emu::exchange(&m, 1, [&](uint64_t (*in)[12]) {
    auto el = [&](int row, int col) { uint32_t w = in[row * 4 + col / 2][0]; return (col & 1) ? (w >> 16) : (w & 0xffff); };
    out = el(2 * c, r) | (el(2 * c + 1, r) << 16); });
  return out;
}
// ldmatrix: every lane's row address goes round the warp; lane l takes
// its fragment word of each matrix (row l/4, elements 2(l%4), 2(l%4)+1, or
// of the transpose).
template <bool TRANS> inline void ldmatrixGeneric(uint32_t (&r)[4], const void *row) {
  chkAlign(row, 16); uint64_t m = (uintptr_t)row; int lane = laneIndex(), a = lane >> 2, b = lane & 3;
  emu::exchange(&m, 1, [&](uint64_t (*in)[12]) {
    for (int i = 0; i < 4; ++i) {
      auto el = [&](int rr, int cc) { uint16_t v; memcpy(&v, (const uint8_t *)(uintptr_t)in[8 * i + rr][0] + 2 * cc, 2); return uint32_t(v); };
      r[i] = TRANS ? el(2 * b, a) | (el(2 * b + 1, a) << 16) : el(a, 2 * b) | (el(a, 2 * b + 1) << 16);
    } });
}
inline void ldmatrixX4(uint32_t (&r)[4], const void *row) { ldmatrixGeneric<false>(r, row); }
inline void ldmatrixX4Trans(uint32_t (&r)[4], const void *row) { ldmatrixGeneric<true>(r, row); }
// cp.async: the copy happens at once (the kernels wait and barrier before
// reading, which the emulator's order makes trivially true).
inline void copyAsync16(void *smem, const void *gmem) { chkAlign(smem, 16); chkAlign(gmem, 16); memcpy(smem, gmem, 16); }
// cp.async of the first `bytes` (16 or 0) of gmem, zeros after them.
inline void copyAsync16Fill(void *smem, const void *gmem, uint32_t bytes) {
  chkAlign(smem, 16);
  chkAlign(gmem, 16);
  if (bytes != 0u && bytes != 16u) { fprintf(stderr, "emu: copyAsync16Fill of %u bytes\n", bytes); abort(); }
  memset(smem, 0, 16);
  memcpy(smem, gmem, bytes);
}
inline void copyAsyncCommit() {}
template <int N> inline void copyAsyncWait() {}
// Bulk copies and mbarriers (target_cuda.h): the copy happens at once; a
// wait on a phase that cannot complete aborts instead of hanging.
constexpr bool kTargetHasBulkCopy = true;
inline void barrierInit(uint64_t *bar, uint32_t n) { chkAlign(bar, 8); emu::MBar b; b.pending = b.expected = n; emu::mbars()[bar] = b; }
inline void fenceBarrierInit() {}
inline void fenceProxyAsyncShared() {}
inline void arriveExpectBytes(uint64_t *bar, uint32_t bytes) {
  emu::MBar &b = emu::mbar(bar); if (b.pending == 0) { fprintf(stderr, "emu: mbarrier arrival beyond its count\n"); abort(); }
  b.tx += bytes; b.pending--; emu::mbarSettle(b); }
inline void bulkCopyToShared(void *smem, const void *gmem, uint32_t bytes, uint64_t *bar) {
  chkAlign(smem, 16); chkAlign(gmem, 16); if (bytes % 16) { fprintf(stderr, "emu: bulk copy of %u bytes\n", bytes); abort(); }
  const uint8_t *d = (const uint8_t *)smem, *dyn = emu::gDynShared;
  if (d >= dyn && d < dyn + sizeof(emu::gDynShared) && d + bytes > dyn + emu::gDynSharedBytes) {
    fprintf(stderr, "emu: bulk copy past the launch's dynamic shared memory\n"); abort(); }
  memcpy(smem, gmem, bytes); emu::MBar &b = emu::mbar(bar); b.tx -= bytes; emu::mbarSettle(b); }
inline void bulkCopyToGlobal(void *gmem, const void *smem, uint32_t bytes) {
  chkAlign(smem, 16); chkAlign(gmem, 16); if (bytes % 16) { fprintf(stderr, "emu: bulk copy of %u bytes\n", bytes); abort(); }
  memcpy(gmem, smem, bytes); }
inline void bulkCommit() {}
inline void bulkWaitRead() {}
inline void barrierWait(uint64_t *bar, uint32_t parity) {
  for (int i = 0; emu::mbar(bar).phase == (parity & 1u); ++i) {
    if (i > 100000) { fprintf(stderr, "emu: mbarrier phase %u never completes\n", parity & 1u); abort(); }
    emu::yield(); } }
inline uint8_t *dynamicShared() { return emu::gDynShared; }
inline uint32_t dynamicSharedBytes() { return emu::gDynSharedBytes; }
inline uint32_t bytePerm(uint32_t lo, uint32_t hi, uint32_t sel) {
  uint64_t v = lo | (uint64_t(hi) << 32); uint32_t r = 0;
  for (int i = 0; i < 4; ++i) { int s = (sel >> (4 * i)) & 15; if (s & 8) abort(); r |= uint32_t((v >> (8 * s)) & 0xff) << (8 * i); }
  return r;
}
inline uint32_t packH(float lo, float hi) { return floatToF16Bits(lo) | (floatToF16Bits(hi) << 16); }
inline uint32_t packHalf2(float lo, float hi) { return packH(lo, hi); }
inline uint32_t packBf16x2(float lo, float hi) { return floatToBf16Bits(lo) | (floatToBf16Bits(hi) << 16); }
inline uint32_t hfma2(uint32_t a, uint32_t b, uint32_t c) { return packH((float)(_Float16)fmaf(h2lo(a), h2lo(b), h2lo(c)), fmaf(h2hi(a), h2hi(b), h2hi(c))); }
inline uint32_t hmul2(uint32_t a, uint32_t b) { return packH(h2lo(a) * h2lo(b), h2hi(a) * h2hi(b)); }
inline uint32_t hsub2(uint32_t a, uint32_t b) { return packH(h2lo(a) - h2lo(b), h2hi(a) - h2hi(b)); }
inline uint32_t e4m3x2ToHalf2(uint32_t x) { return packH(e4m3BitsToFloat(x & 0xff), e4m3BitsToFloat((x >> 8) & 0xff)); }
template <uint32_t LUT> inline uint32_t lop3(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r = 0; for (int i = 0; i < 32; ++i) { int idx = (((a >> i) & 1) << 2) | (((b >> i) & 1) << 1) | ((c >> i) & 1); r |= ((LUT >> idx) & 1u) << i; } return r; }
inline uint32_t sharedAddress(const void *p) { return uint32_t((uintptr_t)p - emu::gSharedBase); }
inline void storeShared4(uint32_t addr, uint32_t v) { chkAlign((void*)(uintptr_t)addr, 4); memcpy((void *)(emu::gSharedBase + addr), &v, 4); }
inline uint32_t loadShared4(uint32_t addr) { chkAlign((void*)(uintptr_t)addr, 4); uint32_t r; memcpy(&r, (const void *)(emu::gSharedBase + addr), 4); return r; }
inline u32x2 loadShared8(uint32_t addr) { chkAlign((void*)(uintptr_t)addr, 8); u32x2 r; memcpy(&r, (const void *)(emu::gSharedBase + addr), 8); return r; }
} // namespace tq

#include "tq/group_reduce.h"
#endif
