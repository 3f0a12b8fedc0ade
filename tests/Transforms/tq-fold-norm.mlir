// tq-fold-norm: per-token scales and zeros move from vectors to tq.yield.
// RUN: tqc-opt %s -split-input-file -tq-fold-norm | FileCheck %s

!cache = !tq.cache<head_dim = 16, num_kv_heads = 2, block_size = 16>
#q2 = #tq.quantizer<kind = lloyd_max, bits = 2, norm_correction = true, levels = [-0.3, -0.1, 0.1, 0.3]>

// Lloyd-Max key (scale) and uniform value (scale, zero): k3v4-like.
// CHECK-LABEL: func.func @decode
// CHECK: %[[KS:.*]] = tq.cache_read key_scale
// CHECK: %[[K:.*]] = tq.dequantize unscaled #tq.quantizer<kind = lloyd_max, bits = 2, {{.*}}> %{{.*}} : vector<16xi2> -> vector<16xf32>
// CHECK: %[[VS:.*]] = tq.cache_read value_scale
// CHECK: %[[VZ:.*]] = tq.cache_read value_zero
// CHECK: %[[V:.*]] = tq.dequantize unscaled #tq.quantizer<kind = uniform, bits = 4> %{{.*}} : vector<16xi4> -> vector<16xf32>
// CHECK-NOT: tq.dequantize
// CHECK: tq.yield key %[[K]] scale %[[KS]] value %[[V]] scale %[[VS]] bias %[[VZ]]
func.func @decode(%q: vector<16xf32>, %c: !cache) -> vector<16xf32> {
  %o = tq.attention decode %q, %c {num_q_heads = 4 : i64, num_kv_heads = 2 : i64, scale = 0.25 : f64} : vector<16xf32>, !cache -> vector<16xf32> {
  ^bb0(%t: index):
    %kb = tq.cache_read key_codes %c[%t] : !cache -> vector<4xi8>
    %ki = tq.unpack %kb : vector<4xi8> -> vector<16xi2>
    %ks = tq.cache_read key_scale %c[%t] : !cache -> f32
    %k = tq.dequantize #q2 %ki[%ks] : vector<16xi2> -> vector<16xf32>
    %vb = tq.cache_read value_codes %c[%t] : !cache -> vector<8xi8>
    %vi = tq.unpack %vb : vector<8xi8> -> vector<16xi4>
    %vs = tq.cache_read value_scale %c[%t] : !cache -> f32
    %vz = tq.cache_read value_zero %c[%t] : !cache -> f32
    %v = tq.dequantize #tq.quantizer<kind = uniform, bits = 4> %vi[%vs, %vz] : vector<16xi4> -> vector<16xf32>
    tq.yield key %k value %v : vector<16xf32>, vector<16xf32>
  }
  return %o : vector<16xf32>
}

// -----

// A QJL key keeps its scalars (scale·c + gamma·sketch is not one multiple);
// a Lloyd-Max value folds its scale (no bias).
// CHECK-LABEL: func.func @decode
// CHECK: %[[K:.*]] = tq.dequantize #tq.quantizer<kind = lloyd_max, bits = 3, {{.*}}qjl = true{{.*}}> %{{.*}} signs %{{.*}}[%{{.*}}, %{{.*}}]
// CHECK: %[[VS:.*]] = tq.cache_read value_scale
// CHECK: %[[V:.*]] = tq.dequantize unscaled
// CHECK: tq.yield key %[[K]] value %[[V]] scale %[[VS]] :
!cache = !tq.cache<head_dim = 16, num_kv_heads = 2, block_size = 16>
#q2 = #tq.quantizer<kind = lloyd_max, bits = 2, norm_correction = true, levels = [-0.3, -0.1, 0.1, 0.3]>
#q3 = #tq.quantizer<kind = lloyd_max, bits = 3, norm_correction = true, qjl = true, levels = [-0.3, -0.1, 0.1, 0.3]>
func.func @decode(%q: vector<16xf32>, %c: !cache) -> vector<16xf32> {
  %o = tq.attention decode %q, %c {num_q_heads = 4 : i64, num_kv_heads = 2 : i64, scale = 0.25 : f64} : vector<16xf32>, !cache -> vector<16xf32> {
  ^bb0(%t: index):
    %kb = tq.cache_read key_codes %c[%t] : !cache -> vector<4xi8>
    %ki = tq.unpack %kb : vector<4xi8> -> vector<16xi2>
    %ks = tq.cache_read key_scale %c[%t] : !cache -> f32
    %zb = tq.cache_read key_signs %c[%t] : !cache -> vector<2xi8>
    %z = tq.unpack %zb : vector<2xi8> -> vector<16xi1>
    %kg = tq.cache_read key_gamma %c[%t] : !cache -> f32
    %k = tq.dequantize #q3 %ki signs %z[%ks, %kg] : vector<16xi2>, vector<16xi1> -> vector<16xf32>
    %vb = tq.cache_read value_codes %c[%t] : !cache -> vector<4xi8>
    %vi = tq.unpack %vb : vector<4xi8> -> vector<16xi2>
    %vs = tq.cache_read value_scale %c[%t] : !cache -> f32
    %v = tq.dequantize #q2 %vi[%vs] : vector<16xi2> -> vector<16xf32>
    tq.yield key %k value %v : vector<16xf32>, vector<16xf32>
  }
  return %o : vector<16xf32>
}
