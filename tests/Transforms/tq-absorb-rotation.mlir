// tq-absorb-rotation: keys and values stay rotated; the query is rotated
// once before attention and the output un-rotated once after it.
// RUN: tqc-opt %s -split-input-file -tq-absorb-rotation | FileCheck %s

!cache = !tq.cache<head_dim = 16, num_kv_heads = 2, block_size = 16>
#rk = #tq.rotation<kind = randomized_hadamard, seed = 1>
#rv = #tq.rotation<kind = randomized_hadamard, seed = 2, rounds = 2>
#q2 = #tq.quantizer<kind = lloyd_max, bits = 2, norm_correction = true, levels = [-0.3, -0.1, 0.1, 0.3]>

// Both rotated (k4v2-like): the body loses both inverse rotations.
// CHECK-LABEL: module attributes
// CHECK-SAME: tq.output_rotation = #tq.rotation<kind = randomized_hadamard, seed = 2, rounds = 2>
// CHECK-SAME: tq.query_rotation = #tq.rotation<kind = randomized_hadamard, seed = 1>
// CHECK: func.func @decode(%[[Q:.*]]: vector<16xbf16>, %[[C:.*]]: !tq.cache
// CHECK: %[[QR:.*]] = tq.rotate #tq.rotation<kind = randomized_hadamard, seed = 1> %[[Q]] : vector<16xbf16> -> vector<16xf32>
// CHECK: %[[A:.*]] = tq.attention decode %[[QR]], %[[C]]
// CHECK-NOT: tq.rotate
// CHECK: %[[K:.*]] = tq.dequantize
// CHECK-NOT: tq.rotate
// CHECK: %[[V:.*]] = tq.dequantize
// CHECK-NOT: tq.rotate
// CHECK: tq.yield key %[[K]] value %[[V]]
// CHECK: %[[O:.*]] = tq.rotate inverse #tq.rotation<kind = randomized_hadamard, seed = 2, rounds = 2> %[[A]]
// CHECK: return %[[O]]
func.func @decode(%q: vector<16xbf16>, %c: !cache) -> vector<16xf32> {
  %o = tq.attention decode %q, %c {num_q_heads = 4 : i64, num_kv_heads = 2 : i64, scale = 0.25 : f64} : vector<16xbf16>, !cache -> vector<16xf32> {
  ^bb0(%t: index):
    %kb = tq.cache_read key_codes %c[%t] : !cache -> vector<4xi8>
    %ki = tq.unpack %kb : vector<4xi8> -> vector<16xi2>
    %ks = tq.cache_read key_scale %c[%t] : !cache -> f32
    %k = tq.dequantize #q2 %ki[%ks] : vector<16xi2> -> vector<16xf32>
    %kr = tq.rotate inverse #rk %k : vector<16xf32> -> vector<16xf32>
    %vb = tq.cache_read value_codes %c[%t] : !cache -> vector<4xi8>
    %vi = tq.unpack %vb : vector<4xi8> -> vector<16xi2>
    %vs = tq.cache_read value_scale %c[%t] : !cache -> f32
    %v = tq.dequantize #q2 %vi[%vs] : vector<16xi2> -> vector<16xf32>
    %vr = tq.rotate inverse #rv %v : vector<16xf32> -> vector<16xf32>
    tq.yield key %kr value %vr : vector<16xf32>, vector<16xf32>
  }
  return %o : vector<16xf32>
}

// -----

// Unrotated keys and values (k8v4-like): nothing moves; both recorded as none.
// CHECK-LABEL: module attributes
// CHECK-SAME: tq.output_rotation = #tq.rotation<kind = none>
// CHECK-SAME: tq.query_rotation = #tq.rotation<kind = none>
// CHECK: func.func @decode(%[[Q:.*]]: vector<16xbf16>
// CHECK-NOT: tq.rotate
// CHECK: tq.attention decode %[[Q]]
// CHECK-NOT: tq.rotate
// CHECK: return
!cache = !tq.cache<head_dim = 16, num_kv_heads = 2, block_size = 16>
func.func @decode(%q: vector<16xbf16>, %c: !cache) -> vector<16xf32> {
  %o = tq.attention decode %q, %c {num_q_heads = 4 : i64, num_kv_heads = 2 : i64, scale = 0.25 : f64} : vector<16xbf16>, !cache -> vector<16xf32> {
  ^bb0(%t: index):
    %kc = tq.cache_read key_codes %c[%t] : !cache -> vector<16xf8E4M3FN>
    %k = tq.dequantize #tq.quantizer<kind = fp8_e4m3, bits = 8> %kc : vector<16xf8E4M3FN> -> vector<16xf32>
    %vc = tq.cache_read value_codes %c[%t] : !cache -> vector<16xbf16>
    %v = tq.dequantize #tq.quantizer<kind = none, bits = 16> %vc : vector<16xbf16> -> vector<16xf32>
    tq.yield key %k value %v : vector<16xf32>, vector<16xf32>
  }
  return %o : vector<16xf32>
}
