// tq-plan-launch: one decode plan per group of batch buckets, grids in
// plan-time values only.
// RUN: tqc-opt %s -split-input-file -tq-expand-preset -tq-assign-layout -tq-absorb-rotation -tq-fold-norm -tq-fuse -tq-plan-launch | FileCheck %s
// RUN: tqc-opt %s -split-input-file -tq-expand-preset -tq-assign-layout -tq-absorb-rotation -tq-fold-norm -tq-fuse -tq-plan-launch="splits=1 block-n=32 warps=8 extend-block-n=32 extend-warps=2" | FileCheck %s --check-prefix=ONE
// RUN: tqc-opt %s -split-input-file -tq-expand-preset -tq-assign-layout -tq-absorb-rotation -tq-fold-norm -tq-fuse -tq-plan-launch="buckets=1,64 sm-count=16" | FileCheck %s --check-prefix=SMALL

// Defaults (132 SMs x 4 resident CTAs, 8 head groups of 4 heads): the
// largest power-of-two split count with 8·B·splits <= 2·528, so 32 splits up
// to 4 sequences down to one split from 128 on; buckets with the same choice
// share a plan.
// CHECK-LABEL: module attributes
// CHECK-SAME: tq.plan_source = "defaults"
// The SM count the decode caps a batch's splits by (decode.h splitsUsed).
// CHECK-SAME: tq.sm_count = 132
// The store: a token-head per 4 lanes, so 1 warp covers the 8 KV heads.
// CHECK: tq.kernel @store store launch #tq.launch<block_n = 1, splits = 1, warps = 1, heads_per_cta = 1, stages = 1, grid = ["max_tokens", "1", "1"]>
// Every plan merges its splits in the decode kernel, so the combine stage
// (the output's un-rotation) folds into each decode.
// CHECK: tq.kernel @decode_p0 decode launch #tq.launch<block_n = 64, splits = 32, warps = 4, heads_per_cta = 4, grid = ["head_groups", "max_batch", "splits"]> attributes {tq.buckets = [1, 2, 4]}
// CHECK: %[[A0:.*]] = tq.attention decode
// CHECK: tq.rotate inverse {{.*}} %[[A0]]
// CHECK: tq.kernel @decode_p1 decode launch #tq.launch<block_n = 64, splits = 16,{{.*}}tq.buckets = [8]
// CHECK: tq.kernel @decode_p2 decode launch #tq.launch<block_n = 64, splits = 8,{{.*}}tq.buckets = [16]
// CHECK: tq.kernel @decode_p3 decode launch #tq.launch<block_n = 64, splits = 4,{{.*}}tq.buckets = [32]
// CHECK: tq.kernel @decode_p4 decode launch #tq.launch<block_n = 64, splits = 2,{{.*}}tq.buckets = [64]
// CHECK: tq.kernel @decode_p5 decode launch #tq.launch<block_n = 64, splits = 1,{{.*}}tq.buckets = [128, 256]
// CHECK: %[[A:.*]] = tq.attention decode
// CHECK: tq.yield
// CHECK: tq.rotate inverse {{.*}} %[[A]]
// CHECK-NOT: tq.kernel @combine
// Extend: one plan for every bucket, a CTA = the 4 heads of a KV head over
// 16 chunk tokens (4 warps of 16 rows); the grid covers any batch of chunks
// within max_tokens rows.
// CHECK: tq.kernel @extend extend launch #tq.launch<block_n = 32, splits = 1, warps = 4, heads_per_cta = 4, stages = 1, grid = ["query_tiles", "num_kv_heads", "1"]>
// CHECK: %[[E:.*]] = tq.attention extend
// CHECK: tq.rotate inverse {{.*}} %[[E]]

// A fixed split count: one plan for every bucket.
// ONE-LABEL: module attributes
// ONE-SAME: tq.plan_source = "options"
// ONE: tq.kernel @decode_p0 decode launch #tq.launch<block_n = 32, splits = 1, warps = 8, heads_per_cta = 4, grid = ["head_groups", "max_batch", "splits"]> attributes {tq.buckets = [1, 2, 4, 8, 16, 32, 64, 128, 256]}
// ONE: %[[A:.*]] = tq.attention decode
// ONE: tq.rotate inverse {{.*}} %[[A]]
// ONE-NOT: tq.kernel @combine
// ONE-NOT: tq.kernel @decode_p1
// ONE: tq.kernel @extend extend launch #tq.launch<block_n = 32, splits = 1, warps = 2, heads_per_cta = 4,

// Explicit buckets and a small GPU: 8·1·s <= 2·4·16 gives 16 splits for one
// sequence; 64 sequences fill it without splitting.
// SMALL-LABEL: module attributes
// SMALL-SAME: tq.sm_count = 16
// SMALL: tq.kernel @decode_p0 decode launch #tq.launch<block_n = 64, splits = 16,{{.*}}tq.buckets = [1]
// SMALL: tq.kernel @decode_p1 decode launch #tq.launch<block_n = 64, splits = 1,{{.*}}tq.buckets = [64]
tq.spec "k4v2"

// -----

// GQA 12: at most 8 heads per CTA, so the largest divisor of 12 below 8 (6),
// and 4 head groups over the 2 KV heads: 4·B·s <= 1056.
// CHECK-LABEL: module attributes
// CHECK: tq.kernel @decode_p0 decode launch #tq.launch<block_n = 64, splits = 32, warps = 4, heads_per_cta = 6,{{.*}}tq.buckets = [1, 2, 4, 8]
// Extend holds all 12 heads over whole tokens: 16·warps rows divisible by
// 12 takes 3 warps (4 tokens x 12 heads).
// CHECK: tq.kernel @extend extend launch #tq.launch<block_n = 32, splits = 1, warps = 3, heads_per_cta = 12,
// ONE-LABEL: module attributes
// SMALL-LABEL: module attributes
tq.spec "k3v4" {num_q_heads = 24 : i64, num_kv_heads = 2 : i64}
