//===- runtime_test.cpp - The C ABI's checks, on CPU ----------------------===//
//
// Every test runs with the CUDA driver forced absent (main() points
// TQRT_LIBCUDA at a missing file), also on a GPU machine: plans are then
// unbound, and a launch whose arguments pass every check returns
// TQRT_NO_DEVICE. So "NO_DEVICE" below means "all checks passed".
//
//===----------------------------------------------------------------------===//
#include "test_util.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <stdlib.h>
#include <unistd.h>

using namespace tqrt_test;

namespace {

// The fixture: k3v4, head_dim 128, 32 q heads, 8 KV heads, block_size 16,
// bf16 kernels only, two decode plans:
//   plans[0]: buckets [1, 2],     splits 4, heads_per_cta 4, block_n 64,
//             warps 4, stages 2 (decode merges its splits itself);
//   plans[1]: buckets [4, 8, 16], splits 1, heads_per_cta 2, block_n 128,
//             warps 8, stages 3, decode only (block 256, 32 KiB shared).
constexpr int kHeadDim = 128, kNumQ = 32, kNumKV = 8;
constexpr int64_t kBlockStride = 15104;
constexpr int64_t kFloatsPerRow = 32 + 32 * 4 * 130; // plans[0]: abi.h

TEST(Bundle, LoadsFromDirectory) {
  Loaded l;
  ASSERT_EQ(tqrt_bundle_load_dir(TQRT_FIXTURES, &l.bundle), TQRT_OK)
      << tqrt_last_error();
  EXPECT_STREQ(tqrt_last_error(), "");
  tqrt_bundle_info info;
  ASSERT_EQ(tqrt_bundle_get_info(l.bundle, &info), TQRT_OK);
  EXPECT_STREQ(info.arch, "sm_90");
  EXPECT_STREQ(info.vendor, "nvidia");
  EXPECT_STREQ(info.preset, "k3v4");
  EXPECT_STREQ(info.generator, "tqc 0.1.0");
  EXPECT_EQ(info.schema_version, 2);
  EXPECT_EQ(info.abi_version, tqrt_abi_version());
  EXPECT_EQ(info.head_dim, kHeadDim);
  EXPECT_EQ(info.num_q_heads, kNumQ);
  EXPECT_EQ(info.num_kv_heads, kNumKV);
  EXPECT_EQ(info.block_size, 16);
  EXPECT_EQ(info.num_plans, 2);
  EXPECT_STREQ(info.plan_source, "defaults");
  EXPECT_EQ(info.dtypes, 1u << TQRT_DTYPE_BF16);
  EXPECT_FLOAT_EQ(info.softmax_scale, 0.08838834764831845f);
  EXPECT_EQ(info.has_image, 1);
  EXPECT_EQ(info.has_ptx, 1);
}

TEST(Bundle, Plans) {
  Loaded l;
  ASSERT_EQ(tqrt_bundle_load_dir(TQRT_FIXTURES, &l.bundle), TQRT_OK);
  tqrt_plan_desc p;
  ASSERT_EQ(tqrt_bundle_get_plan(l.bundle, 0, &p), TQRT_OK);
  ASSERT_EQ(p.num_buckets, 2);
  ASSERT_NE(p.buckets, nullptr);
  EXPECT_EQ(p.buckets[0], 1);
  EXPECT_EQ(p.buckets[1], 2);
  EXPECT_EQ(p.block_n, 64);
  EXPECT_EQ(p.splits, 4);
  EXPECT_EQ(p.warps, 4);
  EXPECT_EQ(p.heads_per_cta, 4);
  EXPECT_EQ(p.stages, 2);
  EXPECT_EQ(p.workspace_floats_per_batch_row, kFloatsPerRow);
  const int32_t *buckets0 = p.buckets;
  ASSERT_EQ(tqrt_bundle_get_plan(l.bundle, 1, &p), TQRT_OK);
  ASSERT_EQ(p.num_buckets, 3);
  EXPECT_EQ(p.buckets[0], 4);
  EXPECT_EQ(p.buckets[1], 8);
  EXPECT_EQ(p.buckets[2], 16);
  EXPECT_EQ(p.block_n, 128);
  EXPECT_EQ(p.splits, 1);
  EXPECT_EQ(p.warps, 8);
  EXPECT_EQ(p.heads_per_cta, 2);
  EXPECT_EQ(p.stages, 3);
  EXPECT_EQ(p.workspace_floats_per_batch_row, 0);
  // The bucket arrays stay valid while the bundle lives.
  EXPECT_EQ(buckets0[1], 2);

  EXPECT_STATUS(tqrt_bundle_get_plan(l.bundle, 2, &p), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("tqrt_bundle_get_plan: index 2 is outside [0, 2)");
  EXPECT_STATUS(tqrt_bundle_get_plan(l.bundle, -1, &p), TQRT_INVALID_ARGUMENT);
  EXPECT_STATUS(tqrt_bundle_get_plan(nullptr, 0, &p), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("bundle is null");
  EXPECT_STATUS(tqrt_bundle_get_plan(l.bundle, 0, nullptr), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("the output pointer is null");
  // A one-split plan whose manifest spells the workspace out reports 0: it
  // needs none.
  Loaded w;
  ASSERT_EQ(loadText(edit(readFixture("manifest.json"),
                          "\"workspace_floats_per_batch_row\": 0",
                          "\"workspace_floats_per_batch_row\": 4192"),
                     &w.bundle),
            TQRT_OK) << tqrt_last_error();
  ASSERT_EQ(tqrt_bundle_get_plan(w.bundle, 1, &p), TQRT_OK);
  EXPECT_EQ(p.workspace_floats_per_batch_row, 0);
}

TEST(Bundle, LoadsFromMemoryWithTrailingNul) {
  std::string text = readFixture("manifest.json");
  text.push_back('\0'); // as a C header's array may carry
  Loaded l;
  EXPECT_STATUS(loadText(text, &l.bundle), TQRT_OK);
  // PTX only (no cubin) is a bundle too.
  std::string ptx = readFixture("kernels.ptx");
  tqrt_bundle *b = nullptr;
  EXPECT_STATUS(tqrt_bundle_load_memory(text.data(), text.size(), "", 0,
                                        ptx.data(), ptx.size(), &b),
                TQRT_OK);
  tqrt_bundle_info info;
  ASSERT_EQ(tqrt_bundle_get_info(b, &info), TQRT_OK);
  EXPECT_EQ(info.has_image, 0);
  EXPECT_EQ(info.has_ptx, 1);
  tqrt_bundle_destroy(b);
}

TEST(Bundle, Layout) {
  Loaded l;
  ASSERT_EQ(tqrt_bundle_load_dir(TQRT_FIXTURES, &l.bundle), TQRT_OK);
  tqrt_layout_info layout;
  ASSERT_EQ(tqrt_bundle_get_layout(l.bundle, &layout), TQRT_OK);
  EXPECT_STREQ(layout.kind, "native");
  EXPECT_STREQ(layout.dtype, "uint8");
  EXPECT_EQ(layout.rank, 3);
  EXPECT_EQ(layout.shape[0], -1);
  EXPECT_EQ(layout.shape[1], 8);
  EXPECT_EQ(layout.shape[2], 1888);
  EXPECT_EQ(layout.shape[3], 0);
  EXPECT_EQ(layout.block_stride, kBlockStride);
  EXPECT_EQ(layout.head_stride, 1888);
  EXPECT_EQ(layout.region_bytes, 1888);
  EXPECT_EQ(layout.bytes_per_token_head, 118);
  EXPECT_EQ(layout.alignment, 16);
  ASSERT_EQ(layout.num_fields, 5);

  tqrt_field_info f;
  ASSERT_EQ(tqrt_bundle_get_field(l.bundle, 1, &f), TQRT_OK);
  EXPECT_STREQ(f.name, "value_codes");
  EXPECT_STREQ(f.dtype, "u8");
  EXPECT_EQ(f.bytes, 64);
  EXPECT_EQ(f.offset, 768);
  EXPECT_EQ(f.token_stride, 64);
  EXPECT_STATUS(tqrt_bundle_get_field(l.bundle, 5, &f), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("index 5 is outside [0, 5)");
  EXPECT_STATUS(tqrt_bundle_get_field(l.bundle, -1, &f), TQRT_INVALID_ARGUMENT);

  int64_t shape[4];
  int32_t rank = 0;
  ASSERT_EQ(tqrt_cache_shape(l.bundle, 100, shape, &rank), TQRT_OK);
  EXPECT_EQ(rank, 3);
  EXPECT_EQ(shape[0], 100);
  EXPECT_EQ(shape[1], 8);
  EXPECT_EQ(shape[2], 1888);
  uint64_t bytes = 0;
  ASSERT_EQ(tqrt_cache_bytes(l.bundle, 100, &bytes), TQRT_OK);
  EXPECT_EQ(bytes, 100u * kBlockStride);
  EXPECT_STATUS(tqrt_cache_bytes(l.bundle, 0, &bytes), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("num_blocks is 0");
  EXPECT_STATUS(tqrt_cache_bytes(l.bundle, INT64_MAX / 2, &bytes),
                TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("overflows");
  EXPECT_STATUS(tqrt_cache_shape(l.bundle, 1, shape, nullptr),
                TQRT_INVALID_ARGUMENT);
}

TEST(Bundle, VllmLayout) {
  // FORMATS.md's vLLM layout: [num_blocks, block_size, num_kv_heads, slot].
  std::string text = readFixture("manifest.json");
  text = edit(text, "\"kind\": \"native\"", "\"kind\": \"vllm\"");
  text = edit(text, "[\"num_blocks\", 8, 1888]", "[\"num_blocks\", 16, 8, 128]");
  text = edit(text, "\"block_stride\": 15104", "\"block_stride\": 16384");
  text = edit(text, "\"head_stride\": 1888, \"region_bytes\": 1888",
              "\"head_stride\": 128, \"region_bytes\": 128");
  text = edit(text, "\"bytes_per_token_head\": 118", "\"bytes_per_token_head\": 128");
  text = edit(text, "\"bytes\": 48, \"offset\": 0,    \"token_stride\": 48",
              "\"bytes\": 48, \"offset\": 0, \"token_stride\": 1024");
  text = edit(text, "\"bytes\": 64, \"offset\": 768,  \"token_stride\": 64",
              "\"bytes\": 64, \"offset\": 48, \"token_stride\": 1024");
  text = edit(text, "\"offset\": 1792, \"token_stride\": 2",
              "\"offset\": 112, \"token_stride\": 1024");
  text = edit(text, "\"offset\": 1824, \"token_stride\": 2",
              "\"offset\": 114, \"token_stride\": 1024");
  text = edit(text, "\"offset\": 1856, \"token_stride\": 2",
              "\"offset\": 116, \"token_stride\": 1024");
  Loaded l;
  ASSERT_EQ(loadText(text, &l.bundle), TQRT_OK) << tqrt_last_error();
  int64_t shape[4];
  int32_t rank = 0;
  ASSERT_EQ(tqrt_cache_shape(l.bundle, 3, shape, &rank), TQRT_OK);
  EXPECT_EQ(rank, 4);
  EXPECT_EQ(shape[0], 3);
  EXPECT_EQ(shape[1], 16);
  EXPECT_EQ(shape[2], 8);
  EXPECT_EQ(shape[3], 128);

  // A slot field past the slot's end is refused.
  std::string bad = edit(text, "\"offset\": 116, \"token_stride\": 1024",
                         "\"offset\": 127, \"token_stride\": 1024");
  tqrt_bundle *b = nullptr;
  EXPECT_STATUS(loadText(bad, &b), TQRT_BAD_BUNDLE);
  EXPECT_ERROR_HAS("field 'value_zero' (layout.fields[4]) reaches byte 16385");
}

TEST(Bundle, NullArguments) {
  tqrt_bundle *b = nullptr;
  EXPECT_STATUS(tqrt_bundle_load_dir(nullptr, &b), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("dir is null");
  EXPECT_STATUS(tqrt_bundle_load_dir(TQRT_FIXTURES, nullptr),
                TQRT_INVALID_ARGUMENT);
  EXPECT_STATUS(tqrt_bundle_load_memory(nullptr, 0, "x", 1, nullptr, 0, &b),
                TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("manifest is null or empty");
  std::string text = readFixture("manifest.json");
  EXPECT_STATUS(tqrt_bundle_load_memory(text.data(), text.size(), nullptr, 10,
                                        nullptr, 0, &b),
                TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("image is null but image_len is 10");
  EXPECT_STATUS(tqrt_bundle_load_memory(text.data(), text.size(), nullptr, 0,
                                        nullptr, 0, &b),
                TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("neither a cubin (image) nor PTX");
  EXPECT_EQ(b, nullptr);
  tqrt_bundle_info info;
  EXPECT_STATUS(tqrt_bundle_get_info(nullptr, &info), TQRT_INVALID_ARGUMENT);
  tqrt_bundle_destroy(nullptr); // a no-op
  tqrt_plan_destroy(nullptr);
}

TEST(Bundle, MissingFiles) {
  tqrt_bundle *b = nullptr;
  EXPECT_STATUS(tqrt_bundle_load_dir("/nonexistent/bundle", &b),
                TQRT_BAD_BUNDLE);
  EXPECT_ERROR_HAS("cannot read '/nonexistent/bundle/manifest.json'");

  // A directory whose manifest names an image that is not there.
  char dir[] = "/tmp/tqrt_test_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string manifest = std::string(dir) + "/manifest.json";
  {
    std::ofstream out(manifest);
    out << edit(readFixture("manifest.json"), "\"image\": \"kernels.cubin\"",
                "\"image\": \"missing.cubin\"");
  }
  EXPECT_STATUS(tqrt_bundle_load_dir(dir, &b), TQRT_BAD_BUNDLE);
  EXPECT_ERROR_HAS(std::string("cannot read '") + dir + "/missing.cubin'");
  unlink(manifest.c_str());
  rmdir(dir);
}

TEST(Bundle, ImageAndPtxAreChecked) {
  std::string text = readFixture("manifest.json");
  std::string ptx = readFixture("kernels.ptx");
  tqrt_bundle *b = nullptr;
  // The PTX passed as the image: not a cubin.
  EXPECT_STATUS(tqrt_bundle_load_memory(text.data(), text.size(), ptx.data(),
                                        ptx.size(), nullptr, 0, &b),
                TQRT_BAD_BUNDLE);
  EXPECT_ERROR_HAS("is not a cubin (no ELF or fatbin header");
  std::string notPtx = "// no directive here\n";
  EXPECT_STATUS(tqrt_bundle_load_memory(text.data(), text.size(), nullptr, 0,
                                        notPtx.data(), notPtx.size(), &b),
                TQRT_BAD_BUNDLE);
  EXPECT_ERROR_HAS("is not PTX (no .target directive)");
  // File names in the manifest stay inside the bundle directory.
  EXPECT_STATUS(loadText(edit(text, "\"image\": \"kernels.cubin\"",
                              "\"image\": \"../etc/kernels.cubin\""),
                         &b),
                TQRT_BAD_BUNDLE);
  EXPECT_ERROR_HAS("'target.image' must be a file name inside the bundle");
}

// ---- Malformed JSON, versions, missing and inconsistent fields ----------

TEST(Manifest, MalformedJsonNamesPosition) {
  std::string text = readFixture("manifest.json");
  tqrt_bundle *b = nullptr;
  // A trailing comma after the last kernel (line 57, after the '}').
  std::string bad = edit(text, "\"local_bytes\": 0}\n  ]", "\"local_bytes\": 0},\n  ]");
  EXPECT_STATUS(loadText(bad, &b), TQRT_BAD_BUNDLE);
  EXPECT_ERROR_HAS("manifest.json (in memory):58:3: unexpected character ']'");
  EXPECT_EQ(b, nullptr);

  struct Case {
    const char *text, *message;
  } cases[] = {
      {"", "1:2: unexpected end of input"},
      {"{\"schema\": \"tqc.bundle\",}", "1:25: unexpected character '}' (expected a member name"},
      {"{\"a\": 1 \"b\": 2}", "1:9: unexpected character '\"' (expected ',' or '}'"},
      {"{\"a\": [1, 2}", "1:12: unexpected character '}' (expected ',' or ']'"},
      {"// comment\n{}", "1:1: unexpected character '/'"},
      {"{\"a\": NaN}", "1:7: unexpected character 'N'"},
      {"{\"a\": 012}", "leading zero"},
      {"{\"a\": 1.}", "after '.' (expected a digit)"},
      {"{\"a\": 1e}", "in an exponent"},
      {"{\"a\": tru}", "unexpected character 't'"},
      {"{\"a\": \"x\ty\"}", "control character (byte 0x09)"},
      {"{\"a\": \"\\q\"}", "unknown escape '\\q'"},
      {"{\"a\": \"\\ud800\"}", "unpaired UTF-16 surrogate"},
      {"{\"a\": \"abc", "1:7: unterminated string"},
      {"{\"a\": \"\xC3\x28\"}", "invalid UTF-8"},
      {"{\"a\": 1, \"a\": 2}", "1:10: duplicate member \"a\""},
      {"{} {}", "1:4: unexpected character '{' after the JSON value"},
      {"{\"a\":\n  [1,\n   2,,3]}", "3:6: unexpected character ','"},
      {"{\"a\": 1e999}", "out of range"},
  };
  for (const Case &c : cases) {
    std::string t = c.text;
    if (t.empty())
      t = " "; // an empty buffer is an argument error, a blank one bad JSON
    EXPECT_STATUS(loadText(t, &b), TQRT_BAD_BUNDLE);
    EXPECT_ERROR_HAS(c.message) << " for " << c.text;
  }
  // Nesting is bounded.
  EXPECT_STATUS(loadText(std::string(100, '[') + std::string(100, ']'), &b),
                TQRT_BAD_BUNDLE);
  EXPECT_ERROR_HAS("nesting deeper than 64 levels");
}

TEST(Manifest, UnknownSchema) {
  tqrt_bundle *b = nullptr;
  std::string text = readFixture("manifest.json");
  EXPECT_STATUS(loadText(edit(text, "\"schema\": \"tqc.bundle\"",
                              "\"schema\": \"tqc.other\""),
                         &b),
                TQRT_UNSUPPORTED_VERSION);
  EXPECT_ERROR_HAS("unknown schema \"tqc.other\" (this runtime reads \"tqc.bundle\")");
  EXPECT_STATUS(loadText(edit(text, "\"schema\": \"tqc.bundle\",", ""), &b),
                TQRT_BAD_BUNDLE);
  EXPECT_ERROR_HAS("missing field 'schema'");
  EXPECT_STATUS(loadText("[1, 2]", &b), TQRT_BAD_BUNDLE);
  EXPECT_ERROR_HAS("'(top level)' must be an object, got an array");
}

TEST(Manifest, UnsupportedVersions) {
  tqrt_bundle *b = nullptr;
  std::string text = readFixture("manifest.json");
  EXPECT_STATUS(loadText(edit(text, "\"schema_version\": 2",
                              "\"schema_version\": 1"),
                         &b),
                TQRT_UNSUPPORTED_VERSION);
  EXPECT_ERROR_HAS("manifest.json (in memory):3:21: schema_version 1 is not "
                   "supported (this runtime reads schema_version 2)");
  // A real schema-1 manifest (one top-level "plan", no "plans"): the version
  // is reported, not the missing field.
  EXPECT_STATUS(loadText(readFixture("manifest_v1.json"), &b),
                TQRT_UNSUPPORTED_VERSION);
  EXPECT_ERROR_HAS("schema_version 1 is not supported (this runtime reads "
                   "schema_version 2)");
  EXPECT_EQ(b, nullptr);
  EXPECT_STATUS(loadText(edit(text, "\"schema_version\": 2",
                              "\"schema_version\": 3"),
                         &b),
                TQRT_UNSUPPORTED_VERSION);
  EXPECT_ERROR_HAS("schema_version 3 is not supported");
  EXPECT_STATUS(loadText(edit(text, "\"abi_version\": 3", "\"abi_version\": 7"),
                         &b),
                TQRT_UNSUPPORTED_VERSION);
  EXPECT_ERROR_HAS("abi_version 7 is not supported (this runtime was built "
                   "with abi.h version 3)");
  EXPECT_STATUS(loadText(edit(text, "\"schema_version\": 2",
                              "\"schema_version\": \"2\""),
                         &b),
                TQRT_BAD_BUNDLE);
  EXPECT_ERROR_HAS("'schema_version' must be an integer, got \"2\"");
  // The version is checked before anything else: a v3 manifest with other
  // fields reports the version, not a missing field.
  EXPECT_STATUS(loadText("{\"schema\": \"tqc.bundle\", \"schema_version\": 3}", &b),
                TQRT_UNSUPPORTED_VERSION);
}

TEST(Manifest, MissingFields) {
  tqrt_bundle *b = nullptr;
  std::string text = readFixture("manifest.json");
  struct Case {
    const char *from, *to, *message;
  } cases[] = {
      {"\"block_stride\": 15104, ", "", "missing field 'layout.block_stride' (a positive integer)"},
      {"\"head_dim\": 128, ", "", "missing field 'spec.head_dim' (an integer in [1, 4096])"},
      {"\"arch\": \"sm_90\", ", "", "missing field 'target.arch' (a string)"},
      {"\"symbol\": \"tq_decode_p0_bf16\",", "", "missing field 'kernels[1].symbol' (a string)"},
      {"\"grid\": [\"max_tokens\", \"1\", \"1\"],", "", "missing field 'kernels[0].grid'"},
      {"\"plan\": null, ", "", "missing field 'kernels[0].plan' (null for a store kernel)"},
      {"\"plan\": 1, ", "",
       "missing field 'kernels[2].plan' (an index into 'plans' for a decode kernel)"},
      {"\"workspace_floats_per_batch_row\": 16672,", "",
       "missing field 'plans[0].workspace_floats_per_batch_row' (a non-negative integer)"},
      {"\"splits\": 4, ", "", "missing field 'plans[0].splits' (an integer in [1, 65535])"},
      {"\"buckets\": [4, 8, 16], ", "",
       "missing field 'plans[1].buckets' (a non-empty array of ascending positive integers)"},
      {"\"stages\": 3, ", "", "missing field 'plans[1].stages'"},
      {",\n     \"decode\": {\"bf16\": \"decode_p0_bf16\"}}", "}", "missing field 'plans[0].decode'"},
      {"  \"plan_source\": \"defaults\",\n", "", "missing field 'plan_source' (a string)"},
  };
  for (const Case &c : cases) {
    EXPECT_STATUS(loadText(edit(text, c.from, c.to), &b), TQRT_BAD_BUNDLE);
    EXPECT_ERROR_HAS(c.message);
    EXPECT_ERROR_HAS("manifest.json (in memory)");
  }
  std::string noPlans = text.substr(0, text.find("  \"plans\": [")) +
                        text.substr(text.find("  \"plan_source\""));
  EXPECT_STATUS(loadText(noPlans, &b), TQRT_BAD_BUNDLE);
  EXPECT_ERROR_HAS("missing field 'plans' (a non-empty array of plans)");
}

TEST(Manifest, WrongTypesNameFieldAndValue) {
  tqrt_bundle *b = nullptr;
  std::string text = readFixture("manifest.json");
  struct Case {
    const char *from, *to, *message;
  } cases[] = {
      {"\"head_dim\": 128", "\"head_dim\": \"128\"",
       "'spec.head_dim' must be an integer in [1, 4096], got \"128\""},
      {"\"head_dim\": 128", "\"head_dim\": 128.5",
       "'spec.head_dim' must be an integer in [1, 4096], got 128.5"},
      {"\"num_kv_heads\": 8", "\"num_kv_heads\": -8",
       "'spec.num_kv_heads' must be an integer in [1, 65535], got -8"},
      {"\"block\": [128, 1, 1],\n     \"shared_bytes\": 16384",
       "\"block\": [128, 1],\n     \"shared_bytes\": 16384",
       "'kernels[1].block' must be an array of 3 positive integers"},
      {"\"dtype\": \"uint8\"", "\"dtype\": \"int8\"",
       "'layout.dtype' must be \"uint8\", got \"int8\""},
      {"\"kind\": \"native\"", "\"kind\": \"paged\"",
       "'layout.kind' must be \"native\" or \"vllm\", got \"paged\""},
      {"\"arch\": \"sm_90\"", "\"arch\": \"sm_9x\"",
       "'target.arch' must be an arch such as \"sm_90\""},
      {"\"softmax_scale\": 0.08838834764831845", "\"softmax_scale\": -1",
       "'spec.softmax_scale' must be a positive finite number, got -1"},
      {"\"alignment\": 16", "\"alignment\": 24",
       "'layout.alignment' must be a power of two, got 24"},
      {"\"args\": \"tq_store_args\"", "\"args\": \"tq_decode_args\"",
       "'kernels[0].args' must be \"tq_store_args\" for a store kernel"},
      {"\"dtype\": \"bf16\", \"symbol\": \"tq_store_bf16\"",
       "\"dtype\": \"f32\", \"symbol\": \"tq_store_bf16\"",
       "'kernels[0].dtype' must be \"bf16\" or \"fp16\", got \"f32\""},
      {"\"plan_source\": \"defaults\"", "\"plan_source\": 3",
       "'plan_source' must be a non-empty string, got 3"},
      {"\"buckets\": [1, 2]", "\"buckets\": [1, 2.5]",
       "'plans[0].buckets[1]' must be a positive integer, got 2.5"},
      {"\"buckets\": [1, 2]", "\"buckets\": [0, 2]",
       "'plans[0].buckets[0]' must be a positive integer, got 0"},
      {"\"buckets\": [4, 8, 16]", "\"buckets\": []",
       "'plans[1].buckets' must be a non-empty array of ascending positive integers, got an"},
      {"\"buckets\": [4, 8, 16]", "\"buckets\": 4",
       "'plans[1].buckets' must be a non-empty array of ascending positive integers, got 4"},
      {"\"warps\": 8", "\"warps\": 64", "'plans[1].warps' must be an integer in [1, 32], got 64"},
      {"\"stages\": 2", "\"stages\": 0", "'plans[0].stages' must be an integer in [1, 64], got 0"},
      {"\"decode\": {\"bf16\": \"decode_p0_bf16\"}", "\"decode\": [\"decode_p0_bf16\"]",
       "'plans[0].decode' must be an object from dtype (\"bf16\", \"f16\") to a kernel name"},
      {"{\"bf16\": \"decode_p1_bf16\"}", "{\"bf16\": 1}",
       "'plans[1].decode.bf16' must be a kernel name (a non-empty string), got 1"},
      {"\"plan\": null, ", "\"plan\": 0, ",
       "'kernels[0].plan' must be null for a store kernel, got 0"},
      {"\"plan\": 1, ", "\"plan\": 2, ",
       "'kernels[2].plan' must be an integer in [0, 1], got 2"},
      {"\"plan\": 1, ", "\"plan\": null, ",
       "'kernels[2].plan' must be an integer in [0, 1], got null"},
      {"\"plan\": 1, ", "\"plan\": \"1\", ",
       "'kernels[2].plan' must be an integer in [0, 1], got \"1\""},
  };
  for (const Case &c : cases) {
    EXPECT_STATUS(loadText(edit(text, c.from, c.to), &b), TQRT_BAD_BUNDLE);
    EXPECT_ERROR_HAS(c.message);
  }
}

TEST(Manifest, InconsistentFields) {
  tqrt_bundle *b = nullptr;
  std::string text = readFixture("manifest.json");
  struct Case {
    const char *from, *to, *message;
  } cases[] = {
      {"\"block_stride\": 15104", "\"block_stride\": 15000",
       "'layout.block_stride' is 15000 but the shape's block holds 15104 bytes"},
      {"\"bytes_per_token_head\": 118", "\"bytes_per_token_head\": 120",
       "'layout.bytes_per_token_head' is 120 but block_stride / (block_size * "
       "num_kv_heads) is 15104 / 128"},
      {"[\"num_blocks\", 8, 1888]", "[\"num_blocks\", 4, 1888]",
       "'layout.shape' disagrees with spec (num_kv_heads 8, block_size 16)"},
      {"\"workspace_floats_per_batch_row\": 16672",
       "\"workspace_floats_per_batch_row\": 8448",
       "'plans[0].workspace_floats_per_batch_row' is 8448 but tickets + "
       "num_q_heads * splits * (head_dim + 2) is 32 + 32 * 4 * 130 = 16672"},
      {"\"workspace_floats_per_batch_row\": 16672",
       "\"workspace_floats_per_batch_row\": 0",
       "'plans[0].workspace_floats_per_batch_row' is 0 but tickets + "
       "num_q_heads * splits * (head_dim + 2) is 32 + 32 * 4 * 130 = 16672"},
      {"\"workspace_floats_per_batch_row\": 0",
       "\"workspace_floats_per_batch_row\": 100",
       "'plans[1].workspace_floats_per_batch_row' is 100 but tickets + "
       "num_q_heads * splits * (head_dim + 2) is 32 + 32 * 1 * 130 = 4192 "
       "(or 0 with one split)"},
      {"\"args_bytes\": 72", "\"args_bytes\": 80",
       "'kernels[0].args_bytes' is 80 but this runtime's tq_store_args "
       "(templates/tq/abi.h) is 72 bytes"},
      {"\"offset\": 1856", "\"offset\": 1860",
       "field 'value_zero' (layout.fields[4]) reaches byte 15108 of a "
       "15104-byte block"},
      // 8 divides num_q_heads (32) but not the GQA ratio (4).
      {"\"heads_per_cta\": 4", "\"heads_per_cta\": 8",
       "'plans[0].heads_per_cta' (8) does not divide the GQA ratio "
       "num_q_heads / num_kv_heads (4)"},
      {"\"heads_per_cta\": 2", "\"heads_per_cta\": 3",
       "'plans[1].heads_per_cta' (3) does not divide the GQA ratio"},
      {"\"gqa_ratio\": 4", "\"gqa_ratio\": 2",
       "'spec.gqa_ratio' is 2 but num_q_heads / num_kv_heads is 4"},
      {"\"vendor\": \"nvidia\"", "\"vendor\": \"amd\"",
       "'target.vendor' is \"amd\" but arch sm_90 is nvidia's"},
      {"\"block\": [128, 1, 1],\n     \"shared_bytes\": 0, \"grid\": [\"max_tokens\"",
       "\"block\": [128, 8, 2],\n     \"shared_bytes\": 0, \"grid\": [\"max_tokens\"",
       "'kernels[0].block' has 2048 threads; a CUDA block has at most 1024"},
  };
  for (const Case &c : cases) {
    EXPECT_STATUS(loadText(edit(text, c.from, c.to), &b), TQRT_BAD_BUNDLE);
    EXPECT_ERROR_HAS(c.message);
  }
}

TEST(Manifest, GridFormulas) {
  tqrt_bundle *b = nullptr;
  std::string text = readFixture("manifest.json");
  EXPECT_STATUS(loadText(edit(text, "32768, \"grid\": [\"head_groups\", \"max_batch\"",
                              "32768, \"grid\": [\"head_groups\", \"max_seq_len\""),
                         &b),
                TQRT_BAD_BUNDLE);
  EXPECT_ERROR_HAS("'kernels[2].grid[1]': unknown name \"max_seq_len\" in "
                   "\"max_seq_len\" (a grid extent may use max_batch, "
                   "max_tokens, num_q_heads, num_kv_heads, head_groups, "
                   "splits, query_tiles, token_tiles and integer literals; "
                   "never a "
                   "sequence length)");
  EXPECT_STATUS(loadText(edit(text, "[\"max_tokens\", \"1\", \"1\"]",
                              "[\"max_tokens\", \"0\", \"1\"]"),
                         &b),
                TQRT_BAD_BUNDLE);
  EXPECT_ERROR_HAS("literal 0 in \"0\" must be in [1, 2^31)");
  EXPECT_STATUS(loadText(edit(text, "[\"max_tokens\", \"1\", \"1\"]",
                              "[\"max_tokens**2\", \"1\", \"1\"]"),
                         &b),
                TQRT_BAD_BUNDLE);
  EXPECT_ERROR_HAS("\"max_tokens**2\" has an empty factor");
  EXPECT_STATUS(loadText(edit(text, "[\"max_tokens\", \"1\", \"1\"]",
                              "[\"max_tokens\", 1, \"1\"]"),
                         &b),
                TQRT_BAD_BUNDLE);
  EXPECT_ERROR_HAS("'kernels[0].grid[1]' must be a string such as");
  // splits and head_groups are a plan's values: a store kernel has none.
  for (const char *name : {"splits", "head_groups", "2*head_groups"}) {
    EXPECT_STATUS(loadText(edit(text, "[\"max_tokens\", \"1\", \"1\"]",
                                std::string("[\"max_tokens\", \"1\", \"") +
                                    name + "\"]"),
                           &b),
                  TQRT_BAD_BUNDLE);
    EXPECT_ERROR_HAS("'kernels[0].grid[2]' uses \"");
    EXPECT_ERROR_HAS("\", a plan's value; a store kernel has no plan");
  }
}

// Buckets: ascending within a plan, disjoint across plans, plans sorted by
// their first bucket.
TEST(Manifest, PlanBuckets) {
  tqrt_bundle *b = nullptr;
  std::string text = readFixture("manifest.json");
  struct Case {
    const char *from, *to, *message;
  } cases[] = {
      // Unsorted within a plan.
      {"[4, 8, 16]", "[4, 16, 8]",
       ":40:25: 'plans[1].buckets' must be ascending: 'plans[1].buckets[2]' "
       "(8) follows 16"},
      {"[4, 8, 16]", "[4, 8, 8]",
       "'plans[1].buckets' must be ascending: 'plans[1].buckets[2]' (8) "
       "follows 8"},
      // Overlapping across plans.
      {"[1, 2]", "[1, 4]",
       ":40:18: bucket 4 is in both plans[0] and plans[1]; the plans' "
       "buckets must be disjoint"},
      {"[4, 8, 16]", "[2, 8, 16]", "bucket 2 is in both plans[0] and plans[1]"},
      // Plans out of order.
      {"[1, 2]", "[32, 64]",
       "'plans' must be sorted by their first bucket: plans[1] starts at 4, "
       "after plans[0] at 32"},
  };
  for (const Case &c : cases) {
    EXPECT_STATUS(loadText(edit(text, c.from, c.to), &b), TQRT_BAD_BUNDLE);
    EXPECT_ERROR_HAS(c.message);
  }
  // No plan at all.
  std::string none = text.substr(0, text.find("  \"plans\": [")) +
                     "  \"plans\": [],\n" +
                     text.substr(text.find("  \"plan_source\""));
  EXPECT_STATUS(loadText(none, &b), TQRT_BAD_BUNDLE);
  EXPECT_ERROR_HAS("'plans' must be a non-empty array of plans");
  // Interleaved buckets are disjoint and sorted by the first bucket: fine.
  Loaded l;
  EXPECT_STATUS(loadText(edit(text, "[1, 2]", "[1, 32]"), &l.bundle), TQRT_OK);
}

// The kernels of every plan: decode per dtype, named by the plan and
// pointing back at it through kernels[].plan; no combine kernel (abi 2).
TEST(Manifest, PlanKernels) {
  tqrt_bundle *b = nullptr;
  const std::string text = readFixture("manifest.json");
  // The fixture with one more kernel at the end of kernels[].
  auto withKernel = [&](const std::string &kernel) {
    return edit(text, "\"local_bytes\": 0}\n  ]",
                "\"local_bytes\": 0},\n    " + kernel + "\n  ]");
  };
  const std::string storeF16 =
      "{\"name\": \"store_f16\", \"kind\": \"store\", \"dtype\": \"f16\", "
      "\"symbol\": \"tq_store_f16\", \"plan\": null, \"args\": \"tq_store_args\", "
      "\"args_bytes\": 72, \"block\": [128, 1, 1], \"shared_bytes\": 0, "
      "\"grid\": [\"max_tokens\", \"1\", \"1\"]}";
  struct Case {
    std::string manifest;
    const char *message;
  } cases[] = {
      // A plan kernel that is missing from kernels[].
      {edit(text, "\"name\": \"decode_p1_bf16\", \"kind\": \"decode\"",
            "\"name\": \"decode_p1_bf16\", \"kind\": \"future\""),
       ":42:25: 'plans[1].decode.bf16' names \"decode_p1_bf16\", which is "
       "not a decode kernel of plans[1] in 'kernels'"},
      // A plan without a decode kernel for a dtype the bundle stores.
      {edit(edit(text, "{\"bf16\": \"decode_p1_bf16\"}", "{}"),
            "\"name\": \"decode_p1_bf16\", \"kind\": \"decode\"",
            "\"name\": \"decode_p1_bf16\", \"kind\": \"future\""),
       "manifest.json (in memory): 'plans[1].decode' has no bf16 kernel; "
       "every plan needs a decode kernel for each dtype the bundle stores"},
      // A decode kernel its plan does not name.
      {edit(text, "{\"bf16\": \"decode_p1_bf16\"}", "{}"),
       ":54:5: 'kernels[2]' (decode_p1_bf16) is a decode kernel of plans[1] "
       "for bf16, but 'plans[1].decode' has no bf16 entry"},
      {edit(text, "{\"bf16\": \"decode_p1_bf16\"}", "{\"bf16\": \"decode_p0_bf16\"}"),
       "'kernels[2]' (decode_p1_bf16) is a decode kernel of plans[1] for "
       "bf16, but 'plans[1].decode.bf16' names \"decode_p0_bf16\""},
      // kernels[].plan pointing at the wrong plan.
      {edit(text, "\"plan\": 1, ", "\"plan\": 0, "),
       "'kernels[2]' (decode_p1_bf16) is a decode kernel of plans[0] for "
       "bf16, but 'plans[0].decode.bf16' names \"decode_p0_bf16\""},
      // A combine kernel (abi_version 1 bundles): decode merges its splits.
      {edit(text, "\"decode\": {\"bf16\": \"decode_p0_bf16\"}}",
            "\"decode\": {\"bf16\": \"decode_p0_bf16\"}, "
            "\"combine\": {\"bf16\": \"combine_p0_bf16\"}}"),
       ":39:55: 'plans[0].combine' names a combine kernel, but decode merges "
       "its own splits (abi_version 2 on): it must be null or absent"},
      // Map keys.
      {edit(text, "{\"bf16\": \"decode_p1_bf16\"}",
            "{\"bf16\": \"decode_p1_bf16\", \"fp32\": \"decode_p1_fp32\"}"),
       "'plans[1].decode.fp32': unknown dtype \"fp32\" (a plan's kernels are "
       "keyed by \"bf16\" or \"f16\" / \"fp16\")"},
      {edit(text, "{\"bf16\": \"decode_p1_bf16\"}",
            "{\"bf16\": \"decode_p1_bf16\", \"f16\": \"a\", \"fp16\": \"b\"}"),
       "'plans[1].decode' names two fp16 kernels ('f16' and 'fp16')"},
      // Names are unique, store kernels one per dtype.
      {edit(text, "\"name\": \"decode_p1_bf16\"", "\"name\": \"decode_p0_bf16\""),
       "'kernels[2].name' \"decode_p0_bf16\" is also the name of kernels[1]; "
       "kernel names must be unique"},
      {withKernel(edit(editAll(storeF16, "f16", "bf16"), "\"name\": \"store_bf16\"",
                       "\"name\": \"store2_bf16\"")),
       "'kernels[3]' is a second store kernel for bf16 (the first is "
       "'store_bf16')"},
      // A missing store kernel.
      {edit(text, "\"kind\": \"store\"", "\"kind\": \"future\""),
       "'kernels' has no store kernel for bf16 (the plans name bf16 kernels)"},
      // An fp16 store kernel: every plan then needs fp16 decode kernels.
      {withKernel(storeF16),
       "'plans[0].decode' has no fp16 kernel"},
  };
  for (const Case &c : cases) {
    EXPECT_STATUS(loadText(c.manifest, &b), TQRT_BAD_BUNDLE);
    EXPECT_ERROR_HAS(c.message);
    EXPECT_EQ(b, nullptr);
  }

  // Kinds a later runtime launches are skipped.
  Loaded l;
  EXPECT_STATUS(loadText(edit(text, "\"local_bytes\": 0}\n  ]",
                              "\"local_bytes\": 0},\n    {\"name\": \"verify_bf16\", "
                              "\"kind\": \"future\"}\n  ]"),
                         &l.bundle),
                TQRT_OK);
  // No kernels at all: the plans' kernels are missing, or with empty
  // plans, nothing is there.
  std::string none = text.substr(0, text.find("\"kernels\": [")) + "\"kernels\": []\n}\n";
  EXPECT_STATUS(loadText(none, &b), TQRT_BAD_BUNDLE);
  EXPECT_ERROR_HAS("'kernels' has no store kernel for bf16");
  none = edit(edit(none, "{\"bf16\": \"decode_p0_bf16\"}", "{}"),
              "{\"bf16\": \"decode_p1_bf16\"}", "{}");
  EXPECT_STATUS(loadText(none, &b), TQRT_BAD_BUNDLE);
  EXPECT_ERROR_HAS("'kernels' has no store or decode kernel");
  // A null combine (what abi_version 1 wrote for one split) is accepted.
  Loaded nullCombine;
  EXPECT_STATUS(loadText(edit(text, "\"decode\": {\"bf16\": \"decode_p1_bf16\"}}",
                              "\"decode\": {\"bf16\": \"decode_p1_bf16\"}, \"combine\": null}"),
                         &nullCombine.bundle),
                TQRT_OK);
}

TEST(Manifest, Fp16Spellings) {
  std::string text = readFixture("manifest.json");
  for (const char *spelling : {"fp16", "f16"}) {
    Loaded l;
    std::string t = editAll(text, "\"dtype\": \"bf16\"",
                            std::string("\"dtype\": \"") + spelling + "\"");
    t = editAll(t, "{\"bf16\": ", std::string("{\"") + spelling + "\": ");
    ASSERT_EQ(loadText(t, &l.bundle), TQRT_OK) << tqrt_last_error();
    tqrt_bundle_info info;
    ASSERT_EQ(tqrt_bundle_get_info(l.bundle, &info), TQRT_OK);
    EXPECT_EQ(info.dtypes, 1u << TQRT_DTYPE_FP16);
  }
}

// ---- Plans --------------------------------------------------------------

TEST(Plan, GridsAndWorkspace) {
  Loaded l;
  ASSERT_EQ(tqrt_bundle_load_dir(TQRT_FIXTURES, &l.bundle), TQRT_OK);
  ASSERT_EQ(tqrt_plan_create(l.bundle, 2, 96, &l.plan), TQRT_OK)
      << tqrt_last_error();
  tqrt_plan_info info;
  ASSERT_EQ(tqrt_plan_get_info(l.plan, &info), TQRT_OK);
  EXPECT_EQ(info.max_batch, 2);
  EXPECT_EQ(info.max_tokens, 96);
  EXPECT_EQ(info.plan_index, 0);
  EXPECT_EQ(info.splits, 4);
  EXPECT_EQ(info.block_n, 64);
  EXPECT_EQ(info.warps, 4);
  EXPECT_EQ(info.heads_per_cta, 4);
  EXPECT_EQ(info.workspace_bytes, 4u * 2 * kFloatsPerRow);
  EXPECT_EQ(info.bound, 0); // the driver is forced absent
  EXPECT_EQ(info.device, -1);
  EXPECT_EQ(info.compute_capability, 0);
  EXPECT_STREQ(info.module_source, "none");

  tqrt_launch_dims d;
  ASSERT_EQ(tqrt_plan_get_launch(l.plan, TQRT_KERNEL_STORE, TQRT_DTYPE_BF16, &d),
            TQRT_OK);
  EXPECT_EQ(d.grid[0], 96u);
  EXPECT_EQ(d.grid[1], 1u);
  EXPECT_EQ(d.grid[2], 1u);
  EXPECT_EQ(d.block[0], 128u);
  ASSERT_EQ(tqrt_plan_get_launch(l.plan, TQRT_KERNEL_DECODE, TQRT_DTYPE_BF16, &d),
            TQRT_OK);
  EXPECT_EQ(d.grid[0], 8u); // head_groups = 32 / 4
  EXPECT_EQ(d.grid[1], 2u); // max_batch
  EXPECT_EQ(d.grid[2], 4u); // splits
  EXPECT_EQ(d.block[0], 128u);
  EXPECT_EQ(d.static_shared_bytes, 16384u); // the manifest's shared_bytes
  EXPECT_EQ(d.dynamic_shared_bytes, 0u);     // not passed at launch
  EXPECT_STATUS(tqrt_plan_get_launch(l.plan, TQRT_KERNEL_STORE, TQRT_DTYPE_FP16, &d),
                TQRT_UNSUPPORTED_DTYPE);
  // Kind 2 (the combine kernel of abi_version 1) is now extend_prep, which
  // this bundle (no "extend" member) lacks; kind 4 is nothing.
  EXPECT_STATUS(tqrt_plan_get_launch(l.plan, TQRT_KERNEL_EXTEND_PREP,
                                     TQRT_DTYPE_BF16, &d),
                TQRT_UNSUPPORTED);
  EXPECT_ERROR_HAS("tqrt_plan_get_launch: the bundle has no extend kernels: "
                   "the bundle predates extend");
  EXPECT_STATUS(tqrt_plan_get_launch(l.plan, static_cast<tqrt_kernel_kind>(4),
                                     TQRT_DTYPE_BF16, &d),
                TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("kind 4 is not a tqrt_kernel_kind (0 store, 1 decode, "
                   "2 extend_prep, 3 extend)");

  // A bucket of plans[1]: its kernel, grid names and (no) workspace.
  tqrt_plan *big = nullptr;
  ASSERT_EQ(tqrt_plan_create(l.bundle, 8, 96, &big), TQRT_OK);
  ASSERT_EQ(tqrt_plan_get_info(big, &info), TQRT_OK);
  EXPECT_EQ(info.plan_index, 1);
  EXPECT_EQ(info.splits, 1);
  EXPECT_EQ(info.block_n, 128);
  EXPECT_EQ(info.warps, 8);
  EXPECT_EQ(info.heads_per_cta, 2);
  EXPECT_EQ(info.workspace_bytes, 0u);
  ASSERT_EQ(tqrt_plan_get_launch(big, TQRT_KERNEL_DECODE, TQRT_DTYPE_BF16, &d),
            TQRT_OK);
  EXPECT_EQ(d.grid[0], 16u); // head_groups = 32 / 2
  EXPECT_EQ(d.grid[1], 8u);
  EXPECT_EQ(d.grid[2], 1u);
  EXPECT_EQ(d.block[0], 256u);
  EXPECT_EQ(d.static_shared_bytes, 32768u);
  ASSERT_EQ(tqrt_plan_get_launch(big, TQRT_KERNEL_STORE, TQRT_DTYPE_BF16, &d),
            TQRT_OK);
  EXPECT_EQ(d.grid[0], 96u);
  tqrt_plan_destroy(big);
}

int planIndexFor(const tqrt_bundle *bundle, int32_t maxBatch) {
  tqrt_plan *plan = nullptr;
  tqrt_status s = tqrt_plan_create(bundle, maxBatch, 1, &plan);
  EXPECT_EQ(s, TQRT_OK) << tqrt_last_error();
  if (s != TQRT_OK)
    return -1;
  tqrt_plan_info info;
  EXPECT_EQ(tqrt_plan_get_info(plan, &info), TQRT_OK);
  tqrt_plan_destroy(plan);
  return info.plan_index;
}

// The plan of the smallest bucket >= max_batch; the last plan above every
// bucket.
TEST(Plan, ChoosesThePlanOfTheBucket) {
  Loaded l;
  ASSERT_EQ(tqrt_bundle_load_dir(TQRT_FIXTURES, &l.bundle), TQRT_OK);
  // Buckets [1, 2] -> plans[0], [4, 8, 16] -> plans[1].
  EXPECT_EQ(planIndexFor(l.bundle, 1), 0);    // a bucket
  EXPECT_EQ(planIndexFor(l.bundle, 2), 0);    // inside plans[0]
  EXPECT_EQ(planIndexFor(l.bundle, 3), 1);    // between the plans: bucket 4
  EXPECT_EQ(planIndexFor(l.bundle, 4), 1);
  EXPECT_EQ(planIndexFor(l.bundle, 5), 1);    // between buckets of plans[1]
  EXPECT_EQ(planIndexFor(l.bundle, 16), 1);   // the largest bucket
  EXPECT_EQ(planIndexFor(l.bundle, 17), 1);   // above every bucket: the last
  EXPECT_EQ(planIndexFor(l.bundle, 4096), 1);

  // Below every bucket: the first plan.
  Loaded below;
  ASSERT_EQ(loadText(edit(readFixture("manifest.json"), "[1, 2]", "[2, 3]"),
                     &below.bundle),
            TQRT_OK) << tqrt_last_error();
  EXPECT_EQ(planIndexFor(below.bundle, 1), 0);
  EXPECT_EQ(planIndexFor(below.bundle, 3), 0);
  EXPECT_EQ(planIndexFor(below.bundle, 4), 1);

  // Interleaved buckets: [1, 32] and [4, 8, 16]. The smallest bucket >= B
  // decides, and above all buckets it is the last plan, not the one holding
  // the largest bucket.
  Loaded inter;
  ASSERT_EQ(loadText(edit(readFixture("manifest.json"), "[1, 2]", "[1, 32]"),
                     &inter.bundle),
            TQRT_OK) << tqrt_last_error();
  EXPECT_EQ(planIndexFor(inter.bundle, 2), 1);  // bucket 4
  EXPECT_EQ(planIndexFor(inter.bundle, 16), 1);
  EXPECT_EQ(planIndexFor(inter.bundle, 17), 0); // bucket 32
  EXPECT_EQ(planIndexFor(inter.bundle, 32), 0);
  EXPECT_EQ(planIndexFor(inter.bundle, 33), 1); // above: the last plan
}

TEST(Plan, FormulaProducts) {
  Loaded l;
  std::string text = edit(readFixture("manifest.json"),
                          "16384, \"grid\": [\"head_groups\", \"max_batch\", \"splits\"]",
                          "16384, \"grid\": [\"max_batch*2\", \"num_kv_heads * 4\", \"splits*head_groups\"]");
  ASSERT_EQ(loadText(text, &l.bundle), TQRT_OK) << tqrt_last_error();
  ASSERT_EQ(tqrt_plan_create(l.bundle, 2, 1, &l.plan), TQRT_OK);
  tqrt_launch_dims d;
  ASSERT_EQ(tqrt_plan_get_launch(l.plan, TQRT_KERNEL_DECODE, TQRT_DTYPE_BF16, &d),
            TQRT_OK);
  EXPECT_EQ(d.grid[0], 4u);
  EXPECT_EQ(d.grid[1], 32u);
  EXPECT_EQ(d.grid[2], 32u); // plans[0]: splits 4 * head_groups 8
}

TEST(Plan, DynamicSharedMemory) {
  // shared_bytes is the code's static shared memory (what tqc reports);
  // only dynamic_shared_bytes is passed at launch.
  Loaded l;
  std::string text = edit(readFixture("manifest.json"),
                          "\"shared_bytes\": 16384,",
                          "\"shared_bytes\": 16384, \"dynamic_shared_bytes\": 65536,");
  ASSERT_EQ(loadText(text, &l.bundle), TQRT_OK) << tqrt_last_error();
  ASSERT_EQ(tqrt_plan_create(l.bundle, 1, 1, &l.plan), TQRT_OK);
  tqrt_launch_dims d;
  ASSERT_EQ(tqrt_plan_get_launch(l.plan, TQRT_KERNEL_DECODE, TQRT_DTYPE_BF16, &d),
            TQRT_OK);
  EXPECT_EQ(d.dynamic_shared_bytes, 65536u);
  EXPECT_EQ(d.static_shared_bytes, 16384u);
  tqrt_bundle *b = nullptr;
  EXPECT_STATUS(loadText(edit(text, "\"dynamic_shared_bytes\": 65536",
                              "\"dynamic_shared_bytes\": -1"),
                         &b),
                TQRT_BAD_BUNDLE);
  EXPECT_ERROR_HAS("'kernels[1].dynamic_shared_bytes' must be an integer in [0, "
                   "1073741824], got -1");
}

TEST(Plan, ProgrammaticLaunch) {
  // Optional per kernel; reported to engines that launch kernels themselves.
  Loaded l;
  std::string text = edit(readFixture("manifest.json"),
                          "\"shared_bytes\": 16384,",
                          "\"shared_bytes\": 16384, \"programmatic_launch\": true,");
  ASSERT_EQ(loadText(text, &l.bundle), TQRT_OK) << tqrt_last_error();
  ASSERT_EQ(tqrt_plan_create(l.bundle, 1, 1, &l.plan), TQRT_OK);
  tqrt_launch_dims d;
  ASSERT_EQ(tqrt_plan_get_launch(l.plan, TQRT_KERNEL_DECODE, TQRT_DTYPE_BF16, &d),
            TQRT_OK);
  EXPECT_EQ(d.programmatic_launch, 1u);
  ASSERT_EQ(tqrt_plan_get_launch(l.plan, TQRT_KERNEL_STORE, TQRT_DTYPE_BF16, &d),
            TQRT_OK);
  EXPECT_EQ(d.programmatic_launch, 0u); // absent: false
  tqrt_bundle *b = nullptr;
  EXPECT_STATUS(loadText(edit(text, "\"programmatic_launch\": true",
                              "\"programmatic_launch\": 1"),
                         &b),
                TQRT_BAD_BUNDLE);
  EXPECT_ERROR_HAS("'kernels[1].programmatic_launch' must be true or false, got 1");
  // Below sm_90 there is no griddepcontrol: a bundle claiming it is wrong.
  EXPECT_STATUS(loadText(edit(text, "\"arch\": \"sm_90\"", "\"arch\": \"sm_80\""),
                         &b),
                TQRT_BAD_BUNDLE);
  EXPECT_ERROR_HAS("'kernels[1].programmatic_launch' is true but arch sm_80 has "
                   "no programmatic launch (NVIDIA sm_90 and newer)");
}

TEST(Plan, Arguments) {
  Loaded l;
  ASSERT_EQ(tqrt_bundle_load_dir(TQRT_FIXTURES, &l.bundle), TQRT_OK);
  tqrt_plan *p = nullptr;
  EXPECT_STATUS(tqrt_plan_create(nullptr, 1, 1, &p), TQRT_INVALID_ARGUMENT);
  EXPECT_STATUS(tqrt_plan_create(l.bundle, 0, 1, &p), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("max_batch is 0; it must be at least 1");
  EXPECT_STATUS(tqrt_plan_create(l.bundle, 1, -3, &p), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("max_tokens is -3");
  EXPECT_STATUS(tqrt_plan_create(l.bundle, 1, 1, nullptr), TQRT_INVALID_ARGUMENT);
  // max_batch is decode's grid.y, limited to 65535 by CUDA.
  EXPECT_STATUS(tqrt_plan_create(l.bundle, 70000, 1, &p), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("kernel 'decode_p1_bf16' grid[1] = \"max_batch\" exceeds 65535");
  EXPECT_EQ(p, nullptr);
  tqrt_plan_info info;
  EXPECT_STATUS(tqrt_plan_get_info(nullptr, &info), TQRT_INVALID_ARGUMENT);
}

TEST(Plan, AmdBundleLoads) {
  std::string text = amdManifest();
  Loaded l;
  ASSERT_EQ(loadText(text, &l.bundle), TQRT_OK) << tqrt_last_error();
  tqrt_bundle_info info;
  ASSERT_EQ(tqrt_bundle_get_info(l.bundle, &info), TQRT_OK);
  EXPECT_STREQ(info.arch, "gfx942");
}

// ---- Launch argument checks ---------------------------------------------

// Fake device addresses: never dereferenced (the driver is absent).
alignas(256) unsigned char gArena[1 << 16];

struct StoreArgs {
  tqrt_dtype dtype = TQRT_DTYPE_BF16;
  const void *key = gArena;
  int64_t keyStrideToken = kNumKV * kHeadDim, keyStrideHead = kHeadDim;
  const void *value = gArena + 4096;
  int64_t valueStrideToken = kNumKV * kHeadDim, valueStrideHead = kHeadDim;
  void *cache = gArena + 8192;
  int64_t cacheBytes = 10 * kBlockStride;
  const int64_t *slots = reinterpret_cast<const int64_t *>(gArena + 12288);
  int32_t numTokens = 5;
  void *stream = nullptr;
  tqrt_status run(const tqrt_plan *plan) const {
    return tqrt_launch_store(plan, dtype, key, keyStrideToken, keyStrideHead,
                             value, valueStrideToken, valueStrideHead, cache,
                             cacheBytes, slots, numTokens, stream);
  }
};

struct DecodeArgs {
  tqrt_dtype dtype = TQRT_DTYPE_BF16;
  const void *query = gArena;
  int64_t queryStrideBatch = kNumQ * kHeadDim, queryStrideHead = kHeadDim;
  const void *cache = gArena + 8192;
  int64_t cacheBytes = 10 * kBlockStride;
  const int32_t *blockTables = reinterpret_cast<const int32_t *>(gArena + 12288);
  int32_t blockTableStride = 64;
  const int32_t *seqLens = reinterpret_cast<const int32_t *>(gArena + 16384);
  void *out = gArena + 20480;
  int64_t outStrideBatch = kNumQ * kHeadDim, outStrideHead = kHeadDim;
  int32_t batch = 2;
  float scale = 0.0f;
  void *workspace = gArena + 32768;
  uint64_t workspaceBytes = 4ull * 2 * kFloatsPerRow;
  tqrt_status run(const tqrt_plan *plan) const {
    return tqrt_launch_decode(plan, dtype, query, queryStrideBatch,
                              queryStrideHead, cache, cacheBytes, blockTables,
                              blockTableStride, seqLens, out, outStrideBatch,
                              outStrideHead, batch, scale, workspace,
                              workspaceBytes, nullptr);
  }
};

class Launch : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(tqrt_bundle_load_dir(TQRT_FIXTURES, &l.bundle), TQRT_OK);
    // max_batch 2: plans[0], which splits (one kernel, workspace).
    ASSERT_EQ(tqrt_plan_create(l.bundle, 2, 16, &l.plan), TQRT_OK);
  }
  Loaded l;
};

TEST_F(Launch, ValidArgumentsReachTheDevice) {
  // Everything is fine except that there is no driver.
  EXPECT_STATUS(StoreArgs().run(l.plan), TQRT_NO_DEVICE);
  EXPECT_ERROR_HAS("tqrt_launch_store: no CUDA device: the CUDA driver library "
                   "could not be loaded");
  EXPECT_ERROR_HAS("/nonexistent/libcuda.so.1");
  EXPECT_STATUS(DecodeArgs().run(l.plan), TQRT_NO_DEVICE);
  EXPECT_ERROR_HAS("tqrt_launch_decode: no CUDA device");
  // Boundaries that are allowed: the full bucket, zero rows.
  StoreArgs s;
  s.numTokens = 16;
  EXPECT_STATUS(s.run(l.plan), TQRT_NO_DEVICE);
  s.numTokens = 0;
  EXPECT_STATUS(s.run(l.plan), TQRT_NO_DEVICE);
  DecodeArgs d;
  d.batch = 2;
  EXPECT_STATUS(d.run(l.plan), TQRT_NO_DEVICE);
  d.batch = 0;
  EXPECT_STATUS(d.run(l.plan), TQRT_NO_DEVICE);
}

TEST_F(Launch, NullPlan) {
  EXPECT_STATUS(StoreArgs().run(nullptr), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("tqrt_launch_store: plan is null");
  EXPECT_STATUS(DecodeArgs().run(nullptr), TQRT_INVALID_ARGUMENT);
}

TEST_F(Launch, NullPointers) {
  struct {
    void (*set)(StoreArgs &);
    const char *name;
  } store[] = {
      {[](StoreArgs &a) { a.key = nullptr; }, "key is null"},
      {[](StoreArgs &a) { a.value = nullptr; }, "value is null"},
      {[](StoreArgs &a) { a.cache = nullptr; }, "cache is null"},
      {[](StoreArgs &a) { a.slots = nullptr; }, "slot_mapping is null"},
  };
  for (const auto &c : store) {
    StoreArgs a;
    c.set(a);
    EXPECT_STATUS(a.run(l.plan), TQRT_INVALID_ARGUMENT);
    EXPECT_ERROR_HAS(std::string("tqrt_launch_store: ") + c.name);
  }
  struct {
    void (*set)(DecodeArgs &);
    const char *name;
  } decode[] = {
      {[](DecodeArgs &a) { a.query = nullptr; }, "query is null"},
      {[](DecodeArgs &a) { a.cache = nullptr; }, "cache is null"},
      {[](DecodeArgs &a) { a.blockTables = nullptr; }, "block_tables is null"},
      {[](DecodeArgs &a) { a.seqLens = nullptr; }, "seq_lens is null"},
      {[](DecodeArgs &a) { a.out = nullptr; }, "out is null"},
      {[](DecodeArgs &a) { a.workspace = nullptr; }, "workspace is null"},
  };
  for (const auto &c : decode) {
    DecodeArgs a;
    c.set(a);
    EXPECT_STATUS(a.run(l.plan), TQRT_INVALID_ARGUMENT);
    EXPECT_ERROR_HAS(std::string("tqrt_launch_decode: ") + c.name);
  }
}

TEST_F(Launch, MisalignedPointers) {
  struct {
    void (*set)(StoreArgs &);
    const char *message;
  } store[] = {
      {[](StoreArgs &a) { a.key = gArena + 2; }, "key (0x"},
      {[](StoreArgs &a) { a.value = gArena + 4104; }, "value (0x"},
      {[](StoreArgs &a) { a.cache = gArena + 8200; }, "cache (0x"},
      {[](StoreArgs &a) {
         a.slots = reinterpret_cast<const int64_t *>(gArena + 12292);
       }, "slot_mapping (0x"},
  };
  for (const auto &c : store) {
    StoreArgs a;
    c.set(a);
    EXPECT_STATUS(a.run(l.plan), TQRT_INVALID_ARGUMENT);
    EXPECT_ERROR_HAS(c.message);
    EXPECT_ERROR_HAS("-byte aligned");
  }
  struct {
    void (*set)(DecodeArgs &);
    const char *message;
  } decode[] = {
      {[](DecodeArgs &a) { a.query = gArena + 8; }, "is not 16-byte aligned"},
      {[](DecodeArgs &a) { a.cache = gArena + 8196; }, "is not 16-byte aligned"},
      {[](DecodeArgs &a) {
         a.blockTables = reinterpret_cast<const int32_t *>(gArena + 12290);
       }, "is not 4-byte aligned"},
      {[](DecodeArgs &a) {
         a.seqLens = reinterpret_cast<const int32_t *>(gArena + 16386);
       }, "is not 4-byte aligned"},
      {[](DecodeArgs &a) { a.out = gArena + 20482; }, "is not 16-byte aligned"},
      {[](DecodeArgs &a) { a.workspace = gArena + 32772; }, "is not 16-byte aligned"},
  };
  for (const auto &c : decode) {
    DecodeArgs a;
    c.set(a);
    EXPECT_STATUS(a.run(l.plan), TQRT_INVALID_ARGUMENT);
    EXPECT_ERROR_HAS(c.message);
  }
}

TEST_F(Launch, Strides) {
  StoreArgs s;
  s.keyStrideHead = 0;
  EXPECT_STATUS(s.run(l.plan), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("key_stride_head is 0; strides are positive");
  s = StoreArgs();
  s.valueStrideToken = -1024;
  EXPECT_STATUS(s.run(l.plan), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("value_stride_token is -1024");
  s = StoreArgs();
  s.keyStrideToken = 1028; // not a multiple of 8 elements
  EXPECT_STATUS(s.run(l.plan), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("key_stride_token is 1028 elements; it must be a multiple "
                   "of 8 (16 bytes)");
  s = StoreArgs();
  s.keyStrideHead = 64; // heads overlap: head_dim is 128
  EXPECT_STATUS(s.run(l.plan), TQRT_SHAPE_MISMATCH);
  EXPECT_ERROR_HAS("key strides (token 1024, head 64 elements) make the head "
                   "vectors of a [5, 8, 128] (token, head, head_dim) tensor "
                   "overlap");
  s = StoreArgs();
  s.valueStrideToken = 512; // tokens overlap the 8 heads of the previous one
  EXPECT_STATUS(s.run(l.plan), TQRT_SHAPE_MISMATCH);
  // Head-major (transposed) and padded layouts are fine.
  s = StoreArgs();
  s.keyStrideToken = kHeadDim;
  s.keyStrideHead = kHeadDim * s.numTokens;
  s.valueStrideToken = 48 * kHeadDim; // e.g. a slice of a fused QKV tensor
  EXPECT_STATUS(s.run(l.plan), TQRT_NO_DEVICE);
  // With one token the token stride spans nothing.
  s = StoreArgs();
  s.numTokens = 1;
  s.keyStrideToken = 8;
  EXPECT_STATUS(s.run(l.plan), TQRT_NO_DEVICE);

  DecodeArgs d;
  d.queryStrideHead = 120;
  EXPECT_STATUS(d.run(l.plan), TQRT_SHAPE_MISMATCH);
  EXPECT_ERROR_HAS("query strides (batch 4096, head 120 elements)");
  d = DecodeArgs();
  d.outStrideBatch = 2048; // 32 heads of 128 need 4096
  EXPECT_STATUS(d.run(l.plan), TQRT_SHAPE_MISMATCH);
  EXPECT_ERROR_HAS("out strides (batch 2048, head 128 elements) make the head "
                   "vectors of a [2, 32, 128] (batch, head, head_dim) tensor");
  d = DecodeArgs();
  d.outStrideHead = 0;
  EXPECT_STATUS(d.run(l.plan), TQRT_INVALID_ARGUMENT);
  d = DecodeArgs();
  d.blockTableStride = 0;
  EXPECT_STATUS(d.run(l.plan), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("block_table_stride is 0");
}

TEST_F(Launch, CacheSizeMustMatchLayout) {
  StoreArgs s;
  s.cacheBytes = 10 * kBlockStride + 7;
  EXPECT_STATUS(s.run(l.plan), TQRT_SHAPE_MISMATCH);
  EXPECT_ERROR_HAS("cache_bytes 151047 is not a positive multiple of the "
                   "layout's block_stride 15104");
  s.cacheBytes = 0;
  EXPECT_STATUS(s.run(l.plan), TQRT_SHAPE_MISMATCH);
  DecodeArgs d;
  d.cacheBytes = 1888; // one region, not one block
  EXPECT_STATUS(d.run(l.plan), TQRT_SHAPE_MISMATCH);
}

TEST_F(Launch, AbovePlan) {
  StoreArgs s;
  s.numTokens = 17;
  EXPECT_STATUS(s.run(l.plan), TQRT_EXCEEDS_PLAN);
  EXPECT_ERROR_HAS("num_tokens 17 is above the plan's max_tokens 16");
  s.numTokens = -1;
  EXPECT_STATUS(s.run(l.plan), TQRT_INVALID_ARGUMENT);
  DecodeArgs d;
  d.batch = 3;
  EXPECT_STATUS(d.run(l.plan), TQRT_EXCEEDS_PLAN);
  EXPECT_ERROR_HAS("batch 3 is above the plan's max_batch 2");
  d.batch = -2;
  EXPECT_STATUS(d.run(l.plan), TQRT_INVALID_ARGUMENT);
}

TEST_F(Launch, WorkspaceTooSmall) {
  DecodeArgs d;
  d.workspaceBytes -= 4;
  EXPECT_STATUS(d.run(l.plan), TQRT_WORKSPACE_TOO_SMALL);
  EXPECT_ERROR_HAS("workspace_bytes 133372 is below the plan's 133376 "
                   "(4 * max_batch 2 * 16672 floats per row of plans[0])");
  d.workspaceBytes = 0;
  EXPECT_STATUS(d.run(l.plan), TQRT_WORKSPACE_TOO_SMALL);
  // More than enough is fine.
  d.workspaceBytes = 1ull << 40;
  EXPECT_STATUS(d.run(l.plan), TQRT_NO_DEVICE);
}

TEST_F(Launch, SingleSplitIgnoresWorkspace) {
  // max_batch 4: plans[1], one split, no workspace.
  tqrt_plan *plan = nullptr;
  ASSERT_EQ(tqrt_plan_create(l.bundle, 4, 16, &plan), TQRT_OK);
  DecodeArgs d;
  d.workspace = nullptr;
  d.workspaceBytes = 0;
  EXPECT_STATUS(d.run(plan), TQRT_NO_DEVICE);
  d.batch = 4;
  EXPECT_STATUS(d.run(plan), TQRT_NO_DEVICE);
  // The same call on the splitting plan needs the workspace.
  d.batch = 2;
  EXPECT_STATUS(d.run(l.plan), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("workspace is null");
  tqrt_plan_destroy(plan);
}

TEST_F(Launch, Dtypes) {
  StoreArgs s;
  s.dtype = TQRT_DTYPE_FP16;
  EXPECT_STATUS(s.run(l.plan), TQRT_UNSUPPORTED_DTYPE);
  EXPECT_ERROR_HAS("the bundle has no fp16 kernels (it has: bf16)");
  DecodeArgs d;
  d.dtype = TQRT_DTYPE_FP16;
  EXPECT_STATUS(d.run(l.plan), TQRT_UNSUPPORTED_DTYPE);
  d.dtype = static_cast<tqrt_dtype>(0);
  EXPECT_STATUS(d.run(l.plan), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("dtype 0 is not a tqrt_dtype");
  s.dtype = static_cast<tqrt_dtype>(7);
  EXPECT_STATUS(s.run(l.plan), TQRT_INVALID_ARGUMENT);
}

TEST_F(Launch, Scale) {
  DecodeArgs d;
  d.scale = -0.5f;
  EXPECT_STATUS(d.run(l.plan), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("scale is -0.5");
  d.scale = std::nanf("");
  EXPECT_STATUS(d.run(l.plan), TQRT_INVALID_ARGUMENT);
  d.scale = INFINITY;
  EXPECT_STATUS(d.run(l.plan), TQRT_INVALID_ARGUMENT);
  d.scale = 0.125f;
  EXPECT_STATUS(d.run(l.plan), TQRT_NO_DEVICE);
}

// ---- Messages and the device probe ---------------------------------------

TEST(Messages, ClearedBySuccessAndPerThread) {
  tqrt_bundle *b = nullptr;
  EXPECT_STATUS(tqrt_bundle_load_dir(nullptr, &b), TQRT_INVALID_ARGUMENT);
  EXPECT_STRNE(tqrt_last_error(), "");
  Loaded l;
  ASSERT_EQ(tqrt_bundle_load_dir(TQRT_FIXTURES, &l.bundle), TQRT_OK);
  EXPECT_STREQ(tqrt_last_error(), "");
}

TEST(Messages, StatusNames) {
  EXPECT_STREQ(tqrt_status_name(TQRT_OK), "TQRT_OK");
  EXPECT_STREQ(tqrt_status_name(TQRT_WORKSPACE_TOO_SMALL), "TQRT_WORKSPACE_TOO_SMALL");
  EXPECT_STREQ(tqrt_status_name(TQRT_NO_CONTEXT), "TQRT_NO_CONTEXT");
  EXPECT_STREQ(tqrt_status_name(static_cast<tqrt_status>(99)), "TQRT_UNKNOWN_STATUS");
  EXPECT_STREQ(tqrt_version(), TQRT_VERSION_STRING);
}

// An AMD bundle plans like an NVIDIA one and launches through HIP; here the
// HIP runtime is absent (TQRT_LIBAMDHIP64, set in main), so the plan stays
// unbound and every launch checks its arguments first, then says why.
TEST(Amd, PlansAndChecksArgumentsWithoutHip) {
  std::string text = amdManifest();
  Loaded l;
  ASSERT_EQ(loadText(text, &l.bundle), TQRT_OK) << tqrt_last_error();
  ASSERT_EQ(tqrt_plan_create(l.bundle, 2, 16, &l.plan), TQRT_OK)
      << tqrt_last_error();
  tqrt_plan_info info;
  ASSERT_EQ(tqrt_plan_get_info(l.plan, &info), TQRT_OK);
  EXPECT_EQ(info.bound, 0);
  EXPECT_EQ(info.splits, 4);
  EXPECT_EQ(info.workspace_bytes, uint64_t(4 * 2 * kFloatsPerRow));
  EXPECT_STATUS(StoreArgs().run(l.plan), TQRT_NO_DEVICE);
  EXPECT_ERROR_HAS("tqrt_launch_store: no AMD device: the HIP runtime could "
                   "not be loaded (tried /nonexistent/libamdhip64.so");
  EXPECT_STATUS(DecodeArgs().run(l.plan), TQRT_NO_DEVICE);
  EXPECT_ERROR_HAS("tqrt_launch_decode: no AMD device");
  // Argument errors come first, exactly as on NVIDIA.
  DecodeArgs d;
  d.batch = 3;
  EXPECT_STATUS(d.run(l.plan), TQRT_EXCEEDS_PLAN);
  EXPECT_ERROR_HAS("batch 3 is above the plan's max_batch 2");
  DecodeArgs w;
  w.workspaceBytes -= 4;
  EXPECT_STATUS(w.run(l.plan), TQRT_WORKSPACE_TOO_SMALL);
  StoreArgs st;
  st.key = nullptr;
  EXPECT_STATUS(st.run(l.plan), TQRT_INVALID_ARGUMENT);
  // AMD kernels never claim a programmatic (griddepcontrol) launch.
  tqrt_bundle *b = nullptr;
  EXPECT_STATUS(loadText(edit(text, "\"shared_bytes\": 16384,",
                              "\"shared_bytes\": 16384, \"programmatic_launch\": true,"),
                         &b),
                TQRT_BAD_BUNDLE);
  EXPECT_ERROR_HAS("arch gfx942 has no programmatic launch");
}

TEST(Device, NoDriverIsNoDevice) {
  int32_t n = -1;
  EXPECT_STATUS(tqrt_device_count(&n), TQRT_NO_DEVICE);
  EXPECT_EQ(n, 0);
  EXPECT_ERROR_HAS("no CUDA device: the CUDA driver library could not be loaded");
  EXPECT_STATUS(tqrt_device_count(nullptr), TQRT_INVALID_ARGUMENT);
}

} // namespace

int main(int argc, char **argv) {
  // Before any tqrt call: the driver is loaded once per process.
  setenv("TQRT_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  setenv("TQRT_LIBAMDHIP64", "/nonexistent/libamdhip64.so", 1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
