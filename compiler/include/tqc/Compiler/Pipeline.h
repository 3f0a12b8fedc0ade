//===- Pipeline.h - From a compile request to fused tq IR -------*- C++ -*-===//
#ifndef TQC_COMPILER_PIPELINE_H
#define TQC_COMPILER_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/raw_ostream.h"

#include "tqc/Dialect/TQ/TQSpec.h"

#include <string>
#include <vector>

namespace tqc {

/// What the user asked for on the command line.
struct CompileRequest {
  std::string arch = "sm_90";
  std::string preset = "k3v4";
  int headDim = 128;
  int numQHeads = 32;
  int numKVHeads = 8;
  int blockSize = 16;
  mlir::tq::SpecOverrides overrides;
  /// Launch-plan choices for tq-plan-launch (its built-in defaults).
  int64_t blockN = 64;
  int64_t splits = 0; ///< 0: chosen per batch bucket
  int64_t smCount = 0; ///< 0: the arch's usual count
  int64_t warps = 4;
  int64_t stages = 2; ///< decode steps in flight per warp (3+: the ring)
  int64_t extendBlockN = 0; ///< extend's key/value tile (0: 32, sm_90a 128/64)
  int64_t extendWarps = 0;   ///< its warps, 16 query rows each (0: 4, sm_90a 8)
};

/// Checks a request before any IR exists, so the CLI can answer with one
/// clear line. Returns "" or the message.
std::string checkRequest(const CompileRequest &request);

/// `module attributes {tq.target = ...} { tq.spec ... }` for a request.
mlir::OwningOpRef<mlir::ModuleOp>
buildRequestModule(mlir::MLIRContext &ctx, const CompileRequest &request);

/// The pipeline's pass arguments, in order (valid `--dump-after` values).
std::vector<std::string> pipelinePassNames();

/// Runs the pipeline on a module holding one tq.spec. With a non-empty
/// `dumpAfter`, prints the IR after that pass to `dump`.
mlir::LogicalResult runPipeline(mlir::ModuleOp module,
                                const CompileRequest &request,
                                const std::string &dumpAfter,
                                llvm::raw_ostream &dump);

} // namespace tqc

#endif // TQC_COMPILER_PIPELINE_H
