//===- plan_for_test.cpp - Explicit plans and the device query, on CPU ----===//
//
// tqrt_plan_create_for (a plan chosen by index, not by bucket) and
// tqrt_device_info. main() in runtime_test.cpp forces the driver absent, so
// plans are unbound and the device query reports why there is no device.
//
//===----------------------------------------------------------------------===//
#include "test_util.h"

#include <cstring>

using namespace tqrt_test;

namespace {

// The fixture's plans: [0] buckets [1, 2], 4 splits, block_n 64, 4 warps,
// 4 heads per CTA; [1] buckets [4, 8, 16], 1 split, block_n 128, 8 warps,
// 2 heads per CTA (see runtime_test.cpp).

TEST(PlanFor, TakesThePlanGivenWhateverTheBucket) {
  Loaded l;
  ASSERT_EQ(tqrt_bundle_load_dir(TQRT_FIXTURES, &l.bundle), TQRT_OK);
  // Batch 16 belongs to plans[1]; ask for plans[0] anyway.
  ASSERT_EQ(tqrt_plan_create_for(l.bundle, 0, 16, 64, &l.plan), TQRT_OK)
      << tqrt_last_error();
  EXPECT_STREQ(tqrt_last_error(), "");
  tqrt_plan_info info;
  ASSERT_EQ(tqrt_plan_get_info(l.plan, &info), TQRT_OK);
  EXPECT_EQ(info.plan_index, 0);
  EXPECT_EQ(info.max_batch, 16);
  EXPECT_EQ(info.max_tokens, 64);
  EXPECT_EQ(info.splits, 4);
  EXPECT_EQ(info.block_n, 64);
  // The workspace is sized from the chosen plan and this max_batch.
  EXPECT_EQ(info.workspace_bytes, 4u * 16 * (32 + 32 * 4 * 130));
  tqrt_launch_dims d;
  ASSERT_EQ(tqrt_plan_get_launch(l.plan, TQRT_KERNEL_DECODE, TQRT_DTYPE_BF16, &d),
            TQRT_OK);
  EXPECT_EQ(d.grid[0], 8u);  // head_groups = 32 / 4
  EXPECT_EQ(d.grid[1], 16u); // max_batch
  EXPECT_EQ(d.grid[2], 4u);  // plans[0]'s splits

  // And the other way round: batch 1 with plans[1] (one split).
  tqrt_plan *one = nullptr;
  ASSERT_EQ(tqrt_plan_create_for(l.bundle, 1, 1, 1, &one), TQRT_OK);
  ASSERT_EQ(tqrt_plan_get_info(one, &info), TQRT_OK);
  EXPECT_EQ(info.plan_index, 1);
  EXPECT_EQ(info.splits, 1);
  EXPECT_EQ(info.heads_per_cta, 2);
  EXPECT_EQ(info.workspace_bytes, 0u);
  ASSERT_EQ(tqrt_plan_get_launch(one, TQRT_KERNEL_DECODE, TQRT_DTYPE_BF16, &d),
            TQRT_OK);
  EXPECT_EQ(d.grid[2], 1u);
  tqrt_plan_destroy(one);
}

TEST(PlanFor, Arguments) {
  Loaded l;
  ASSERT_EQ(tqrt_bundle_load_dir(TQRT_FIXTURES, &l.bundle), TQRT_OK);
  tqrt_plan *p = reinterpret_cast<tqrt_plan *>(0x1);
  EXPECT_STATUS(tqrt_plan_create_for(l.bundle, 2, 1, 1, &p),
                TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("tqrt_plan_create_for: plan_index 2 is outside [0, 2)");
  EXPECT_EQ(p, nullptr);
  EXPECT_STATUS(tqrt_plan_create_for(l.bundle, -1, 1, 1, &p),
                TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("tqrt_plan_create_for: plan_index is -1");
  EXPECT_STATUS(tqrt_plan_create_for(nullptr, 0, 1, 1, &p),
                TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("tqrt_plan_create_for: bundle is null");
  EXPECT_STATUS(tqrt_plan_create_for(l.bundle, 0, 0, 1, &p),
                TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("tqrt_plan_create_for: max_batch is 0");
  EXPECT_STATUS(tqrt_plan_create_for(l.bundle, 0, 1, 0, &p),
                TQRT_INVALID_ARGUMENT);
  EXPECT_ERROR_HAS("tqrt_plan_create_for: max_tokens is 0");
  EXPECT_STATUS(tqrt_plan_create_for(l.bundle, 0, 1, 1, nullptr),
                TQRT_INVALID_ARGUMENT);
  // The bucket choice is unchanged by the new entry point.
  ASSERT_EQ(tqrt_plan_create(l.bundle, 16, 1, &l.plan), TQRT_OK);
  tqrt_plan_info info;
  ASSERT_EQ(tqrt_plan_get_info(l.plan, &info), TQRT_OK);
  EXPECT_EQ(info.plan_index, 1);
}

TEST(DeviceInfo, NoDriverSaysWhy) {
  tqrt_device_desc desc;
  std::memset(&desc, 0x5a, sizeof desc);
  EXPECT_STATUS(tqrt_device_info(0, &desc), TQRT_NO_DEVICE);
  EXPECT_ERROR_HAS("no CUDA device: the CUDA driver library could not be loaded");
  // The probe fails first, so even a null output reports the missing device.
  EXPECT_STATUS(tqrt_device_info(0, nullptr), TQRT_NO_DEVICE);
}

} // namespace
