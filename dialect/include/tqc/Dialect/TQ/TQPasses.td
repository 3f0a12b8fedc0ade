//===- TQPasses.td - Passes of the tq dialect ---------------*- tablegen -*-===//
#ifndef TQ_PASSES_TD
#define TQ_PASSES_TD

include "mlir/Pass/PassBase.td"

def TQExpandPreset : Pass<"tq-expand-preset", "::mlir::ModuleOp"> {
  let summary = "replace a tq.spec by explicit store and decode stage graphs";
  let description = [{
    Resolves the preset (FORMATS.md) and its overrides into explicit stages:
    a `func.func @store(%key, %value, %cache, %slot)` that rotates,
    normalizes, quantizes, packs and writes each field, and a
    `func.func @decode(%query, %cache)` whose `tq.attention decode` body
    reads each field back, unpacks, dequantizes and un-rotates. Codebook
    levels are computed for the head_dim and recorded in the quantizers.
    The module gets `tq.preset` and the spec's geometry as attributes.

    Before:
    ```mlir
    tq.spec "k3v4" {head_dim = 128 : i64}
    ```
    After (abridged):
    ```mlir
    func.func @store(%key: vector<128xbf16>, %value: vector<128xbf16>,
                     %cache: !tq.cache<...>, %slot: index) {
      %r = tq.rotate #tq.rotation<kind = randomized_hadamard, ...> %key
      %n, %u = tq.normalize %r : vector<128xf32>
      %c, %s = tq.quantize #tq.quantizer<kind = lloyd_max, bits = 3, ...> %u norm %n
      %b = tq.pack %c : vector<128xi3> -> vector<48xi8>
      tq.cache_write key_codes %b, %cache[%slot] ...
      ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::arith::ArithDialect"];
}

def TQAssignLayout : Pass<"tq-assign-layout", "::mlir::ModuleOp"> {
  let summary = "compute the cache's byte layout from the fields written";
  let description = [{
    Collects the fields the store graph writes (`tq.cache_write`), their
    element types and sizes, and attaches a `#tq.layout` as the module
    attribute `tq.layout`: in the native layout every field becomes a
    16-byte aligned plane of `block_size` rows inside a (block, KV head)
    region, so decode reads one contiguous region per block with 16-byte
    loads. Fails when the bytes per token-head exceed FORMATS.md's table
    for the preset. The layout kind (native or vllm) comes from the module
    attribute `tq.layout_kind` that `tq-expand-preset` sets.
  }];
}

