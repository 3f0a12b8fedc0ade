//===- StoreCodesTest.cpp - The store's code arithmetic, on the host ------===//
//
// The store kernel's per-coordinate code math (templates/tq/store.h and
// numeric.h), compiled for the host against the target layer's CPU
// emulation, checked against plain references:
//   - roundHalfUpFloor: the uniform code floor((y - z)/s + 1/2) as the
//     float64 host computes it, for bf16 coordinates, fp16 zeros and scales,
//     on random points and on exact half steps (which must round up);
//   - signCellCodes / countCellsAbove: Lloyd-Max codes of 2..4 bits and the
//     per-threshold counts, against compares, for random coordinates, exact
//     threshold hits, +-0 and thresholds at infinity (a zero vector);
//   - packLaneCodesBiased: the same words as packLaneCodes.
// The emulator's store runs (ctest -R emu_) check the whole kernel's bytes
// against the host codec; these pin the pieces down where they can differ.
//
//===----------------------------------------------------------------------===//
#include "tq/target_cuda.h" // the emulation (templates/emu), by include path
#include "tq/store.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <vector>

namespace emu {
std::function<void()> gBody;
uintptr_t gSharedBase;
} // namespace emu

namespace {

using namespace tq;
using namespace tq::store_detail;

float bf16Round(float x) { return bf16BitsToFloat(floatToBf16Bits(x)); }
float f16Round(float x) { return f16BitsToFloat(floatToF16Bits(x)); }

// The host's code: floor((y - z) / s + 1/2) in float64 (y - z is exact).
long hostUniformCode(float y, float z, float s) {
  return long(std::floor((double(y) - double(z)) / double(s) + 0.5));
}

TEST(StoreCodes, UniformCodesMatchTheHostOnBf16Inputs) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> unit(-1.f, 1.f);
  long checked = 0, halfSteps = 0, mismatches = 0;
  for (int top : {3, 7, 15}) {
    for (int v = 0; v < 4000; ++v) {
      // A vector's grid: zero at its min, scale (max - min) / top, as the
      // store rounds them to fp16.
      const float spread = std::ldexp(1.f, int(unit(rng) * 12.f));
      const float lo = bf16Round(unit(rng) * 4.f * spread);
      const float hi = bf16Round(lo + spread * (1.f + unit(rng) * 0.5f));
      const float z = f16Round(lo), s = f16Round((hi - lo) / float(top));
      if (!(s > 0.f))
        continue;
      const float zh = z - 0.5f * s, r = rcpTowardInf(s);
      auto check = [&](float y) {
        const long want = hostUniformCode(y, z, s);
        if (want < 0 || want > top)
          return; // the kernel clamps these (roundHalfUpFloorClamped)
        ++checked;
        if (long(roundHalfUpFloor(y - zh, r)) != want)
          ++mismatches;
      };
      for (int i = 0; i < 64; ++i)
        check(bf16Round(z + (unit(rng) * 0.5f + 0.5f) * float(top) * s));
      // Exact half steps (bf16 inputs land on them often): they round up.
      for (int k = 0; k < top; ++k) {
        const double half = double(z) + (k + 0.5) * double(s);
        const float y = bf16Round(float(half));
        if (double(y) == half) {
          ++halfSteps;
          check(y);
        }
      }
    }
  }
  EXPECT_GT(checked, 500000);
  EXPECT_GT(halfSteps, 1000);
  EXPECT_EQ(mismatches, 0) << "of " << checked << " codes";
}

TEST(StoreCodes, ClampedUniformCodesStayInRange) {
  const float s = 0.1f, zh = 1.f - 0.05f, r = rcpTowardInf(s);
  for (float y : {-1e30f, -5.f, 0.9f, 1.f, 2.55f, 3.f, 1e30f, NAN}) {
    const uint32_t c = roundHalfUpFloorClamped(y - zh, r, 15);
    EXPECT_LE(c, 15u) << "y " << y;
    if (y <= 0.9f)
      EXPECT_EQ(c, 0u);
    if (y >= 3.f && !std::isnan(y))
      EXPECT_EQ(c, 15u);
  }
  // Below zero, at 2^23 and above, and NaN read as codes above any top:
  // the range test on a vector's extremes sends those vectors to the clamp.
  for (float e : {-0.5f, -1e30f, 1e30f, float(NAN)})
    EXPECT_GT(roundHalfUpFloor(e, r), 15u) << "e " << e;
}

