// Monte-Carlo distortion of TurboQuant_mse / _prod on random unit vectors
// against ALGORITHM.md §3 and §5 (acceptance data of §6).
#include "tqc/numerics/quantize.h"

#include "algorithm_data.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <memory>

using namespace tqc;

namespace {

struct MseStats {
  double dmse = 0;    // E‖x − x̃‖²
  double inner = 0;   // E⟨x, x̃⟩
  double normErr = 0; // max |‖x̃‖ − ‖x‖|
};

MseStats measureMse(const MseQuantizer &q, int samples, uint64_t seed) {
  const int d = q.dim();
  GaussianStream g(seed);
  MseStats s;
  std::vector<double> approx(d);
  for (int n = 0; n < samples; ++n) {
    const std::vector<double> x = test::unitVector(g, d);
    q.decode(q.encode(x.data()), approx.data());
    s.dmse += test::squaredDistance(x, approx);
    s.inner += dot(x.data(), approx.data(), d);
    s.normErr = std::max(s.normErr, std::abs(norm(approx.data(), d) - 1));
  }
  s.dmse /= samples;
  s.inner /= samples;
  return s;
}

/// "A random rotation": Haar at D=128 (the paper's setting), the randomized
/// Hadamard elsewhere (equivalent on random inputs, ALGORITHM.md §4).
std::shared_ptr<const Rotation> randomRotation(int d, uint64_t seed) {
  if (d == 128)
    return std::make_shared<DenseRotation>(d, seed);
  return std::make_shared<RandomizedHadamard>(d, seed, 1);
}

MseQuantizer mseQuantizer(int d, int bits, NormMode mode, uint64_t seed) {
  return MseQuantizer(sharedCodebook(d, bits, CodebookDist::Beta),
                      randomRotation(d, seed), mode, ScalarStorage::Exact);
}

constexpr int kSamples = 10000;

} // namespace

TEST(Distortion, MseMatchesExactColumnAndBounds) {
  for (int d : {64, 128, 256})
    for (int bits = 1; bits <= 4; ++bits) {
      MseStats s = measureMse(mseQuantizer(d, bits, NormMode::Plain, 100 + d),
                              kSamples, 1000 + d);
      const double exact = test::exactDmse(d, bits);
      EXPECT_NEAR(s.dmse, exact, 0.02 * exact) << "D=" << d << " b=" << bits;
      EXPECT_GT(s.dmse, test::dmseLowerBound(bits));
      EXPECT_LT(s.dmse, test::dmseUpperBound(bits));
      std::cout << "D=" << d << " b=" << bits << " D_mse MC " << s.dmse
                << " exact " << exact << "\n";
    }
}

TEST(Distortion, MseShrinksInnerProducts) {
  // E⟨x, x̃⟩ = 1 − D_mse: 0.6391, 0.8840, 0.9660, 0.9907 at D=128, ±0.002.
  for (int bits = 1; bits <= 4; ++bits) {
    MseStats s =
        measureMse(mseQuantizer(128, bits, NormMode::Plain, 7), kSamples, 8);
    EXPECT_NEAR(s.inner, test::shrinkage128(bits), 0.002) << "b=" << bits;
  }
}

TEST(Distortion, NormCorrectedAtD128) {
  for (int bits = 2; bits <= 4; ++bits) {
    MseStats s = measureMse(mseQuantizer(128, bits, NormMode::Corrected, 9),
                            kSamples, 10);
    EXPECT_NEAR(s.dmse, test::ncDmse128(bits), 0.02 * test::ncDmse128(bits))
        << "b=" << bits;
    EXPECT_NEAR(s.inner, test::ncShrinkage128(bits),
                0.02 * test::ncShrinkage128(bits))
        << "b=" << bits;
    EXPECT_LT(s.normErr, 1e-12) << "‖x̃‖ = ‖x‖ exactly";
  }
}

TEST(Distortion, QjlIsUnbiasedWithPaperVariance) {
  // D_prod = E[(⟨y, x⟩ − ⟨y, x̃⟩)²] for unit x and an independent random unit
  // y; ALGORITHM.md §5 gives D·D_prod. Averaged over 24 (R, S) draws × 2000
  // pairs = 48 000 pairs, so the sketch's randomness is sampled too.
  const int d = 128, draws = 24, perDraw = 2000, total = draws * perDraw;
  double sum[5] = {}, sumSq[5] = {}, consistency = 0;
  for (int draw = 0; draw < draws; ++draw) {
    auto rotation = std::make_shared<RandomizedHadamard>(d, 500 + draw, 1);
    auto sketch = std::make_shared<QjlSketch>(d, 900 + draw);
    std::vector<ProdQuantizer> quantizers;
    for (int bits = 1; bits <= 4; ++bits) {
      std::optional<MseQuantizer> mse;
      if (bits > 1)
        mse.emplace(sharedCodebook(d, bits - 1, CodebookDist::Beta), rotation,
                    NormMode::Plain, ScalarStorage::Exact);
      quantizers.emplace_back(d, std::move(mse), sketch, ScalarStorage::Exact);
    }
    GaussianStream g(7000 + draw);
    std::vector<double> approx(d);
    for (int n = 0; n < perDraw; ++n) {
      const std::vector<double> x = test::unitVector(g, d);
      const std::vector<double> y = test::unitVector(g, d);
      const double truth = dot(x.data(), y.data(), d);
      // R·y and S·y are the same for every width: prepare once.
      const ProdQuery query = quantizers.back().prepare(y.data());
      for (int bits = 1; bits <= 4; ++bits) {
        const ProdQuantizer &q = quantizers[bits - 1];
        const ProdCode code = q.encode(x.data());
        const double err = q.innerProduct(query, code) - truth;
        sum[bits] += err;
        sumSq[bits] += err * err;
        if (n == 0) { // the estimator is ⟨y, decode(code)⟩
          q.decode(code, approx.data());
          consistency =
              std::max(consistency, std::abs(dot(y.data(), approx.data(), d) -
                                             q.innerProduct(query, code)));
        }
      }
    }
  }
  EXPECT_LT(consistency, 1e-12);
  for (int bits = 1; bits <= 4; ++bits) {
    const double expected = test::scaledDprod128(bits);
    const double mean = sum[bits] / total;
    const double scaled = d * sumSq[bits] / total;
    EXPECT_LE(std::abs(mean), 4 * std::sqrt(expected / d / total))
        << "b=" << bits;
    EXPECT_NEAR(scaled, expected, 0.03 * expected) << "b=" << bits;
    std::cout << "b=" << bits << " mean error " << mean << ", D·D_prod MC "
              << scaled << " exact " << expected << "\n";
  }
}
