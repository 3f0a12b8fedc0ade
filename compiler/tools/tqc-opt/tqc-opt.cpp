//===- tqc-opt.cpp - mlir-opt with the tq dialect and passes --------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

#include "tqc/Compiler/Registration.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses(); // canonicalize, cse, ... for tests
  tqc::registerPasses();
  mlir::DialectRegistry registry;
  tqc::registerDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tqc optimizer driver\n", registry));
}
