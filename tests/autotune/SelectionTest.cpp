//===- SelectionTest.cpp - Expected latency, choice and pruning -----------===//
#include "tqc/Autotune/Selection.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace tqc::autotune;

namespace {

/// Two buckets, three candidates, three lengths (weights 0.25/0.5/0.25).
TimingTable synthetic() {
  std::vector<Candidate> c = {{32, 1, 4, 4, 2}, {64, 8, 4, 4, 2},
                              {128, 32, 8, 2, 2}};
  std::vector<ContextPoint> p = {{1024, 0.25}, {8192, 0.5}, {65536, 0.25}};
  TimingTable t({1, 32}, c, p);
  // Bucket 1: many splits win at long contexts.
  t.row(0, 0).us = {10, 60, 400};
  t.row(0, 1).us = {12, 20, 90};
  t.row(0, 2).us = {15, 18, 100};
  // Bucket 32: one split is best on average, though not at every length.
  t.row(1, 0).us = {30, 200, 1500};
  t.row(1, 1).us = {35, 190, 1510};
  t.row(1, 2).us = {40, 260, 1400};
  return t;
}

} // namespace

TEST(Selection, ExpectedLatencyIsTheWeightedSum) {
  TimingTable t = synthetic();
  EXPECT_DOUBLE_EQ(t.expectedUs(0, 0), 0.25 * 10 + 0.5 * 60 + 0.25 * 400);
  EXPECT_DOUBLE_EQ(t.expectedUs(0, 1), 0.25 * 12 + 0.5 * 20 + 0.25 * 90);
  EXPECT_TRUE(t.complete(1, 2));
}

TEST(Selection, ChoosesTheLowestExpectedLatencyPerBucket) {
  TimingTable t = synthetic();
  BucketChoice b1 = chooseBest(t, 0, /*tieMargin=*/0);
  EXPECT_EQ(b1.error, "");
  // 0: 2.5 + 30 + 100 = 132.5; 1: 3 + 10 + 22.5 = 35.5;
  // 2: 3.75 + 9 + 25 = 37.75.
  EXPECT_EQ(b1.candidate, 1);
  EXPECT_DOUBLE_EQ(b1.expectedUs, 35.5);
  BucketChoice b32 = chooseBest(t, 1, /*tieMargin=*/0);
  // 0: 7.5 + 100 + 375 = 482.5; 1: 8.75 + 95 + 377.5 = 481.25;
  // 2: 10 + 130 + 350 = 490.
  EXPECT_EQ(b32.candidate, 1);
  EXPECT_DOUBLE_EQ(b32.expectedUs, 481.25);
  EXPECT_EQ(rankCandidates(t, 1), (std::vector<int>{1, 0, 2}));
}

TEST(Selection, TiesGoToThePlanNeverFarBehind) {
  TimingTable t = synthetic();
  // Bucket 32, fastest per length 30 / 190 / 1400: candidate 0 is at most
  // 1500/1400 = 7.1 % behind, 1 (the lowest expected latency) 35/30 =
  // 16.7 %, 2 (490, 1.8 % above 481.25) 368/190 = 36.8 %.
  EXPECT_NEAR(worstSlowdown(t, 1, 0), 1500.0 / 1400, 1e-12);
  EXPECT_NEAR(worstSlowdown(t, 1, 1), 35.0 / 30, 1e-12);
  BucketChoice b32 = chooseBest(t, 1); // default margin: 2 %
  EXPECT_EQ(b32.candidate, 0);
  EXPECT_DOUBLE_EQ(b32.expectedUs, 482.5);
  // Outside the margin the lowest expected latency wins whatever its
  // worst length: bucket 1's 35.5 vs 37.75 (6 % apart).
  EXPECT_EQ(chooseBest(t, 0).candidate, 1);
  EXPECT_EQ(chooseBest(t, 1, 0.001).candidate, 1);
  // Failed and pruned candidates are no ties, and pruned ones still count
  // for the per-length best where they were timed.
  t.row(1, 0).prunedAfter = 1;
  EXPECT_EQ(chooseBest(t, 1).candidate, 1);
  EXPECT_TRUE(std::isnan(worstSlowdown(t, 1, 0)));
  EXPECT_NEAR(worstSlowdown(t, 1, 1), 35.0 / 30, 1e-12); // 30: the pruned one's
  t.row(1, 0).us[0] = NAN; // untimed at a length: no longer the best there
  EXPECT_NEAR(worstSlowdown(t, 1, 1), 1510.0 / 1400, 1e-12);
}

