//===- ContextsTest.cpp - Context points and their weights ----------------===//
#include "tqc/Autotune/Contexts.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

using namespace tqc::autotune;

namespace {

double sum(const ContextDistribution &d) {
  double s = 0;
  for (const ContextPoint &p : d.points)
    s += p.weight;
  return s;
}

double expect(const ContextDistribution &d,
              const std::function<double(double)> &f) {
  double s = 0;
  for (const ContextPoint &p : d.points)
    s += p.weight * f(double(p.length));
  return s;
}

} // namespace

TEST(Contexts, LogUniformDefault) {
  ContextDistribution d = logUniform(256, 131072, 5);
  ASSERT_EQ(d.error, "");
  ASSERT_EQ(d.points.size(), 5u);
  EXPECT_EQ(d.points.front().length, 256);
  EXPECT_EQ(d.points.back().length, 131072);
  for (size_t i = 1; i < d.points.size(); ++i)
    EXPECT_LT(d.points[i - 1].length, d.points[i].length);
  for (const ContextPoint &p : d.points)
    EXPECT_GT(p.weight, 0);
  // The density integrates to 1.
  EXPECT_NEAR(sum(d), 1.0, 1e-12);
  // Exact for latency linear in the length: E[L] = (b - a) / ln(b / a).
  EXPECT_NEAR(expect(d, [](double l) { return l; }),
              (131072.0 - 256.0) / std::log(512.0), 1e-6);
  EXPECT_NEAR(expect(d, [](double l) { return 3.0 + 0.5 * l; }),
              3.0 + 0.5 * (131072.0 - 256.0) / std::log(512.0), 1e-6);
  EXPECT_EQ(d.description, "log-uniform 256..131072, 5 points");
}

TEST(Contexts, LogUniformManyPointsApproachesTheIntegral) {
  // E[sqrt(L)] under log-uniform on [a, b] = 2 (sqrt b - sqrt a) / ln(b/a).
  ContextDistribution d = logUniform(256, 131072, 64);
  ASSERT_EQ(d.error, "");
  EXPECT_NEAR(sum(d), 1.0, 1e-12);
  double exact = 2.0 * (std::sqrt(131072.0) - 16.0) / std::log(512.0);
  EXPECT_NEAR(expect(d, [](double l) { return std::sqrt(l); }), exact,
              exact * 1e-3);
}

TEST(Contexts, Ranges) {
  ContextDistribution one = parseContextRange("4096", 5);
  ASSERT_EQ(one.error, "");
  ASSERT_EQ(one.points.size(), 1u);
  EXPECT_EQ(one.points[0].length, 4096);
  EXPECT_EQ(one.points[0].weight, 1.0);
  EXPECT_EQ(one.description, "one length, 4096");
  ContextDistribution small = parseContextRange("1000:1002", 5);
  ASSERT_EQ(small.error, "");
  EXPECT_EQ(small.points.size(), 3u); // distinct integers only
  EXPECT_NEAR(sum(small), 1.0, 1e-12);
  EXPECT_NE(parseContextRange("256:", 5).error.find("is not MIN:MAX"),
            std::string::npos);
  EXPECT_NE(parseContextRange("0:100", 5).error.find("is not MIN:MAX"),
            std::string::npos);
  EXPECT_NE(parseContextRange("4096:256", 5).error.find("is empty"),
            std::string::npos);
  EXPECT_NE(parseContextRange("256:4096", 0).error.find("out of range"),
            std::string::npos);
}

TEST(Contexts, HistogramWithFewLengthsIsExact) {
  ContextDistribution d = parseContextHistogram(
      "# length weight\n"
      "1024 1\n"
      "\n"
      "8192   3   # most requests\n"
      "1024 1\n", // listed twice: adds up
      "lengths.txt", 5);
  ASSERT_EQ(d.error, "");
  ASSERT_EQ(d.points.size(), 2u);
  EXPECT_EQ(d.points[0].length, 1024);
  EXPECT_DOUBLE_EQ(d.points[0].weight, 0.4);
  EXPECT_EQ(d.points[1].length, 8192);
  EXPECT_DOUBLE_EQ(d.points[1].weight, 0.6);
  EXPECT_EQ(d.description,
            "histogram lengths.txt (2 lengths, 1024..8192), 2 points");
}

