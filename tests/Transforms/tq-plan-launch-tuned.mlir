// tq-plan-launch with tuned plans (the driver sets tq.tuned_plans from
// --tuning-db): one kernel per distinct plan, the source recorded.
// RUN: tqc-opt %s -split-input-file -tq-expand-preset -tq-assign-layout -tq-absorb-rotation -tq-fold-norm -tq-fuse -tq-plan-launch -verify-diagnostics | FileCheck %s

// CHECK-LABEL: module attributes
// CHECK-SAME: tq.plan_source = "tuned on the test GPU"
// CHECK-NOT: tq.tuned_plans
// CHECK: tq.kernel @decode_p0 decode launch #tq.launch<block_n = 128, splits = 8, warps = 8, heads_per_cta = 2, stages = 3, {{.*}}tq.buckets = [1, 4]
// CHECK: tq.kernel @decode_p1 decode launch #tq.launch<block_n = 64, splits = 1, warps = 4, heads_per_cta = 4, {{.*}}tq.buckets = [16]
// CHECK-NOT: tq.kernel @combine
module attributes {tq.tuned_source = "tuned on the test GPU", tq.tuned_plans = [
  {bucket = 1 : i64, block_n = 128 : i64, splits = 8 : i64, warps = 8 : i64, heads_per_cta = 2 : i64, stages = 3 : i64},
  {bucket = 4 : i64, block_n = 128 : i64, splits = 8 : i64, warps = 8 : i64, heads_per_cta = 2 : i64, stages = 3 : i64},
  {bucket = 16 : i64, block_n = 64 : i64, splits = 1 : i64, warps = 4 : i64, heads_per_cta = 4 : i64, stages = 2 : i64}]} {
  tq.spec "k3v4"
}

// -----

// expected-error @+1 {{tq.tuned_plans entry {block_n = 64 : i64, bucket = 1 : i64, heads_per_cta = 3 : i64, splits = 1 : i64, stages = 2 : i64, warps = 4 : i64} is not a valid plan (bucket >= 1, block_n a multiple of 16, splits 1..64, warps 1..16, heads_per_cta dividing the GQA group of 4, stages 1..8)}}
module attributes {tq.tuned_plans = [
  {bucket = 1 : i64, block_n = 64 : i64, splits = 1 : i64, warps = 4 : i64, heads_per_cta = 3 : i64, stages = 2 : i64}]} {
  tq.spec "k3v4"
}

// -----

// expected-error @+1 {{tq.tuned_plans buckets must ascend; got 2 after 8}}
module attributes {tq.tuned_plans = [
  {bucket = 8 : i64, block_n = 64 : i64, splits = 1 : i64, warps = 4 : i64, heads_per_cta = 4 : i64, stages = 2 : i64},
  {bucket = 2 : i64, block_n = 64 : i64, splits = 1 : i64, warps = 4 : i64, heads_per_cta = 4 : i64, stages = 2 : i64}]} {
  tq.spec "k3v4"
}
