//===- TQBase.td - The tq dialect ---------------------------*- tablegen -*-===//
#ifndef TQ_BASE_TD
#define TQ_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def TQ_Dialect : Dialect {
  let name = "tq";
  let cppNamespace = "::mlir::tq";
  let summary = "TurboQuant KV-cache compression stages";
  let description = [{
    The `tq` dialect describes what a TurboQuant-compressed KV cache computes,
    one token-head vector at a time: rotate, normalize, quantize, pack, write
    into a paged cache, and attention that reads it back. Passes fuse the
    stages into GPU kernels (`tq.kernel`) and choose their launch plans; the
    back end instantiates device templates from the result.

    Every decision a pass makes (expanded recipe, cache layout, rotation
    placement, fusion, launch plan) is an attribute or an op in the IR, so it
    can be printed with `tqc --emit=mlir` / `--dump-after=<pass>` and tested.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::arith::ArithDialect"];
}

class TQ_Op<string mnemonic, list<Trait> traits = []>
    : Op<TQ_Dialect, mnemonic, traits>;

class TQ_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<TQ_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

class TQ_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<TQ_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

#endif // TQ_BASE_TD
