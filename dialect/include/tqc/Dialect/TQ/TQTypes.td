//===- TQTypes.td - Types of the tq dialect -----------------*- tablegen -*-===//
#ifndef TQ_TYPES_TD
#define TQ_TYPES_TD

include "tqc/Dialect/TQ/TQBase.td"

def TQ_CacheType : TQ_Type<"Cache", "cache"> {
  let summary = "a paged, compressed KV cache";
  let description = [{
    The KV cache of one layer: pages of `block_size` tokens, `num_kv_heads`
    heads of `head_dim` coordinates each. Its bytes follow the module's
    `tq.layout` once `tq-assign-layout` has run. Tokens are addressed by a
    slot (`block·block_size + position`, from the engine's slot mapping) on
    write and by a sequence position (through the block table) on read.

    Example: `!tq.cache<head_dim = 128, num_kv_heads = 8, block_size = 16>`
  }];
  let parameters = (ins "int64_t":$head_dim, "int64_t":$num_kv_heads,
                        "int64_t":$block_size);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // TQ_TYPES_TD
