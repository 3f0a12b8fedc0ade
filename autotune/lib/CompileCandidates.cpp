//===- CompileCandidates.cpp - Candidate plans into bundles ---------------===//
//
// The MLIR part (a few milliseconds) runs under one lock: pass construction
// registers command-line style options, which is not meant to race. NVRTC
// and nvJitLink, where the time goes, run concurrently on separate
// programs.
//
//===----------------------------------------------------------------------===//
#include "tqc/Autotune/CompileCandidates.h"

#include "tqc/Compiler/Bundle.h"
#include "tqc/Compiler/CudaToolchain.h"
#include "tqc/Compiler/EmitCuda.h"
#include "tqc/Compiler/KernelConfig.h"
#include "tqc/Compiler/Registration.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <thread>

namespace tqc::autotune {

namespace {

std::mutex &mlirLock() {
  static std::mutex m;
  return m;
}

std::string firstLine(const std::string &text) {
  size_t nl = text.find('\n');
  std::string line = text.substr(0, nl);
  // NVRTC puts the interesting line after its banner.
  if (nl != std::string::npos && line.find("NVRTC failed") != std::string::npos) {
    size_t next = text.find('\n', nl + 1);
    line += " " + text.substr(nl + 1, next == std::string::npos
                                          ? std::string::npos
                                          : next - nl - 1);
  }
  return line;
}

/// The request's module (with `prepare` applied, e.g. the candidates' plans)
/// through the pipeline, read back as a KernelConfig; on failure `error`
/// says which step refused it, with the diagnostics. MLIR runs one module
/// at a time here (mlirLock).
std::optional<KernelConfig>
pipelineConfig(const CompileRequest &request,
               const std::function<void(mlir::ModuleOp)> &prepare,
               std::string &error) {
  std::lock_guard<std::mutex> lock(mlirLock());
  mlir::DialectRegistry registry;
  registerDialects(registry);
  mlir::MLIRContext ctx(registry, mlir::MLIRContext::Threading::DISABLED);
  ctx.printOpOnDiagnostic(false);
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
    diagnostics += (diagnostics.empty() ? "" : "; ") + d.str();
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module = buildRequestModule(ctx, request);
  prepare(*module);
  std::string ignored;
  llvm::raw_string_ostream dump(ignored);
  if (mlir::failed(runPipeline(*module, request, "", dump))) {
    error = "the pipeline failed: " + diagnostics;
    return std::nullopt;
  }
  mlir::FailureOr<KernelConfig> c = extractKernelConfig(*module);
  if (mlir::failed(c)) {
    error = "the back end refused the plans: " + diagnostics;
    return std::nullopt;
  }
  return *c;
}

/// Runs `work(i)` for i in [0, n) on up to `jobs` threads.
void parallelFor(size_t n, int jobs, const std::function<void(size_t)> &work) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < n; i = next++)
      work(i);
  };
  size_t threads = std::min<size_t>(n, size_t(std::max(jobs, 1)));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t)
    pool.emplace_back(worker);
  worker();
  for (std::thread &t : pool)
    t.join();
}

} // namespace

