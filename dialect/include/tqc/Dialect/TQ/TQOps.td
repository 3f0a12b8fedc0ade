//===- TQOps.td - Operations of the tq dialect --------------*- tablegen -*-===//
#ifndef TQ_OPS_TD
#define TQ_OPS_TD

include "tqc/Dialect/TQ/TQBase.td"
include "tqc/Dialect/TQ/TQAttrs.td"
include "tqc/Dialect/TQ/TQTypes.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// A token-head vector: a static 1-D vector.
def TQ_Vector : VectorOfRankAndType<[1], [AnyType]>;
def TQ_FloatVector : VectorOfRankAndType<[1], [F32, F16, BF16]>;
def TQ_F32Vector : VectorOfRankAndType<[1], [F32]>;
def TQ_ByteVector : VectorOfRankAndType<[1], [I8]>;
def TQ_SignVector : VectorOfRankAndType<[1], [I1]>;

//===----------------------------------------------------------------------===//
// The compile request
//===----------------------------------------------------------------------===//

def TQ_SpecOp : TQ_Op<"spec", [HasParent<"::mlir::ModuleOp">]> {
  let summary = "what to compile: a preset, the head geometry, overrides";
  let description = [{
    The request a compilation starts from. `preset` is a name or alias from
    FORMATS.md; the optional attributes override parts of it (`k_bits`,
    `v_bits`, `k_quant` / `v_quant` in {lloyd_max, uniform, fp8_e4m3, none},
    `rotation_rounds`, `qjl`, `seed`, `layout` in {native, vllm}).
    `tq-expand-preset` replaces it by explicit store and decode stage graphs.

    Example:
    ```mlir
    tq.spec "k3v4" {head_dim = 128 : i64, num_q_heads = 32 : i64,
                    num_kv_heads = 8 : i64, block_size = 16 : i64}
    ```
  }];
  let arguments = (ins
    StrAttr:$preset,
    DefaultValuedAttr<I64Attr, "128">:$head_dim,
    DefaultValuedAttr<I64Attr, "32">:$num_q_heads,
    DefaultValuedAttr<I64Attr, "8">:$num_kv_heads,
    DefaultValuedAttr<I64Attr, "16">:$block_size,
    OptionalAttr<I64Attr>:$k_bits,
    OptionalAttr<I64Attr>:$v_bits,
    OptionalAttr<StrAttr>:$k_quant,
    OptionalAttr<StrAttr>:$v_quant,
    OptionalAttr<I64Attr>:$rotation_rounds,
    OptionalAttr<I64Attr>:$seed,
    OptionalAttr<StrAttr>:$layout,
    UnitAttr:$qjl);
  let assemblyFormat = "$preset attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Stages on one token-head vector
//===----------------------------------------------------------------------===//

def TQ_RotateOp : TQ_Op<"rotate", [Pure]> {
  let summary = "rotate a token-head vector";
  let description = [{
    `y = R·x` for the orthogonal `R` of `rotation`, or `y = Rᵀ·x` with
    `inverse`. Orthogonality keeps norms and inner products, which is why
    attention can run in the rotated domain (`tq-absorb-rotation`).

    Example:
    ```mlir
    %y = tq.rotate #tq.rotation<kind = randomized_hadamard, seed = 1> %x
        : vector<128xbf16> -> vector<128xf32>
    ```
  }];
  let arguments = (ins TQ_FloatVector:$input, TQ_RotationAttr:$rotation,
                       UnitAttr:$inverse);
  let results = (outs TQ_F32Vector:$result);
  let assemblyFormat = [{
    (`inverse` $inverse^)? qualified($rotation) $input attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TQ_NormalizeOp : TQ_Op<"normalize", [Pure,
    AllTypesMatch<["input", "unit"]>]> {
  let summary = "split a vector into its norm and its direction";
  let description = [{
    `norm = ‖x‖`, `unit = x / ‖x‖`; a zero vector gives norm 0 and a zero
    direction (it then reconstructs exactly 0).

    Example: `%n, %u = tq.normalize %x : vector<128xf32>`
  }];
  let arguments = (ins TQ_F32Vector:$input);
  let results = (outs F32:$norm, TQ_F32Vector:$unit);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def TQ_QuantizeOp : TQ_Op<"quantize", [Pure]> {
  let summary = "map coordinates to codes";
  let description = [{
    Produces one code per coordinate and the per-token-head scalars the
    quantizer needs to reconstruct:
    - `lloyd_max` (operand `norm` required): the nearest codebook level of
      each coordinate of the unit vector; one scalar, the stored scale
      (`norm`, or `norm / ‖c[idx]‖` with norm correction). Codes are
      `i<b>` (`i<b-1>` with QJL).
    - `uniform`: codes `i<b>`; scalars `scale = (max − min)/(2^b − 1)` and
      `zero = min`.
    - `fp8_e4m3`: codes `f8E4M3FN`, no scalars. `none`: codes `bf16`.

    Example:
    ```mlir
    %codes, %scale = tq.quantize
        #tq.quantizer<kind = lloyd_max, bits = 3, norm_correction = true>
        %u norm %n : vector<128xf32> -> vector<128xi3>, f32
    ```
  }];
  let arguments = (ins TQ_F32Vector:$input, Optional<F32>:$norm,
                       TQ_QuantizerAttr:$quantizer);
  let results = (outs TQ_Vector:$codes, Variadic<F32>:$params);
  let assemblyFormat = [{
    qualified($quantizer) $input (`norm` $norm^)? attr-dict `:`
    type($input) `->` type($codes) (`,` type($params)^)?
  }];
  let hasVerifier = 1;
}

def TQ_DequantizeOp : TQ_Op<"dequantize", [Pure, AttrSizedOperandSegments]> {
  let summary = "reconstruct coordinates from codes";
  let description = [{
    The inverse of `tq.quantize` given its scalars: `scale·c[idx]`
    (lloyd_max), `zero + scale·q` (uniform), a widening cast (fp8, bf16).
    With QJL the key also takes its `signs` and a second scalar `gamma`, and
    reconstructs, in the rotated domain, `scale·c[idx] + gamma·√(π/2)/D·R·Sᵀz`
    (S acts on the original-domain residual, numerics/quantize.h), whose
    inner product with a rotated query is the unbiased TurboQuant_prod
    estimate. `unscaled` (set by tq-fold-norm) drops the scalars: the
    result is `c[idx]` (lloyd_max) or the codes as floats (uniform), and the
    scalars move to `tq.yield`.

    Example:
    ```mlir
    %x = tq.dequantize
        #tq.quantizer<kind = lloyd_max, bits = 3, norm_correction = true>
        %codes [%scale] : vector<128xi3> -> vector<128xf32>
    ```
  }];
  let arguments = (ins TQ_Vector:$codes, Optional<TQ_SignVector>:$signs,
                       Variadic<F32>:$params, TQ_QuantizerAttr:$quantizer,
                       UnitAttr:$unscaled);
  let results = (outs TQ_F32Vector:$result);
  let assemblyFormat = [{
    (`unscaled` $unscaled^)? qualified($quantizer) $codes (`signs` $signs^)? (`[` $params^ `]`)?
    attr-dict `:` type($codes) (`,` type($signs)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def TQ_QjlOp : TQ_Op<"qjl", [Pure, AllTypesMatch<["input", "approx"]>]> {
  let summary = "1-bit sign sketch of a quantization residual (QJL)";
  let description = [{
    With `r = input − approx`: `signs = sign(S·r)` (1 for positive) for the
    D×D Gaussian matrix `S` drawn from `seed`, and `gamma = ‖r‖`. The
    residual is taken in the original (unrotated) domain, as the host
    numerics do (numerics/quantize.h); decode then needs `S·q` of the
    unrotated query, once per query. Added to
    a (b−1)-bit Lloyd-Max code it makes inner products unbiased
    (TurboQuant_prod).

    Example:
    ```mlir
    %z, %gamma = tq.qjl %u, %approx seed = 5 : vector<128xf32> -> vector<128xi1>
    ```
  }];
  let arguments = (ins TQ_F32Vector:$input, TQ_F32Vector:$approx,
                       I64Attr:$seed);
  let results = (outs TQ_SignVector:$signs, F32:$gamma);
  let assemblyFormat = [{
    $input `,` $approx `seed` `=` $seed attr-dict `:` type($input) `->`
    type($signs)
  }];
  let hasVerifier = 1;
}

def TQ_PackOp : TQ_Op<"pack", [Pure]> {
  let summary = "pack b-bit codes into a little-endian bitstream";
  let description = [{
    Code `j` occupies bits `[j·b, j·b + b)`; bit `i` of the stream is bit
    `i mod 8` of byte `⌊i/8⌋`. The result has `⌈D·b/8⌉` bytes.

    Example: `%bytes = tq.pack %codes : vector<128xi3> -> vector<48xi8>`
  }];
  let arguments = (ins VectorOfRankAndType<[1], [AnyInteger]>:$codes);
  let results = (outs TQ_ByteVector:$bytes);
  let assemblyFormat = "$codes attr-dict `:` type($codes) `->` type($bytes)";
  let hasVerifier = 1;
}

def TQ_UnpackOp : TQ_Op<"unpack", [Pure]> {
  let summary = "unpack a little-endian bitstream into b-bit codes";
  let description = [{
    The inverse of `tq.pack`.

    Example: `%codes = tq.unpack %bytes : vector<48xi8> -> vector<128xi3>`
  }];
  let arguments = (ins TQ_ByteVector:$bytes);
  let results = (outs VectorOfRankAndType<[1], [AnyInteger]>:$codes);
  let assemblyFormat = "$bytes attr-dict `:` type($bytes) `->` type($codes)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// The paged cache
//===----------------------------------------------------------------------===//

def TQ_CacheWriteOp : TQ_Op<"cache_write"> {
  let summary = "write one field of a token-head into the paged cache";
  let description = [{
    Writes `value` into `field` of the token-head at `slot`
    (`block·block_size + position`, from the engine's slot mapping; the
    fused store kernel skips a negative slot). Code fields take bytes
    (`vector<Nxi8>`) or raw elements (`f8E4M3FN`, `bf16`); scalar fields take
    an `f32` that is stored as fp16.

    Example: `tq.cache_write key_codes %bytes, %cache[%slot] : vector<48xi8>, !tq.cache<...>`
  }];
  let arguments = (ins TQ_FieldKind:$field, AnyType:$value,
                       TQ_CacheType:$cache, Index:$slot);
  let assemblyFormat = [{
    $field $value `,` $cache `[` $slot `]` attr-dict `:` type($value) `,`
    qualified(type($cache))
  }];
  let hasVerifier = 1;
}

def TQ_CacheReadOp : TQ_Op<"cache_read"> {
  let summary = "read one field of a token-head from the paged cache";
  let description = [{
    Reads `field` of the token at sequence `position` of the current
    sequence, through its block table. The result type follows the field as
    in `tq.cache_write`.

    Example: `%b = tq.cache_read key_codes %cache[%t] : !tq.cache<...> -> vector<48xi8>`
  }];
  let arguments = (ins TQ_FieldKind:$field, TQ_CacheType:$cache,
                       Index:$position);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $field $cache `[` $position `]` attr-dict `:` qualified(type($cache))
    `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

def TQ_AttentionOp : TQ_Op<"attention", [SingleBlock]> {
  let summary = "softmax attention of one query head over the cache";
  let description = [{
    `out = Σ_t softmax_t(scale·⟨q, k_t⟩)·v_t` over the tokens `t` of the
    query's sequence, reading the KV head `h / (num_q_heads / num_kv_heads)`
    (GQA). The body computes token `t`'s key and value from the cache
    (block argument: the position) and yields them with optional
    per-token scalars: `k_t = key_scale·key`, `v_t = value_scale·value +
    value_bias`. `decode`: one query per sequence, over all its tokens.
    `extend`: a chunk of queries at the end of the sequence, causal.

    Example:
    ```mlir
    %o = tq.attention decode %q, %cache {num_q_heads = 32 : i64,
          num_kv_heads = 8 : i64, scale = 0.0883883 : f64}
        : vector<128xbf16>, !tq.cache<...> -> vector<128xf32> {
    ^bb0(%t: index):
      ...
      tq.yield key %k value %v : vector<128xf32>, vector<128xf32>
    }
    ```
  }];
  let arguments = (ins TQ_AttentionMode:$mode, TQ_FloatVector:$query,
                       TQ_CacheType:$cache, I64Attr:$num_q_heads,
                       I64Attr:$num_kv_heads, F64Attr:$scale);
  let results = (outs TQ_F32Vector:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $mode $query `,` $cache attr-dict `:` type($query) `,`
    qualified(type($cache)) `->` type($result) $body
  }];
  let hasRegionVerifier = 1;
}

def TQ_YieldOp : TQ_Op<"yield", [Pure, Terminator, HasParent<"AttentionOp">,
    AttrSizedOperandSegments]> {
  let summary = "a token's key and value, with per-token scalars";
  let description = [{
    Ends a `tq.attention` body: the key direction with an optional scale,
    the value direction with an optional scale and bias (added to every
    coordinate). `tq-fold-norm` moves norms and scales here so that the
    kernel applies them to scores and softmax weights instead of vectors.
  }];
  let arguments = (ins TQ_F32Vector:$key, Optional<F32>:$key_scale,
                       TQ_F32Vector:$value, Optional<F32>:$value_scale,
                       Optional<F32>:$value_bias);
  let assemblyFormat = [{
    `key` $key (`scale` $key_scale^)? `value` $value
    (`scale` $value_scale^)? (`bias` $value_bias^)? attr-dict `:`
    type($key) `,` type($value)
  }];
}

//===----------------------------------------------------------------------===//
// Fused kernels
//===----------------------------------------------------------------------===//

def TQ_KernelOp : TQ_Op<"kernel", [Symbol, SingleBlock, NoTerminator,
    IsolatedFromAbove, HasParent<"::mlir::ModuleOp">]> {
  let summary = "stages fused into one GPU kernel, with its launch plan";
  let description = [{
    A region of stages that runs as one GPU kernel. The entry block's
    arguments are the kernel's per-work-item inputs; `launch` is the plan
    chosen by `tq-plan-launch`. The back end instantiates one device
    template per kernel. A `store` kernel writes one token-head; a `decode`
    kernel computes one query head's attention over its split of the
    tokens; a `combine` kernel merges the splits' partial outputs (its
    block argument) and applies what follows the merge (the output's
    un-rotation), so its body may be empty.

    Example:
    ```mlir
    tq.kernel @store store {
    ^bb0(%k: vector<128xbf16>, %v: vector<128xbf16>, %cache: !tq.cache<...>, %slot: index):
      ...
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, TQ_KernelKind:$kind,
                       OptionalAttr<TQ_LaunchAttr>:$launch);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name $kind (`launch` qualified($launch)^)? attr-dict-with-keyword
    $body
  }];
  let hasVerifier = 1;
}

#endif // TQ_OPS_TD
