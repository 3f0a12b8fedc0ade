//===- Registration.cpp - Dialects and passes every tqc tool loads --------===//

#include "tqc/Compiler/Registration.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "tqc/Dialect/TQ/TQDialect.h"
#include "tqc/Dialect/TQ/TQPasses.h"

void tqc::registerDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::tq::TQDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect>();
}

void tqc::registerPasses() { mlir::tq::registerTQPasses(); }