TEST(Selection, ReportLengthsDoNotChangeTheChoice) {
  // Bucket 32 of synthetic() plus a report length (weight 0) at which
  // candidate 0 is 3x slower than 1: the expected latencies, the worst
  // slowdowns and the tie rule's pick stay those without it.
  TimingTable base = synthetic();
  std::vector<ContextPoint> p = base.points;
  p.insert(p.begin() + 1, ContextPoint{4096, 0.0});
  TimingTable t({1, 32}, base.candidates, p);
  for (size_t b = 0; b < 2; ++b)
    for (size_t c = 0; c < 3; ++c) {
      std::vector<double> us = base.row(b, c).us;
      us.insert(us.begin() + 1, c == 0 ? 300.0 : 100.0);
      t.row(b, c).us = us;
    }
  EXPECT_DOUBLE_EQ(t.expectedUs(1, 0), base.expectedUs(1, 0));
  EXPECT_NEAR(worstSlowdown(t, 1, 0), 1500.0 / 1400, 1e-12);
  EXPECT_EQ(chooseBest(t, 1).candidate, 0);
  EXPECT_EQ(chooseBest(t, 0).candidate, 1);
}

TEST(Selection, FailedPrunedAndMissingAreNotChosen) {
  TimingTable t = synthetic();
  t.row(0, 1).failure = "cuGraphInstantiate: too many resources";
  t.row(0, 2).prunedAfter = 1;
  EXPECT_EQ(chooseBest(t, 0).candidate, 0);
  t.row(0, 0).us[0] = NAN; // not measured at one length
  BucketChoice none = chooseBest(t, 0);
  EXPECT_EQ(none.candidate, -1);
  EXPECT_EQ(none.error,
            "no candidate could be timed for batch bucket 1 (1 of 3 failed; "
            "e.g. BLOCK_N 64, 8 splits, 4 warps, 4 heads/CTA, 2 stages: "
            "cuGraphInstantiate: too many resources)");
  EXPECT_TRUE(std::isnan(t.expectedUs(0, 0)));
}

TEST(Selection, TiesGoToTheFirstCandidate) {
  TimingTable t({4}, {{32, 1, 4, 4, 2}, {64, 1, 4, 4, 2}}, {{1000, 1.0}});
  t.row(0, 0).us = {5};
  t.row(0, 1).us = {5};
  EXPECT_EQ(chooseBest(t, 0).candidate, 0);
}

TEST(Selection, PruningDropsOnlyProvableLosers) {
  // Weights 0.25 / 0.5 / 0.25; the longest length (65536) measured first.
  TimingTable t = synthetic();
  for (size_t c = 0; c < 3; ++c)
    t.row(0, c).us[0] = t.row(0, c).us[1] = NAN;
  // After one length: bounds are [0.25 t, t] (latency cannot grow as the
  // length shrinks). Candidate 0 (400): lower 100 > 1.1 * min upper 90.
  EXPECT_EQ(provablyLosing(t, 0, 1, 0.1), (std::vector<int>{0}));
  // With a margin of 20 %: 100 < 108, kept.
  EXPECT_TRUE(provablyLosing(t, 0, 1, 0.2).empty());
  // Nothing to prune before any length, or once all are measured.
  EXPECT_TRUE(provablyLosing(t, 0, 0, 0.1).empty());
  TimingTable full = synthetic();
  EXPECT_TRUE(provablyLosing(full, 0, 3, 0.1).empty());
  // After two lengths, candidates 1 and 2 stay (close), 0 goes.
  TimingTable two = synthetic();
  for (size_t c = 0; c < 3; ++c)
    two.row(0, c).us[0] = NAN;
  // 0: lower 0.5*60 + 0.25*400 = 130; 1: upper 32.5 + 0.25*20 = 37.5.
  EXPECT_EQ(provablyLosing(two, 0, 2, 0.1), (std::vector<int>{0}));
  // A pruned or failed candidate is not counted again, nor does it bound.
  two.row(0, 0).prunedAfter = 1;
  EXPECT_TRUE(provablyLosing(two, 0, 2, 0.1).empty());
}

TEST(Selection, PruningNeverDropsTheEventualWinner) {
  // Exhaustive check on a grid of monotone synthetic latencies: the winner
  // of the full table is never among the pruned, at any step.
  const std::vector<ContextPoint> p = {{256, 0.1}, {2048, 0.2}, {16384, 0.3},
                                       {131072, 0.4}};
  std::vector<Candidate> cands;
  for (int i = 0; i < 40; ++i)
    cands.push_back({16 * (1 + i % 16), 1 + i / 16, 4, 4, 2});
  TimingTable t({1}, cands, p);
  for (size_t c = 0; c < cands.size(); ++c) {
    double base = 3 + double((c * 7) % 11), slope = 0.001 * (1 + (c * 5) % 13);
    for (size_t q = 0; q < p.size(); ++q)
      t.row(0, c).us[q] = base + slope * double(p[q].length);
  }
  int winner = chooseBest(t, 0).candidate;
  for (size_t measured = 1; measured < p.size(); ++measured) {
    TimingTable partial = t;
    for (size_t c = 0; c < cands.size(); ++c)
      for (size_t q = 0; q + measured < p.size(); ++q)
        partial.row(0, c).us[q] = NAN;
    for (int c : provablyLosing(partial, 0, measured, 0.0))
      EXPECT_NE(c, winner) << "after " << measured << " lengths";
  }
}
