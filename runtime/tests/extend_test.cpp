//===- extend_test.cpp - Extend (chunked prefill): manifest, plan, launch -===//
//
// The fixture manifest with an "extend" member and bf16 extend_prep /
// extend kernels (test_util.h, extendManifest()): what the reader accepts
// and refuses, the grids and workspace a plan gets, and every argument
// check of tqrt_launch_extend. main() in runtime_test.cpp forces the driver
// absent, so a launch whose arguments pass every check returns
// TQRT_NO_DEVICE.
//
//===----------------------------------------------------------------------===//
#include "test_util.h"

#include <climits>
#include <cmath>
#include <cstring>

using namespace tqrt_test;

namespace {

// The fixture: head_dim 128, 32 query heads, 8 KV heads, block_stride
// 15104, bf16 only; plans[0] for max_batch 1-2, plans[1] for 4-16.
constexpr int kHeadDim = 128, kNumQ = 32, kNumKV = 8;
constexpr int64_t kBlockStride = 15104;
constexpr int64_t kWorkspacePerToken = kNumKV * (4 * kHeadDim + 8); // 4160

TEST(ExtendManifest, Loads) {
  Loaded l;
  ASSERT_EQ(loadText(extendManifest(), &l.bundle), TQRT_OK) << tqrt_last_error();
  tqrt_bundle_info info;
  ASSERT_EQ(tqrt_bundle_get_info(l.bundle, &info), TQRT_OK);
  EXPECT_EQ(info.has_extend, 1);
  EXPECT_EQ(info.extend_tile_tokens, 16);
  EXPECT_EQ(info.extend_block_n, 64);
  EXPECT_EQ(info.extend_warps, 4);
  EXPECT_EQ(info.extend_workspace_bytes_per_token, kWorkspacePerToken);
  ASSERT_NE(info.extend_note, nullptr);
  EXPECT_STREQ(info.extend_note, "");
  // The rest is the fixture's.
  EXPECT_EQ(info.num_plans, 2);
  EXPECT_EQ(info.dtypes, 1u << TQRT_DTYPE_BF16);
}

TEST(ExtendManifest, OlderBundleHasNone) {
  // The fixture itself has no "extend" member: written before extend.
  Loaded l;
  ASSERT_EQ(tqrt_bundle_load_dir(TQRT_FIXTURES, &l.bundle), TQRT_OK);
  tqrt_bundle_info info;
  std::memset(&info, 0x5a, sizeof info);
  ASSERT_EQ(tqrt_bundle_get_info(l.bundle, &info), TQRT_OK);
  EXPECT_EQ(info.has_extend, 0);
  EXPECT_EQ(info.extend_tile_tokens, 0);
  EXPECT_EQ(info.extend_block_n, 0);
  EXPECT_EQ(info.extend_warps, 0);
  EXPECT_EQ(info.extend_workspace_bytes_per_token, 0);
  EXPECT_STREQ(info.extend_note, "the bundle predates extend");
  ASSERT_EQ(tqrt_plan_create(l.bundle, 4, 100, &l.plan), TQRT_OK);
  tqrt_plan_info pi;
  std::memset(&pi, 0x5a, sizeof pi);
  ASSERT_EQ(tqrt_plan_get_info(l.plan, &pi), TQRT_OK);
  EXPECT_EQ(pi.extend_workspace_bytes, 0u);
  EXPECT_EQ(pi.max_tokens, 100);
  tqrt_launch_dims d;
  for (tqrt_kernel_kind kind : {TQRT_KERNEL_EXTEND_PREP, TQRT_KERNEL_EXTEND}) {
    EXPECT_STATUS(tqrt_plan_get_launch(l.plan, kind, TQRT_DTYPE_BF16, &d),
                  TQRT_UNSUPPORTED);
    EXPECT_ERROR_HAS("tqrt_plan_get_launch: the bundle has no extend kernels: "
                     "the bundle predates extend");
  }
  EXPECT_STREQ(tqrt_status_name(TQRT_UNSUPPORTED), "TQRT_UNSUPPORTED");
}

TEST(ExtendManifest, NotAvailableCarriesTheReason) {
  const std::string text = edit(
      readFixture("manifest.json"), "  \"plan_source\": \"defaults\",\n",
      "  \"plan_source\": \"defaults\",\n  \"extend\": {\"available\": false, "
      "\"reason\": \"head_dim 128 with qjl keys has no extend yet\"},\n");
  Loaded l;
  ASSERT_EQ(loadText(text, &l.bundle), TQRT_OK) << tqrt_last_error();
  tqrt_bundle_info info;
  ASSERT_EQ(tqrt_bundle_get_info(l.bundle, &info), TQRT_OK);
  EXPECT_EQ(info.has_extend, 0);
  EXPECT_STREQ(info.extend_note, "head_dim 128 with qjl keys has no extend yet");
  ASSERT_EQ(tqrt_plan_create(l.bundle, 2, 16, &l.plan), TQRT_OK);
  tqrt_launch_dims d;
  EXPECT_STATUS(tqrt_plan_get_launch(l.plan, TQRT_KERNEL_EXTEND,
                                     TQRT_DTYPE_BF16, &d),
                TQRT_UNSUPPORTED);
  EXPECT_ERROR_HAS("the bundle has no extend kernels: head_dim 128 with qjl "
                   "keys has no extend yet");

  // Extend kernels in a bundle that says it has no extend contradict it.
  tqrt_bundle *b = nullptr;
  EXPECT_STATUS(loadText(edit(text, "\"local_bytes\": 0}\n  ]",
                              std::string("\"local_bytes\": 0},\n    ") +
                                  kExtendKernels + "\n  ]"),
                         &b),
                TQRT_BAD_BUNDLE);
  EXPECT_ERROR_HAS("'kernels[3]' (extend_prep_bf16) is an extend_prep kernel, "
                   "but the manifest's 'extend' says the bundle has no extend "
                   "(head_dim 128 with qjl keys has no extend yet)");
  // So do they in an older bundle.
  EXPECT_STATUS(loadText(edit(extendManifest(), std::string(kExtendMember) + ",\n", ""),
                         &b),
                TQRT_BAD_BUNDLE);
  EXPECT_ERROR_HAS("is an extend_prep kernel, but the manifest's 'extend' says "
                   "the bundle has no extend (the bundle predates extend)");
  EXPECT_EQ(b, nullptr);
}

TEST(ExtendManifest, Errors) {
  const std::string text = extendManifest();
  const std::string storeF16Prep =
      "{\"name\": \"extend_prep_f16\", \"kind\": \"extend_prep\", \"dtype\": "
      "\"f16\", \"symbol\": \"tq_extend_prep_f16\", \"plan\": null, \"args\": "
      "\"tq_extend_args\", \"args_bytes\": 176, \"block\": [256, 1, 1], "
      "\"shared_bytes\": 0, \"grid\": [\"max_tokens\", \"1\", \"1\"]}";
  auto withKernel = [&](const std::string &kernel) {
    return edit(text, "\"tile_tokens\": 16}\n  ]",
                "\"tile_tokens\": 16},\n    " + kernel + "\n  ]");
  };
  struct Case {
    std::string manifest;
    const char *message;
  } cases[] = {
      // The top-level member.
      {edit(text, "\"workspace_bytes_per_token\": 4160",
            "\"workspace_bytes_per_token\": 4096"),
       "'extend.workspace_bytes_per_token' is 4096 but num_kv_heads * (4 * "
       "head_dim + 8) (TQ_EXTEND_WORKSPACE_BYTES, templates/tq/abi.h) is 8 * "
       "(4 * 128 + 8) = 4160"},
      {edit(text, "\"workspace_bytes_per_token\": 4160",
            "\"workspace_bytes_per_token\": \"4160\""),
       "'extend.workspace_bytes_per_token' must be a positive integer, got "
       "\"4160\""},
      {edit(text, ", \"workspace_bytes_per_token\": 4160", ""),
       "missing field 'extend.workspace_bytes_per_token' (a positive integer)"},
      {edit(text, "\"block_n\": 64, \"warps\": 4", "\"warps\": 4"),
       "missing field 'extend.block_n' (a positive integer)"},
      {edit(text, "\"warps\": 4, \"workspace", "\"warps\": 0, \"workspace"),
       "'extend.warps' must be an integer in [1, 32], got 0"},
      {edit(text, "\"available\": true, \"tile_tokens\": 16",
            "\"available\": true, \"tile_tokens\": -16"),
       "'extend.tile_tokens' must be a positive integer, got -16"},
      {edit(text, "\"available\": true", "\"available\": 1"),
       "'extend.available' must be true or false, got 1"},
      {edit(text, "\"available\": true, ", ""),
       "missing field 'extend.available' (true or false)"},
      {edit(text, kExtendMember, "\"extend\": true"),
       "'extend' must be an object {\"available\": true, \"tile_tokens\", "
       "\"block_n\", \"warps\", \"workspace_bytes_per_token\"} or "
       "{\"available\": false, \"reason\"}, got true"},
      {edit(edit(text, kExtendMember, "\"extend\": {\"available\": false}"),
            std::string(",\n    ") + kExtendKernels, ""),
       "missing field 'extend.reason' (a string)"},
      {edit(edit(text, kExtendMember,
                 "\"extend\": {\"available\": false, \"reason\": \"\"}"),
            std::string(",\n    ") + kExtendKernels, ""),
       "'extend.reason' must be a non-empty string, got \"\""},
      // tile_tokens and query_tiles.
      {edit(text, ", \"tile_tokens\": 16}", "}"),
       "'kernels[4].grid[0]' of kernel 'extend_bf16' uses \"query_tiles\" "
       "(ceil(max_tokens / tile_tokens) + max_batch), but "
       "'kernels[4].tile_tokens' is missing (a positive integer: chunk tokens "
       "per query tile)"},
      {edit(text, "\"tile_tokens\": 16}", "\"tile_tokens\": 0}"),
       "'kernels[4].tile_tokens' must be a positive integer, got 0"},
      {edit(text, "\"tile_tokens\": 16}", "\"tile_tokens\": \"16\"}"),
       "'kernels[4].tile_tokens' must be a positive integer, got \"16\""},
      {edit(text, "\"tile_tokens\": 16}", "\"tile_tokens\": 32}"),
       "'kernels[4].tile_tokens' is 32 but 'extend.tile_tokens' is 16"},
      // query_tiles in any kernel needs that kernel's tile_tokens.
      {edit(text, "[\"max_tokens\", \"1\", \"1\"],\n     \"registers\": 40",
            "[\"query_tiles\", \"1\", \"1\"],\n     \"registers\": 40"),
       "'kernels[0].grid[0]' of kernel 'store_bf16' uses \"query_tiles\""},
      // So does token_tiles.
      {edit(text, "[\"max_tokens\", \"1\", \"1\"],\n     \"registers\": 40",
            "[\"token_tiles\", \"1\", \"1\"],\n     \"registers\": 40"),
       "'kernels[0].grid[0]' of kernel 'store_bf16' uses \"token_tiles\" "
       "(ceil(max_tokens / tile_tokens)), but 'kernels[0].tile_tokens' is "
       "missing"},
      // Names that are not grid names are still refused.
      {edit(text, "[\"query_tiles\", \"num_kv_heads\", \"1\"]",
            "[\"query_tile\", \"num_kv_heads\", \"1\"]"),
       "'kernels[4].grid[0]': unknown name \"query_tile\" in \"query_tile\" (a "
       "grid extent may use max_batch, max_tokens, num_q_heads, num_kv_heads, "
       "head_groups, splits, query_tiles, token_tiles and integer literals"},
      {edit(text, "[\"query_tiles\", \"num_kv_heads\", \"1\"]",
            "[\"query_tiles\", \"num_kv_heads\", \"splits\"]"),
       "'kernels[4].grid[2]' uses \"splits\", a plan's value; an extend kernel "
       "has no plan (its extents may use max_batch, max_tokens, num_q_heads, "
       "num_kv_heads, query_tiles, token_tiles and integer literals)"},
      // The kernels' own fields.
      {edit(text, "\"symbol\": \"tq_extend_bf16\", \"plan\": null",
            "\"symbol\": \"tq_extend_bf16\", \"plan\": 0"),
       "'kernels[4].plan' must be null for an extend kernel, got 0"},
      {edit(text, "\"symbol\": \"tq_extend_prep_bf16\", \"plan\": null, ",
            "\"symbol\": \"tq_extend_prep_bf16\", "),
       "missing field 'kernels[3].plan' (null for an extend_prep kernel)"},
      {edit(text, "\"tq_extend_bf16\", \"plan\": null, \"args\": \"tq_extend_args\"",
            "\"tq_extend_bf16\", \"plan\": null, \"args\": \"tq_decode_args\""),
       "'kernels[4].args' must be \"tq_extend_args\" for an extend kernel, got "
       "\"tq_decode_args\""},
      {edit(text, "\"args_bytes\": 176, \"block\": [256, 1, 1]",
            "\"args_bytes\": 160, \"block\": [256, 1, 1]"),
       "'kernels[3].args_bytes' is 160 but this runtime's tq_extend_args "
       "(templates/tq/abi.h) is 176 bytes"},
      {edit(text, "\"symbol\": \"tq_extend_bf16\", ", ""),
       "missing field 'kernels[4].symbol' (a string)"},
      // Completeness: both kinds for every stored dtype, one each.
      {edit(text, "\"kind\": \"extend_prep\"", "\"kind\": \"future\""),
       "manifest.json (in memory): 'kernels' has no extend_prep kernel for "
       "bf16; 'extend.available' is true, so every dtype the bundle stores "
       "needs its extend_prep and extend kernels"},
      {edit(text, "\"kind\": \"extend\",", "\"kind\": \"future\","),
       "'kernels' has no extend kernel for bf16; 'extend.available' is true"},
      {editAll(text, "\"dtype\": \"bf16\", \"symbol\": \"tq_extend",
               "\"dtype\": \"f16\", \"symbol\": \"tq_extend"),
       "'kernels' has no extend_prep kernel for bf16"},
      {withKernel(storeF16Prep),
       "'kernels' has no store kernel for fp16 (kernel 'extend_prep_f16' is "
       "an extend_prep kernel for fp16)"},
      {withKernel(edit(editAll(storeF16Prep, "f16", "bf16"),
                       "\"name\": \"extend_prep_bf16\"",
                       "\"name\": \"extend_prep2_bf16\"")),
       "'kernels[5]' is a second extend_prep kernel for bf16 (the first is "
       "'extend_prep_bf16')"},
  };
  for (const Case &c : cases) {
    tqrt_bundle *b = nullptr;
    EXPECT_STATUS(loadText(c.manifest, &b), TQRT_BAD_BUNDLE);
    EXPECT_ERROR_HAS(c.message);
    EXPECT_EQ(b, nullptr);
    tqrt_bundle_destroy(b);
  }
}

// ---- Plans ---------------------------------------------------------------

TEST(ExtendPlan, GridsAndWorkspace) {
  Loaded l;
  ASSERT_EQ(loadText(extendManifest(), &l.bundle), TQRT_OK) << tqrt_last_error();
  ASSERT_EQ(tqrt_plan_create(l.bundle, 4, 100, &l.plan), TQRT_OK)
      << tqrt_last_error();
  tqrt_plan_info info;
  ASSERT_EQ(tqrt_plan_get_info(l.plan, &info), TQRT_OK);
  EXPECT_EQ(info.extend_workspace_bytes, 100u * kWorkspacePerToken); // 416000
  EXPECT_EQ(info.workspace_bytes, 0u); // plans[1]: decode has one split
  tqrt_launch_dims d;
  ASSERT_EQ(tqrt_plan_get_launch(l.plan, TQRT_KERNEL_EXTEND, TQRT_DTYPE_BF16, &d),
            TQRT_OK) << tqrt_last_error();
  EXPECT_EQ(d.grid[0], 11u); // ceil(100 / 16) + max_batch 4 = 7 + 4
  EXPECT_EQ(d.grid[1], 8u);  // num_kv_heads
  EXPECT_EQ(d.grid[2], 1u);
  EXPECT_EQ(d.block[0], 128u);
  EXPECT_EQ(d.block[1], 1u);
  EXPECT_EQ(d.static_shared_bytes, 40960u);
  EXPECT_EQ(d.dynamic_shared_bytes, 0u);
  EXPECT_EQ(d.programmatic_launch, 0u);
  ASSERT_EQ(tqrt_plan_get_launch(l.plan, TQRT_KERNEL_EXTEND_PREP,
                                 TQRT_DTYPE_BF16, &d),
            TQRT_OK);
  EXPECT_EQ(d.grid[0], 100u); // max_tokens
  EXPECT_EQ(d.grid[1], 1u);
  EXPECT_EQ(d.block[0], 256u);
  EXPECT_EQ(d.static_shared_bytes, 0u);
  EXPECT_STATUS(tqrt_plan_get_launch(l.plan, TQRT_KERNEL_EXTEND,
                                     TQRT_DTYPE_FP16, &d),
                TQRT_UNSUPPORTED_DTYPE);
  // The other kinds are unchanged.
  ASSERT_EQ(tqrt_plan_get_launch(l.plan, TQRT_KERNEL_STORE, TQRT_DTYPE_BF16, &d),
            TQRT_OK);
  EXPECT_EQ(d.grid[0], 100u);
  ASSERT_EQ(tqrt_plan_get_launch(l.plan, TQRT_KERNEL_DECODE, TQRT_DTYPE_BF16, &d),
            TQRT_OK);
  EXPECT_EQ(d.grid[0], 16u);

  // Exact multiples and remainders of the tile.
  const struct {
    int32_t maxBatch, maxTokens;
    uint32_t tiles;
  } cases[] = {{1, 1, 2}, {2, 16, 3}, {2, 17, 4}, {16, 32, 18}, {3, 160, 13}};
  for (const auto &c : cases) {
    tqrt_plan *p = nullptr;
    ASSERT_EQ(tqrt_plan_create(l.bundle, c.maxBatch, c.maxTokens, &p), TQRT_OK);
    ASSERT_EQ(tqrt_plan_get_launch(p, TQRT_KERNEL_EXTEND, TQRT_DTYPE_BF16, &d),
              TQRT_OK);
    EXPECT_EQ(d.grid[0], c.tiles) << c.maxBatch << " x " << c.maxTokens;
    ASSERT_EQ(tqrt_plan_get_info(p, &info), TQRT_OK);
    EXPECT_EQ(info.extend_workspace_bytes,
              uint64_t(c.maxTokens) * kWorkspacePerToken);
    tqrt_plan_destroy(p);
  }
}

TEST(ExtendPlan, QueryTilesInProductsAndLimits) {
  // query_tiles is a grid name like the others: products, other kernels.
  std::string text = edit(extendManifest(),
                          "[\"query_tiles\", \"num_kv_heads\", \"1\"]",
                          "[\"2*query_tiles\", \"num_kv_heads\", \"query_tiles\"]");
  Loaded l;
  ASSERT_EQ(loadText(text, &l.bundle), TQRT_OK) << tqrt_last_error();
  ASSERT_EQ(tqrt_plan_create(l.bundle, 4, 100, &l.plan), TQRT_OK);
  tqrt_launch_dims d;
  ASSERT_EQ(tqrt_plan_get_launch(l.plan, TQRT_KERNEL_EXTEND, TQRT_DTYPE_BF16, &d),
            TQRT_OK);
  EXPECT_EQ(d.grid[0], 22u);
  EXPECT_EQ(d.grid[2], 11u);
  tqrt_plan *p = nullptr;
  // grid.z = query_tiles is limited to 65535 by CUDA: ceil(1048560 / 16)
  // + 1 = 65536.
  EXPECT_STATUS(tqrt_plan_create(l.bundle, 1, 1048560, &p), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("kernel 'extend_bf16' grid[2] = \"query_tiles\" exceeds "
                   "65535 for this plan");
  EXPECT_EQ(p, nullptr);

  // With one token per tile, query_tiles of the largest max_tokens passes
  // 2^31 and must be refused, not wrap.
  Loaded one;
  ASSERT_EQ(loadText(editAll(extendManifest(), "\"tile_tokens\": 16",
                             "\"tile_tokens\": 1"),
                     &one.bundle),
            TQRT_OK) << tqrt_last_error();
  EXPECT_STATUS(tqrt_plan_create(one.bundle, 1, INT32_MAX, &p),
                TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("kernel 'extend_bf16' grid[0] = \"query_tiles\" exceeds "
                   "2147483647");
  ASSERT_EQ(tqrt_plan_create(one.bundle, 1, INT32_MAX - 1, &one.plan), TQRT_OK)
      << tqrt_last_error();
  ASSERT_EQ(tqrt_plan_get_launch(one.plan, TQRT_KERNEL_EXTEND, TQRT_DTYPE_BF16, &d),
            TQRT_OK);
  EXPECT_EQ(d.grid[0], uint32_t(INT32_MAX));
  // A product of a large literal and query_tiles does not overflow either.
  Loaded big;
  ASSERT_EQ(loadText(edit(extendManifest(),
                          "[\"query_tiles\", \"num_kv_heads\", \"1\"]",
                          "[\"1073741824*query_tiles*query_tiles\", "
                          "\"num_kv_heads\", \"1\"]"),
                     &big.bundle),
            TQRT_OK) << tqrt_last_error();
  EXPECT_STATUS(tqrt_plan_create(big.bundle, 65535, INT32_MAX, &p),
                TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("grid[0] = \"1073741824*query_tiles*query_tiles\" exceeds");
}

TEST(ExtendPlan, TokenTilesCountTheKernelsTilesOfMaxTokens) {
  // token_tiles = ceil(max_tokens / tile_tokens), with the kernel's own
  // tile_tokens (4 for this store kernel, 16 for the extend kernel).
  std::string text =
      edit(extendManifest(), "[\"max_tokens\", \"1\", \"1\"],\n     \"registers\": 40",
           "[\"token_tiles\", \"1\", \"1\"], \"tile_tokens\": 4,\n     "
           "\"registers\": 40");
  Loaded l;
  ASSERT_EQ(loadText(text, &l.bundle), TQRT_OK) << tqrt_last_error();
  ASSERT_EQ(tqrt_plan_create(l.bundle, 4, 101, &l.plan), TQRT_OK)
      << tqrt_last_error();
  tqrt_launch_dims d;
  ASSERT_EQ(tqrt_plan_get_launch(l.plan, TQRT_KERNEL_STORE, TQRT_DTYPE_BF16, &d),
            TQRT_OK);
  EXPECT_EQ(d.grid[0], 26u); // ceil(101 / 4)
  ASSERT_EQ(tqrt_plan_get_launch(l.plan, TQRT_KERNEL_EXTEND, TQRT_DTYPE_BF16, &d),
            TQRT_OK);
  EXPECT_EQ(d.grid[0], 11u); // query_tiles: ceil(101 / 16) + 4
}

// ---- Launch --------------------------------------------------------------

// Fake device addresses: never dereferenced (the driver is absent).
alignas(256) unsigned char gArena[1 << 16];

struct ExtendArgs {
  tqrt_dtype dtype = TQRT_DTYPE_BF16;
  const void *query = gArena;
  int64_t queryStrideToken = kNumQ * kHeadDim, queryStrideHead = kHeadDim;
  const void *key = gArena + 4096;
  int64_t keyStrideToken = kNumKV * kHeadDim, keyStrideHead = kHeadDim;
  const void *value = gArena + 8192;
  int64_t valueStrideToken = kNumKV * kHeadDim, valueStrideHead = kHeadDim;
  const void *cache = gArena + 12288;
  int64_t cacheBytes = 10 * kBlockStride;
  const int32_t *blockTables = reinterpret_cast<const int32_t *>(gArena + 16384);
  int32_t blockTableStride = 64;
  const int32_t *cuSeqlensQ = reinterpret_cast<const int32_t *>(gArena + 20480);
  const int32_t *prefixLens = reinterpret_cast<const int32_t *>(gArena + 24576);
  void *out = gArena + 28672;
  int64_t outStrideToken = kNumQ * kHeadDim, outStrideHead = kHeadDim;
  float *lse = reinterpret_cast<float *>(gArena + 32768);
  int32_t batch = 2;
  float scale = 0.0f;
  void *workspace = gArena + 36864;
  uint64_t workspaceBytes = 16 * kWorkspacePerToken; // the plan's max_tokens 16
  const int64_t *slotMapping = reinterpret_cast<const int64_t *>(gArena + 40960);
  /// tqrt_launch_extend_store with slotMapping.
  tqrt_status runStore(const tqrt_plan *plan) const {
    return tqrt_launch_extend_store(
        plan, dtype, query, queryStrideToken, queryStrideHead, key,
        keyStrideToken, keyStrideHead, value, valueStrideToken,
        valueStrideHead, const_cast<void *>(cache), cacheBytes, slotMapping,
        blockTables, blockTableStride, cuSeqlensQ, prefixLens, out,
        outStrideToken, outStrideHead, lse, batch, scale, workspace,
        workspaceBytes, nullptr);
  }
  tqrt_status run(const tqrt_plan *plan) const {
    return tqrt_launch_extend(
        plan, dtype, query, queryStrideToken, queryStrideHead, key,
        keyStrideToken, keyStrideHead, value, valueStrideToken,
        valueStrideHead, cache, cacheBytes, blockTables, blockTableStride,
        cuSeqlensQ, prefixLens, out, outStrideToken, outStrideHead, lse, batch,
        scale, workspace, workspaceBytes, nullptr);
  }
  /// Prefix only: no chunk keys and values, no workspace.
  ExtendArgs &prefixOnly() {
    key = value = nullptr;
    workspace = nullptr;
    workspaceBytes = 0;
    return *this;
  }
};

class ExtendLaunch : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(loadText(extendManifest(), &l.bundle), TQRT_OK)
        << tqrt_last_error();
    ASSERT_EQ(tqrt_plan_create(l.bundle, 2, 16, &l.plan), TQRT_OK);
  }
  Loaded l;
};

TEST_F(ExtendLaunch, ValidArgumentsReachTheDevice) {
  EXPECT_STATUS(ExtendArgs().run(l.plan), TQRT_NO_DEVICE);
  EXPECT_ERROR_HAS("tqrt_launch_extend: no CUDA device: the CUDA driver "
                   "library could not be loaded");
  ExtendArgs a;
  a.lse = nullptr; // lse is optional
  EXPECT_STATUS(a.run(l.plan), TQRT_NO_DEVICE);
  a = ExtendArgs();
  a.batch = 1;
  a.scale = 0.125f;
  EXPECT_STATUS(a.run(l.plan), TQRT_NO_DEVICE);
  a.workspaceBytes = 1ull << 40; // more than enough
  EXPECT_STATUS(a.run(l.plan), TQRT_NO_DEVICE);
  // Prefix only: no workspace needed, and what would be wrong about the
  // chunk's strides or the workspace does not matter.
  a = ExtendArgs();
  a.prefixOnly();
  EXPECT_STATUS(a.run(l.plan), TQRT_NO_DEVICE);
  a.keyStrideToken = 3;
  a.valueStrideHead = 0;
  a.workspace = gArena + 36868;
  a.workspaceBytes = 1;
  EXPECT_STATUS(a.run(l.plan), TQRT_NO_DEVICE);
  // Head-major and padded activations.
  a = ExtendArgs();
  a.queryStrideToken = kHeadDim;
  a.queryStrideHead = kHeadDim * 16; // max_tokens rows per head
  a.keyStrideToken = 48 * kHeadDim;  // a slice of a fused QKV tensor
  EXPECT_STATUS(a.run(l.plan), TQRT_NO_DEVICE);
}

// tqrt_launch_extend_store: tqrt_launch_extend's checks (under its own
// name), and a slot mapping that must be there, aligned, with a chunk.
TEST_F(ExtendLaunch, StoreTheChunk) {
  ExtendArgs a;
  EXPECT_STATUS(a.runStore(l.plan), TQRT_NO_DEVICE);
  EXPECT_ERROR_HAS("tqrt_launch_extend_store: no CUDA device");
  a.slotMapping = nullptr;
  EXPECT_STATUS(a.runStore(l.plan), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("tqrt_launch_extend_store: slot_mapping is null");
  a.slotMapping = reinterpret_cast<const int64_t *>(gArena + 40964);
  EXPECT_STATUS(a.runStore(l.plan), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("slot_mapping (0x");
  EXPECT_ERROR_HAS(") is not 8-byte aligned");
  a = ExtendArgs();
  a.prefixOnly();
  EXPECT_STATUS(a.runStore(l.plan), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("tqrt_launch_extend_store: key and value are null, so "
                   "there is no chunk to store");
  a = ExtendArgs();
  a.queryStrideHead = 120;
  EXPECT_STATUS(a.runStore(l.plan), TQRT_SHAPE_MISMATCH);
  EXPECT_ERROR_HAS("tqrt_launch_extend_store: query strides");
  a = ExtendArgs();
  a.cacheBytes = 10 * kBlockStride + 16;
  EXPECT_STATUS(a.runStore(l.plan), TQRT_SHAPE_MISMATCH);
  EXPECT_STATUS(tqrt_launch_extend_store(
                    nullptr, a.dtype, a.query, 0, 0, a.key, 0, 0, a.value, 0,
                    0, nullptr, 0, a.slotMapping, nullptr, 0, nullptr,
                    nullptr, nullptr, 0, 0, nullptr, 1, 0.f, nullptr, 0,
                    nullptr),
                TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("tqrt_launch_extend_store: plan is null");
}

TEST_F(ExtendLaunch, NullPlanAndDtypes) {
  EXPECT_STATUS(ExtendArgs().run(nullptr), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("tqrt_launch_extend: plan is null");
  ExtendArgs a;
  a.dtype = TQRT_DTYPE_FP16;
  EXPECT_STATUS(a.run(l.plan), TQRT_UNSUPPORTED_DTYPE);
  EXPECT_ERROR_HAS("tqrt_launch_extend: the bundle has no fp16 kernels (it "
                   "has: bf16)");
  a.dtype = static_cast<tqrt_dtype>(0);
  EXPECT_STATUS(a.run(l.plan), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("dtype 0 is not a tqrt_dtype");
}

TEST_F(ExtendLaunch, BundleWithoutExtend) {
  Loaded old;
  ASSERT_EQ(tqrt_bundle_load_dir(TQRT_FIXTURES, &old.bundle), TQRT_OK);
  ASSERT_EQ(tqrt_plan_create(old.bundle, 2, 16, &old.plan), TQRT_OK);
  EXPECT_STATUS(ExtendArgs().run(old.plan), TQRT_UNSUPPORTED);
  EXPECT_ERROR_HAS("tqrt_launch_extend: the bundle has no extend kernels: the "
                   "bundle predates extend");
  EXPECT_STATUS(ExtendArgs().prefixOnly().run(old.plan), TQRT_UNSUPPORTED);
}

TEST_F(ExtendLaunch, KeyAndValueTogether) {
  ExtendArgs a;
  a.key = nullptr;
  EXPECT_STATUS(a.run(l.plan), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("tqrt_launch_extend: key is null but value is not; pass "
                   "both (attend to the chunk too) or neither (the prefix "
                   "only)");
  a = ExtendArgs();
  a.value = nullptr;
  EXPECT_STATUS(a.run(l.plan), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("tqrt_launch_extend: value is null but key is not");
}

TEST_F(ExtendLaunch, NullPointers) {
  struct {
    void (*set)(ExtendArgs &);
    const char *name;
  } cases[] = {
      {[](ExtendArgs &a) { a.query = nullptr; }, "query is null"},
      {[](ExtendArgs &a) { a.cache = nullptr; }, "cache is null"},
      {[](ExtendArgs &a) { a.blockTables = nullptr; }, "block_tables is null"},
      {[](ExtendArgs &a) { a.cuSeqlensQ = nullptr; }, "cu_seqlens_q is null"},
      {[](ExtendArgs &a) { a.prefixLens = nullptr; }, "prefix_lens is null"},
      {[](ExtendArgs &a) { a.out = nullptr; }, "out is null"},
      {[](ExtendArgs &a) { a.workspace = nullptr; }, "workspace is null"},
  };
  for (const auto &c : cases) {
    ExtendArgs a;
    c.set(a);
    EXPECT_STATUS(a.run(l.plan), TQRT_INVALID_ARGUMENT);
    EXPECT_ERROR_HAS(std::string("tqrt_launch_extend: ") + c.name);
  }
}

TEST_F(ExtendLaunch, MisalignedPointers) {
  struct {
    void (*set)(ExtendArgs &);
    const char *message;
  } cases[] = {
      {[](ExtendArgs &a) { a.query = gArena + 8; }, "query (0x"},
      {[](ExtendArgs &a) { a.key = gArena + 4098; }, "key (0x"},
      {[](ExtendArgs &a) { a.value = gArena + 8200; }, "value (0x"},
      {[](ExtendArgs &a) { a.cache = gArena + 12296; }, "cache (0x"},
      {[](ExtendArgs &a) {
         a.blockTables = reinterpret_cast<const int32_t *>(gArena + 16386);
       }, "block_tables (0x"},
      {[](ExtendArgs &a) {
         a.cuSeqlensQ = reinterpret_cast<const int32_t *>(gArena + 20481);
       }, "cu_seqlens_q (0x"},
      {[](ExtendArgs &a) {
         a.prefixLens = reinterpret_cast<const int32_t *>(gArena + 24578);
       }, "prefix_lens (0x"},
      {[](ExtendArgs &a) { a.out = gArena + 28680; }, "out (0x"},
      {[](ExtendArgs &a) {
         a.lse = reinterpret_cast<float *>(gArena + 32770);
       }, "lse (0x"},
      {[](ExtendArgs &a) { a.workspace = gArena + 36872; }, "workspace (0x"},
  };
  const char *alignment[] = {"16", "16", "16", "16", "4", "4", "4", "16", "4", "16"};
  int i = 0;
  for (const auto &c : cases) {
    ExtendArgs a;
    c.set(a);
    EXPECT_STATUS(a.run(l.plan), TQRT_INVALID_ARGUMENT);
    EXPECT_ERROR_HAS(c.message);
    EXPECT_ERROR_HAS(std::string(") is not ") + alignment[i++] + "-byte aligned");
  }
}

TEST_F(ExtendLaunch, Strides) {
  ExtendArgs a;
  a.queryStrideHead = 120;
  EXPECT_STATUS(a.run(l.plan), TQRT_SHAPE_MISMATCH);
  // Checked as a [max_tokens, heads, head_dim] tensor: total is on the device.
  EXPECT_ERROR_HAS("tqrt_launch_extend: query strides (token 4096, head 120 "
                   "elements) make the head vectors of a [16, 32, 128] (token, "
                   "head, head_dim) tensor overlap");
  a = ExtendArgs();
  a.queryStrideToken = kHeadDim;
  a.queryStrideHead = kHeadDim * 15; // head-major for 15 rows, not 16
  EXPECT_STATUS(a.run(l.plan), TQRT_SHAPE_MISMATCH);
  EXPECT_ERROR_HAS("query strides (token 128, head 1920 elements)");
  a = ExtendArgs();
  a.keyStrideToken = 1028;
  EXPECT_STATUS(a.run(l.plan), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("key_stride_token is 1028 elements; it must be a multiple "
                   "of 8 (16 bytes)");
  a = ExtendArgs();
  a.keyStrideHead = 64;
  EXPECT_STATUS(a.run(l.plan), TQRT_SHAPE_MISMATCH);
  EXPECT_ERROR_HAS("key strides (token 1024, head 64 elements) make the head "
                   "vectors of a [16, 8, 128]");
  a = ExtendArgs();
  a.valueStrideHead = 0;
  EXPECT_STATUS(a.run(l.plan), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("value_stride_head is 0; strides are positive");
  a = ExtendArgs();
  a.valueStrideToken = -1024;
  EXPECT_STATUS(a.run(l.plan), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("value_stride_token is -1024");
  a = ExtendArgs();
  a.outStrideToken = 2048;
  EXPECT_STATUS(a.run(l.plan), TQRT_SHAPE_MISMATCH);
  EXPECT_ERROR_HAS("out strides (token 2048, head 128 elements) make the head "
                   "vectors of a [16, 32, 128] (token, head, head_dim) tensor");
  a = ExtendArgs();
  a.outStrideHead = 12;
  EXPECT_STATUS(a.run(l.plan), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("out_stride_head is 12 elements");
  a = ExtendArgs();
  a.blockTableStride = 0;
  EXPECT_STATUS(a.run(l.plan), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("tqrt_launch_extend: block_table_stride is 0; it must be "
                   "at least 1");
}

TEST_F(ExtendLaunch, CacheSizeMustMatchLayout) {
  ExtendArgs a;
  a.cacheBytes = 10 * kBlockStride + 16;
  EXPECT_STATUS(a.run(l.plan), TQRT_SHAPE_MISMATCH);
  EXPECT_ERROR_HAS("tqrt_launch_extend: cache_bytes 151056 is not a positive "
                   "multiple of the layout's block_stride 15104");
  a.cacheBytes = -kBlockStride;
  EXPECT_STATUS(a.run(l.plan), TQRT_SHAPE_MISMATCH);
}

TEST_F(ExtendLaunch, Batch) {
  ExtendArgs a;
  a.batch = 3;
  EXPECT_STATUS(a.run(l.plan), TQRT_EXCEEDS_PLAN);
  EXPECT_ERROR_HAS("tqrt_launch_extend: batch 3 is above the plan's max_batch "
                   "2");
  a.batch = 0;
  EXPECT_STATUS(a.run(l.plan), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("tqrt_launch_extend: batch is 0; it must be at least 1");
  a.batch = -1;
  EXPECT_STATUS(a.run(l.plan), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("batch is -1");
}

TEST_F(ExtendLaunch, Scale) {
  ExtendArgs a;
  a.scale = -0.5f;
  EXPECT_STATUS(a.run(l.plan), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("tqrt_launch_extend: scale is -0.5");
  a.scale = std::nanf("");
  EXPECT_STATUS(a.run(l.plan), TQRT_INVALID_ARGUMENT);
  a.scale = INFINITY;
  EXPECT_STATUS(a.run(l.plan), TQRT_INVALID_ARGUMENT);
}

TEST_F(ExtendLaunch, WorkspaceTooSmall) {
  ExtendArgs a;
  a.workspaceBytes -= 1;
  EXPECT_STATUS(a.run(l.plan), TQRT_WORKSPACE_TOO_SMALL);
  EXPECT_ERROR_HAS("tqrt_launch_extend: workspace_bytes 66559 is below the "
                   "plan's extend_workspace_bytes 66560 (max_tokens 16 * "
                   "num_kv_heads 8 * (4 * head_dim 128 + 8))");
  a.workspaceBytes = 0;
  EXPECT_STATUS(a.run(l.plan), TQRT_WORKSPACE_TOO_SMALL);
  EXPECT_ERROR_HAS("workspace_bytes 0 is below the plan's "
                   "extend_workspace_bytes 66560");
  // A larger bucket needs more.
  tqrt_plan *big = nullptr;
  ASSERT_EQ(tqrt_plan_create(l.bundle, 2, 17, &big), TQRT_OK);
  EXPECT_STATUS(ExtendArgs().run(big), TQRT_WORKSPACE_TOO_SMALL);
  EXPECT_ERROR_HAS("below the plan's extend_workspace_bytes 70720 (max_tokens "
                   "17");
  tqrt_plan_destroy(big);
}

TEST_F(ExtendLaunch, ChecksComeInOrder) {
  // The Common rules' order: counts, then pointers, then strides, then the
  // workspace, and the device last.
  ExtendArgs a;
  a.batch = 3;
  a.query = nullptr;
  EXPECT_STATUS(a.run(l.plan), TQRT_EXCEEDS_PLAN);
  a.batch = 2;
  a.outStrideHead = 0;
  EXPECT_STATUS(a.run(l.plan), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("query is null");
  a.query = gArena;
  a.workspaceBytes = 0;
  EXPECT_STATUS(a.run(l.plan), TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("out_stride_head is 0");
  a.outStrideHead = kHeadDim;
  EXPECT_STATUS(a.run(l.plan), TQRT_WORKSPACE_TOO_SMALL);
}

// An AMD bundle with extend: plans, checks, then says why there is no device.
TEST(ExtendAmd, ChecksArgumentsWithoutHip) {
  std::string text = edit(extendManifest(), "\"arch\": \"sm_90\"",
                          "\"arch\": \"gfx942\"");
  text = edit(text, "\"vendor\": \"nvidia\"", "\"vendor\": \"amd\"");
  Loaded l;
  ASSERT_EQ(loadText(text, &l.bundle), TQRT_OK) << tqrt_last_error();
  ASSERT_EQ(tqrt_plan_create(l.bundle, 2, 16, &l.plan), TQRT_OK);
  EXPECT_STATUS(ExtendArgs().run(l.plan), TQRT_NO_DEVICE);
  EXPECT_ERROR_HAS("tqrt_launch_extend: no AMD device");
  ExtendArgs a;
  a.workspaceBytes = 8;
  EXPECT_STATUS(a.run(l.plan), TQRT_WORKSPACE_TOO_SMALL);
}

} // namespace
