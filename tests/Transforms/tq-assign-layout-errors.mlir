// tq-assign-layout rejects stores it cannot place.
// RUN: tqc-opt %s -split-input-file -tq-assign-layout -verify-diagnostics

// expected-error @+1 {{tq-assign-layout found no tq.cache_write; run tq-expand-preset first}}
module {
}

// -----

module {
  func.func @f(%a: !tq.cache<head_dim = 128, num_kv_heads = 8, block_size = 16>, %b: !tq.cache<head_dim = 128, num_kv_heads = 4, block_size = 16>, %s: index, %x: f32) {
    tq.cache_write key_scale %x, %a[%s] : f32, !tq.cache<head_dim = 128, num_kv_heads = 8, block_size = 16>
    // expected-error @+1 {{writes a cache of type '!tq.cache<head_dim = 128, num_kv_heads = 4, block_size = 16>' but the module already writes '!tq.cache<head_dim = 128, num_kv_heads = 8, block_size = 16>'; a module holds one cache}}
    tq.cache_write value_scale %x, %b[%s] : f32, !tq.cache<head_dim = 128, num_kv_heads = 4, block_size = 16>
    return
  }
}

// -----

module {
  func.func @f(%a: !tq.cache<head_dim = 128, num_kv_heads = 8, block_size = 16>, %s: index, %x: f32) {
    tq.cache_write key_scale %x, %a[%s] : f32, !tq.cache<head_dim = 128, num_kv_heads = 8, block_size = 16>
    // expected-error @+1 {{writes field key_scale a second time}}
    tq.cache_write key_scale %x, %a[%s] : f32, !tq.cache<head_dim = 128, num_kv_heads = 8, block_size = 16>
    return
  }
}

// -----

// expected-error @+1 {{tq.spec layout 'paged' is unknown; accepted: native, vllm}}
module attributes {tq.spec = {layout = "paged"}} {
}
