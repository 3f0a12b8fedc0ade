//===- CompileCandidatesTest.cpp - Candidates into real bundles -----------===//
//
// Named AutotuneToolchain: it runs NVRTC and nvJitLink (a few seconds, no
// GPU), like the toolchain tier, and depends on the templates compiling.
//
//===----------------------------------------------------------------------===//
#include "tqc/Autotune/CompileCandidates.h"

#include "tqrt/tqrt.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace tqc::autotune;

namespace {

tqc::CompileRequest k3v4() {
  tqc::CompileRequest r;
  r.arch = "sm_90";
  r.preset = "k3v4";
  return r; // head_dim 128, 32/8 heads, block size 16
}

/// Loads a bundle and checks that plan i is candidates[cb.candidates[i]].
void expectPlansMatch(const CandidateBundle &cb,
                      const std::vector<Candidate> &all) {
  tqrt_bundle *b = nullptr;
  ASSERT_EQ(tqrt_bundle_load_memory(cb.manifest.data(), cb.manifest.size(),
                                    cb.cubin.data(), cb.cubin.size(),
                                    cb.ptx.data(), cb.ptx.size(), &b),
            TQRT_OK)
      << tqrt_last_error();
  tqrt_bundle_info info;
  ASSERT_EQ(tqrt_bundle_get_info(b, &info), TQRT_OK);
  ASSERT_EQ(size_t(info.num_plans), cb.candidates.size());
  for (size_t i = 0; i < cb.candidates.size(); ++i) {
    tqrt_plan_desc d;
    ASSERT_EQ(tqrt_bundle_get_plan(b, int32_t(i), &d), TQRT_OK);
    const Candidate &c = all[size_t(cb.candidates[i])];
    EXPECT_EQ(d.block_n, c.blockN);
    EXPECT_EQ(d.splits, c.splits);
    EXPECT_EQ(d.warps, c.warps);
    EXPECT_EQ(d.heads_per_cta, c.headsPerCta);
    EXPECT_EQ(d.stages, c.stages);
    ASSERT_EQ(d.num_buckets, 1);
    EXPECT_EQ(d.buckets[0], int32_t(i) + 1); // the fake bucket
  }
  // The plans can be taken by index (unbound here: no driver).
  tqrt_plan *p = nullptr;
  EXPECT_EQ(tqrt_plan_create_for(b, info.num_plans - 1, 64, 1, &p), TQRT_OK)
      << tqrt_last_error();
  tqrt_plan_destroy(p);
  tqrt_bundle_destroy(b);
}

} // namespace

TEST(AutotuneToolchain, EveryCandidateIsItsOwnPlan) {
  // Candidates that share everything but one field each: equal neighbours
  // would be merged by tq-plan-launch, distinct ones must not be.
  std::vector<Candidate> all = {
      {64, 1, 4, 4, 2}, {64, 8, 4, 4, 2}, {64, 8, 8, 4, 2}};
  std::vector<std::string> lines;
  CompiledCandidates out = compileCandidates(
      k3v4(), all, /*jobs=*/2, "test",
      [&](const std::string &l) { lines.push_back(l); });
  ASSERT_EQ(out.error, "");
  EXPECT_TRUE(out.dropped.empty());
  ASSERT_EQ(out.bundles.size(), 2u); // round-robin: {0, 2} and {1}
  EXPECT_EQ(out.bundles[0].candidates, (std::vector<int>{0, 2}));
  EXPECT_EQ(out.bundles[1].candidates, (std::vector<int>{1}));
  for (const CandidateBundle &cb : out.bundles) {
    EXPECT_FALSE(cb.cubin.empty());
    EXPECT_NE(cb.manifest.find("\"plan_source\": \"autotune candidates\""),
              std::string::npos);
    expectPlansMatch(cb, all);
  }
  EXPECT_TRUE(lines.empty());
}

TEST(AutotuneToolchain, ACandidateThatFailsIsDroppedAlone) {
  // heads_per_cta 3 does not divide the GQA group of 4: tq-plan-launch
  // refuses it, which fails the shared bundle; the retry keeps the other.
  std::vector<Candidate> all = {{32, 2, 4, 4, 2}, {32, 2, 4, 3, 2}};
  std::vector<std::string> lines;
  CompiledCandidates out = compileCandidates(
      k3v4(), all, /*jobs=*/1, "test",
      [&](const std::string &l) { lines.push_back(l); });
  ASSERT_EQ(out.error, "");
  ASSERT_EQ(out.bundles.size(), 1u);
  EXPECT_EQ(out.bundles[0].candidates, (std::vector<int>{0}));
  expectPlansMatch(out.bundles[0], all);
  ASSERT_EQ(out.dropped.size(), 1u);
  EXPECT_EQ(out.dropped[0].first, 1);
  EXPECT_NE(out.dropped[0].second.find("heads_per_cta"), std::string::npos)
      << out.dropped[0].second;
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("a bundle of 2 candidates failed to compile"),
            std::string::npos);
}