CandidateBundle compileBundle(const CompileRequest &request,
                              const std::vector<Candidate> &all,
                              const std::vector<int> &indices,
                              const std::string &version, std::string &error) {
  CandidateBundle out;
  out.candidates = indices;
  std::optional<KernelConfig> config = pipelineConfig(
      request,
      [&](mlir::ModuleOp module) {
        mlir::Builder b(module.getContext());
        llvm::SmallVector<mlir::Attribute> plans;
        for (size_t i = 0; i < indices.size(); ++i) {
          const Candidate &c = all.at(size_t(indices[i]));
          plans.push_back(b.getDictionaryAttr(
              {b.getNamedAttr("bucket", b.getI64IntegerAttr(int64_t(i) + 1)),
               b.getNamedAttr("block_n", b.getI64IntegerAttr(c.blockN)),
               b.getNamedAttr("splits", b.getI64IntegerAttr(c.splits)),
               b.getNamedAttr("warps", b.getI64IntegerAttr(c.warps)),
               b.getNamedAttr("heads_per_cta",
                              b.getI64IntegerAttr(c.headsPerCta)),
               b.getNamedAttr("stages", b.getI64IntegerAttr(c.stages))}));
        }
        module->setAttr("tq.tuned_plans", b.getArrayAttr(plans));
        module->setAttr("tq.tuned_source",
                        b.getStringAttr("autotune candidates"));
      },
      error);
  if (!config)
    return out;
  // Candidates time decode only: no extend kernel to compile per bundle.
  config->extend.present = false;
  config->extendNote = "autotune candidate (decode only)";
  std::string source = emitCudaSource(*config, version);
  KernelBuild build = buildCuda(source, config->arch, /*ptxOnly=*/false);
  if (!build.error.empty()) {
    error = build.error;
    return out;
  }
  if (std::string err = checkSharedMemory(*config, build); !err.empty()) {
    error = err;
    return out;
  }
  out.manifest = manifestJson(*config, build, version);
  out.cubin = std::move(build.image);
  out.ptx = std::move(build.ptx);
  return out;
}

bool recipeTakesCopyRing(const CompileRequest &request) {
  CompileRequest probe = request;
  probe.stages = 3;
  probe.splits = 1;
  std::string ignored;
  std::optional<KernelConfig> c =
      pipelineConfig(probe, [](mlir::ModuleOp) {}, ignored);
  return c && !c->plans.empty() &&
         decodeRingBytes(*c, c->plans.front().decode) > 0;
}

CompiledCandidates
compileCandidates(const CompileRequest &request,
                  const std::vector<Candidate> &candidates, int jobs,
                  const std::string &version,
                  const std::function<void(const std::string &)> &log) {
  CompiledCandidates result;
  const size_t n = candidates.size();
  if (n == 0) {
    result.error = "no candidates to compile";
    return result;
  }
  // Round-robin, so every bundle gets a similar mix of split counts and tile
  // sizes, and so similar compile times.
  size_t chunks = std::min<size_t>(n, size_t(std::max(jobs, 1)));
  std::vector<std::vector<int>> parts(chunks);
  for (size_t i = 0; i < n; ++i)
    parts[i % chunks].push_back(int(i));
  std::vector<CandidateBundle> built(chunks);
  std::vector<std::string> errors(chunks);
  parallelFor(chunks, jobs, [&](size_t k) {
    built[k] = compileBundle(request, candidates, parts[k], version, errors[k]);
  });

  std::vector<int> retry;
  for (size_t k = 0; k < chunks; ++k) {
    if (errors[k].empty()) {
      result.bundles.push_back(std::move(built[k]));
      continue;
    }
    if (log)
      log("a bundle of " + std::to_string(parts[k].size()) +
          " candidates failed to compile (" + firstLine(errors[k]) +
          "); compiling them one at a time");
    retry.insert(retry.end(), parts[k].begin(), parts[k].end());
  }
  if (!retry.empty() && (retry.size() > 1 || chunks > 1)) {
    std::vector<CandidateBundle> singles(retry.size());
    std::vector<std::string> singleErrors(retry.size());
    parallelFor(retry.size(), jobs, [&](size_t i) {
      singles[i] = compileBundle(request, candidates, {retry[i]}, version,
                                 singleErrors[i]);
    });
    for (size_t i = 0; i < retry.size(); ++i) {
      if (singleErrors[i].empty())
        result.bundles.push_back(std::move(singles[i]));
      else
        result.dropped.push_back({retry[i], firstLine(singleErrors[i])});
    }
  } else if (!retry.empty()) {
    result.dropped.push_back({retry[0], firstLine(errors[0])});
  }
  if (result.bundles.empty())
    result.error = "no candidate compiled; the first error: " +
                   (result.dropped.empty() ? std::string("unknown")
                                           : result.dropped.front().second);
  return result;
}

} // namespace tqc::autotune
