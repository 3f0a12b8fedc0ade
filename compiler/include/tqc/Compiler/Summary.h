//===- Summary.h - Human-readable report of a compiled module ---*- C++ -*-===//
#ifndef TQC_COMPILER_SUMMARY_H
#define TQC_COMPILER_SUMMARY_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace tqc {

/// Prints the request, the cache layout (tensor shape, bytes per token-head,
/// each field's dtype / offset / stride) and the ratio to bf16.
void printLayoutSummary(mlir::ModuleOp module, llvm::raw_ostream &os);

} // namespace tqc

#endif // TQC_COMPILER_SUMMARY_H
