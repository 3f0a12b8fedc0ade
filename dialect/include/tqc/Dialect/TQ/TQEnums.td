//===- TQEnums.td - Enumerations of the tq dialect ----------*- tablegen -*-===//
#ifndef TQ_ENUMS_TD
#define TQ_ENUMS_TD

include "mlir/IR/EnumAttr.td"

def TQ_RotationKind : I32EnumAttr<"RotationKind", "how a vector is rotated", [
    I32EnumAttrCase<"None", 0, "none">,
    I32EnumAttrCase<"RandomizedHadamard", 1, "randomized_hadamard">,
    I32EnumAttrCase<"PlainHadamard", 2, "plain_hadamard">,
    I32EnumAttrCase<"Dense", 3, "dense">]> {
  let cppNamespace = "::mlir::tq";
  let genSpecializedAttr = 0;
}

def TQ_QuantKind : I32EnumAttr<"QuantKind", "how coordinates become codes", [
    I32EnumAttrCase<"None", 0, "none">,
    I32EnumAttrCase<"LloydMax", 1, "lloyd_max">,
    I32EnumAttrCase<"Uniform", 2, "uniform">,
    I32EnumAttrCase<"Fp8E4M3", 3, "fp8_e4m3">]> {
  let cppNamespace = "::mlir::tq";
  let genSpecializedAttr = 0;
}

def TQ_CodebookDist : I32EnumAttr<"CodebookDist",
    "the coordinate density a Lloyd-Max codebook is optimal for", [
    I32EnumAttrCase<"Beta", 0, "beta">,
    I32EnumAttrCase<"Gaussian", 1, "gaussian">,
    I32EnumAttrCase<"Uniform", 2, "uniform">,
    I32EnumAttrCase<"Vllm", 3, "vllm">]> {
  let cppNamespace = "::mlir::tq";
  let genSpecializedAttr = 0;
}

def TQ_LayoutKind : I32EnumAttr<"LayoutKind", "cache byte layout", [
    I32EnumAttrCase<"Native", 0, "native">,
    I32EnumAttrCase<"VLLM", 1, "vllm">]> {
  let cppNamespace = "::mlir::tq";
  let genSpecializedAttr = 0;
}

def TQ_FieldKind : I32EnumAttr<"FieldKind", "a field of a cache slot", [
    I32EnumAttrCase<"KeyCodes", 0, "key_codes">,
    I32EnumAttrCase<"KeySigns", 1, "key_signs">,
    I32EnumAttrCase<"KeyScale", 2, "key_scale">,
    I32EnumAttrCase<"KeyGamma", 3, "key_gamma">,
    I32EnumAttrCase<"KeyZero", 4, "key_zero">,
    I32EnumAttrCase<"ValueCodes", 5, "value_codes">,
    I32EnumAttrCase<"ValueScale", 6, "value_scale">,
    I32EnumAttrCase<"ValueZero", 7, "value_zero">]> {
  let cppNamespace = "::mlir::tq";
  // An op attribute: printed as a bare keyword.
}

def TQ_FieldDType : I32EnumAttr<"FieldDType", "element type of a stored field", [
    I32EnumAttrCase<"U8", 0, "u8">,
    I32EnumAttrCase<"F16", 1, "f16">,
    I32EnumAttrCase<"BF16", 2, "bf16">,
    I32EnumAttrCase<"Fp8E4M3", 3, "fp8_e4m3">]> {
  let cppNamespace = "::mlir::tq";
  let genSpecializedAttr = 0;
}

def TQ_AttentionMode : I32EnumAttr<"AttentionMode", "attention mode", [
    I32EnumAttrCase<"Decode", 0, "decode">,
    I32EnumAttrCase<"Extend", 1, "extend">]> {
  let cppNamespace = "::mlir::tq";
  // An op attribute: printed as a bare keyword.
}

def TQ_KernelKind : I32EnumAttr<"KernelKind", "what a fused kernel does", [
    I32EnumAttrCase<"Store", 0, "store">,
    I32EnumAttrCase<"Decode", 1, "decode">,
    I32EnumAttrCase<"Combine", 2, "combine">,
    I32EnumAttrCase<"Extend", 3, "extend">]> {
  let cppNamespace = "::mlir::tq";
  // An op attribute: printed as a bare keyword.
}

#endif // TQ_ENUMS_TD
