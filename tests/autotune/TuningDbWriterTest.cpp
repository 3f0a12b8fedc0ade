//===- TuningDbWriterTest.cpp - Writing and merging the database ----------===//
//
// Every database written here is read back with the compiler's reader
// (lookupTuningDb), the one `tqc --tuning-db` uses.
//
//===----------------------------------------------------------------------===//
#include "tqc/Autotune/TuningDbWriter.h"
#include "tqc/Compiler/TuningDb.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace tqc::autotune;
namespace fs = std::filesystem;

namespace {

std::string tmpPath(const std::string &name) {
  fs::create_directories(TQC_AUTOTUNE_TEST_TMP);
  std::string p = std::string(TQC_AUTOTUNE_TEST_TMP) + "/" + name;
  fs::remove(p);
  return p;
}

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const TuningKey kH200{"NVIDIA H200", "sm_90", "k3v4", 132, 128, 4};

std::vector<TunedBucket> plans() {
  return {{1, {32, 16, 4, 4, 2}, 41.5},
          {8, {64, 4, 4, 4, 2}, 120.25},
          {32, {64, 1, 8, 2, 2}, 480.125}};
}

tqc::TuningLookup lookup(const std::string &path, const std::string &preset,
                         const std::string &gpu = "") {
  tqc::TuningQuery q;
  q.arch = "sm_90";
  q.preset = preset;
  q.headDim = 128;
  q.gqaRatio = 4;
  q.gpu = gpu;
  return tqc::lookupTuningDb(path, q);
}

} // namespace

TEST(TuningDbWriter, NewFileRoundTripsThroughTheReader) {
  std::string path = tmpPath("new.json");
  DbMerge m = writeTuningDb(path, kH200, plans(), "log-uniform 256..131072");
  ASSERT_EQ(m.error, "");
  EXPECT_EQ(m.added, 3u);
  EXPECT_EQ(m.kept, 0u);
  tqc::TuningLookup r = lookup(path, "k3v4");
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(r.gpu, "NVIDIA H200");
  EXPECT_EQ(r.smCount, 132);
  ASSERT_EQ(r.plans.size(), 3u);
  EXPECT_EQ(r.plans[0].bucket, 1);
  EXPECT_EQ(r.plans[0].blockN, 32);
  EXPECT_EQ(r.plans[0].splits, 16);
  EXPECT_EQ(r.plans[2].bucket, 32);
  EXPECT_EQ(r.plans[2].warps, 8);
  EXPECT_EQ(r.plans[2].headsPerCta, 2);
  std::string text = readFile(path);
  EXPECT_NE(text.find("\"schema\": \"tqc.tuning\""), std::string::npos);
  EXPECT_NE(text.find("\"expected_us\":480.13"), std::string::npos);
  EXPECT_NE(text.find("\"contexts\":\"log-uniform 256..131072\""),
            std::string::npos);
  EXPECT_FALSE(fs::exists(path + ".tmp"));
}

TEST(TuningDbWriter, MergeReplacesTheSameKeyAndKeepsTheRest) {
  std::string path = tmpPath("merge.json");
  ASSERT_EQ(writeTuningDb(path, kH200, plans(), "a").error, "");
  // Another preset and another GPU go in beside it.
  TuningKey k4 = kH200;
  k4.preset = "k4v4";
  ASSERT_EQ(writeTuningDb(path, k4, {{1, {64, 8, 4, 4, 2}, 50}}, "a").error, "");
  TuningKey h100 = kH200;
  h100.gpu = "NVIDIA H100 80GB HBM3";
  ASSERT_EQ(writeTuningDb(path, h100, {{1, {128, 8, 4, 4, 2}, 60}}, "a").error,
            "");
  // Re-tuning buckets 8 and 64 of the H200 k3v4: 8 replaced, 64 added, 1
  // and 32 kept.
  DbMerge m = writeTuningDb(
      path, kH200, {{8, {128, 2, 8, 4, 3}, 99}, {64, {64, 1, 4, 4, 2}, 900}},
      "b");
  ASSERT_EQ(m.error, "");
  EXPECT_EQ(m.replaced, 1u);
  EXPECT_EQ(m.added, 1u);
  EXPECT_EQ(m.kept, 4u);
  tqc::TuningLookup r = lookup(path, "k3v4", "NVIDIA H200");
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.plans.size(), 4u);
  EXPECT_EQ(r.plans[1].bucket, 8);
  EXPECT_EQ(r.plans[1].blockN, 128);
  EXPECT_EQ(r.plans[1].stages, 3);
  EXPECT_EQ(r.plans[3].bucket, 64);
  EXPECT_EQ(lookup(path, "k4v4").plans.size(), 1u);
  tqc::TuningLookup other = lookup(path, "k3v4", "NVIDIA H100 80GB HBM3");
  ASSERT_EQ(other.error, "");
  EXPECT_EQ(other.plans.front().blockN, 128);
  // Without --gpu the reader refuses to guess between the two GPUs.
  EXPECT_NE(lookup(path, "k3v4").error.find("several GPUs"), std::string::npos);
}

