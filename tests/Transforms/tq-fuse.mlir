// tq-fuse: the store graph becomes one kernel; decode becomes a decode
// kernel (up to the attention) and a combine kernel (after it); extend
// becomes one extend kernel, its output's un-rotation included.
// RUN: tqc-opt %s -split-input-file -tq-expand-preset -tq-absorb-rotation -tq-fold-norm -tq-fuse | FileCheck %s

// k4v2: values are rotated, so the combine kernel un-rotates the output.
// CHECK-LABEL: module attributes
// CHECK-NOT: func.func
// CHECK: tq.kernel @store store {
// CHECK-NEXT: ^bb0(%[[K:.*]]: vector<128xbf16>, %[[V:.*]]: vector<128xbf16>, %[[C:.*]]: !tq.cache<{{.*}}>, %[[S:.*]]: index):
// CHECK: tq.rotate #tq.rotation<kind = randomized_hadamard, seed = 9034129457400123393> %[[K]]
// CHECK: tq.cache_write key_codes
// CHECK: tq.rotate #tq.rotation<kind = randomized_hadamard, seed = 9034129457400127490> %[[V]]
// CHECK: tq.cache_write value_scale
// CHECK-NOT: return
// CHECK: tq.kernel @decode decode {
// CHECK-NEXT: ^bb0(%[[Q:.*]]: vector<128xbf16>, %[[C2:.*]]: !tq.cache
// CHECK: %[[QR:.*]] = tq.rotate #tq.rotation<kind = randomized_hadamard, seed = 9034129457400123393> %[[Q]]
// CHECK: tq.attention decode %[[QR]], %[[C2]]
// CHECK: tq.yield
// CHECK-NOT: tq.rotate
// CHECK: tq.kernel @combine combine {
// CHECK-NEXT: ^bb0(%[[O:.*]]: vector<128xf32>):
// CHECK-NEXT: tq.rotate inverse #tq.rotation<kind = randomized_hadamard, seed = 9034129457400127490> %[[O]]
// CHECK-NEXT: }
// CHECK: tq.kernel @extend extend {
// CHECK-NEXT: ^bb0(%[[EQ:.*]]: vector<128xbf16>, %[[EC:.*]]: !tq.cache
// CHECK: %[[EQR:.*]] = tq.rotate #tq.rotation<kind = randomized_hadamard, seed = 9034129457400123393> %[[EQ]]
// CHECK: %[[EA:.*]] = tq.attention extend %[[EQR]], %[[EC]]
// CHECK: tq.yield
// CHECK: tq.rotate inverse #tq.rotation<kind = randomized_hadamard, seed = 9034129457400127490> %[[EA]]
// CHECK-NOT: return
// CHECK-NOT: func.func
tq.spec "k4v2"

// -----

// k3v4: values are not rotated: the combine kernel only merges (empty body).
// CHECK-LABEL: module attributes
// CHECK: tq.kernel @decode decode
// CHECK: tq.kernel @combine combine {
// CHECK-NEXT: ^bb0(%{{.*}}: vector<128xf32>):
// CHECK-NEXT: }
tq.spec "k3v4"
