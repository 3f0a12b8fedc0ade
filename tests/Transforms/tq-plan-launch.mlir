// tq-plan-launch: every kernel gets a plan whose grid uses plan-time values.
// RUN: tqc-opt %s -split-input-file -tq-expand-preset -tq-assign-layout -tq-absorb-rotation -tq-fold-norm -tq-fuse -tq-plan-launch | FileCheck %s
// RUN: tqc-opt %s -split-input-file -tq-expand-preset -tq-assign-layout -tq-absorb-rotation -tq-fold-norm -tq-fuse -tq-plan-launch="splits=1 block-n=32 warps=8" | FileCheck %s --check-prefix=ONE

// Defaults: the whole GQA group (32/8 = 4 heads) per decode CTA, 8 splits.
// CHECK-LABEL: module attributes
// CHECK: tq.kernel @store store launch #tq.launch<block_n = 1, splits = 1, warps = 4, heads_per_cta = 1, stages = 1, grid = ["max_tokens", "1", "1"]>
// CHECK: tq.kernel @decode decode launch #tq.launch<block_n = 64, splits = 8, warps = 4, heads_per_cta = 4, grid = ["head_groups", "max_batch", "splits"]>
// CHECK: tq.kernel @combine combine launch #tq.launch<block_n = 1, splits = 8, warps = 4, heads_per_cta = 4, stages = 1, grid = ["max_batch", "num_q_heads", "1"]>
// CHECK-NEXT: ^bb0(%[[O:.*]]: vector<128xf32>):
// CHECK-NEXT: tq.rotate inverse {{.*}} %[[O]]

// One split: no combine kernel; decode un-rotates its own output.
// ONE-LABEL: module attributes
// ONE: tq.kernel @decode decode launch #tq.launch<block_n = 32, splits = 1, warps = 8, heads_per_cta = 4, grid = ["head_groups", "max_batch", "splits"]>
// ONE: %[[A:.*]] = tq.attention decode
// ONE: tq.yield
// ONE: tq.rotate inverse {{.*}} %[[A]]
// ONE-NOT: tq.kernel @combine
tq.spec "k4v2"

// -----

// GQA 12: at most 8 heads per CTA, so the largest divisor of 12 below 8 (6).
// CHECK-LABEL: module attributes
// CHECK: tq.kernel @decode decode launch #tq.launch<block_n = 64, splits = 8, warps = 4, heads_per_cta = 6,
// ONE-LABEL: module attributes
tq.spec "k3v4" {num_q_heads = 24 : i64, num_kv_heads = 2 : i64}
