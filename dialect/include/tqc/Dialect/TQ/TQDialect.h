//===- TQDialect.h - The tq dialect -----------------------------*- C++ -*-===//
//
// Everything a user of the tq dialect needs: the dialect, its enums,
// attributes, types and ops.
//
//===----------------------------------------------------------------------===//
#ifndef TQC_DIALECT_TQ_TQDIALECT_H
#define TQC_DIALECT_TQ_TQDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tqc/Dialect/TQ/TQDialect.h.inc"
#include "tqc/Dialect/TQ/TQEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tqc/Dialect/TQ/TQAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tqc/Dialect/TQ/TQTypes.h.inc"

#define GET_OP_CLASSES
#include "tqc/Dialect/TQ/TQOps.h.inc"

#endif // TQC_DIALECT_TQ_TQDIALECT_H
