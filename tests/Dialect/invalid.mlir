// Every verifier message of the tq dialect, one case each.
// RUN: tqc-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{rotation rounds 0 is out of range; accepted: 1..4}}
func.func private @f() attributes {r = #tq.rotation<kind = randomized_hadamard, seed = 1, rounds = 0>}

// -----

// expected-error @+1 {{lloyd_max bits 0 is out of range; accepted: 1..8}}
func.func private @f() attributes {q = #tq.quantizer<kind = lloyd_max, bits = 0>}

// -----

// expected-error @+1 {{fp8_e4m3 bits 4 is not supported; accepted: 8}}
func.func private @f() attributes {q = #tq.quantizer<kind = fp8_e4m3, bits = 4>}

// -----

// expected-error @+1 {{an uncompressed (none) quantizer has bits 8; accepted: 16}}
func.func private @f() attributes {q = #tq.quantizer<kind = none, bits = 8>}

// -----

// expected-error @+1 {{qjl needs a lloyd_max quantizer, not uniform}}
func.func private @f() attributes {q = #tq.quantizer<kind = uniform, bits = 4, qjl = true>}

// -----

// expected-error @+1 {{qjl with bits 1 leaves no codebook bits; accepted: 2..8}}
func.func private @f() attributes {q = #tq.quantizer<kind = lloyd_max, bits = 1, qjl = true>}

// -----

// expected-error @+1 {{norm_correction applies to lloyd_max only, not uniform}}
func.func private @f() attributes {q = #tq.quantizer<kind = uniform, bits = 4, norm_correction = true>}

// -----

// expected-error @+1 {{levels apply to lloyd_max only, not uniform}}
func.func private @f() attributes {q = #tq.quantizer<kind = uniform, bits = 1, levels = [-1.0, 1.0]>}

// -----

// expected-error @+1 {{codebook has 2 levels; a 2-bit codebook needs 4}}
func.func private @f() attributes {q = #tq.quantizer<kind = lloyd_max, bits = 2, levels = [-1.0, 1.0]>}

// -----

// expected-error @+1 {{codebook level 1 : i32 is not an f64}}
func.func private @f() attributes {q = #tq.quantizer<kind = lloyd_max, bits = 1, levels = [-1.0, 1 : i32]>}

// -----

// expected-error @+1 {{codebook levels must ascend strictly; level 1 (-1.000000e+00) follows 1.000000e+00}}
func.func private @f() attributes {q = #tq.quantizer<kind = lloyd_max, bits = 1, levels = [1.0, -1.0]>}

// -----

// expected-error @+1 {{field key_codes has 0 bytes; accepted: > 0}}
func.func private @f() attributes {f = #tq.field<kind = key_codes, dtype = u8, bytes = 0, offset = 0, token_stride = 0>}

// -----

// expected-error @+1 {{field key_codes has offset -16; accepted: >= 0}}
func.func private @f() attributes {f = #tq.field<kind = key_codes, dtype = u8, bytes = 48, offset = -16, token_stride = 48>}

// -----

// expected-error @+1 {{field key_codes has token_stride 32 below its 48 bytes}}
func.func private @f() attributes {f = #tq.field<kind = key_codes, dtype = u8, bytes = 48, offset = 0, token_stride = 32>}

// -----

// expected-error @+1 {{layout needs positive block_size, num_kv_heads and region_bytes (got 0, 8, 1888)}}
func.func private @f() attributes {l = #tq.layout<kind = native, block_size = 0, num_kv_heads = 8, region_bytes = 1888, head_stride = 1888, block_stride = 15104, bytes_per_token_head = 118, alignment = 16, fields = [#tq.field<kind = key_codes, dtype = u8, bytes = 48, offset = 0, token_stride = 48>]>}

// -----

// expected-error @+1 {{layout field 3 : i64 is not a #tq.field}}
func.func private @f() attributes {l = #tq.layout<kind = native, block_size = 16, num_kv_heads = 8, region_bytes = 1888, head_stride = 1888, block_stride = 15104, bytes_per_token_head = 118, alignment = 16, fields = [3]>}

// -----

// expected-error @+1 {{layout has no fields}}
func.func private @f() attributes {l = #tq.layout<kind = native, block_size = 16, num_kv_heads = 8, region_bytes = 1888, head_stride = 1888, block_stride = 15104, bytes_per_token_head = 118, alignment = 16, fields = []>}

// -----

// expected-error @+1 {{layout is invalid: fields key_codes [0, 768) and value_codes [512, 1536) overlap}}
func.func private @f() attributes {l = #tq.layout<kind = native, block_size = 16, num_kv_heads = 8, region_bytes = 1888, head_stride = 1888, block_stride = 15104, bytes_per_token_head = 118, alignment = 16, fields = [#tq.field<kind = key_codes, dtype = u8, bytes = 48, offset = 0, token_stride = 48>, #tq.field<kind = value_codes, dtype = u8, bytes = 64, offset = 512, token_stride = 64>]>}

// -----

// expected-error @+1 {{layout is invalid: field value_codes [1600, 2624) does not fit the 1888-byte region}}
func.func private @f() attributes {l = #tq.layout<kind = native, block_size = 16, num_kv_heads = 8, region_bytes = 1888, head_stride = 1888, block_stride = 15104, bytes_per_token_head = 118, alignment = 16, fields = [#tq.field<kind = value_codes, dtype = u8, bytes = 64, offset = 1600, token_stride = 64>]>}

// -----

// expected-error @+1 {{bytes_per_token_head 100 disagrees with the fields' 118}}
func.func private @f() attributes {l = #tq.layout<kind = native, block_size = 16, num_kv_heads = 8, region_bytes = 1888, head_stride = 1888, block_stride = 15104, bytes_per_token_head = 100, alignment = 16, fields = [#tq.field<kind = key_codes, dtype = u8, bytes = 48, offset = 0, token_stride = 48>]>}

// -----

// expected-error @+1 {{field value_codes at offset 776 breaks the 16-byte plane alignment}}
func.func private @f() attributes {l = #tq.layout<kind = native, block_size = 16, num_kv_heads = 8, region_bytes = 1888, head_stride = 1888, block_stride = 15104, bytes_per_token_head = 118, alignment = 16, fields = [#tq.field<kind = key_codes, dtype = u8, bytes = 48, offset = 0, token_stride = 48>, #tq.field<kind = value_codes, dtype = u8, bytes = 64, offset = 776, token_stride = 64>]>}

// -----

// expected-error @+1 {{field key_scale appears twice}}
func.func private @f() attributes {l = #tq.layout<kind = native, block_size = 16, num_kv_heads = 8, region_bytes = 1888, head_stride = 1888, block_stride = 15104, bytes_per_token_head = 118, alignment = 16, fields = [#tq.field<kind = key_scale, dtype = f16, bytes = 2, offset = 0, token_stride = 2>, #tq.field<kind = key_scale, dtype = f16, bytes = 2, offset = 32, token_stride = 2>]>}

// -----

// expected-error @+1 {{unknown arch 'sm_42'; accepted: sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100, sm_100a, sm_120, sm_120a, gfx90a, gfx942, gfx950}}
func.func private @f() attributes {t = #tq.target<arch = "sm_42">}

// -----

// expected-error @+1 {{block_n 48 is not supported; accepted: a power of two in 1..1024}}
func.func private @f() attributes {l = #tq.launch<block_n = 48, splits = 1, warps = 4, heads_per_cta = 4, grid = ["max_batch"]>}

// -----

// expected-error @+1 {{splits 0 is out of range; accepted: 1..1024}}
func.func private @f() attributes {l = #tq.launch<block_n = 64, splits = 0, warps = 4, heads_per_cta = 4, grid = ["max_batch"]>}

// -----

// expected-error @+1 {{warps 33 is out of range; accepted: 1..32}}
func.func private @f() attributes {l = #tq.launch<block_n = 64, splits = 1, warps = 33, heads_per_cta = 4, grid = ["max_batch"]>}

// -----

// expected-error @+1 {{heads_per_cta 0 is out of range; accepted: 1..64}}
func.func private @f() attributes {l = #tq.launch<block_n = 64, splits = 1, warps = 4, heads_per_cta = 0, grid = ["max_batch"]>}

// -----

// expected-error @+1 {{stages 9 is out of range; accepted: 1..8}}
func.func private @f() attributes {l = #tq.launch<block_n = 64, splits = 1, warps = 4, heads_per_cta = 1, stages = 9, grid = ["max_batch"]>}

// -----

// expected-error @+1 {{grid has 4 dimensions; accepted: 1..3}}
func.func private @f() attributes {l = #tq.launch<block_n = 64, splits = 1, warps = 4, heads_per_cta = 1, grid = ["max_batch", "splits", "num_kv_heads", "1"]>}

// -----

// expected-error @+1 {{grid dimension 4 : i64 is not a string}}
func.func private @f() attributes {l = #tq.launch<block_n = 64, splits = 1, warps = 4, heads_per_cta = 1, grid = [4]>}

// -----

// expected-error @+1 {{grid factor 'batch' is unknown; accepted: max_batch, max_tokens, num_kv_heads, num_q_heads, head_groups, splits, query_tiles, token_tiles, seq_len, max_seq_len, num_tokens, or an integer}}
func.func private @f() attributes {l = #tq.launch<block_n = 64, splits = 1, warps = 4, heads_per_cta = 1, grid = ["batch * 2"]>}

// -----

// expected-error @+1 {{cache needs positive head_dim, num_kv_heads and block_size (got 128, 0, 16)}}
func.func private @f(!tq.cache<head_dim = 128, num_kv_heads = 0, block_size = 16>)

// -----

// expected-error @+1 {{'tq.spec' op unknown preset 'k5v5'; accepted: k8v4, k4v4, k3v4, k3v3, k4v2, k2v2, bf16, turboquant_k8v4}}
tq.spec "k5v5"

// -----

// expected-error @+1 {{'tq.spec' op head_dim 96 cannot take a Hadamard rotation of the key; accepted: a power of two}}
tq.spec "k3v4" {head_dim = 96 : i64}

// -----

// expected-error @+1 {{'tq.spec' op key bits 0 is out of range; accepted: 1..8}}
tq.spec "k3v4" {k_bits = 0 : i64}

// -----

// expected-error @+1 {{'tq.spec' op unknown key quantizer 'lloyd'; accepted: lloyd_max, uniform, fp8_e4m3, none}}
tq.spec "k3v4" {k_quant = "lloyd"}

// -----

// expected-error @+1 {{'tq.spec' op unknown layout 'paged'; accepted: native, vllm}}
tq.spec "k3v4" {layout = "paged"}

// -----

// expected-error @+1 {{'tq.spec' op num_q_heads 30 is not a multiple of num_kv_heads 8}}
tq.spec "k3v4" {num_q_heads = 30 : i64}

// -----

// expected-error @+1 {{'tq.spec' op qjl needs a lloyd_max key, not fp8_e4m3}}
tq.spec "k8v4" {qjl}

// -----

func.func @f() {
  // expected-error @+1 {{'tq.spec' op expects parent op 'builtin.module'}}
  tq.spec "k3v4"
  return
}

// -----

func.func @f(%x: vector<96xf32>) {
  // expected-error @+1 {{head_dim 96 cannot take a randomized_hadamard rotation; accepted: a power of two}}
  %y = tq.rotate #tq.rotation<kind = randomized_hadamard, seed = 1> %x : vector<96xf32> -> vector<96xf32>
  return
}

// -----

func.func @f(%x: vector<128xf32>) {
  // expected-error @+1 {{rotates 128 coordinates into 64}}
  %y = tq.rotate #tq.rotation<kind = none> %x : vector<128xf32> -> vector<64xf32>
  return
}

// -----

func.func @f(%x: vector<128xf32>, %n: f32) {
  // expected-error @+1 {{a lloyd_max quantizer needs the `norm` operand (its input is the unit direction)}}
  %c, %s = tq.quantize #tq.quantizer<kind = lloyd_max, bits = 3> %x : vector<128xf32> -> vector<128xi3>, f32
  return
}

// -----

func.func @f(%x: vector<128xf32>, %n: f32) {
  // expected-error @+1 {{a uniform quantizer takes no `norm` operand}}
  %c, %s, %z = tq.quantize #tq.quantizer<kind = uniform, bits = 4> %x norm %n : vector<128xf32> -> vector<128xi4>, f32, f32
  return
}

// -----

func.func @f(%x: vector<128xf32>, %n: f32) {
  // expected-error @+1 {{codes have element type 'i4' but a lloyd_max quantizer of 3 bits needs 'i3'}}
  %c, %s = tq.quantize #tq.quantizer<kind = lloyd_max, bits = 3> %x norm %n : vector<128xf32> -> vector<128xi4>, f32
  return
}

// -----

func.func @f(%x: vector<128xf32>, %n: f32) {
  // expected-error @+1 {{codes have element type 'i3' but a lloyd_max quantizer with qjl of 3 bits needs 'i2'}}
  %c, %s = tq.quantize #tq.quantizer<kind = lloyd_max, bits = 3, qjl = true> %x norm %n : vector<128xf32> -> vector<128xi3>, f32
  return
}

// -----

func.func @f(%x: vector<128xf32>) {
  // expected-error @+1 {{has 64 codes for a vector of 128 coordinates}}
  %c, %s, %z = tq.quantize #tq.quantizer<kind = uniform, bits = 4> %x : vector<128xf32> -> vector<64xi4>, f32, f32
  return
}

// -----

func.func @f(%x: vector<128xf32>) {
  // expected-error @+1 {{produces 1 scalars but a uniform quantizer produces 2 (scale, zero)}}
  %c, %s = tq.quantize #tq.quantizer<kind = uniform, bits = 4> %x : vector<128xf32> -> vector<128xi4>, f32
  return
}

// -----

func.func @f(%c: vector<128xi2>, %s: f32) {
  // expected-error @+1 {{a qjl quantizer needs the `signs` operand}}
  %x = tq.dequantize #tq.quantizer<kind = lloyd_max, bits = 3, qjl = true> %c [%s, %s] : vector<128xi2> -> vector<128xf32>
  return
}

// -----

func.func @f(%c: vector<128xi3>, %z: vector<128xi1>, %s: f32) {
  // expected-error @+1 {{`signs` needs a qjl quantizer}}
  %x = tq.dequantize #tq.quantizer<kind = lloyd_max, bits = 3> %c signs %z [%s] : vector<128xi3>, vector<128xi1> -> vector<128xf32>
  return
}

// -----

func.func @f(%c: vector<128xi2>, %z: vector<64xi1>, %s: f32) {
  // expected-error @+1 {{has 64 signs for 128 coordinates}}
  %x = tq.dequantize #tq.quantizer<kind = lloyd_max, bits = 3, qjl = true> %c signs %z [%s, %s] : vector<128xi2>, vector<64xi1> -> vector<128xf32>
  return
}

// -----

func.func @f(%c: vector<128xi2>, %z: vector<128xi1>, %s: f32) {
  // expected-error @+1 {{takes 1 scalars but a lloyd_max quantizer needs 2 (scale, gamma)}}
  %x = tq.dequantize #tq.quantizer<kind = lloyd_max, bits = 3, qjl = true> %c signs %z [%s] : vector<128xi2>, vector<128xi1> -> vector<128xf32>
  return
}

// -----

func.func @f(%x: vector<128xf32>, %a: vector<128xf32>) {
  // expected-error @+1 {{input, approx and signs must have the same length; got 128, 128, 64}}
  %z, %g = tq.qjl %x, %a seed = 1 : vector<128xf32> -> vector<64xi1>
  return
}

// -----

func.func @f(%c: vector<128xi9>) {
  // expected-error @+1 {{codes of 9 bits cannot be packed; accepted: 1..8}}
  %b = tq.pack %c : vector<128xi9> -> vector<144xi8>
  return
}

// -----

func.func @f(%c: vector<128xi3>) {
  // expected-error @+1 {{128 codes of 3 bits take 48 bytes, not 64}}
  %b = tq.pack %c : vector<128xi3> -> vector<64xi8>
  return
}

// -----

func.func @f(%b: vector<48xi8>) {
  // expected-error @+1 {{128 codes of 4 bits take 64 bytes, not 48}}
  %c = tq.unpack %b : vector<48xi8> -> vector<128xi4>
  return
}

// -----

!cache = !tq.cache<head_dim = 128, num_kv_heads = 8, block_size = 16>
func.func @f(%c: !cache, %s: index, %x: f32) {
  // expected-error @+1 {{field key_codes holds vector<Nxi8>, vector<Nxf8E4M3FN> or vector<Nxbf16>, not 'f32'}}
  tq.cache_write key_codes %x, %c[%s] : f32, !cache
  return
}

// -----

!cache = !tq.cache<head_dim = 128, num_kv_heads = 8, block_size = 16>
func.func @f(%c: !cache, %s: index, %x: vector<16xbf16>) {
  // expected-error @+1 {{field key_signs holds vector<Nxi8>, not 'vector<16xbf16>'}}
  tq.cache_write key_signs %x, %c[%s] : vector<16xbf16>, !cache
  return
}

// -----

!cache = !tq.cache<head_dim = 128, num_kv_heads = 8, block_size = 16>
func.func @f(%c: !cache, %s: index) {
  // expected-error @+1 {{field key_scale holds an f32 (stored as fp16), not 'vector<2xi8>'}}
  %x = tq.cache_read key_scale %c[%s] : !cache -> vector<2xi8>
  return
}

// -----

!cache = !tq.cache<head_dim = 128, num_kv_heads = 8, block_size = 16>
module attributes {tq.layout = #tq.layout<kind = native, block_size = 16, num_kv_heads = 8, region_bytes = 768, head_stride = 768, block_stride = 6144, bytes_per_token_head = 48, alignment = 16, fields = [#tq.field<kind = key_codes, dtype = u8, bytes = 48, offset = 0, token_stride = 48>]>} {
  func.func @f(%c: !cache, %s: index, %x: f32) {
    // expected-error @+1 {{field value_scale is not in the module's layout}}
    tq.cache_write value_scale %x, %c[%s] : f32, !cache
    return
  }
}

// -----

!cache = !tq.cache<head_dim = 128, num_kv_heads = 8, block_size = 16>
module attributes {tq.layout = #tq.layout<kind = native, block_size = 16, num_kv_heads = 8, region_bytes = 768, head_stride = 768, block_stride = 6144, bytes_per_token_head = 48, alignment = 16, fields = [#tq.field<kind = key_codes, dtype = u8, bytes = 48, offset = 0, token_stride = 48>]>} {
  func.func @f(%c: !cache, %s: index, %x: vector<64xi8>) {
    // expected-error @+1 {{writes 64 bytes to field key_codes but the layout gives it 48}}
    tq.cache_write key_codes %x, %c[%s] : vector<64xi8>, !cache
    return
  }
}

// -----

!cache = !tq.cache<head_dim = 128, num_kv_heads = 4, block_size = 16>
module attributes {tq.layout = #tq.layout<kind = native, block_size = 16, num_kv_heads = 8, region_bytes = 768, head_stride = 768, block_stride = 6144, bytes_per_token_head = 48, alignment = 16, fields = [#tq.field<kind = key_codes, dtype = u8, bytes = 48, offset = 0, token_stride = 48>]>} {
  func.func @f(%c: !cache, %s: index) {
    // expected-error @+1 {{cache has block_size 16 and num_kv_heads 4 but the layout has 16 and 8}}
    %x = tq.cache_read key_codes %c[%s] : !cache -> vector<48xi8>
    return
  }
}

// -----

!cache = !tq.cache<head_dim = 128, num_kv_heads = 8, block_size = 16>
func.func @f(%q: vector<128xbf16>, %c: !cache, %k: vector<128xf32>) {
  // expected-error @+1 {{output has 64 coordinates for a query of 128}}
  %o = tq.attention decode %q, %c {num_q_heads = 32 : i64, num_kv_heads = 8 : i64, scale = 1.0 : f64} : vector<128xbf16>, !cache -> vector<64xf32> {
  ^bb0(%t: index):
    tq.yield key %k value %k : vector<128xf32>, vector<128xf32>
  }
  return
}

// -----

!cache = !tq.cache<head_dim = 64, num_kv_heads = 8, block_size = 16>
func.func @f(%q: vector<128xbf16>, %c: !cache, %k: vector<128xf32>) {
  // expected-error @+1 {{query has 128 coordinates but the cache's head_dim is 64}}
  %o = tq.attention decode %q, %c {num_q_heads = 32 : i64, num_kv_heads = 8 : i64, scale = 1.0 : f64} : vector<128xbf16>, !cache -> vector<128xf32> {
  ^bb0(%t: index):
    tq.yield key %k value %k : vector<128xf32>, vector<128xf32>
  }
  return
}

// -----

!cache = !tq.cache<head_dim = 128, num_kv_heads = 8, block_size = 16>
func.func @f(%q: vector<128xbf16>, %c: !cache, %k: vector<128xf32>) {
  // expected-error @+1 {{num_q_heads 12 is not a positive multiple of num_kv_heads 8}}
  %o = tq.attention decode %q, %c {num_q_heads = 12 : i64, num_kv_heads = 8 : i64, scale = 1.0 : f64} : vector<128xbf16>, !cache -> vector<128xf32> {
  ^bb0(%t: index):
    tq.yield key %k value %k : vector<128xf32>, vector<128xf32>
  }
  return
}

// -----

!cache = !tq.cache<head_dim = 128, num_kv_heads = 8, block_size = 16>
func.func @f(%q: vector<128xbf16>, %c: !cache, %k: vector<128xf32>) {
  // expected-error @+1 {{num_kv_heads 4 disagrees with the cache's 8}}
  %o = tq.attention decode %q, %c {num_q_heads = 32 : i64, num_kv_heads = 4 : i64, scale = 1.0 : f64} : vector<128xbf16>, !cache -> vector<128xf32> {
  ^bb0(%t: index):
    tq.yield key %k value %k : vector<128xf32>, vector<128xf32>
  }
  return
}

// -----

!cache = !tq.cache<head_dim = 128, num_kv_heads = 8, block_size = 16>
func.func @f(%q: vector<128xbf16>, %c: !cache, %k: vector<128xf32>) {
  // expected-error @+1 {{scale -1.000000e+00 must be positive}}
  %o = tq.attention decode %q, %c {num_q_heads = 32 : i64, num_kv_heads = 8 : i64, scale = -1.0 : f64} : vector<128xbf16>, !cache -> vector<128xf32> {
  ^bb0(%t: index):
    tq.yield key %k value %k : vector<128xf32>, vector<128xf32>
  }
  return
}

// -----

!cache = !tq.cache<head_dim = 128, num_kv_heads = 8, block_size = 16>
func.func @f(%q: vector<128xbf16>, %c: !cache, %k: vector<128xf32>) {
  // expected-error @+1 {{body must take one index argument (the token position), got 0 arguments}}
  %o = tq.attention decode %q, %c {num_q_heads = 32 : i64, num_kv_heads = 8 : i64, scale = 1.0 : f64} : vector<128xbf16>, !cache -> vector<128xf32> {
    tq.yield key %k value %k : vector<128xf32>, vector<128xf32>
  }
  return
}

// -----

!cache = !tq.cache<head_dim = 128, num_kv_heads = 8, block_size = 16>
func.func @f(%q: vector<128xbf16>, %c: !cache, %k: vector<128xf32>, %v: vector<64xf32>) {
  // expected-error @+1 {{body yields a key of 128 and a value of 64 coordinates for a head_dim of 128}}
  %o = tq.attention decode %q, %c {num_q_heads = 32 : i64, num_kv_heads = 8 : i64, scale = 1.0 : f64} : vector<128xbf16>, !cache -> vector<128xf32> {
  ^bb0(%t: index):
    tq.yield key %k value %v : vector<128xf32>, vector<64xf32>
  }
  return
}

// -----

// expected-error @+1 {{'tq.kernel' op @k has an empty body}}
tq.kernel @k store {
^bb0(%x: vector<128xbf16>):
}

// -----

func.func @f(%c: vector<16xf8E4M3FN>) -> vector<16xf32> {
  // expected-error @+1 {{'tq.dequantize' op `unscaled` applies to lloyd_max and uniform quantizers without qjl, not fp8_e4m3}}
  %x = tq.dequantize unscaled #tq.quantizer<kind = fp8_e4m3, bits = 8> %c : vector<16xf8E4M3FN> -> vector<16xf32>
  return %x : vector<16xf32>
}

// -----

func.func @f(%c: vector<16xi4>, %s: f32) -> vector<16xf32> {
  // expected-error @+1 {{'tq.dequantize' op is `unscaled` but takes 1 scalars}}
  %x = tq.dequantize unscaled #tq.quantizer<kind = uniform, bits = 4> %c[%s] : vector<16xi4> -> vector<16xf32>
  return %x : vector<16xf32>
}
