// RUN: tqc-opt %s -split-input-file -tq-fuse -verify-diagnostics

// expected-error @+1 {{tq-fuse needs both @store and @decode; missing @decode (run tq-expand-preset first)}}
module {
  func.func @store() {
    return
  }
}

// -----

module {
  // expected-error @+1 {{'func.func' op @helper is not a stage graph tq-fuse knows; accepted: @store, @decode, @extend}}
  func.func @helper() {
    return
  }
}

// -----

!cache = !tq.cache<head_dim = 16, num_kv_heads = 2, block_size = 16>
module {
  func.func @store() {
    return
  }
  // expected-error @+1 {{'func.func' op @decode must hold exactly one tq.attention, found 0}}
  func.func @decode(%q: vector<16xf32>) -> vector<16xf32> {
    return %q : vector<16xf32>
  }
}

// -----

// @extend must hold an extend attention.
!cache = !tq.cache<head_dim = 16, num_kv_heads = 2, block_size = 16>
module {
  func.func @store() {
    return
  }
  func.func @decode(%q: vector<16xf32>, %c: !cache, %k: vector<16xf32>) -> vector<16xf32> {
    %o = tq.attention decode %q, %c {num_q_heads = 2 : i64, num_kv_heads = 2 : i64, scale = 1.0 : f64} : vector<16xf32>, !cache -> vector<16xf32> {
    ^bb0(%t: index):
      tq.yield key %k value %k : vector<16xf32>, vector<16xf32>
    }
    return %o : vector<16xf32>
  }
  func.func @extend(%q: vector<16xf32>, %c: !cache, %k: vector<16xf32>) -> vector<16xf32> {
    // expected-error @+1 {{'tq.attention' op @extend must hold an extend attention, found decode}}
    %o = tq.attention decode %q, %c {num_q_heads = 2 : i64, num_kv_heads = 2 : i64, scale = 1.0 : f64} : vector<16xf32>, !cache -> vector<16xf32> {
    ^bb0(%t: index):
      tq.yield key %k value %k : vector<16xf32>, vector<16xf32>
    }
    return %o : vector<16xf32>
  }
}