def TQAbsorbRotation : Pass<"tq-absorb-rotation", "::mlir::ModuleOp"> {
  let summary = "run attention in the rotated domain";
  let description = [{
    Orthogonal rotations commute with inner products: `⟨q, Rᵀy⟩ = ⟨R·q, y⟩`
    and `Σ p_t·Rᵀy_t = Rᵀ·Σ p_t·y_t`. So instead of un-rotating every key
    and value it reads, attention rotates the query once (`tq.rotate` on
    the query operand) and un-rotates its output once (`tq.rotate inverse`
    on the result). Exact up to rounding.

    Records the rotations as module attributes: `tq.query_rotation` (an
    engine may fold it into W_Q) and `tq.output_rotation` (its transpose may
    be folded into W_O), `#tq.rotation<kind = none>` when absent.

    Before:
    ```mlir
    %o = tq.attention decode %q, %c {...} {
    ^bb0(%t: index):
      %k = tq.dequantize ... ; %kr = tq.rotate inverse #rk %k
      %v = tq.dequantize ... ; %vr = tq.rotate inverse #rv %v
      tq.yield key %kr value %vr
    }
    ```
    After:
    ```mlir
    %qr = tq.rotate #rk %q
    %a = tq.attention decode %qr, %c {...} {
    ^bb0(%t: index):
      %k = tq.dequantize ... ; %v = tq.dequantize ...
      tq.yield key %k value %v
    }
    %o = tq.rotate inverse #rv %a
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def TQFoldNorm : Pass<"tq-fold-norm", "::mlir::ModuleOp"> {
  let summary = "turn per-token norms and scales into scalars on scores";
  let description = [{
    A dequantized key `s·c[idx]` enters attention only through `⟨q, k⟩`,
    so `s` can multiply the score instead of D coordinates; a value
    `s·q + z` enters through `Σ p·v`, so `s` and `z` can multiply the
    softmax weight (`Σ (p·s)·q + (Σ p·z)`). The pass rewrites each
    scaled `tq.dequantize` in an attention body into its `unscaled` form
    and moves the scalars to `tq.yield` (`key %c scale %s`, `value %q scale
    %s bias %z`). QJL keys keep their scalars: their second term is not a
    multiple of the first.
  }];
}

def TQFuse : Pass<"tq-fuse", "::mlir::ModuleOp"> {
  let summary = "group stages into store, decode and combine kernels";
  let description = [{
    Moves the store graph (K and V together: rotate, normalize, quantize,
    pack, write) into one `tq.kernel @store store`, the decode graph (query
    rotation and attention over one split of the tokens) into one
    `tq.kernel @decode decode`, and what follows the merge of the splits'
    partial results (the output's un-rotation) into `tq.kernel @combine
    combine`. The functions they came from are erased: from here on the
    module is the set of GPU kernels. Fails when a function is not one of
    the stage graphs tq-expand-preset writes.
  }];
}

def TQPlanLaunch : Pass<"tq-plan-launch", "::mlir::ModuleOp"> {
  let summary = "choose the launch plans per batch bucket and check the fixed-grid rule";
  let description = [{
    Engines capture one CUDA graph per batch bucket, and the best number of
    KV splits depends on the batch: one sequence needs many splits to give
    every SM a CTA, 64 sequences need none. So the decode kernel becomes
    one copy per distinct plan, `@decode_p<i>`, each with its `#tq.launch`
    and the buckets it serves
    (`tq.buckets`, max_batch values). The built-in choice of splits for a
    bucket B is the largest power of two s <= 32 with
    `head_groups·B·s <= 2·4·sm-count` (two waves of CTAs at 4 resident
    decode CTAs per SM), at least 1;
    `splits` fixes one value for every bucket. The store kernel gets one
    plan (a token-head per 4 lanes up to head_dim 128, so
    ceil(num_kv_heads / 8) warps, and per head_dim/16 lanes above, so
    ceil(num_kv_heads · head_dim / 512) warps; QJL keys a warp each, at
    most 4 warps). The extend kernel gets one plan for
    every bucket: `extend-block-n` tokens per key/value tile (default 32)
    and `extend-warps` warps of 16 query rows, the rows being a KV head's G
    query heads over 16·warps/G consecutive chunk tokens (`heads_per_cta` =
    G; when G does not divide 16·warps the nearest warp count that makes it
    divide, fewer first; none in 1..8: no extend kernel, and the module's
    `tq.extend_note` says why). Grids use plan-time quantities only:
      store   `[max_tokens, 1, 1]`
      decode  `[head_groups, max_batch, splits]`
      extend  `[query_tiles, num_kv_heads, 1]` (query_tiles =
              ceil(max_tokens / tile_tokens) + max_batch)
    The combine kernel folds into every decode (its body, the output's
    un-rotation, moves into it): the decode merges its own splits, in the
    CTA that finishes a sequence's last split, so a decode step is one
    launch whatever the plan. The module's `tq.sm_count` records the SM
    count the plans are made for (`sm-count`, or the arch's usual count):
    at run time the decode caps the splits a batch uses so that its CTAs
    fit one wave of resident warps on that many SMs.

    Every plan, chosen here or written in the input, is checked: a grid
    extent that names a sequence-length-dependent quantity (`seq_len`,
    `max_seq_len`, `num_tokens`) is rejected, because a CUDA graph captured
    once must serve every length; so are heads per CTA that do not divide
    the GQA group and a tile that is not a multiple of 16 tokens. A decode
    kernel that already has a plan (hand-written IR) keeps it.
  }];
  let options = [
    Option<"blockN", "block-n", "int64_t", /*default=*/"64",
           "tokens per decode tile (multiple of 16, 16..256)">,
    Option<"splits", "splits", "int64_t", /*default=*/"0",
           "KV splits for every bucket (1..64); 0: chosen per bucket">,
    Option<"warps", "warps", "int64_t", /*default=*/"4",
           "warps per decode CTA (1..16)">,
    Option<"stages", "stages", "int64_t", /*default=*/"2",
           "16-token steps in flight per decode warp (1..8): 1 none ahead, 2 "
           "double-buffers registers, 3 or more fill a shared-memory ring by "
           "bulk copies where the back end takes it (EmitCuda.h "
           "decodeRingBytes; slots of two steps: odd counts round up)">,
    Option<"maxHeadsPerCta", "max-heads-per-cta", "int64_t",
           /*default=*/"8", "most query heads one decode CTA serves">,
    ListOption<"buckets", "buckets", "int64_t",
               "batch buckets (max_batch values, ascending); default "
               "1,2,4,8,16,32,64,128,256">,
    Option<"extendBlockN", "extend-block-n", "int64_t", /*default=*/"0",
           "tokens per key/value tile of the extend kernel (16..128, a "
           "multiple of 16; 0: 32, two tiles of which fit 48 KiB of shared "
           "memory at head_dim 128; on sm_90a 128 for two warpgroups, 64 for "
           "one)">,
    Option<"extendWarps", "extend-warps", "int64_t", /*default=*/"0",
           "warps (16 query rows each) per extend CTA (1..8; 0: 4, on "
           "sm_90a 8)">,
    Option<"smCount", "sm-count", "int64_t", /*default=*/"0",
           "multiprocessors of the target; 0: the arch's usual count">,
  ];
}

#endif // TQ_PASSES_TD
