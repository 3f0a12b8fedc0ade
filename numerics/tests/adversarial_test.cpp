// Adversarial inputs (ALGORITHM.md §4): a randomized Hadamard matches a
// random rotation on random inputs, not on structured ones; two rounds with
// independent signs restore the paper's bound.
#include "tqc/numerics/quantize.h"

#include "algorithm_data.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <string>

using namespace tqc;

namespace {

constexpr int kDim = 128;
constexpr int kBits = 3;

struct NamedInput {
  std::string name;
  std::vector<double> x; // unit norm
};

std::vector<double> normalized(std::vector<double> v) {
  const double len = norm(v.data(), int(v.size()));
  for (double &x : v)
    x /= len;
  return v;
}

std::vector<NamedInput> adversarialInputs() {
  std::vector<NamedInput> in;
  // Every one-hot e_j gives the same error distribution (H·(v⊙w_j) is an
  // XOR-shift of H·v, w_j a Walsh row), so one position stands for all.
  std::vector<double> oneHot(kDim, 0.0);
  oneHot[77] = 1;
  in.push_back({"one-hot", oneHot});
  in.push_back({"constant", normalized(std::vector<double>(kDim, 1.0))});
  std::vector<double> alternating(kDim);
  for (int j = 0; j < kDim; ++j)
    alternating[j] = j % 2 ? -1 : 1;
  in.push_back({"alternating", normalized(alternating)});
  std::vector<double> sparse(kDim, 0.0);
  sparse[3] = 1;
  sparse[40] = -1;
  sparse[64] = 1;
  sparse[100] = 1;
  in.push_back({"sparse 4", normalized(sparse)});
  // A few huge outlier channels on top of small noise, like real keys.
  GaussianStream g(12);
  std::vector<double> outliers = test::gaussianVector(g, kDim);
  for (double &v : outliers)
    v *= 0.01;
  outliers[5] = 40;
  outliers[90] = -25;
  outliers[91] = 30;
  in.push_back({"outliers", normalized(outliers)});
  return in;
}

/// D_mse of one input averaged over the rotation's seeds.
double meanDistortion(const std::vector<double> &x, int rounds, int seeds) {
  double total = 0;
  std::vector<double> approx(kDim);
  for (int s = 0; s < seeds; ++s) {
    MseQuantizer q(
        sharedCodebook(kDim, kBits, CodebookDist::Beta),
        std::make_shared<RandomizedHadamard>(kDim, 31 * s + 1, rounds),
        NormMode::Plain, ScalarStorage::Exact);
    q.decode(q.encode(x.data()), approx.data());
    total += test::squaredDistance(x, approx);
  }
  return total / seeds;
}

} // namespace

TEST(Adversarial, TwoRoundHadamardStaysInsidePaperBound) {
  for (const NamedInput &in : adversarialInputs()) {
    const double dmse = meanDistortion(in.x, /*rounds=*/2, /*seeds=*/400);
    EXPECT_LT(dmse, test::kBoundB3) << in.name;
    std::cout << in.name << ": 2-round D_mse " << dmse << "\n";
  }
}

TEST(Adversarial, OneRoundHadamardExceedsBoundOnOneHot_KnownWeakness) {
  // Documents the known weakness rather than a bug: with one round every
  // rotated coordinate of a one-hot input is ±1/√D, which the 3-bit book
  // maps to its second level whatever the signs, so the error is the same
  // ≈0.061 for every seed — above the paper's worst-case bound 0.0425.
  std::vector<double> e(kDim, 0.0);
  e[9] = 1;
  const double dmse = meanDistortion(e, /*rounds=*/1, /*seeds=*/16);
  const std::string note = "1-round randomized Hadamard on one-hot, D=128 b=3: "
                           "D_mse " +
                           std::to_string(dmse) +
                           " > paper bound 0.0425 (known, ALGORITHM.md §4); "
                           "use rounds=2 or a dense rotation";
  RecordProperty("known_weakness", note);
  std::cout << note << "\n";
  EXPECT_GT(dmse, test::kBoundB3);
  EXPECT_NEAR(dmse, test::kOneHotOneRoundB3, 0.001);
}
