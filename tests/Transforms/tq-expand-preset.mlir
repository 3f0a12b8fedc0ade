// tq-expand-preset: each preset becomes explicit store, decode and extend
// graphs.
// RUN: tqc-opt %s -split-input-file -tq-expand-preset | FileCheck %s

// k3v4: rotated 3-bit Lloyd-Max keys with norm correction, uniform 4-bit values.
// CHECK-LABEL: module attributes {tq.spec = {block_size = 16 : i64, head_dim = 128 : i64, layout = "native", num_kv_heads = 8 : i64, num_q_heads = 32 : i64, preset = "k3v4"}}
// CHECK-NOT: tq.spec "
// CHECK: func.func @store
// CHECK-SAME: (%[[K:.*]]: vector<128xbf16>, %[[V:.*]]: vector<128xbf16>, %[[C:.*]]: !tq.cache<head_dim = 128, num_kv_heads = 8, block_size = 16>, %[[S:.*]]: index)
// CHECK: %[[R:.*]] = tq.rotate #tq.rotation<kind = randomized_hadamard, seed = {{[0-9]+}}> %[[K]]
// CHECK: %[[N:.*]], %[[U:.*]] = tq.normalize %[[R]]
// The levels are ALGORITHM.md's exact D=128, b=3 codebook.
// CHECK: %[[KC:.*]], %[[KS:.*]] = tq.quantize #tq.quantizer<kind = lloyd_max, bits = 3, norm_correction = true, levels = [-0.188397{{[0-9]*}}, -0.118139{{[0-9]*}}, -0.066585{{[0-9]*}}, -0.021604{{[0-9]*}}, 0.021604{{[0-9]*}}, 0.066585{{[0-9]*}}, 0.118139{{[0-9]*}}, 0.188397{{[0-9]*}}]> %[[U]] norm %[[N]] : vector<128xf32> -> vector<128xi3>, f32
// CHECK: %[[KB:.*]] = tq.pack %[[KC]] : vector<128xi3> -> vector<48xi8>
// CHECK: tq.cache_write key_codes %[[KB]], %[[C]][%[[S]]]
// CHECK: tq.cache_write key_scale %[[KS]], %[[C]][%[[S]]]
// CHECK: %[[VF:.*]] = arith.extf %[[V]]
// CHECK: %[[VC:.*]], %[[VP:.*]]:2 = tq.quantize #tq.quantizer<kind = uniform, bits = 4> %[[VF]] : vector<128xf32> -> vector<128xi4>, f32, f32
// CHECK: tq.pack %[[VC]] : vector<128xi4> -> vector<64xi8>
// CHECK: tq.cache_write value_codes
// CHECK: tq.cache_write value_scale %[[VP]]#0
// CHECK: tq.cache_write value_zero %[[VP]]#1
// CHECK: func.func @decode
// CHECK: tq.attention decode %{{.*}}, %{{.*}} {num_kv_heads = 8 : i64, num_q_heads = 32 : i64, scale = 0.088388347648318433 : f64}
// CHECK: ^bb0(%[[T:.*]]: index):
// CHECK: %[[B:.*]] = tq.cache_read key_codes %{{.*}}[%[[T]]] {{.*}} -> vector<48xi8>
// CHECK: %[[I:.*]] = tq.unpack %[[B]] : vector<48xi8> -> vector<128xi3>
// CHECK: %[[SC:.*]] = tq.cache_read key_scale
// CHECK: %[[D:.*]] = tq.dequantize #tq.quantizer<kind = lloyd_max, bits = 3, norm_correction = true, levels = [{{.*}}]> %[[I]][%[[SC]]]
// CHECK: %[[KEY:.*]] = tq.rotate inverse #tq.rotation<kind = randomized_hadamard, seed = {{[0-9]+}}> %[[D]]
// CHECK: %[[VAL:.*]] = tq.dequantize #tq.quantizer<kind = uniform, bits = 4>
// CHECK: tq.yield key %[[KEY]] value %[[VAL]]
// Extend: the same body under an extend attention (a chunk's queries).
// CHECK: func.func @extend(%{{.*}}: vector<128xbf16>, %{{.*}}: !tq.cache<head_dim = 128, num_kv_heads = 8, block_size = 16>) -> vector<128xf32>
// CHECK: tq.attention extend %{{.*}}, %{{.*}} {num_kv_heads = 8 : i64, num_q_heads = 32 : i64, scale = 0.088388347648318433 : f64}
// CHECK: tq.cache_read key_codes
// CHECK: tq.rotate inverse
// CHECK: tq.yield key
tq.spec "k3v4"

// -----

// k8v4: raw fp8 keys without rotation.
// CHECK-LABEL: preset = "k8v4"
// CHECK: func.func @store
// CHECK-NOT: tq.rotate
// CHECK: tq.quantize #tq.quantizer<kind = fp8_e4m3, bits = 8> %{{.*}} : vector<128xf32> -> vector<128xf8E4M3FN>
// CHECK: tq.cache_write key_codes %{{.*}} : vector<128xf8E4M3FN>
// CHECK: func.func @decode
// CHECK: tq.cache_read key_codes {{.*}} -> vector<128xf8E4M3FN>
// CHECK: tq.dequantize #tq.quantizer<kind = fp8_e4m3, bits = 8>
tq.spec "turboquant_k8v4"

