//===- TQAttrs.td - Attributes of the tq dialect ------------*- tablegen -*-===//
#ifndef TQ_ATTRS_TD
#define TQ_ATTRS_TD

include "tqc/Dialect/TQ/TQBase.td"
include "tqc/Dialect/TQ/TQEnums.td"
include "mlir/IR/BuiltinAttributes.td"

class TQ_DefaultEnum<EnumInfo info, string value> : EnumParameter<info> {
  let defaultValue = info.cppNamespace # "::" # info.className # "::" # value;
}

def TQ_RotationAttr : TQ_Attr<"Rotation", "rotation"> {
  let summary = "an orthogonal rotation of a token-head vector";
  let description = [{
    `randomized_hadamard`: `rounds` repetitions of `D2·H·D1`, H the normalized
    Sylvester Hadamard matrix and D1, D2 diagonal ±1 matrices drawn from
    `seed` (fresh signs every round). Runs in place in O(D log D); needs a
    power-of-two head_dim. `plain_hadamard`: H alone (vLLM's layout).
    `dense`: a Haar-random orthogonal matrix from `seed` (reference only).
    `none`: the identity.

    Example: `#tq.rotation<kind = randomized_hadamard, seed = 7, rounds = 2>`
  }];
  let parameters = (ins
    EnumParameter<TQ_RotationKind>:$kind,
    DefaultValuedParameter<"uint64_t", "0">:$seed,
    DefaultValuedParameter<"int64_t", "1">:$rounds);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def TQ_QuantizerAttr : TQ_Attr<"Quantizer", "quantizer"> {
  let summary = "a scalar quantizer for the coordinates of a vector";
  let description = [{
    `lloyd_max`: 2^b levels optimal for one coordinate of a random unit vector
    in D dimensions (`dist = beta`, the exact density; `gaussian`, its
    N(0, 1/D) approximation). The input is the rotated unit vector;
    `norm_correction` makes the stored scale ‖x‖/‖c[idx]‖ so that the
    reconstruction keeps the input's norm. With `qjl`, the codebook has b−1
    bits and a 1-bit sign sketch of the residual completes the b bits
    (TurboQuant_prod). `levels`, when present, are the codebook levels in
    ascending order (f64, exact), computed by the compiler for the head_dim.
    `uniform`: per token-head min/max with an fp16 scale and zero point.
    `fp8_e4m3`: a raw cast to fp8 (bits = 8). `none`: bf16 (bits = 16).

    Example: `#tq.quantizer<kind = lloyd_max, bits = 3, norm_correction = true>`
  }];
  let parameters = (ins
    EnumParameter<TQ_QuantKind>:$kind,
    "int64_t":$bits,
    OptionalParameter<"::mlir::BoolAttr">:$norm_correction,
    TQ_DefaultEnum<TQ_CodebookDist, "Beta">:$dist,
    OptionalParameter<"::mlir::BoolAttr">:$qjl,
    OptionalParameter<"::mlir::ArrayAttr">:$levels);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool hasNormCorrection() const {
      return getNormCorrection() && getNormCorrection().getValue();
    }
    bool hasQjl() const { return getQjl() && getQjl().getValue(); }
    /// The codebook levels as doubles (empty when absent).
    ::llvm::SmallVector<double> getLevelValues() const;
    /// Bits per coordinate of the codebook indices.
    int64_t getCodeBits() const { return hasQjl() ? getBits() - 1 : getBits(); }
  }];
}

def TQ_FieldAttr : TQ_Attr<"Field", "field"> {
  let summary = "where one field of a token-head lives in the cache";
  let description = [{
    The field's bytes for position `i` of a block start at
    `offset + i·token_stride` inside the (block, head) region; `bytes` is
    its size per token-head and `dtype` its element type.

    Example: `#tq.field<kind = key_codes, dtype = u8, bytes = 48, offset = 0, token_stride = 48>`
  }];
  let parameters = (ins
    EnumParameter<TQ_FieldKind>:$kind,
    EnumParameter<TQ_FieldDType>:$dtype,
    "int64_t":$bytes,
    "int64_t":$offset,
    "int64_t":$token_stride);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def TQ_LayoutAttr : TQ_Attr<"Layout", "layout"> {
  let summary = "the byte layout of a paged compressed KV cache";
  let description = [{
    The address of a field of position `i` of physical block `p`, KV head
    `h` is `p·block_stride + h·head_stride + field.offset + i·field.token_stride`.
    `native`: uint8[num_blocks, num_kv_heads, region_bytes], one 16-byte
    aligned plane per field. `vllm`: uint8[num_blocks, block_size,
    num_kv_heads, region_bytes], fields packed in one slot.
    `bytes_per_token_head` is what one token of one KV head costs.
  }];
  let parameters = (ins
    EnumParameter<TQ_LayoutKind>:$kind,
    "int64_t":$block_size,
    "int64_t":$num_kv_heads,
    "int64_t":$region_bytes,
    "int64_t":$head_stride,
    "int64_t":$block_stride,
    "int64_t":$bytes_per_token_head,
    "int64_t":$alignment,
    "::mlir::ArrayAttr":$fields);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The fields, in layout order.
    ::llvm::SmallVector<::mlir::tq::FieldAttr> getFieldList() const;
    /// The field of this kind, or null.
    ::mlir::tq::FieldAttr lookup(::mlir::tq::FieldKind kind) const;
  }];
}

def TQ_TargetAttr : TQ_Attr<"Target", "target"> {
  let summary = "the GPU a bundle is compiled for";
  let description = [{
    `arch` is an NVIDIA SM name (sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100,
    sm_100a, sm_120, sm_120a) or an AMD gfx name (gfx90a, gfx942, gfx950).

    Example: `#tq.target<arch = "sm_90">`
  }];
  let parameters = (ins StringRefParameter<"GPU architecture">:$arch);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isNVIDIA() const { return getArch().starts_with("sm_"); }
    bool isAMD() const { return getArch().starts_with("gfx"); }
  }];
}

def TQ_LaunchAttr : TQ_Attr<"Launch", "launch"> {
  let summary = "the launch plan of a fused kernel";
  let description = [{
    `block_n` tokens per tile, `splits` KV splits per sequence, `warps` per
    CTA, `heads_per_cta` query heads served by one CTA, `stages` tiles in
    flight. `grid` gives the grid's x, y, z extents as products of plan-time
    quantities (`max_batch`, `max_tokens`, `num_kv_heads`, `num_q_heads`,
    `splits`, or a literal); a decode grid must not name a quantity that
    changes with sequence lengths.

    Example: `#tq.launch<block_n = 64, splits = 8, warps = 4, heads_per_cta = 4, stages = 2, grid = ["num_kv_heads", "max_batch", "splits"]>`
  }];
  let parameters = (ins
    "int64_t":$block_n,
    "int64_t":$splits,
    "int64_t":$warps,
    "int64_t":$heads_per_cta,
    DefaultValuedParameter<"int64_t", "2">:$stages,
    "::mlir::ArrayAttr":$grid);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // TQ_ATTRS_TD