// Reference Lloyd-Max code of u: m = #{thresholds <= |u|}, M + m above
// zero, M - 1 - m below (u = -0.0 above, as the host's -0.0 < 0 is false).
template <int BITS>
uint32_t hostCellCode(float u, const float *thr) {
  constexpr int M = 1 << (BITS - 1);
  int m = 0;
  for (int k = 0; k < M - 1; ++k)
    m += std::fabs(u) >= thr[k];
  return u < 0.f ? uint32_t(M - 1 - m) : uint32_t(M + m);
}

template <int E, int BITS> void checkCells(std::mt19937 &rng, int vectors) {
  constexpr int M = 1 << (BITS - 1), NT = M - 1;
  std::uniform_real_distribution<float> unit(-1.f, 1.f);
  for (int v = 0; v < vectors; ++v) {
    float thr[NT];
    const bool zeroVector = v % 17 == 0;
    for (int k = 0; k < NT; ++k)
      thr[k] = zeroVector ? INFINITY : 0.3f * float(k + 1) + 0.1f * unit(rng);
    float y[E];
    for (int i = 0; i < E; ++i) {
      const int pick = (v * E + i) % 11;
      y[i] = zeroVector   ? (i % 2 ? -0.f : 0.f)
             : pick == 0  ? -0.f
             : pick == 1  ? 0.f
             : pick == 2  ? thr[(v + i) % NT] * (i % 2 ? -1.f : 1.f)
                          : unit(rng) * 2.f;
    }
    uint32_t got[4], want[4];
    signCellCodes<E, BITS, NT>(y, thr, got);
    uint32_t codes[E];
    int wantAtLeast[NT] = {};
    for (int i = 0; i < E; ++i) {
      codes[i] = hostCellCode<BITS>(y[i], thr);
      int mm = 0; // thresholds above |u|
      for (int k = 0; k < NT; ++k)
        mm += std::fabs(y[i]) < thr[k];
      for (int j = 1; j <= mm; ++j)
        ++wantAtLeast[j - 1];
    }
    packLaneCodes<E, BITS>(codes, want);
    for (int w = 0; w < (E * BITS + 31) / 32; ++w)
      ASSERT_EQ(got[w], want[w]) << "E " << E << " bits " << BITS
                                 << " vector " << v << " word " << w;
    int atLeast[NT];
    countCellsAbove<E, BITS>(got, atLeast);
    for (int j = 0; j < NT; ++j)
      ASSERT_EQ(atLeast[j], wantAtLeast[j])
          << "E " << E << " bits " << BITS << " vector " << v << " j " << j + 1;
  }
}

TEST(StoreCodes, SignCellCodesMatchCompares) {
  std::mt19937 rng(11);
  checkCells<32, 2>(rng, 300);
  checkCells<32, 3>(rng, 300);
  checkCells<32, 4>(rng, 300);
  checkCells<16, 2>(rng, 300);
  checkCells<16, 3>(rng, 300);
  checkCells<16, 4>(rng, 300);
  checkCells<8, 3>(rng, 300);
  checkCells<8, 4>(rng, 300);
}

template <int E, int BITS> void checkBiased(std::mt19937 &rng) {
  constexpr uint32_t kBias = kTwo23Bits;
  for (int v = 0; v < 200; ++v) {
    uint32_t codes[E], raw[E];
    for (int i = 0; i < E; ++i) {
      codes[i] = rng() & ((1u << BITS) - 1u);
      raw[i] = codes[i] + kBias;
    }
    uint32_t want[4], got[4];
    packLaneCodes<E, BITS>(codes, want);
    packLaneCodesBiased<E, BITS, kBias>(raw, got);
    for (int w = 0; w < (E * BITS + 31) / 32; ++w)
      ASSERT_EQ(got[w], want[w]) << "E " << E << " bits " << BITS << " word " << w;
  }
}

TEST(StoreCodes, BiasedPackingMatchesPacking) {
  std::mt19937 rng(3);
  checkBiased<32, 2>(rng);
  checkBiased<32, 3>(rng); // codes straddling words
  checkBiased<32, 4>(rng);
  checkBiased<16, 3>(rng);
  checkBiased<16, 4>(rng);
  checkBiased<8, 4>(rng);
}

} // namespace
