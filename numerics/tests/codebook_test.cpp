// Codebooks against ALGORITHM.md §2 (levels) and §3 (D_mse), symmetry, the
// b = 1 closed form, the Lloyd fixed point, and the cache.
#include "tqc/numerics/codebook.h"

#include "algorithm_data.h"

#include <gtest/gtest.h>

#include <cmath>
#include <thread>
#include <vector>

using namespace tqc;

namespace {

struct TableRow {
  int d, bits;
  std::vector<double> positiveHalf;
};

// ALGORITHM.md §2, "Positive halves (exact)" and the b = 1 line.
const std::vector<TableRow> &betaTable() {
  static const std::vector<TableRow> rows = {
      {64, 1, {0.100126}},
      {64, 2, {0.056515, 0.187497}},
      {64, 3, {0.030469, 0.093832, 0.166168, 0.263914}},
      {64,
       4,
       {0.015919, 0.048090, 0.081312, 0.116487, 0.154926, 0.198856, 0.252914,
        0.330796}},
      {128, 1, {0.070662}},
      {128, 2, {0.039992, 0.133042}},
      {128, 3, {0.021604, 0.066586, 0.118140, 0.188397}},
      {128,
       4,
       {0.011302, 0.034152, 0.057772, 0.082828, 0.110288, 0.141805, 0.180836,
        0.237664}},
      {256, 1, {0.049917}},
      {256, 2, {0.028289, 0.094238}},
      {256, 3, {0.015297, 0.047167, 0.083765, 0.133854}},
      {256,
       4,
       {0.008008, 0.024201, 0.040949, 0.058732, 0.078249, 0.100698, 0.128588,
        0.169410}},
  };
  return rows;
}

std::vector<double> positiveHalf(const Codebook &book) {
  return {book.levels.begin() + book.size() / 2, book.levels.end()};
}

} // namespace

TEST(Codebook, BetaLevelsMatchAlgorithmTable) {
  for (const TableRow &row : betaTable()) {
    Codebook book = makeCodebook(row.d, row.bits, CodebookDist::Beta);
    std::vector<double> half = positiveHalf(book);
    ASSERT_EQ(half.size(), row.positiveHalf.size());
    for (size_t i = 0; i < half.size(); ++i)
      EXPECT_NEAR(half[i], row.positiveHalf[i], 5e-5)
          << "D=" << row.d << " b=" << row.bits << " level " << i;
  }
}

TEST(Codebook, OneBitMatchesClosedForm) {
  // Γ(D/2) / (√π Γ((D+1)/2)); the table's 6-digit values to their rounding.
  const std::pair<int, double> table[] = {
      {64, 0.100126}, {128, 0.070662}, {256, 0.049917}};
  for (auto [d, value] : table) {
    EXPECT_NEAR(oneBitLevel(d), value, 5e-7) << d;
    Codebook book = makeCodebook(d, 1, CodebookDist::Beta);
    EXPECT_NEAR(book.levels[1], oneBitLevel(d), 1e-9) << d;
  }
  for (int d : {3, 4, 17, 96, 512})
    EXPECT_NEAR(makeCodebook(d, 1, CodebookDist::Beta).levels[1],
                oneBitLevel(d), 1e-9)
        << d;
}

TEST(Codebook, SymmetricAndMidpointBoundaries) {
  for (CodebookDist dist :
       {CodebookDist::Beta, CodebookDist::Gaussian, CodebookDist::Uniform})
    for (int d : {64, 128, 256})
      for (int bits = 1; bits <= 8; ++bits) {
        Codebook book = makeCodebook(d, bits, dist);
        const int n = book.size();
        ASSERT_EQ(n, 1 << bits);
        ASSERT_EQ(int(book.boundaries.size()), n - 1);
        for (int i = 0; i < n; ++i)
          EXPECT_NEAR(book.levels[n - 1 - i], -book.levels[i], 1e-12);
        for (int i = 0; i + 1 < n; ++i) {
          EXPECT_LT(book.levels[i], book.levels[i + 1]);
          EXPECT_NEAR(book.boundaries[i],
                      0.5 * (book.levels[i] + book.levels[i + 1]), 1e-15);
        }
      }
}

TEST(Codebook, GaussianLevelsMatchAlgorithm) {
  // ALGORITHM.md §2: N(0, 1/D) at D=128, b=3, and the normalized ×√D values.
  const double levels[] = {0.021663, 0.066822, 0.118786, 0.190207};
  const double normalized[] = {0.24509, 0.75601, 1.34391, 2.15195};
  Codebook book = makeCodebook(128, 3, CodebookDist::Gaussian);
  std::vector<double> half = positiveHalf(book);
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(half[i], levels[i], 5e-6) << i;
    EXPECT_NEAR(half[i] * std::sqrt(128.0), normalized[i], 5e-5) << i;
  }
}

TEST(Codebook, DmseMatchesExactColumn) {
  for (int d : {64, 128, 256})
    for (int bits = 1; bits <= 4; ++bits) {
      Codebook book = makeCodebook(d, bits, CodebookDist::Beta);
      EXPECT_NEAR(book.dmse / test::exactDmse(d, bits), 1.0, 1e-4)
          << "D=" << d << " b=" << bits << " dmse=" << book.dmse;
    }
}

