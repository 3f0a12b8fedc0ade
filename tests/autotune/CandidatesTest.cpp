//===- CandidatesTest.cpp - The candidate space ---------------------------===//
#include "tqc/Autotune/Autotune.h"
#include "tqc/Autotune/Candidates.h"
#include "tqc/Autotune/Measure.h"
#include "tqc/Autotune/Progress.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace tqc::autotune;

TEST(Candidates, DefaultsForGqa4) {
  CandidateList l = generateCandidates({}, 4);
  ASSERT_EQ(l.error, "");
  // BLOCK_N 3 x splits 6 x warps 2 x heads {4, 2} x stages {2}.
  EXPECT_EQ(l.candidates.size(), 72u);
  EXPECT_TRUE(std::is_sorted(l.candidates.begin(), l.candidates.end()));
  std::set<int64_t> heads, blockN, splits;
  for (const Candidate &c : l.candidates) {
    heads.insert(c.headsPerCta);
    blockN.insert(c.blockN);
    splits.insert(c.splits);
    EXPECT_EQ(c.stages, 2);
  }
  EXPECT_EQ(heads, (std::set<int64_t>{2, 4}));
  EXPECT_EQ(blockN, (std::set<int64_t>{32, 64, 128}));
  EXPECT_EQ(splits, (std::set<int64_t>{1, 2, 4, 8, 16, 32}));
  // Where the decode has its copy ring (sm_90+), 3 stages as well.
  CandidateList ring = generateCandidates({}, 4, /*copyRing=*/true);
  EXPECT_EQ(ring.candidates.size(), 144u);
  std::set<int64_t> stages;
  for (const Candidate &c : ring.candidates)
    stages.insert(c.stages);
  EXPECT_EQ(stages, (std::set<int64_t>{2, 3}));
}

TEST(Candidates, StageCountsThatCompileAlikeAreOneCandidate) {
  auto stagesOf = [](const CandidateList &l) {
    std::set<int64_t> out;
    for (const Candidate &c : l.candidates)
      out.insert(c.stages);
    return out;
  };
  CandidateSpace s;
  s.blockN = {64};
  s.splits = {2};
  s.warps = {8};
  s.headsPerCta = {4};
  s.stages = {1, 2, 3, 4, 5, 6, 8};
  // The copy ring's slots hold two steps: 3 is 4, 5 is 6 (the smallest
  // listed value stays), 8 stands alone.
  const CandidateList ring = generateCandidates(s, 4, /*copyRing=*/true);
  ASSERT_TRUE(ring.error.empty()) << ring.error;
  EXPECT_EQ(stagesOf(ring), (std::set<int64_t>{1, 2, 3, 5, 8}));
  EXPECT_EQ(ring.candidates.size(), 5u);
  // Without the ring 3 or more run as 2.
  const CandidateList plain = generateCandidates(s, 4, /*copyRing=*/false);
  ASSERT_TRUE(plain.error.empty()) << plain.error;
  EXPECT_EQ(stagesOf(plain), (std::set<int64_t>{1, 2}));
  // Alone, a stage count is kept whatever it compiles to.
  s.stages = {4};
  EXPECT_EQ(stagesOf(generateCandidates(s, 4, false)), (std::set<int64_t>{4}));
}

