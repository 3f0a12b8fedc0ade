//===- manifest_test.cpp - Grid formulas, arch rules, plan choice ---------===//
#include "error.h"
#include "manifest.h"

#include <gtest/gtest.h>

using namespace tqrt;

namespace {

std::string gridError(const char *text) {
  try {
    parseGridExpr(text, "where");
  } catch (const Error &e) {
    EXPECT_EQ(e.status, TQRT_BAD_BUNDLE);
    return e.message;
  }
  return "";
}

TEST(GridExpr, Products) {
  GridExpr e = parseGridExpr("max_batch*4*num_q_heads", "w");
  EXPECT_EQ(e.literal, 4);
  ASSERT_EQ(e.names.size(), 2u);
  EXPECT_EQ(e.names[0], GridName::MaxBatch);
  EXPECT_EQ(e.names[1], GridName::NumQHeads);
  e = parseGridExpr("3 * 5", "w");
  EXPECT_EQ(e.literal, 15);
  EXPECT_TRUE(e.names.empty());
  e = parseGridExpr("head_groups*splits*max_tokens*num_kv_heads", "w");
  EXPECT_EQ(e.names.size(), 4u);
}

TEST(GridExpr, Rejects) {
  EXPECT_NE(gridError("").find("where is empty"), std::string::npos);
  EXPECT_NE(gridError("seq_len").find("unknown name \"seq_len\""),
            std::string::npos);
  EXPECT_NE(gridError("max_batch+1").find("unknown name \"max_batch+1\""),
            std::string::npos);
  EXPECT_NE(gridError("*2").find("has an empty factor"), std::string::npos);
  EXPECT_NE(gridError("2*").find("has an empty factor"), std::string::npos);
  EXPECT_NE(gridError("0").find("literal 0"), std::string::npos);
  EXPECT_NE(gridError("4x").find("\"4x\" in \"4x\" is not an integer"),
            std::string::npos);
  EXPECT_NE(gridError("99999999999").find("is not an integer below 2^31"),
            std::string::npos);
  EXPECT_NE(gridError("65536*65536").find("exceeds 2^31"), std::string::npos);
  EXPECT_NE(gridError("-1").find("unknown name \"-1\""), std::string::npos);
}

TEST(Arch, Parse) {
  Arch a;
  ASSERT_TRUE(parseArch("sm_90", a));
  EXPECT_TRUE(a.nvidia);
  EXPECT_EQ(a.number, 90);
  EXPECT_EQ(a.suffix, 0);
  ASSERT_TRUE(parseArch("sm_100a", a));
  EXPECT_EQ(a.number, 100);
  EXPECT_EQ(a.suffix, 'a');
  ASSERT_TRUE(parseArch("compute_120f", a));
  EXPECT_EQ(a.number, 120);
  EXPECT_EQ(a.suffix, 'f');
  ASSERT_TRUE(parseArch("gfx942", a));
  EXPECT_FALSE(a.nvidia);
  ASSERT_TRUE(parseArch("gfx90a", a));
  for (const char *bad : {"sm_", "sm_9", "sm_090", "sm_90b", "sm_9x", "90",
                          "gfx", "gfx94z", "SM_90", "sm_1000"})
    EXPECT_FALSE(parseArch(bad, a)) << bad;
}

bool runs(const char *arch, int cc, bool binary) {
  Arch a;
  EXPECT_TRUE(parseArch(arch, a)) << arch;
  return archRunsOn(a, cc, binary);
}

TEST(Arch, Compatibility) {
  // A cubin runs on later minors of its major only.
  EXPECT_TRUE(runs("sm_90", 90, true));
  EXPECT_FALSE(runs("sm_90", 100, true));
  EXPECT_TRUE(runs("sm_80", 86, true));
  EXPECT_TRUE(runs("sm_80", 89, true));
  EXPECT_FALSE(runs("sm_86", 80, true));
  EXPECT_FALSE(runs("sm_80", 90, true)); // the H200 needs the PTX of sm_80
  // PTX JIT-compiles for any later device.
  EXPECT_TRUE(runs("sm_80", 90, false));
  EXPECT_TRUE(runs("sm_90", 120, false));
  EXPECT_FALSE(runs("sm_90", 89, false));
  // Arch-specific code runs on exactly its compute capability.
  EXPECT_TRUE(runs("sm_90a", 90, true));
  EXPECT_TRUE(runs("sm_90a", 90, false));
  EXPECT_FALSE(runs("sm_100a", 103, true));
  EXPECT_FALSE(runs("sm_90a", 100, false));
  // Family-specific code runs on later minors of its major.
  EXPECT_TRUE(runs("sm_100f", 103, true));
  EXPECT_FALSE(runs("sm_100f", 120, false));
  // No NVIDIA device runs AMD code.
  EXPECT_FALSE(runs("gfx942", 90, true));
}

std::vector<PlanDesc> plansOf(std::vector<std::vector<int32_t>> buckets) {
  std::vector<PlanDesc> plans(buckets.size());
  for (size_t i = 0; i < buckets.size(); ++i)
    plans[i].buckets = buckets[i];
  return plans;
}

TEST(ChoosePlan, SmallestBucketAtLeastMaxBatch) {
  // Three plans: the usual shape (many splits for small batches).
  auto plans = plansOf({{1, 2}, {4}, {8, 16, 32}});
  const struct {
    int64_t maxBatch;
    int plan;
  } cases[] = {
      {1, 0}, {2, 0},          // inside the first plan
      {3, 1}, {4, 1},          // between plans: the next bucket's plan
      {5, 2}, {8, 2}, {9, 2},  // between buckets of one plan
      {32, 2},                 // the largest bucket
      {33, 2}, {1 << 30, 2},   // above every bucket: the last plan
  };
  for (const auto &c : cases)
    EXPECT_EQ(choosePlan(plans, c.maxBatch), c.plan) << "max_batch " << c.maxBatch;
  // Below every bucket: the first bucket's plan.
  EXPECT_EQ(choosePlan(plansOf({{4, 8}, {64}}), 1), 0);
  // One plan serves everything.
  EXPECT_EQ(choosePlan(plansOf({{16}}), 1), 0);
  EXPECT_EQ(choosePlan(plansOf({{16}}), 100), 0);
  // Interleaved (disjoint, sorted by the first bucket): the smallest
  // bucket >= max_batch decides; above all, the last plan.
  auto inter = plansOf({{1, 64}, {4, 16}});
  EXPECT_EQ(choosePlan(inter, 1), 0);
  EXPECT_EQ(choosePlan(inter, 2), 1);
  EXPECT_EQ(choosePlan(inter, 16), 1);
  EXPECT_EQ(choosePlan(inter, 17), 0);
  EXPECT_EQ(choosePlan(inter, 65), 1);
}

} // namespace