TEST(Contexts, HistogramResampledKeepsTheMean) {
  std::string text;
  double mean = 0, total = 0;
  for (int l = 300; l <= 100000; l = l * 3 / 2) {
    double w = 1.0 / (1 + l % 7);
    text += std::to_string(l) + " " + std::to_string(w) + "\n";
    mean += l * w;
    total += w;
  }
  ContextDistribution d = parseContextHistogram(text, "h", 5);
  ASSERT_EQ(d.error, "");
  EXPECT_LE(d.points.size(), 5u);
  EXPECT_EQ(d.points.front().length, 300);
  EXPECT_NEAR(sum(d), 1.0, 1e-9);
  // Linear interpolation between points preserves E[L].
  EXPECT_NEAR(expect(d, [](double l) { return l; }), mean / total, 1e-6 * mean);
}

TEST(Contexts, ReportLengthsAreTimedWithoutWeight) {
  ContextDistribution d = logUniform(256, 131072, 5);
  const std::vector<ContextPoint> before = d.points;
  ASSERT_EQ(addReportLengths(d, {32768, 1024, 256, 8192}), "");
  // 256 is already a point (it keeps its weight); the others are inserted
  // in order with weight 0, so the weights still sum to 1.
  ASSERT_EQ(d.points.size(), 8u);
  std::vector<int64_t> lengths;
  for (const ContextPoint &p : d.points)
    lengths.push_back(p.length);
  EXPECT_EQ(lengths, (std::vector<int64_t>{256, 1024, 1218, 5793, 8192, 27554,
                                           32768, 131072}));
  EXPECT_DOUBLE_EQ(d.points[0].weight, before[0].weight);
  EXPECT_EQ(d.points[1].weight, 0.0);
  EXPECT_EQ(d.points[6].weight, 0.0);
  EXPECT_NEAR(sum(d), 1.0, 1e-12);
  EXPECT_EQ(d.description, "log-uniform 256..131072, 5 points + 3 report lengths");
  EXPECT_EQ(addReportLengths(d, {0}),
            "--report-lengths: 0 is not a positive token count");
  std::vector<int64_t> many;
  for (int64_t l = 1; l <= 60; ++l)
    many.push_back(l);
  EXPECT_EQ(addReportLengths(d, many),
            "--report-lengths: 68 lengths to time in all; accepted: at most 64");
}

TEST(Contexts, HistogramErrorsNameTheLine) {
  EXPECT_EQ(parseContextHistogram("1024 1\n2048\n", "h.txt", 5).error,
            "h.txt:2: expected 'length weight', got '2048'");
  EXPECT_EQ(parseContextHistogram("1024 1 2\n", "h.txt", 5).error,
            "h.txt:1: expected 'length weight', got '1024 1 2'");
  EXPECT_EQ(parseContextHistogram("abc 1\n", "h.txt", 5).error,
            "h.txt:1: length 'abc' is not a positive token count");
  EXPECT_EQ(parseContextHistogram("0 1\n", "h.txt", 5).error,
            "h.txt:1: length '0' is not a positive token count");
  EXPECT_EQ(parseContextHistogram("\n\n10 -1\n", "h.txt", 5).error,
            "h.txt:3: weight '-1' is not a finite non-negative number");
  EXPECT_EQ(parseContextHistogram("10 nan\n", "h.txt", 5).error,
            "h.txt:1: weight 'nan' is not a finite non-negative number");
  EXPECT_EQ(parseContextHistogram("10 1x\n", "h.txt", 5).error,
            "h.txt:1: weight '1x' is not a finite non-negative number");
  EXPECT_NE(parseContextHistogram("# nothing\n", "h.txt", 5)
                .error.find("h.txt: no lengths with a positive weight"),
            std::string::npos);
  EXPECT_NE(parseContextHistogram("10 0\n", "h.txt", 5).error.find("no lengths"),
            std::string::npos);
}

TEST(Contexts, InterpolationWeights) {
  std::vector<double> w = interpolationWeights(
      {100, 200, 400}, {{100, 0.5}, {150, 0.2}, {300, 0.2}, {500, 0.1}});
  ASSERT_EQ(w.size(), 3u);
  EXPECT_DOUBLE_EQ(w[0], 0.5 + 0.1);
  EXPECT_DOUBLE_EQ(w[1], 0.1 + 0.1);
  EXPECT_DOUBLE_EQ(w[2], 0.1 + 0.1);
}
