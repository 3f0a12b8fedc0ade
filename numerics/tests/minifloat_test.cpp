// fp16 / bf16 / fp8 e4m3: rounding goldens, round trips of every code, and
// cross-checks against independent oracles.
#include "tqc/numerics/minifloat.h"
#include "tqc/numerics/random.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>

using namespace tqc;

TEST(Fp16, Goldens) {
  EXPECT_EQ(encodeFp16(1.0), 0x3C00);
  EXPECT_EQ(encodeFp16(-2.0), 0xC000);
  EXPECT_EQ(encodeFp16(-0.0), 0x8000);
  EXPECT_EQ(encodeFp16(1.0 / 3), 0x3555);
  EXPECT_EQ(decodeFp16(0x3555), 0.333251953125);
  EXPECT_EQ(encodeFp16(65504), 0x7BFF);
  EXPECT_EQ(encodeFp16(65519.99), 0x7BFF);
  EXPECT_EQ(encodeFp16(65520), 0x7C00); // tie rounds up to even → overflow
  EXPECT_EQ(encodeFp16(1e6), 0x7C00);
  EXPECT_EQ(encodeFp16(-INFINITY), 0xFC00);
  EXPECT_EQ(encodeFp16(NAN), 0x7E00);
  // Ties to even.
  EXPECT_EQ(encodeFp16(1 + std::ldexp(1, -11)), 0x3C00);
  EXPECT_EQ(encodeFp16(1 + 3 * std::ldexp(1, -11)), 0x3C02);
  // Subnormals: 2^-24 is the smallest; half of it ties to 0.
  EXPECT_EQ(encodeFp16(std::ldexp(1, -24)), 0x0001);
  EXPECT_EQ(decodeFp16(0x0001), std::ldexp(1, -24));
  EXPECT_EQ(encodeFp16(std::ldexp(1, -25)), 0x0000);
  EXPECT_EQ(encodeFp16(std::ldexp(3, -26)), 0x0001);
  EXPECT_EQ(encodeFp16(std::ldexp(3, -25)), 0x0002);
  // The largest subnormal rounding up into the smallest normal.
  EXPECT_EQ(encodeFp16(std::ldexp(1, -14) - std::ldexp(1, -25)), 0x0400);
  EXPECT_TRUE(std::isinf(decodeFp16(0x7C00)));
  EXPECT_TRUE(std::isnan(decodeFp16(0x7E00)));
}

TEST(Bf16, Goldens) {
  EXPECT_EQ(encodeBf16(1.0), 0x3F80);
  EXPECT_EQ(encodeBf16(-1.0), 0xBF80);
  EXPECT_EQ(encodeBf16(M_PI), 0x4049);
  EXPECT_EQ(decodeBf16(0x4049), 3.140625);
  EXPECT_EQ(encodeBf16(1 + std::ldexp(1, -8)), 0x3F80);
  EXPECT_EQ(encodeBf16(1 + 3 * std::ldexp(1, -8)), 0x3F82);
  EXPECT_EQ(encodeBf16(FLT_MAX), 0x7F80); // rounds past the largest bf16
  EXPECT_EQ(decodeBf16(0x7F7F), 3.3895313892515355e38);
  EXPECT_EQ(encodeBf16(std::ldexp(1, -133)), 0x0001);
  EXPECT_EQ(encodeBf16(NAN), 0x7FC0);
}

