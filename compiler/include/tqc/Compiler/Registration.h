//===- Registration.h - Dialects and passes every tqc tool loads -*- C++ -*-===//
#ifndef TQC_COMPILER_REGISTRATION_H
#define TQC_COMPILER_REGISTRATION_H

#include "mlir/IR/DialectRegistry.h"

namespace tqc {

/// Registers the dialects tq IR uses (tq, func, arith) into `registry`.
void registerDialects(mlir::DialectRegistry &registry);

/// Registers tq's passes with the global pass registry (for tqc-opt and
/// `--dump-after` names).
void registerPasses();

} // namespace tqc

#endif // TQC_COMPILER_REGISTRATION_H