TEST(Codebook, LevelsAreConditionalMeansOfTheirCells) {
  // An independent check of convergence: composite Simpson on a fine grid
  // (not the library's quadrature) for E[x | cell].
  for (int d : {5, 128})
    for (int bits : {3, 6}) {
      Codebook book = makeCodebook(d, bits, CodebookDist::Beta);
      for (int i = book.size() / 2; i < book.size(); ++i) {
        const double a = book.boundaries[i - 1];
        const double b = i + 1 < book.size() ? book.boundaries[i] : 1.0;
        const int panels = 20000;
        const double h = (b - a) / panels;
        double mass = 0, first = 0;
        for (int k = 0; k <= panels; ++k) {
          const double x = a + k * h;
          const double w = (k == 0 || k == panels) ? 1 : (k % 2 ? 4 : 2);
          const double f = coordinateDensity(d, x);
          mass += w * f;
          first += w * x * f;
        }
        EXPECT_NEAR(first / mass, book.levels[i], 1e-9)
            << "D=" << d << " b=" << bits << " level " << i;
      }
    }
}

TEST(Codebook, DensityIntegratesToOne) {
  for (int d : {3, 4, 64, 512}) {
    const int panels = 200000;
    double s = 0;
    for (int k = 0; k <= panels; ++k) {
      const double x = -1 + 2.0 * k / panels;
      const double w = (k == 0 || k == panels) ? 1 : (k % 2 ? 4 : 2);
      s += w * coordinateDensity(d, x);
    }
    EXPECT_NEAR(s * (2.0 / panels) / 3, 1.0, 1e-6) << d;
  }
}

TEST(Codebook, UniformBookIsEvenlySpacedOnTwoAndAHalfSigma) {
  // ALGORITHM.md §3: uniform 4-bit on ±2.5σ, D_mse ≈ 0.01125 at D=128,
  // 0.8 dB worse than Lloyd-Max.
  Codebook book = makeCodebook(128, 4, CodebookDist::Uniform);
  const double sigma = 1 / std::sqrt(128.0);
  EXPECT_NEAR(book.levels.front(), -2.5 * sigma, 1e-15);
  EXPECT_NEAR(book.levels.back(), 2.5 * sigma, 1e-15);
  for (int i = 0; i + 1 < book.size(); ++i)
    EXPECT_NEAR(book.levels[i + 1] - book.levels[i], 5 * sigma / 15, 1e-15);
  EXPECT_NEAR(book.dmse, 0.01125, 0.01125 * 0.02);
  const double lloyd = makeCodebook(128, 4, CodebookDist::Beta).dmse;
  EXPECT_NEAR(10 * std::log10(book.dmse / lloyd), 0.8, 0.05);
}

TEST(Codebook, ConvergesAcrossHeadDimsAndWidths) {
  for (CodebookDist dist : {CodebookDist::Beta, CodebookDist::Gaussian})
    for (int d : {3, 4, 5, 16, 96, 512, 1024})
      for (int bits = 1; bits <= 8; ++bits) {
        Codebook book = makeCodebook(d, bits, dist);
        EXPECT_LE(book.iterations, 10) << d << " " << bits;
        // Between the Shannon lower bound 4^-b and the paper's bound (for
        // the optimal Beta book; the Gaussian book is worse at small D).
        EXPECT_GT(book.dmse, std::pow(4.0, -bits) * 0.99) << d << " " << bits;
        if (dist == CodebookDist::Beta) {
          EXPECT_LT(book.dmse, std::sqrt(3.0) * M_PI / 2 * std::pow(4.0, -bits))
              << d << " " << bits;
        }
      }
}

TEST(Codebook, NearestIndexCountsBoundariesAtOrBelow) {
  Codebook book = makeCodebook(128, 2, CodebookDist::Beta);
  EXPECT_EQ(nearestIndex(book, -1.0), 0);
  EXPECT_EQ(nearestIndex(book, std::nextafter(0.0, -1.0)), 1);
  EXPECT_EQ(nearestIndex(book, 0.0), 2); // on a boundary → upper cell
  EXPECT_EQ(nearestIndex(book, book.boundaries[2]), 3);
  EXPECT_EQ(nearestIndex(book, 1.0), 3);
  for (int i = 0; i < book.size(); ++i)
    EXPECT_EQ(nearestIndex(book, book.levels[i]), i);
}

TEST(Codebook, RejectsBadArguments) {
  EXPECT_THROW(makeCodebook(2, 3, CodebookDist::Beta), std::invalid_argument);
  EXPECT_THROW(makeCodebook(128, 0, CodebookDist::Beta), std::invalid_argument);
  EXPECT_THROW(makeCodebook(128, 9, CodebookDist::Beta), std::invalid_argument);
}

TEST(Codebook, SharedCacheIsThreadSafe) {
  std::vector<std::shared_ptr<const Codebook>> got(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back(
        [&, t] { got[t] = sharedCodebook(192, 5, CodebookDist::Beta); });
  for (std::thread &t : threads)
    t.join();
  for (int t = 1; t < 8; ++t)
    EXPECT_EQ(got[t].get(), got[0].get());
  EXPECT_EQ(got[0]->levels, makeCodebook(192, 5, CodebookDist::Beta).levels);
}
