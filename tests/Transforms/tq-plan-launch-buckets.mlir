// Buckets must be ascending positive batch sizes.
// RUN: not tqc-opt %s -tq-expand-preset -tq-assign-layout -tq-absorb-rotation -tq-fold-norm -tq-fuse -tq-plan-launch="buckets=4,2" 2>&1 | FileCheck %s
// CHECK: error: buckets must be ascending positive batch sizes; got 2 after 4
tq.spec "k4v2"
