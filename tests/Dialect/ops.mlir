// Every op, type and attribute of the tq dialect prints and parses back.
// RUN: tqc-opt %s | tqc-opt | FileCheck %s
// RUN: tqc-opt %s --mlir-print-op-generic | tqc-opt | FileCheck %s

!cache = !tq.cache<head_dim = 128, num_kv_heads = 8, block_size = 16>

// CHECK: module attributes
// CHECK-SAME: tq.launch = #tq.launch<block_n = 64, splits = 8, warps = 4, heads_per_cta = 4, grid = ["num_kv_heads", "max_batch", "splits"]>
// CHECK-SAME: tq.layout = #tq.layout<kind = native, block_size = 16, num_kv_heads = 8, region_bytes = 1888, head_stride = 1888, block_stride = 15104, bytes_per_token_head = 118, alignment = 16, fields = [#tq.field<kind = key_codes, dtype = u8, bytes = 48, offset = 0, token_stride = 48>
// CHECK-SAME: tq.target = #tq.target<arch = "sm_90">
module attributes {
  tq.target = #tq.target<arch = "sm_90">,
  tq.launch = #tq.launch<block_n = 64, splits = 8, warps = 4, heads_per_cta = 4, stages = 2, grid = ["num_kv_heads", "max_batch", "splits"]>,
  tq.layout = #tq.layout<kind = native, block_size = 16, num_kv_heads = 8, region_bytes = 1888, head_stride = 1888, block_stride = 15104, bytes_per_token_head = 118, alignment = 16, fields = [
    #tq.field<kind = key_codes, dtype = u8, bytes = 48, offset = 0, token_stride = 48>,
    #tq.field<kind = value_codes, dtype = u8, bytes = 64, offset = 768, token_stride = 64>,
    #tq.field<kind = key_scale, dtype = f16, bytes = 2, offset = 1792, token_stride = 2>,
    #tq.field<kind = value_scale, dtype = f16, bytes = 2, offset = 1824, token_stride = 2>,
    #tq.field<kind = value_zero, dtype = f16, bytes = 2, offset = 1856, token_stride = 2>]>} {

// CHECK: tq.spec "k3v4" {block_size = 32 : i64, k_bits = 4 : i64, qjl, seed = 7 : i64}
tq.spec "k3v4" {block_size = 32 : i64, k_bits = 4 : i64, qjl, seed = 7 : i64}

// CHECK-LABEL: func.func @stages
func.func @stages(%x: vector<128xbf16>, %cache: !cache, %slot: index) {
  // CHECK: tq.rotate #tq.rotation<kind = randomized_hadamard, seed = 42, rounds = 2> %{{.*}} : vector<128xbf16> -> vector<128xf32>
  %r = tq.rotate #tq.rotation<kind = randomized_hadamard, seed = 42, rounds = 2> %x : vector<128xbf16> -> vector<128xf32>
  // CHECK: tq.rotate inverse #tq.rotation<kind = plain_hadamard> %{{.*}} : vector<128xf32> -> vector<128xf32>
  %back = tq.rotate inverse #tq.rotation<kind = plain_hadamard> %r : vector<128xf32> -> vector<128xf32>
  // CHECK: tq.rotate #tq.rotation<kind = dense, seed = 3>
  %dense = tq.rotate #tq.rotation<kind = dense, seed = 3> %r : vector<128xf32> -> vector<128xf32>
  // CHECK: %[[N:.*]], %[[U:.*]] = tq.normalize %{{.*}} : vector<128xf32>
  %n, %u = tq.normalize %r : vector<128xf32>
  // CHECK: tq.quantize #tq.quantizer<kind = lloyd_max, bits = 3, norm_correction = true, levels = [-4.000000e-01, -1.000000e-01, 1.000000e-01, 4.000000e-01, 5.000000e-01, 6.000000e-01, 0.69999999999999996, 8.000000e-01]> %[[U]] norm %[[N]] : vector<128xf32> -> vector<128xi3>, f32
  %c, %s = tq.quantize #tq.quantizer<kind = lloyd_max, bits = 3, norm_correction = true, levels = [-0.4, -0.1, 0.1, 0.4, 0.5, 0.6, 0.7, 0.80000000000000004]> %u norm %n : vector<128xf32> -> vector<128xi3>, f32
  // CHECK: tq.quantize #tq.quantizer<kind = lloyd_max, bits = 3, dist = gaussian, qjl = true> %{{.*}} norm %{{.*}} : vector<128xf32> -> vector<128xi2>, f32
  %c2, %s2 = tq.quantize #tq.quantizer<kind = lloyd_max, bits = 3, dist = gaussian, qjl = true> %u norm %n : vector<128xf32> -> vector<128xi2>, f32
  // CHECK: tq.quantize #tq.quantizer<kind = uniform, bits = 4> %{{.*}} : vector<128xf32> -> vector<128xi4>, f32, f32
  %c4, %scale, %zero = tq.quantize #tq.quantizer<kind = uniform, bits = 4> %r : vector<128xf32> -> vector<128xi4>, f32, f32
  // CHECK: tq.quantize #tq.quantizer<kind = fp8_e4m3, bits = 8> %{{.*}} : vector<128xf32> -> vector<128xf8E4M3FN>
  %f8 = tq.quantize #tq.quantizer<kind = fp8_e4m3, bits = 8> %r : vector<128xf32> -> vector<128xf8E4M3FN>
  // CHECK: tq.quantize #tq.quantizer<kind = none, bits = 16> %{{.*}} : vector<128xf32> -> vector<128xbf16>
  %raw = tq.quantize #tq.quantizer<kind = none, bits = 16> %r : vector<128xf32> -> vector<128xbf16>
  // CHECK: tq.dequantize #tq.quantizer<kind = uniform, bits = 4> %{{.*}}[%{{.*}}, %{{.*}}] : vector<128xi4> -> vector<128xf32>
  %v = tq.dequantize #tq.quantizer<kind = uniform, bits = 4> %c4 [%scale, %zero] : vector<128xi4> -> vector<128xf32>
  // CHECK: tq.dequantize unscaled #tq.quantizer<kind = uniform, bits = 4> %{{.*}} : vector<128xi4> -> vector<128xf32>
  %vu = tq.dequantize unscaled #tq.quantizer<kind = uniform, bits = 4> %c4 : vector<128xi4> -> vector<128xf32>
  // CHECK: tq.dequantize #tq.quantizer<kind = fp8_e4m3, bits = 8> %{{.*}} : vector<128xf8E4M3FN> -> vector<128xf32>
  %f8d = tq.dequantize #tq.quantizer<kind = fp8_e4m3, bits = 8> %f8 : vector<128xf8E4M3FN> -> vector<128xf32>
  // CHECK: %[[A:.*]] = tq.dequantize #tq.quantizer<kind = lloyd_max, bits = 2> %{{.*}}[%{{.*}}] : vector<128xi2> -> vector<128xf32>
  %approx = tq.dequantize #tq.quantizer<kind = lloyd_max, bits = 2> %c2 [%s2] : vector<128xi2> -> vector<128xf32>
  // CHECK: %[[Z:.*]], %[[G:.*]] = tq.qjl %{{.*}}, %[[A]] seed = 5 : vector<128xf32> -> vector<128xi1>
  %z, %g = tq.qjl %r, %approx seed = 5 : vector<128xf32> -> vector<128xi1>
  // CHECK: tq.dequantize #tq.quantizer<kind = lloyd_max, bits = 3, qjl = true> %{{.*}} signs %[[Z]][%{{.*}}, %[[G]]] : vector<128xi2>, vector<128xi1> -> vector<128xf32>
  %prod = tq.dequantize #tq.quantizer<kind = lloyd_max, bits = 3, qjl = true> %c2 signs %z [%s2, %g] : vector<128xi2>, vector<128xi1> -> vector<128xf32>
  // CHECK: tq.pack %{{.*}} : vector<128xi3> -> vector<48xi8>
  %b = tq.pack %c : vector<128xi3> -> vector<48xi8>
  // CHECK: tq.pack %[[Z]] : vector<128xi1> -> vector<16xi8>
  %zb = tq.pack %z : vector<128xi1> -> vector<16xi8>
  // CHECK: tq.unpack %{{.*}} : vector<48xi8> -> vector<128xi3>
  %c3 = tq.unpack %b : vector<48xi8> -> vector<128xi3>
  // CHECK: tq.cache_write key_codes %{{.*}}, %{{.*}}[%{{.*}}] : vector<48xi8>, !tq.cache<head_dim = 128, num_kv_heads = 8, block_size = 16>
  tq.cache_write key_codes %b, %cache[%slot] : vector<48xi8>, !cache
  // CHECK: tq.cache_write key_scale %{{.*}}, %{{.*}}[%{{.*}}] : f32
  tq.cache_write key_scale %s, %cache[%slot] : f32, !cache
  // CHECK: tq.cache_read value_zero %{{.*}}[%{{.*}}] : !tq.cache<head_dim = 128, num_kv_heads = 8, block_size = 16> -> f32
  %zr = tq.cache_read value_zero %cache[%slot] : !cache -> f32
  return
}

// CHECK-LABEL: func.func @decode
func.func @decode(%q: vector<128xbf16>, %cache: !cache) -> vector<128xf32> {
  // CHECK: tq.attention decode %{{.*}}, %{{.*}} {num_kv_heads = 8 : i64, num_q_heads = 32 : i64, scale = 0.088378{{[0-9]*}} : f64} : vector<128xbf16>, !tq.cache<head_dim = 128, num_kv_heads = 8, block_size = 16> -> vector<128xf32> {
  %o = tq.attention decode %q, %cache {num_q_heads = 32 : i64, num_kv_heads = 8 : i64, scale = 0.0883789 : f64}
      : vector<128xbf16>, !cache -> vector<128xf32> {
  // CHECK: ^bb0(%[[T:.*]]: index):
  ^bb0(%t: index):
    %kb = tq.cache_read key_codes %cache[%t] : !cache -> vector<48xi8>
    %kc = tq.unpack %kb : vector<48xi8> -> vector<128xi3>
    %ks = tq.cache_read key_scale %cache[%t] : !cache -> f32
    %k = tq.dequantize #tq.quantizer<kind = lloyd_max, bits = 3> %kc [%ks] : vector<128xi3> -> vector<128xf32>
    %vb = tq.cache_read value_codes %cache[%t] : !cache -> vector<64xi8>
    %vc = tq.unpack %vb : vector<64xi8> -> vector<128xi4>
    %vs = tq.cache_read value_scale %cache[%t] : !cache -> f32
    %vz = tq.cache_read value_zero %cache[%t] : !cache -> f32
    %vf = tq.dequantize #tq.quantizer<kind = uniform, bits = 4> %vc [%vs, %vz] : vector<128xi4> -> vector<128xf32>
    // CHECK: tq.yield key %{{.*}} scale %{{.*}} value %{{.*}} scale %{{.*}} bias %{{.*}} : vector<128xf32>, vector<128xf32>
    tq.yield key %k scale %ks value %vf scale %vs bias %vz : vector<128xf32>, vector<128xf32>
  }
  // CHECK: tq.attention extend
  %e = tq.attention extend %q, %cache {num_q_heads = 8 : i64, num_kv_heads = 8 : i64, scale = 1.0 : f64}
      : vector<128xbf16>, !cache -> vector<128xf32> {
  ^bb0(%t: index):
    %kr = tq.cache_read key_codes %cache[%t] : !cache -> vector<48xi8>
    %kc = tq.unpack %kr : vector<48xi8> -> vector<128xi3>
    %ks = tq.cache_read key_scale %cache[%t] : !cache -> f32
    %k = tq.dequantize #tq.quantizer<kind = lloyd_max, bits = 3> %kc [%ks] : vector<128xi3> -> vector<128xf32>
    // CHECK: tq.yield key %{{.*}} value %{{.*}} : vector<128xf32>, vector<128xf32>
    tq.yield key %k value %k : vector<128xf32>, vector<128xf32>
  }
  return %o : vector<128xf32>
}

// CHECK: tq.kernel @decode_kernel decode launch #tq.launch<block_n = 32, splits = 4, warps = 4, heads_per_cta = 4, stages = 3, grid = ["num_kv_heads", "max_batch * 2", "splits"]> {
tq.kernel @decode_kernel decode launch #tq.launch<block_n = 32, splits = 4, warps = 4, heads_per_cta = 4, stages = 3, grid = ["num_kv_heads", "max_batch * 2", "splits"]> {
// CHECK: ^bb0(%{{.*}}: vector<128xbf16>, %{{.*}}: !tq.cache<head_dim = 128, num_kv_heads = 8, block_size = 16>):
^bb0(%q: vector<128xbf16>, %cache: !cache):
  %q2 = tq.rotate #tq.rotation<kind = randomized_hadamard, seed = 1> %q : vector<128xbf16> -> vector<128xf32>
  %n, %u = tq.normalize %q2 : vector<128xf32>
}

// CHECK: tq.kernel @store_kernel store {
tq.kernel @store_kernel store {
^bb0(%k: vector<128xbf16>):
  %k2 = tq.rotate #tq.rotation<kind = none> %k : vector<128xbf16> -> vector<128xf32>
}
}

// A combine kernel may be empty: it only merges the splits.
// CHECK: tq.kernel @combine_kernel combine {
// CHECK-NEXT: ^bb0(%{{.*}}: vector<128xf32>):
// CHECK-NEXT: }
tq.kernel @combine_kernel combine {
^bb0(%o: vector<128xf32>):
}