TEST(Fp8E4M3, Goldens) {
  EXPECT_EQ(encodeFp8E4M3(448), 0x7E);
  EXPECT_EQ(encodeFp8E4M3(0.5), 0x30);
  EXPECT_EQ(encodeFp8E4M3(1.0), 0x38);
  EXPECT_EQ(encodeFp8E4M3(240), 0x77);
  EXPECT_EQ(encodeFp8E4M3(256), 0x78);
  EXPECT_EQ(encodeFp8E4M3(std::ldexp(1, -9)), 0x01); // smallest subnormal
  EXPECT_EQ(decodeFp8E4M3(0x01), std::ldexp(1, -9));
  EXPECT_EQ(encodeFp8E4M3(std::ldexp(7, -9)), 0x07); // largest subnormal
  EXPECT_EQ(encodeFp8E4M3(std::ldexp(1, -6)), 0x08); // smallest normal
  // Saturation (satfinite): no inf in e4m3fn.
  EXPECT_EQ(encodeFp8E4M3(1000), 0x7E);
  EXPECT_EQ(encodeFp8E4M3(-1000), 0xFE);
  EXPECT_EQ(encodeFp8E4M3(464), 0x7E); // tie between 448 and (480): even
  EXPECT_EQ(encodeFp8E4M3(INFINITY), 0x7E);
  EXPECT_EQ(encodeFp8E4M3(-INFINITY), 0xFE);
  EXPECT_EQ(encodeFp8E4M3(NAN), 0x7F);
  EXPECT_TRUE(std::isnan(decodeFp8E4M3(0x7F)));
  EXPECT_TRUE(std::isnan(decodeFp8E4M3(0xFF)));
  EXPECT_EQ(decodeFp8E4M3(0x7E), 448);
  // Ties to even.
  EXPECT_EQ(encodeFp8E4M3(std::ldexp(1, -10)), 0x00);
  EXPECT_EQ(encodeFp8E4M3(std::ldexp(3, -10)), 0x02);
  EXPECT_EQ(encodeFp8E4M3(1.0625), 0x38);
  EXPECT_EQ(encodeFp8E4M3(1.1875), 0x3A);
}

TEST(Minifloat, EveryCodeRoundTrips) {
  for (uint32_t c = 0; c < 0x10000; ++c) {
    const double h = decodeFp16(uint16_t(c));
    const double b = decodeBf16(uint16_t(c));
    // NaN codes are not canonical; every other code must come back.
    EXPECT_TRUE(std::isnan(h) || encodeFp16(h) == c) << std::hex << c;
    EXPECT_TRUE(std::isnan(b) || encodeBf16(b) == c) << std::hex << c;
  }
  for (uint32_t c = 0; c < 0x100; ++c) {
    const double v = decodeFp8E4M3(uint8_t(c));
    EXPECT_TRUE(std::isnan(v) || encodeFp8E4M3(v) == c) << std::hex << c;
  }
}

namespace {

/// A random double spread over many binades, both signs.
double wideRandom(SplitMix64 &rng, int minExp, int maxExp) {
  const double m = 1 + rng.uniform();
  const int e = minExp + int(rng.next() % uint64_t(maxExp - minExp + 1));
  return (rng.next() & 1 ? -1 : 1) * std::ldexp(m, e);
}

/// Nearest fp8 code by search over all codes, ties to the even code, values
/// beyond 448 saturated: an oracle independent of the rounding routine.
uint8_t fp8ByBruteForce(double x) {
  const double a = std::min(std::abs(x), 448.0);
  uint8_t best = 0;
  double bestErr = INFINITY;
  for (uint8_t c = 0; c < 0x7F; ++c) {
    const double err = std::abs(decodeFp8E4M3(c) - a);
    if (err < bestErr || (err == bestErr && (c & 1) == 0)) {
      best = c;
      bestErr = err;
    }
  }
  return uint8_t(best | (x < 0 ? 0x80 : 0));
}

} // namespace

TEST(Minifloat, MatchesIndependentOracles) {
  SplitMix64 rng(42);
  for (int i = 0; i < 20000; ++i) {
    const double x = wideRandom(rng, -12, 9);
    ASSERT_EQ(encodeFp8E4M3(x), fp8ByBruteForce(x)) << x;
    // bf16 of a float: the classic bit trick (round half to even on the top
    // 16 bits).
    const float f = float(wideRandom(rng, -130, 127));
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    const uint16_t expected =
        uint16_t((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
    ASSERT_EQ(encodeBf16(f), expected) << f;
#ifdef __FLT16_MAX__
    // The compiler's own IEEE conversion to _Float16.
    const double h = wideRandom(rng, -26, 16);
    const _Float16 hf = static_cast<_Float16>(h);
    uint16_t hbits;
    std::memcpy(&hbits, &hf, 2);
    ASSERT_EQ(encodeFp16(h), hbits) << h;
#endif
  }
}