TEST(Candidates, HeadsPerCtaFollowTheGroup) {
  EXPECT_EQ(defaultHeadsPerCta(1), (std::vector<int64_t>{1}));
  EXPECT_EQ(defaultHeadsPerCta(2), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(defaultHeadsPerCta(5), (std::vector<int64_t>{5}));
  EXPECT_EQ(defaultHeadsPerCta(6), (std::vector<int64_t>{6, 3}));
  EXPECT_EQ(defaultHeadsPerCta(8), (std::vector<int64_t>{8, 4}));
  // Above the template's 8: the largest divisor that fits.
  EXPECT_EQ(defaultHeadsPerCta(16), (std::vector<int64_t>{8, 4}));
  EXPECT_EQ(defaultHeadsPerCta(12), (std::vector<int64_t>{6, 3}));
  EXPECT_EQ(generateCandidates({}, 1).candidates.size(), 36u);
}

TEST(Candidates, UserListsAreDistinct) {
  CandidateSpace s;
  s.blockN = {128, 64, 64};
  s.splits = {4};
  s.warps = {8};
  s.headsPerCta = {4};
  s.stages = {2, 3};
  CandidateList l = generateCandidates(s, 4, /*copyRing=*/true);
  ASSERT_EQ(l.error, "");
  ASSERT_EQ(l.candidates.size(), 4u); // the repeated 64 counts once
  EXPECT_EQ(l.candidates[0], (Candidate{64, 4, 8, 4, 2}));
  EXPECT_EQ(l.candidates[3], (Candidate{128, 4, 8, 4, 3}));
  EXPECT_EQ(l.candidates[0].describe(),
            "BLOCK_N 64, 4 splits, 8 warps, 4 heads/CTA, 2 stages");
}

TEST(Candidates, InvalidValuesNameWhatIsAccepted) {
  CandidateSpace s;
  s.blockN = {24};
  EXPECT_EQ(generateCandidates(s, 4).error,
            "BLOCK_N 24 is not a valid candidate; accepted: a multiple of 16 "
            "in 16..256");
  s = {};
  s.splits = {128};
  EXPECT_EQ(generateCandidates(s, 4).error,
            "splits 128 is not a valid candidate; accepted: 1..64");
  s = {};
  s.warps = {32};
  EXPECT_NE(generateCandidates(s, 4).error.find("warps 32"), std::string::npos);
  s = {};
  s.headsPerCta = {3};
  EXPECT_EQ(generateCandidates(s, 4).error,
            "heads per CTA 3 is not a valid candidate; accepted: a divisor of "
            "the GQA ratio 4 that is at most 8");
  s = {};
  s.stages = {0};
  EXPECT_NE(generateCandidates(s, 4).error.find("stages 0"), std::string::npos);
  EXPECT_NE(generateCandidates({}, 0).error.find("GQA ratio is 0"),
            std::string::npos);
}

TEST(Candidates, IntLists) {
  std::vector<int64_t> v;
  std::string err;
  ASSERT_TRUE(parseIntList("1,8, 32,64", "--buckets", v, err)) << err;
  EXPECT_EQ(v, (std::vector<int64_t>{1, 8, 32, 64}));
  EXPECT_FALSE(parseIntList("1,,8", "--buckets", v, err));
  EXPECT_EQ(err, "--buckets: '' in '1,,8' is not a positive integer (expected "
                 "a comma-separated list such as 1,8,32)");
  EXPECT_FALSE(parseIntList("1,x", "--buckets", v, err));
  EXPECT_FALSE(parseIntList("0", "--buckets", v, err));
  EXPECT_FALSE(parseIntList("-4", "--buckets", v, err));
  EXPECT_FALSE(parseIntList("8,8", "--buckets", v, err));
  EXPECT_EQ(err, "--buckets: 8 appears twice in '8,8'");
}

TEST(Candidates, BuiltInPlanMirrorsPlanLaunch) {
  // 32 query heads, GQA 4 -> 4 heads per CTA, 8 head groups; 132 SMs: the
  // largest power of two with 8 * B * s <= 264.
  EXPECT_EQ(builtInPlan(1, 32, 4, 132), (Candidate{64, 32, 4, 4, 2}));
  EXPECT_EQ(builtInPlan(8, 32, 4, 132), (Candidate{64, 4, 4, 4, 2}));
  EXPECT_EQ(builtInPlan(32, 32, 4, 132), (Candidate{64, 1, 4, 4, 2}));
}

TEST(Candidates, ArchMustRunNatively) {
  EXPECT_EQ(archForComputeCapability(90), "sm_90");
  EXPECT_EQ(archForComputeCapability(120), "sm_120");
  EXPECT_EQ(checkArchRunsOn("sm_90", 90, "H200"), "");
  EXPECT_EQ(checkArchRunsOn("sm_90a", 90, "H200"), "");
  EXPECT_EQ(checkArchRunsOn("sm_80", 86, "A10"), "");
  EXPECT_EQ(checkArchRunsOn("sm_86", 80, "A100").substr(0, 40),
            "--arch sm_86 does not run natively on A1");
  EXPECT_NE(checkArchRunsOn("sm_80", 90, "NVIDIA H200")
                .find("tune with --arch native (sm_90)"),
            std::string::npos);
  EXPECT_NE(checkArchRunsOn("sm_100a", 103, "B300"), "");
}

TEST(Measure, ReplicasCoverFourTimesTheL2) {
  const int64_t l2 = 60ll << 20, stride = 15104;
  // B=1, L=256: 16 blocks, 241664 bytes a replica.
  int64_t r = replicasFor(1, 16, stride, l2, 4.0, 4096);
  EXPECT_GT(double(r) * 16 * stride, 4.0 * double(l2));
  EXPECT_LE(double(r - 1) * 16 * stride, 4.0 * double(l2));
  // Already larger than 4x L2: one replica.
  EXPECT_EQ(replicasFor(64, 8192, stride, l2, 4.0, 4096), 1);
  EXPECT_EQ(replicasFor(1, 1, 16, l2, 4.0, 100), 100); // capped
}

TEST(Progress, Lines) {
  EXPECT_EQ(formatDuration(7.2), "7s");
  EXPECT_EQ(formatDuration(65), "1m05s");
  EXPECT_EQ(formatDuration(3720), "1h02m");
  ProgressState s;
  s.bucket = 8;
  s.bucketIndex = 2;
  s.numBuckets = 4;
  s.length = 27554;
  s.pointIndex = 2;
  s.numPoints = 5;
  s.candidate = 37;
  s.numCandidates = 72;
  s.elapsedS = 72;
  s.etaS = 220;
  EXPECT_EQ(formatProgress(s), "bucket 8 (2/4)  L=27554 (2/5)  candidate "
                               "37/72  elapsed 1m12s  ETA 3m40s");
  s.etaS = -1;
  EXPECT_NE(formatProgress(s).find("ETA ?"), std::string::npos);
  EtaEstimator e;
  e.addTotal(100);
  EXPECT_EQ(e.remaining(10), -1);
  e.addDone(25);
  EXPECT_DOUBLE_EQ(e.remaining(10), 30);
  e.removeFromTotal(50); // pruned work
  EXPECT_DOUBLE_EQ(e.remaining(10), 10);
}