// -----

// k4v2: values are rotated Lloyd-Max too, with their own rotation seed.
// CHECK-LABEL: preset = "k4v2"
// CHECK: tq.quantize #tq.quantizer<kind = lloyd_max, bits = 4, norm_correction = true, levels = [{{.*}}]> {{.*}} -> vector<64xi4>, f32
// CHECK: tq.rotate #tq.rotation<kind = randomized_hadamard, seed = [[VSEED:[0-9]+]]> %arg1
// CHECK: tq.quantize #tq.quantizer<kind = lloyd_max, bits = 2, norm_correction = true, levels = [{{.*}}]> {{.*}} -> vector<64xi2>, f32
// CHECK: tq.cache_write value_scale
// CHECK-NOT: value_zero
// CHECK: tq.rotate inverse #tq.rotation<kind = randomized_hadamard, seed = [[VSEED]]>
tq.spec "k4v2" {head_dim = 64 : i64, num_q_heads = 8 : i64, num_kv_heads = 2 : i64}

// -----

// k2v2: no norm correction.
// CHECK-LABEL: preset = "k2v2"
// The D=256, b=2 codebook: ±0.028289, ±0.094238.
// CHECK: tq.quantize #tq.quantizer<kind = lloyd_max, bits = 2, levels = [-0.09423{{[0-9]*}}, -0.02828{{[0-9]*}}, 0.02828{{[0-9]*}}, 0.09423{{[0-9]*}}]> {{.*}} -> vector<256xi2>, f32
tq.spec "k2v2" {head_dim = 256 : i64}

// -----

// k3v3: uniform 3-bit values.
// CHECK-LABEL: preset = "k3v3"
// CHECK: tq.quantize #tq.quantizer<kind = uniform, bits = 3> {{.*}} -> vector<128xi3>, f32, f32
// CHECK: tq.pack {{.*}} : vector<128xi3> -> vector<48xi8>
tq.spec "k3v3"

// -----

// bf16: no compression, no packing.
// CHECK-LABEL: preset = "bf16"
// CHECK: func.func @store
// CHECK: tq.quantize #tq.quantizer<kind = none, bits = 16> {{.*}} -> vector<128xbf16>
// CHECK: tq.cache_write key_codes {{.*}} : vector<128xbf16>
// CHECK-NOT: tq.pack
tq.spec "bf16"

// -----

// Overrides: 4-bit keys, 2 rotation rounds, a user seed, QJL (3 + 1 bits).
// CHECK-LABEL: module attributes
// CHECK: tq.rotate #tq.rotation<kind = randomized_hadamard, seed = 22, rounds = 2>
// CHECK: %[[KC:.*]], %[[KS:.*]] = tq.quantize #tq.quantizer<kind = lloyd_max, bits = 4, norm_correction = true, qjl = true, levels = [{{.*}}]> {{.*}} -> vector<128xi3>, f32
// CHECK: %[[A:.*]] = tq.dequantize #tq.quantizer<kind = lloyd_max, bits = 3, norm_correction = true, levels = [{{.*}}]> %[[KC]][%[[KS]]]
// CHECK: %[[X:.*]] = arith.extf %arg0
// CHECK: %[[AO:.*]] = tq.rotate inverse #tq.rotation<kind = randomized_hadamard, seed = 22, rounds = 2> %[[A]]
// CHECK: %[[Z:.*]], %[[G:.*]] = tq.qjl %[[X]], %[[AO]] seed = 24
// CHECK: tq.pack %[[Z]] : vector<128xi1> -> vector<16xi8>
// CHECK: tq.cache_write key_signs
// CHECK: tq.cache_write key_gamma %[[G]]
// CHECK: func.func @decode
// CHECK: %[[SB:.*]] = tq.cache_read key_signs {{.*}} -> vector<16xi8>
// CHECK: %[[SZ:.*]] = tq.unpack %[[SB]] : vector<16xi8> -> vector<128xi1>
// CHECK: %[[GR:.*]] = tq.cache_read key_gamma
// CHECK: tq.dequantize #tq.quantizer<kind = lloyd_max, bits = 4, norm_correction = true, qjl = true, levels = [{{.*}}]> %{{.*}} signs %[[SZ]][%{{.*}}, %[[GR]]]
tq.spec "k3v4" {k_bits = 4 : i64, rotation_rounds = 2 : i64, seed = 7 : i64, qjl}

// -----

// Overrides: uniform keys lose the rotation.
// CHECK-LABEL: preset = "k4v4"
// CHECK: func.func @store
// CHECK-NOT: tq.rotate
// CHECK: tq.quantize #tq.quantizer<kind = uniform, bits = 8>
tq.spec "k4v4" {k_quant = "uniform", k_bits = 8 : i64}

// -----

// The vLLM layout is recorded and brings vLLM's numerics: the plain
// Hadamard and vLLM's fp32 codebook.
// CHECK-LABEL: layout = "vllm"
// CHECK: func.func @store
// CHECK: tq.rotate #tq.rotation<kind = plain_hadamard>
// CHECK: tq.quantize #tq.quantizer<kind = lloyd_max, bits = 4, norm_correction = true, dist = vllm, levels = [-0.24138170480728149,
tq.spec "turboquant_4bit_nc" {layout = "vllm"}