TEST(TuningDbWriter, AnotherSmCountReplacesWithANote) {
  // The reader keeps one plan per (GPU, bucket); two SM counts for one GPU
  // name would make the database unreadable.
  std::string path = tmpPath("sms.json");
  TuningKey mig = kH200;
  mig.smCount = 114;
  ASSERT_EQ(writeTuningDb(path, mig, {{1, {64, 8, 4, 4, 2}, 50}}, "a").error, "");
  DbMerge m = writeTuningDb(path, kH200, {{1, {32, 16, 4, 4, 2}, 40}}, "a");
  ASSERT_EQ(m.error, "");
  ASSERT_FALSE(m.notes.empty());
  EXPECT_EQ(m.notes[0], "replacing bucket 1 of NVIDIA H200 tuned with 114 SMs "
                        "by this run's (132 SMs)");
  tqc::TuningLookup r = lookup(path, "k3v4");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.smCount, 132);
}

TEST(TuningDbWriter, KeepsUnknownMembersOfOtherEntries) {
  std::string path = tmpPath("extra.json");
  writeFile(path, R"({"schema": "tqc.tuning", "schema_version": 1, "note": "hand-made",
    "entries": [{"gpu": "NVIDIA A100", "arch": "sm_80", "sm_count": 108,
                 "preset": "k3v4", "head_dim": 128, "gqa_ratio": 4, "bucket": 4,
                 "plan": {"block_n": 64, "splits": 4, "warps": 4, "heads_per_cta": 4, "stages": 2},
                 "comment": "kept"}]})");
  DbMerge m = writeTuningDb(path, kH200, plans(), "a");
  ASSERT_EQ(m.error, "");
  std::string text = readFile(path);
  EXPECT_NE(text.find("\"note\": \"hand-made\""), std::string::npos);
  EXPECT_NE(text.find("\"comment\":\"kept\""), std::string::npos);
}

TEST(TuningDbWriter, RefusesCorruptOrForeignFiles) {
  struct Case {
    const char *name, *text, *expect;
  } cases[] = {
      {"corrupt.json", "{\"schema\": \"tqc.tuning\", \"schema_version\": 1,\n",
       "malformed JSON"},
      {"version.json", "{\"schema\": \"tqc.tuning\", \"schema_version\": 2, \"entries\": []}",
       "schema_version 2 is not supported; accepted: 1"},
      {"schema.json", "{\"schema\": \"tqc.bundle\", \"schema_version\": 2}",
       "schema is \"tqc.bundle\"; accepted: \"tqc.tuning\""},
      {"entry.json",
       "{\"schema\": \"tqc.tuning\", \"schema_version\": 1, \"entries\": [{\"gpu\": 3}]}",
       "entries[0].gpu is number"},
      {"empty.json", "  \n", "is empty, not a tuning database"},
  };
  for (const Case &c : cases) {
    std::string path = tmpPath(c.name);
    writeFile(path, c.text);
    EXPECT_NE(checkExistingDb(path).find(c.expect), std::string::npos)
        << c.name << ": " << checkExistingDb(path);
    DbMerge m = writeTuningDb(path, kH200, plans(), "a");
    EXPECT_NE(m.error.find(c.expect), std::string::npos) << m.error;
    if (std::string(c.name) != "empty.json") {
      EXPECT_NE(m.error.find("refusing to merge into it"), std::string::npos);
    }
    // The file is left exactly as it was.
    EXPECT_EQ(readFile(path), c.text) << c.name;
  }
  EXPECT_EQ(checkExistingDb(tmpPath("absent.json")), "");
}
