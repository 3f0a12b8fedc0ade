// RUN: tqc-opt %s -split-input-file -tq-plan-launch -verify-diagnostics

// The fixed-grid rule: a grid that grows with the sequence length would need
// a new CUDA graph at every step.
module attributes {tq.spec = {num_q_heads = 32 : i64, num_kv_heads = 8 : i64}} {
  // expected-error @+1 {{'tq.kernel' op @decode: grid extent 2 'splits*seq_len' depends on sequence lengths ('seq_len'); a CUDA graph captured once must serve every length, so grids may only use max_batch, max_tokens, num_q_heads, num_kv_heads, head_groups, splits, query_tiles, token_tiles and integers}}
  tq.kernel @decode decode launch #tq.launch<block_n = 64, splits = 8, warps = 4, heads_per_cta = 4, grid = ["num_kv_heads", "max_batch", "splits*seq_len"]> {
  ^bb0(%q: vector<16xf32>):
    %n, %u = tq.normalize %q : vector<16xf32>
  }
}

// -----

module attributes {tq.spec = {num_q_heads = 32 : i64, num_kv_heads = 8 : i64}} {
  // expected-error @+1 {{'tq.kernel' op @store: grid extent 0 'num_tokens' depends on sequence lengths ('num_tokens')}}
  tq.kernel @store store launch #tq.launch<block_n = 1, splits = 1, warps = 4, heads_per_cta = 1, grid = ["num_tokens"]> {
  ^bb0(%q: vector<16xf32>):
    %n, %u = tq.normalize %q : vector<16xf32>
  }
}

// -----

module attributes {tq.spec = {num_q_heads = 32 : i64, num_kv_heads = 8 : i64}} {
  // expected-error @+1 {{'tq.kernel' op @decode: heads_per_cta 3 does not divide the GQA group of 4 query heads}}
  tq.kernel @decode decode launch #tq.launch<block_n = 64, splits = 8, warps = 4, heads_per_cta = 3, grid = ["head_groups", "max_batch", "splits"]> {
  ^bb0(%q: vector<16xf32>):
    %n, %u = tq.normalize %q : vector<16xf32>
  }
}

// -----

module attributes {tq.spec = {num_q_heads = 32 : i64, num_kv_heads = 8 : i64}} {
  // expected-error @+1 {{'tq.kernel' op @decode: block_n 8 is not a multiple of 16 tokens}}
  tq.kernel @decode decode launch #tq.launch<block_n = 8, splits = 8, warps = 4, heads_per_cta = 4, grid = ["head_groups", "max_batch", "splits"]> {
  ^bb0(%q: vector<16xf32>):
    %n, %u = tq.normalize %q : vector<16xf32>
  }
}

// -----

// An extend CTA holds every query head of its KV head over whole tokens.
module attributes {tq.spec = {num_q_heads = 32 : i64, num_kv_heads = 8 : i64}} {
  // expected-error @+1 {{'tq.kernel' op @extend: an extend CTA holds all 4 query heads of a KV head over whole tokens: heads_per_cta must be 4 and divide 16 x 4 warps = 64 rows (got heads_per_cta 2)}}
  tq.kernel @extend extend launch #tq.launch<block_n = 64, splits = 1, warps = 4, heads_per_cta = 2, grid = ["query_tiles", "num_kv_heads", "1"]> {
  ^bb0(%q: vector<16xf32>):
    %n, %u = tq.normalize %q : vector<16xf32>
  }
}

// -----

// expected-error @+1 {{tq-plan-launch needs the module's tq.spec with num_q_heads a multiple of num_kv_heads (run tq-expand-preset first)}}
module {
}
