//===- TQPasses.h - Passes of the tq dialect --------------------*- C++ -*-===//
#ifndef TQC_DIALECT_TQ_TQPASSES_H
#define TQC_DIALECT_TQ_TQPASSES_H

#include "tqc/Dialect/TQ/TQDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tq {

#define GEN_PASS_DECL
#include "tqc/Dialect/TQ/TQPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "tqc/Dialect/TQ/TQPasses.h.inc"

} // namespace mlir::tq

#endif // TQC_DIALECT_TQ_TQPASSES_H
