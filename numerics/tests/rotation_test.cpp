// Rotations: orthogonality, exact inverses, the documented sign recipe, and
// the order trap of ALGORITHM.md §4.
#include "tqc/numerics/random.h"
#include "tqc/numerics/rotation.h"

#include "test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

using namespace tqc;

namespace {

/// max |R·Rᵀ − I|
double orthogonalityError(const Rotation &r) {
  const int n = r.dim();
  const std::vector<double> m = r.matrix();
  double worst = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int k = 0; k < n; ++k)
        s += m[i * n + k] * m[j * n + k];
      worst = std::max(worst, std::abs(s - (i == j ? 1 : 0)));
    }
  return worst;
}

std::vector<std::shared_ptr<const Rotation>> allRotations(int d) {
  return {std::make_shared<PlainHadamard>(d),
          std::make_shared<RandomizedHadamard>(d, 7, 1),
          std::make_shared<RandomizedHadamard>(d, 7, 2),
          std::make_shared<RandomizedHadamard>(d, 7, 4),
          std::make_shared<DenseRotation>(d, 7)};
}

} // namespace

TEST(Random, SplitMix64MatchesReferenceVectors) {
  // Vigna's splitmix64.c with x = 1234567.
  SplitMix64 r(1234567);
  EXPECT_EQ(r.next(), 6457827717110365317ull);
  EXPECT_EQ(r.next(), 3203168211198807973ull);
  EXPECT_EQ(r.next(), 9817491932198370423ull);
  EXPECT_EQ(r.next(), 4593380528125082431ull);
  EXPECT_EQ(r.next(), 16408922859458223821ull);
}

TEST(Random, GaussianStreamHasUnitMoments) {
  GaussianStream g(3);
  double s1 = 0, s2 = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double x = g.next();
    s1 += x;
    s2 += x * x;
  }
  EXPECT_NEAR(s1 / n, 0, 0.01);
  EXPECT_NEAR(s2 / n, 1, 0.01);
}

TEST(Rotation, OrthogonalToRounding) {
  for (int d : {64, 128, 256})
    for (const auto &r : allRotations(d))
      EXPECT_LT(orthogonalityError(*r), 1e-12) << "D=" << d;
}

TEST(Rotation, PreservesNormsAndInvertsExactly) {
  GaussianStream g(11);
  for (const auto &r : allRotations(128)) {
    std::vector<double> x = test::gaussianVector(g, 128), y = x;
    r->apply(y.data());
    EXPECT_NEAR(norm(y.data(), 128), norm(x.data(), 128), 1e-12);
    r->applyInverse(y.data());
    EXPECT_LT(test::squaredDistance(x, y), 1e-26);
  }
}

TEST(Rotation, InverseIsTheTranspose) {
  for (const auto &r : allRotations(64)) {
    const std::vector<double> m = r->matrix();
    for (int j = 0; j < 64; ++j) {
      std::vector<double> e(64, 0.0);
      e[j] = 1;
      r->applyInverse(e.data()); // column j of Rᵀ = row j of R
      for (int i = 0; i < 64; ++i)
        EXPECT_NEAR(e[i], m[j * 64 + i], 1e-14);
    }
  }
}

TEST(Rotation, FloatVersionMatchesDouble) {
  GaussianStream g(5);
  RandomizedHadamard r(128, 99, 2);
  std::vector<double> x = test::gaussianVector(g, 128);
  std::vector<float> xf(x.begin(), x.end());
  r.apply(x.data());
  r.apply(xf.data());
  for (int i = 0; i < 128; ++i)
    EXPECT_NEAR(xf[i], x[i], 1e-5);
  r.applyInverse(xf.data());
  r.applyInverse(x.data());
  for (int i = 0; i < 128; ++i)
    EXPECT_NEAR(xf[i], x[i], 1e-5);
}

TEST(Rotation, HadamardOfBasisVectorIsFlat) {
  std::vector<double> e(128, 0.0);
  e[5] = 1;
  fwht(e.data(), 128);
  for (double v : e)
    EXPECT_NEAR(std::abs(v), 1 / std::sqrt(128.0), 1e-15);
  EXPECT_THROW(fwht(e.data(), 96), std::invalid_argument);
}

TEST(Rotation, SignsFollowTheDocumentedRecipe) {
  // One SplitMix64 stream: D1 of round 0, D2 of round 0, D1 of round 1, ...;
  // a sign is −1 when the output's top bit is set.
  RandomizedHadamard r(64, 0xabcdef, 2);
  SplitMix64 rng(0xabcdef);
  for (int round = 0; round < 2; ++round)
    for (const std::vector<int8_t> *s : {&r.signs1(round), &r.signs2(round)})
      for (int j = 0; j < 64; ++j)
        EXPECT_EQ((*s)[j], (rng.next() >> 63) ? -1 : 1);
  // And R = D2·H·D1 per round, round 0 first.
  std::vector<double> x(64), y(64);
  GaussianStream g(1);
  for (double &v : x)
    v = g.next();
  y = x;
  r.apply(y.data());
  for (int round = 0; round < 2; ++round) {
    for (int j = 0; j < 64; ++j)
      x[j] *= r.signs1(round)[j];
    fwht(x.data(), 64);
    for (int j = 0; j < 64; ++j)
      x[j] *= r.signs2(round)[j];
  }
  for (int j = 0; j < 64; ++j)
    EXPECT_NEAR(x[j], y[j], 1e-14);
}

TEST(Rotation, WrongOrderGivesOrderOneErrors) {
  // Un-rotating with D1·H·D2 (i.e. R instead of Rᵀ) must not reconstruct.
  RandomizedHadamard r(128, 21, 1);
  GaussianStream g(2);
  std::vector<double> x = test::gaussianVector(g, 128), y = x;
  r.apply(y.data());
  for (int j = 0; j < 128; ++j)
    y[j] *= r.signs1(0)[j];
  fwht(y.data(), 128);
  for (int j = 0; j < 128; ++j)
    y[j] *= r.signs2(0)[j];
  EXPECT_GT(std::sqrt(test::squaredDistance(x, y)), 0.5 * norm(x.data(), 128));
}

TEST(Rotation, PackedSignMaskMarksNegativeSigns) {
  RandomizedHadamard r(128, 4, 1);
  const std::vector<uint32_t> mask = packSignMask(r.signs1(0));
  ASSERT_EQ(mask.size(), 4u);
  for (int j = 0; j < 128; ++j)
    EXPECT_EQ((mask[j / 32] >> (j % 32)) & 1, r.signs1(0)[j] < 0 ? 1u : 0u);
}

TEST(Rotation, MakeRotationFollowsSpec) {
  RotationSpec spec;
  spec.kind = RotationKind::RandomizedHadamard;
  spec.seed = 17;
  spec.rounds = 2;
  auto r = makeRotation(spec, 64);
  auto direct = RandomizedHadamard(64, 17, 2);
  EXPECT_EQ(r->matrix(), direct.matrix());
  spec.kind = RotationKind::None;
  std::vector<double> id = makeRotation(spec, 8)->matrix();
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j)
      EXPECT_EQ(id[i * 8 + j], i == j ? 1.0 : 0.0);
  spec.kind = RotationKind::PlainHadamard;
  EXPECT_THROW(makeRotation(spec, 96), std::invalid_argument);
}
