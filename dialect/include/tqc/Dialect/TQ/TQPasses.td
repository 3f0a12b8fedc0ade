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

#endif // TQ_PASSES_TD
