//===- ReportTest.cpp - The report and the heat maps from synthetic data --===//
#include "tqc/Autotune/Report.h"

#include <gtest/gtest.h>

using namespace tqc::autotune;

namespace {

size_t count(const std::string &s, const std::string &what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos;
       at = s.find(what, at + 1))
    ++n;
  return n;
}

/// BLOCK_N {32, 64} x splits {1, 4, 16} x warps {4, 8}, one bucket, two
/// lengths; warps 8 is slower, so the heat map shows the warps-4 slice.
TimingTable table() {
  std::vector<Candidate> c;
  for (int64_t bn : {32, 64})
    for (int64_t s : {1, 4, 16})
      for (int64_t w : {4, 8})
        c.push_back({bn, s, w, 4, 2});
  TimingTable t({8}, c, {{1024, 0.5}, {32768, 0.5}});
  for (size_t i = 0; i < c.size(); ++i) {
    double base = 10.0 + double(i);
    t.row(0, i).us = {base, base * 10};
    t.row(0, i).spread = {0.01, 0.02};
  }
  // (64, 16, 4) failed, (64, 4, 4) was pruned.
  for (size_t i = 0; i < c.size(); ++i) {
    if (c[i] == Candidate{64, 16, 4, 4, 2})
      t.row(0, i).failure = "cuGraphInstantiate: CUDA_ERROR_OUT_OF_MEMORY";
    if (c[i] == Candidate{64, 4, 4, 4, 2})
      t.row(0, i).prunedAfter = 1;
  }
  return t;
}

} // namespace

TEST(Report, HeatMapOfTheBestSlice) {
  TimingTable t = table();
  BucketChoice ch = chooseBest(t, 0);
  ASSERT_EQ(ch.candidate, 0); // (32, 1, 4)
  std::string svg = heatMapSvg(t, 0, ch);
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  // 2 x 3 cells plus the background.
  EXPECT_EQ(count(svg, "<rect"), 7u);
  EXPECT_NE(svg.find("batch bucket 8"), std::string::npos);
  EXPECT_NE(svg.find("4 warps, 4 heads/CTA, 2 stages (the best plan's)"),
            std::string::npos);
  EXPECT_EQ(count(svg, ">best<"), 1u);
  EXPECT_EQ(count(svg, "stroke-width=\"3\""), 1u); // the best cell's border
  EXPECT_NE(svg.find(">failed<"), std::string::npos);
  EXPECT_NE(svg.find(">pruned<"), std::string::npos);
  // Best (32, 1, 4): 0.5 * 10 + 0.5 * 100 = 55 us, green.
  EXPECT_NE(svg.find(">55.0<"), std::string::npos);
  EXPECT_NE(svg.find("#1a9850"), std::string::npos);
  // (32, 4, 4) is candidate 2: 0.5 * 12 + 0.5 * 120 = 66 us, +20 %.
  EXPECT_NE(svg.find(">66.0<"), std::string::npos);
  EXPECT_NE(svg.find(">+20%<"), std::string::npos);
  EXPECT_EQ(heatMapName(8), "heatmap_b8.svg");
}

TEST(Report, MarkdownTables) {
  TimingTable t = table();
  ReportInput in;
  in.table = &t;
  in.choices = {chooseBest(t, 0)};
  in.defaults = {2}; // pretend (32, 4, 4) is the built-in plan
  in.header = {"GPU: test", "recipe: k3v4"};
  in.topRows = 3;
  std::string md = reportMarkdown(in);
  EXPECT_EQ(md.rfind("# tqc autotune report\n", 0), 0u);
  EXPECT_NE(md.find("- GPU: test\n"), std::string::npos);
  EXPECT_NE(md.find("| 1024 | 0.5000 |"), std::string::npos);
  // Chosen plan row: bucket 8, (32, 1, 4, 4, 2), 55 us, the fastest at
  // every length (worst 1.000x); built-in 66 us.
  EXPECT_NE(md.find("| 8 | 32 | 1 | 4 | 4 | 2 | 55.0 | 1.000x | 66.0 | 1.20x |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("![expected latency over BLOCK_N and splits](heatmap_b8.svg)"),
            std::string::npos);
  EXPECT_NE(md.find("| 1 | 32 | 1 | 4 | 4 | 2 | 55.0 | best | 10.0 | 100 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| 2 | 32 | 1 | 8 | 4 | 2 | 60.5 | +10.0% |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("10 candidates timed at every length (7 more not shown), "
                    "1 pruned as provably slower, 1 failed."),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("cuGraphInstantiate: CUDA_ERROR_OUT_OF_MEMORY"),
            std::string::npos);
  EXPECT_NE(md.find("up to 2.0%"), std::string::npos);
}

TEST(Report, BucketWithoutPlan) {
  TimingTable t({1}, {{32, 1, 4, 4, 2}}, {{1024, 1.0}});
  t.row(0, 0).failure = "boom";
  ReportInput in;
  in.table = &t;
  in.choices = {chooseBest(t, 0)};
  std::string md = reportMarkdown(in);
  EXPECT_NE(md.find("No plan: no candidate could be timed for batch bucket 1"),
            std::string::npos);
}
