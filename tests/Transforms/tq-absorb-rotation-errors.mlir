// RUN: tqc-opt %s -tq-absorb-rotation -verify-diagnostics

// Two attentions rotating their queries differently cannot share one
// recorded query rotation (an engine folds one matrix into W_Q).
!cache = !tq.cache<head_dim = 16, num_kv_heads = 2, block_size = 16>
func.func @decode(%q: vector<16xbf16>, %c: !cache) -> vector<16xf32> {
  %o = tq.attention decode %q, %c {num_q_heads = 4 : i64, num_kv_heads = 2 : i64, scale = 0.25 : f64} : vector<16xbf16>, !cache -> vector<16xf32> {
  ^bb0(%t: index):
    %kc = tq.cache_read key_codes %c[%t] : !cache -> vector<16xbf16>
    %k = tq.dequantize #tq.quantizer<kind = none, bits = 16> %kc : vector<16xbf16> -> vector<16xf32>
    %kr = tq.rotate inverse #tq.rotation<kind = randomized_hadamard, seed = 1> %k : vector<16xf32> -> vector<16xf32>
    tq.yield key %kr value %k : vector<16xf32>, vector<16xf32>
  }
  // expected-error @+1 {{'tq.attention' op needs a query rotation #tq.rotation<kind = randomized_hadamard, seed = 2> but another attention already uses #tq.rotation<kind = randomized_hadamard, seed = 1>}}
  %o2 = tq.attention decode %q, %c {num_q_heads = 4 : i64, num_kv_heads = 2 : i64, scale = 0.25 : f64} : vector<16xbf16>, !cache -> vector<16xf32> {
  ^bb0(%t: index):
    %kc = tq.cache_read key_codes %c[%t] : !cache -> vector<16xbf16>
    %k = tq.dequantize #tq.quantizer<kind = none, bits = 16> %kc : vector<16xbf16> -> vector<16xf32>
    %kr = tq.rotate inverse #tq.rotation<kind = randomized_hadamard, seed = 2> %k : vector<16xf32> -> vector<16xf32>
    tq.yield key %kr value %k : vector<16xf32>, vector<16xf32>
  }
  return %o : vector<16xf32>
}
