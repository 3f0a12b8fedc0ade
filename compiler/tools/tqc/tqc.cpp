//===- tqc.cpp - The tqc compiler driver ----------------------------------===//
//
//   tqc --arch sm_90 --preset k3v4 [-o DIR]
//
// Builds a tq.spec from the flags (or reads one from a .mlir file), runs the
// pipeline and prints or writes the result. Every user error is one line on
// stderr and a non-zero exit; nothing a user types may crash it.
//
//===----------------------------------------------------------------------===//

#include "tqc/Compiler/EmitCuda.h"
#include "tqc/Compiler/Pipeline.h"
#include "tqc/Compiler/Registration.h"
#include "tqc/Compiler/Bundle.h"
#include "tqc/Compiler/Summary.h"
#include "tqc/Compiler/Toolchain.h"
#include "tqc/Compiler/TuningDb.h"
#include "tqc/Autotune/Autotune.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include "tqc/numerics/codebook.h"

#include <cmath>
#include <cstdlib>
#include "tqc/numerics/layout.h"

#ifndef TQC_VERSION
#define TQC_VERSION "unknown"
#endif

using namespace llvm;

namespace {

cl::OptionCategory tqcCategory("tqc options");

cl::opt<std::string> inputFile(cl::Positional, cl::init(""),
                               cl::desc("[input.mlir]  a module holding a "
                                        "tq.spec (instead of the flags)"),
                               cl::cat(tqcCategory));
cl::opt<std::string> arch("arch", cl::init("sm_90"),
                          cl::desc("GPU architecture (sm_80, sm_86, sm_89, "
                                   "sm_90, sm_100, sm_120, gfx942, ...)"),
                          cl::value_desc("arch"), cl::cat(tqcCategory));
cl::opt<std::string> preset("preset", cl::init("k3v4"),
                            cl::desc("compression preset (see --list-presets)"),
                            cl::value_desc("name"), cl::cat(tqcCategory));
cl::opt<int> headDim("head-dim", cl::init(128), cl::desc("head dimension"),
                     cl::cat(tqcCategory));
cl::opt<int> numQHeads("num-q-heads", cl::init(32),
                       cl::desc("query heads per layer"), cl::cat(tqcCategory));
cl::opt<int> numKVHeads("num-kv-heads", cl::init(8),
                        cl::desc("KV heads per layer"), cl::cat(tqcCategory));
cl::opt<int> blockSize("block-size", cl::init(16),
                       cl::desc("tokens per cache page"), cl::cat(tqcCategory));
cl::opt<int> kBits("k-bits", cl::desc("override the key's bits (1..8)"),
                   cl::cat(tqcCategory));
cl::opt<int> vBits("v-bits", cl::desc("override the value's bits (1..8)"),
                   cl::cat(tqcCategory));
cl::opt<std::string>
    kQuant("k-quant",
           cl::desc("override the key quantizer: lloyd_max, uniform, "
                    "fp8_e4m3, none"),
           cl::cat(tqcCategory));
cl::opt<std::string>
    vQuant("v-quant",
           cl::desc("override the value quantizer: lloyd_max, uniform, "
                    "fp8_e4m3, none"),
           cl::cat(tqcCategory));
cl::opt<int> rotationRounds("rotation-rounds",
                            cl::desc("randomized Hadamard rounds (1..4)"),
                            cl::cat(tqcCategory));
cl::opt<bool> qjl("qjl",
                  cl::desc("keys as TurboQuant_prod: (b-1)-bit codebook plus "
                           "a 1-bit QJL residual sketch"),
                  cl::cat(tqcCategory));
cl::opt<long long> seed("seed", cl::desc("seed of the rotations and sketch"),
                        cl::cat(tqcCategory));
cl::opt<std::string> layout("layout", cl::desc("cache layout: native, vllm"),
                            cl::cat(tqcCategory));
cl::opt<std::string> emit(
    "emit", cl::init("bundle"),
    cl::desc("what to produce: bundle (directory: manifest, code object(s), "
             "C header; the default), cubin, ptx, cuda (NVIDIA), hsaco, hip "
             "(AMD), mlir (fused IR), summary (IR and cache layout)"),
    cl::cat(tqcCategory));
cl::opt<int> planBlockN("block-n", cl::init(64),
                        cl::desc("tokens per decode tile (multiple of 16)"),
                        cl::cat(tqcCategory));
cl::opt<int> planSplits("splits", cl::init(0),
                        cl::desc("KV splits per sequence for every batch "
                                 "bucket (1..64); default: chosen per bucket"),
                        cl::cat(tqcCategory));
cl::opt<int> planSmCount("sm-count", cl::init(0),
                         cl::desc("multiprocessors of the target GPU (for "
                                  "the split choice); default: the arch's "
                                  "usual count"),
                         cl::cat(tqcCategory));
cl::opt<int> planWarps("warps", cl::init(4),
                       cl::desc("warps per decode CTA (1..16)"),
                       cl::cat(tqcCategory));
cl::opt<int> planStages(
    "stages", cl::init(2),
    cl::desc("16-token steps in flight per decode warp (1..8): 1 loads each "
             "step when it is used, 2 double-buffers registers, 3 or more fill "
             "a shared-memory ring with bulk copies (slots of two steps: odd "
             "counts round up; sm_90+, native layout, "
             "16-token pages, recipes whose step fits the prefetch registers, "
             "e.g. every compressed preset at head_dim 128; elsewhere as 2; the "
             "plan listing says which)"),
    cl::cat(tqcCategory));
cl::opt<int> planExtendBlockN(
    "extend-block-n", cl::init(0),
    cl::desc("tokens per key/value tile of the extend kernel (16..128, a "
             "multiple of 16; default 32, on sm_90a 128 with 8 warps, 64 with "
             "4)"),
    cl::cat(tqcCategory));
cl::opt<int> planExtendWarps(
    "extend-warps", cl::init(0),
    cl::desc("warps per extend CTA, 16 query rows each (1..8; default 4, "
             "on sm_90a 8: two warpgroups of the wgmma kernel)"),
    cl::cat(tqcCategory));
cl::opt<std::string> tuningDb(
    "tuning-db",
    cl::desc("compile with the launch plans a tuning database (tqc "
             "autotune) holds for this recipe; default: the database "
             "shipped for the arch (sm_90: measured on an H200), if any; "
             "'none': tq-plan-launch's built-in plans"),
    cl::value_desc("file"), cl::cat(tqcCategory));
cl::opt<std::string> tuningGpu(
    "gpu",
    cl::desc("with --tuning-db: the GPU whose plans to use, when the "
             "database has several for the arch (e.g. \"NVIDIA H200\")"),
    cl::value_desc("name"), cl::cat(tqcCategory));
cl::opt<std::string> dumpAfter("dump-after",
                               cl::desc("print the IR after this pass"),
                               cl::value_desc("pass"), cl::cat(tqcCategory));
cl::opt<std::string> outputDir("o", cl::desc("output directory"),
                               cl::value_desc("dir"), cl::cat(tqcCategory));
cl::opt<bool> listPresets("list-presets",
                          cl::desc("list the presets and their sizes"),
                          cl::cat(tqcCategory));

// `tqc codebook`: print a codebook the kernels would use.
cl::SubCommand codebookCmd("codebook",
                           "print a scalar codebook: levels, boundaries, D_mse");
cl::OptionCategory codebookCategory("tqc codebook options");
cl::opt<int> cbHeadDim("head-dim", cl::init(128),
                       cl::desc("head dimension (3..4096)"),
                       cl::sub(codebookCmd), cl::cat(codebookCategory));
cl::opt<int> cbBits("bits", cl::init(3), cl::desc("bits per coordinate (1..8)"),
                    cl::sub(codebookCmd), cl::cat(codebookCategory));
cl::opt<std::string>
    cbDist("dist", cl::init("beta"),
           cl::desc("beta (exact coordinate density), gaussian (N(0, 1/D)), "
                    "uniform (evenly spaced), vllm (vLLM's fp32 table)"),
           cl::sub(codebookCmd), cl::cat(codebookCategory));

// `tqc autotune`: time candidate launch plans on the local GPU and write a
// tuning database (autotune/, DESIGN.md "Autotuner").
cl::SubCommand autotuneCmd(
    "autotune",
    "time launch plans on the local GPU; write a tuning database (--tuning-db)");
cl::OptionCategory autotuneCategory("tqc autotune options");
cl::opt<std::string> atArch("arch", cl::init("native"),
                            cl::desc("native (the device's compute "
                                     "capability) or sm_XX"),
                            cl::sub(autotuneCmd), cl::cat(autotuneCategory));
cl::opt<std::string> atPreset("preset", cl::init("k3v4"),
                              cl::desc("compression preset"),
                              cl::sub(autotuneCmd), cl::cat(autotuneCategory));
cl::opt<int> atHeadDim("head-dim", cl::init(128), cl::desc("head dimension"),
                       cl::sub(autotuneCmd), cl::cat(autotuneCategory));
cl::opt<int> atNumQHeads("num-q-heads", cl::init(32),
                         cl::desc("query heads per layer"),
                         cl::sub(autotuneCmd), cl::cat(autotuneCategory));
cl::opt<int> atNumKVHeads("num-kv-heads", cl::init(8),
                          cl::desc("KV heads per layer"), cl::sub(autotuneCmd),
                          cl::cat(autotuneCategory));
cl::opt<int> atBlockSize("block-size", cl::init(16),
                         cl::desc("tokens per cache page"),
                         cl::sub(autotuneCmd), cl::cat(autotuneCategory));
cl::opt<std::string> atBuckets("buckets", cl::init("1,8,32,64"),
                               cl::desc("batch buckets to tune (max_batch "
                                        "values)"),
                               cl::value_desc("b1,b2,..."),
                               cl::sub(autotuneCmd), cl::cat(autotuneCategory));
cl::opt<std::string> atContexts(
    "contexts",
    cl::desc("context lengths, log-uniform on MIN:MAX (default 256:131072), "
             "or one length"),
    cl::value_desc("min:max"), cl::sub(autotuneCmd), cl::cat(autotuneCategory));
cl::opt<std::string> atContextHist(
    "context-hist",
    cl::desc("context lengths from a file of 'length weight' lines"),
    cl::value_desc("file"), cl::sub(autotuneCmd), cl::cat(autotuneCategory));
cl::opt<int> atContextPoints("context-points", cl::init(5),
                             cl::desc("lengths measured (1..64)"),
                             cl::sub(autotuneCmd), cl::cat(autotuneCategory));
cl::opt<std::string> atReportLengths(
    "report-lengths",
    cl::desc("lengths also timed for the report and timings.csv, with no "
             "weight in the choice (a candidate that fails at one is still "
             "dropped)"),
    cl::value_desc("l1,l2,..."), cl::sub(autotuneCmd),
    cl::cat(autotuneCategory));
cl::opt<std::string> atBlockN("block-n-candidates",
                              cl::desc("BLOCK_N values (default 32,64,128)"),
                              cl::value_desc("list"), cl::sub(autotuneCmd),
                              cl::cat(autotuneCategory));
cl::opt<std::string> atSplits("split-candidates",
                              cl::desc("KV split counts (default "
                                       "1,2,4,8,16,32)"),
                              cl::value_desc("list"), cl::sub(autotuneCmd),
                              cl::cat(autotuneCategory));
cl::opt<std::string> atWarps("warps-candidates",
                             cl::desc("warps per CTA (default 4,8)"),
                             cl::value_desc("list"), cl::sub(autotuneCmd),
                             cl::cat(autotuneCategory));
cl::opt<std::string> atHeads("heads-candidates",
                             cl::desc("query heads per CTA (default: the "
                                      "GQA group, up to 8, and its half)"),
                             cl::value_desc("list"), cl::sub(autotuneCmd),
                             cl::cat(autotuneCategory));
cl::opt<std::string> atStages("stages-candidates",
                              cl::desc("pipeline stages (default 2; 2,3 where the recipe takes the copy ring)"),
                              cl::value_desc("list"), cl::sub(autotuneCmd),
                              cl::cat(autotuneCategory));
cl::opt<int> atReps("reps", cl::init(30),
                    cl::desc("timed graph replays per measurement (median)"),
                    cl::sub(autotuneCmd), cl::cat(autotuneCategory));
cl::opt<int> atDevice("gpu-device", cl::init(0),
                      cl::desc("CUDA device ordinal"), cl::sub(autotuneCmd),
                      cl::cat(autotuneCategory));
cl::opt<int> atJobs("jobs", cl::init(0),
                    cl::desc("compile threads (default: CPUs, at most 16)"),
                    cl::sub(autotuneCmd), cl::cat(autotuneCategory));
cl::opt<bool> atNoPrune("no-prune",
                        cl::desc("time every candidate at every length "
                                 "(no early drop of provably slower ones)"),
                        cl::sub(autotuneCmd), cl::cat(autotuneCategory));
cl::opt<std::string> atLayout("layout", cl::init("native"),
                              cl::desc("cache layout of the tuned bundles: "
                                       "native, vllm"),
                              cl::sub(autotuneCmd), cl::cat(autotuneCategory));
cl::opt<bool> atIsolate("isolate",
                         cl::desc("time each decode after a separator node "
                                  "(as between an engine's other kernels), "
                                  "not back to back"),
                         cl::sub(autotuneCmd), cl::cat(autotuneCategory));
cl::opt<std::string> atOutput("o",
                              cl::desc("the tuning database to write (an "
                                       "existing one is merged into)"),
                              cl::value_desc("file"), cl::sub(autotuneCmd),
                              cl::cat(autotuneCategory));
cl::opt<std::string> atReport("report",
                              cl::desc("write report.md, timings.csv and "
                                       "heat maps (SVG) here"),
                              cl::value_desc("dir"), cl::sub(autotuneCmd),
                              cl::cat(autotuneCategory));

int fail(const Twine &message) {
  errs() << "tqc: error: " << message << "\n";
  return 1;
}

/// One line per diagnostic: "tqc: error: file:line:col: message".
void printDiagnostic(mlir::Diagnostic &diag) {
  raw_ostream &os = errs();
  os << "tqc: ";
  switch (diag.getSeverity()) {
  case mlir::DiagnosticSeverity::Error: os << "error: "; break;
  case mlir::DiagnosticSeverity::Warning: os << "warning: "; break;
  default: os << "note: "; break;
  }
  if (auto fl = dyn_cast<mlir::FileLineColLoc>(diag.getLocation()))
    os << fl.getFilename().getValue() << ":" << fl.getLine() << ":" << fl.getColumn()
       << ": ";
  std::string msg = diag.str();
  // Keep it one line even when a message embeds IR.
  std::replace(msg.begin(), msg.end(), '\n', ' ');
  os << msg << "\n";
}

int printPresets() {
  outs() << format("%-6s %-22s %8s %7s  %s | %s\n", "preset", "alias",
                   "bytes", "vs bf16", "key", "value");
  for (const tqc::PresetInfo &p : tqc::presets()) {
    std::optional<tqc::CacheSpec> s =
        tqc::presetSpec(p.name, headDim, numQHeads, numKVHeads, blockSize);
    std::string err = s ? tqc::validate(*s) : std::string("unknown");
    if (!err.empty()) {
      outs() << format("%-6s %-22s %8s %7s  %s\n", p.name, p.alias, "-", "-",
                       ("(not at this geometry: " + err + ")").c_str());
      continue;
    }
    int64_t bytes = tqc::computeLayout(*s).bytesPerTokenHead();
    outs() << format("%-6s %-22s %8lld %6.2fx  %s | %s\n", p.name, p.alias,
                     (long long)bytes, 4.0 * headDim / double(bytes), p.key,
                     p.value);
  }
  outs() << "bytes: per token per KV head at head_dim " << headDim << "\n";
  return 0;
}

int printCodebook() {
  if (cbHeadDim < 3 || cbHeadDim > 4096)
    return fail("head_dim " + Twine(int(cbHeadDim)) +
                " is out of range; accepted: 3..4096");
  if (cbBits < 1 || cbBits > 8)
    return fail("bits " + Twine(int(cbBits)) +
                " is out of range; accepted: 1..8");
  std::optional<tqc::CodebookDist> dist = tqc::parseCodebookDist(cbDist);
  if (!dist)
    return fail("unknown dist '" + cbDist +
                "'; accepted: beta, gaussian, uniform, vllm");
  if (*dist == tqc::CodebookDist::Vllm &&
      !tqc::vllmCodebookExists(cbHeadDim, cbBits))
    return fail("vLLM's codebook has no head_dim " + Twine(int(cbHeadDim)) +
                ", " + Twine(int(cbBits)) +
                " bits; accepted: head_dim 64, 128, 256 with 3 or 4 bits");
  std::shared_ptr<const tqc::Codebook> book =
      tqc::sharedCodebook(cbHeadDim, cbBits, *dist);
  outs() << "codebook: head_dim " << cbHeadDim << ", " << cbBits
         << " bits, dist " << tqc::toString(*dist) << "\n";
  auto list = [](const char *name, const std::vector<double> &v) {
    outs() << name << " (" << v.size() << "):";
    for (double x : v)
      outs() << format(" %.9f", x);
    outs() << "\n";
  };
  list("levels", book->levels);
  list("boundaries", book->boundaries);
  outs() << format("levels x sqrt(D):", 0);
  for (double x : book->levels)
    outs() << format(" %.5f", x * std::sqrt(double(cbHeadDim)));
  outs() << "\n";
  outs() << format("D_mse: %.6f", book->dmse)
         << "  (E||x - x~||^2 for a unit vector, random rotation)\n";
  return 0;
}

/// `tqc autotune`: options into tqc::autotune::runAutotune.
int runAutotuneCommand() {
  tqc::autotune::AutotuneOptions o;
  o.request.arch = atArch;
  o.request.preset = atPreset;
  o.request.headDim = atHeadDim;
  o.request.numQHeads = atNumQHeads;
  o.request.numKVHeads = atNumKVHeads;
  o.request.blockSize = atBlockSize;
  if (atLayout != "native" && atLayout != "vllm")
    return fail("unknown layout '" + atLayout + "'; accepted: native, vllm");
  if (atLayout != "native")
    o.request.overrides.layout = atLayout;
  std::string err;
  if (!tqc::autotune::parseIntList(atBuckets, "--buckets", o.buckets, err))
    return fail(err);
  struct ListOption {
    cl::opt<std::string> &opt;
    const char *name;
    std::vector<int64_t> &list;
  } lists[] = {{atBlockN, "--block-n-candidates", o.space.blockN},
               {atSplits, "--split-candidates", o.space.splits},
               {atWarps, "--warps-candidates", o.space.warps},
               {atHeads, "--heads-candidates", o.space.headsPerCta},
               {atStages, "--stages-candidates", o.space.stages},
               {atReportLengths, "--report-lengths", o.reportLengths}};
  for (ListOption &l : lists)
    if (l.opt.getNumOccurrences() &&
        !tqc::autotune::parseIntList(l.opt, l.name, l.list, err))
      return fail(err);
  o.contexts = atContexts;
  o.contextHistogram = atContextHist;
  o.contextPoints = atContextPoints;
  o.reps = atReps;
  o.device = atDevice;
  o.jobs = atJobs;
  o.prune = !atNoPrune;
  o.isolate = atIsolate;
  o.output = atOutput;
  o.reportDir = atReport;
  o.version = TQC_VERSION;
  o.log = [](const std::string &line) {
    errs() << "tqc autotune: " << line << "\n";
    errs().flush();
  };
  o.out = [](const std::string &line) {
    outs() << line << "\n";
    outs().flush();
  };
  err = tqc::autotune::runAutotune(o);
  if (!err.empty())
    return fail(err);
  return 0;
}

tqc::CompileRequest requestFromFlags() {
  tqc::CompileRequest r;
  r.arch = arch;
  r.preset = preset;
  r.headDim = headDim;
  r.numQHeads = numQHeads;
  r.numKVHeads = numKVHeads;
  r.blockSize = blockSize;
  mlir::tq::SpecOverrides &o = r.overrides;
  if (kBits.getNumOccurrences())
    o.kBits = kBits;
  if (vBits.getNumOccurrences())
    o.vBits = vBits;
  if (rotationRounds.getNumOccurrences())
    o.rotationRounds = rotationRounds;
  if (seed.getNumOccurrences())
    o.seed = seed;
  if (kQuant.getNumOccurrences())
    o.kQuant = kQuant;
  if (vQuant.getNumOccurrences())
    o.vQuant = vQuant;
  if (layout.getNumOccurrences())
    o.layout = layout;
  o.qjl = qjl;
  r.blockN = planBlockN;
  r.splits = planSplits;
  r.warps = planWarps;
  r.stages = planStages;
  r.smCount = planSmCount;
  r.extendBlockN = planExtendBlockN;
  r.extendWarps = planExtendWarps;
  return r;
}

/// Writes `text` to `dir/name`, creating the directory.
bool writeFile(StringRef dir, StringRef name, StringRef text,
               bool announce = true) {
  if (std::error_code ec = sys::fs::create_directories(dir)) {
    fail("cannot create directory '" + dir + "': " + ec.message());
    return false;
  }
  SmallString<256> path(dir);
  sys::path::append(path, name);
  std::error_code ec;
  ToolOutputFile out(path, ec, sys::fs::OF_Text);
  if (ec) {
    fail("cannot write '" + path + "': " + ec.message());
    return false;
  }
  out.os() << text;
  out.keep();
  if (announce)
    outs() << "wrote " << path << " (" << text.size() << " bytes)\n";
  return true;
}

/// The tuning database shipped for `arch` (autotune/databases/*-<arch>.json,
/// installed under share/tqc/tuning), or "".
std::string shippedTuningDb(const std::string &arch, const char *argv0) {
  SmallVector<std::string, 2> dirs;
  std::string exe = sys::fs::getMainExecutable(argv0, (void *)&fail);
  if (!exe.empty()) {
    SmallString<256> dir(sys::path::parent_path(sys::path::parent_path(exe)));
    sys::path::append(dir, "share", "tqc", "tuning");
    dirs.push_back(dir.str().str());
  }
#ifdef TQC_TUNING_DIR
  dirs.push_back(TQC_TUNING_DIR);
#endif
  for (const std::string &dir : dirs) {
    std::error_code ec;
    for (sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
         it.increment(ec))
      if (StringRef(it->path()).ends_with("-" + arch + ".json"))
        return it->path();
  }
  return {};
}

/// Looks the request up in the tuning database at `path` and records the
/// plans on the module (`tq.tuned_plans`, read by tq-plan-launch). A shipped
/// database without plans for the recipe is silent. False after an error.
bool applyTuningDb(mlir::MLIRContext &ctx, mlir::ModuleOp module,
                   const tqc::CompileRequest &r, const std::string &path,
                   bool shipped) {
  tqc::TuningQuery q;
  q.arch = r.arch;
  q.preset = r.preset;
  if (std::optional<std::string> canonical = tqc::canonicalPreset(r.preset))
    q.preset = *canonical;
  q.headDim = r.headDim;
  q.gqaRatio = r.numKVHeads ? r.numQHeads / r.numKVHeads : 0;
  if (r.overrides.layout)
    q.layout = *r.overrides.layout;
  q.gpu = tuningGpu;
  tqc::TuningLookup found = tqc::lookupTuningDb(path, q);
  if (!found.error.empty()) {
    fail(found.error);
    return false;
  }
  if (!shipped)
    for (const std::string &w : found.warnings)
      errs() << "tqc: warning: " << w << "\n";
  if (found.plans.empty())
    return true;
  mlir::Builder b(&ctx);
  SmallVector<mlir::Attribute> plans;
  for (const tqc::TunedPlan &p : found.plans)
    plans.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("bucket", b.getI64IntegerAttr(p.bucket)),
         b.getNamedAttr("block_n", b.getI64IntegerAttr(p.blockN)),
         b.getNamedAttr("splits", b.getI64IntegerAttr(p.splits)),
         b.getNamedAttr("warps", b.getI64IntegerAttr(p.warps)),
         b.getNamedAttr("heads_per_cta", b.getI64IntegerAttr(p.headsPerCta)),
         b.getNamedAttr("stages", b.getI64IntegerAttr(p.stages))}));
  module->setAttr("tq.tuned_plans", b.getArrayAttr(plans));
  module->setAttr("tq.tuned_source",
                  b.getStringAttr("tuning database " +
                                  sys::path::filename(path).str() + " (" +
                                  found.gpu + ", " +
                                  std::to_string(found.smCount) + " SMs)"));
  return true;
}

/// The kernels' resource report, one line each.
void printKernels(const std::vector<tqc::KernelEntry> &kernels,
                  const tqc::KernelBuild &build) {
  outs() << "kernels (bf16; the f16 ones are alike):\n";
  for (const tqc::KernelEntry &k : kernels) {
    if (k.dtype != "bf16")
      continue;
    auto it = build.resources.find(k.symbol);
    outs() << format("  %-20s %-8s block %4d  grid [%s]", k.symbol.c_str(),
                     k.kind.c_str(), k.blockThreads,
                     join(k.grid, ", ").c_str());
    if (it != build.resources.end() && it->second.sgprs >= 0)
      outs() << format("  %3d VGPRs, %3d SGPRs, %5d B LDS, %d B scratch",
                       it->second.registers, it->second.sgprs,
                       it->second.sharedBytes, it->second.stackBytes);
    else if (it != build.resources.end())
      outs() << format("  %3d regs, %5d B smem, %d B stack, %d B spill",
                       it->second.registers, it->second.sharedBytes,
                       it->second.stackBytes,
                       it->second.spillStoreBytes + it->second.spillLoadBytes);
    outs() << "\n";
  }
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions({&tqcCategory, &codebookCategory, &autotuneCategory});
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "tqc " << TQC_VERSION << " (LLVM/MLIR " << LLVM_VERSION_STRING
       << ")\n";
  });
  cl::ParseCommandLineOptions(
      argc, argv,
      "tqc - the TurboQuant kernel compiler\n\n"
      "  tqc --arch sm_90 --preset k3v4 -o out/\n"
      "  tqc codebook --head-dim 128 --bits 3 [--dist beta|gaussian|uniform|vllm]\n"
      "  tqc autotune --arch native --preset k3v4 --buckets 1,8,32,64 -o "
      "tune.json [--report DIR]\n");

  if (codebookCmd)
    return printCodebook();
  // Developer template knobs (EmitCuda.h): checked before any compile.
  std::string defineError;
  auto defines = tqc::deviceDefinesFromEnv(defineError);
  if (!defineError.empty())
    return fail(defineError);
  if (!defines.empty())
    errs() << "tqc: note: TQC_DEVICE_DEFINES overrides template knobs ("
           << std::getenv("TQC_DEVICE_DEFINES") << ")\n";
  if (autotuneCmd)
    return runAutotuneCommand();
  if (listPresets)
    return printPresets();

  const char *emits[] = {"bundle", "cubin", "ptx", "cuda",
                         "hsaco",  "hip",   "mlir", "summary"};
  if (!is_contained(emits, StringRef(emit)))
    return fail("unknown --emit '" + emit + "'; accepted: bundle, cubin, "
                "ptx, cuda (NVIDIA), hsaco, hip (AMD), mlir, summary");
  // Each vendor's outputs: NVIDIA cubin / PTX / CUDA source, AMD HSACO / HIP
  // source; bundle, mlir and summary for both.
  const bool nvidiaOnly = emit == "cubin" || emit == "ptx" || emit == "cuda";
  const bool amdOnly = emit == "hsaco" || emit == "hip";
  if (inputFile.empty() && nvidiaOnly && tqc::isAmdArch(arch))
    return fail("--emit=" + emit + " is NVIDIA's; for " + arch +
                " use --emit=hsaco, hip or bundle");
  if (inputFile.empty() && amdOnly && tqc::isNvidiaArch(arch))
    return fail("--emit=" + emit + " is AMD's (gfx90a, gfx942, gfx950); for " +
                arch + " use --emit=cubin, ptx, cuda or bundle");
  std::vector<std::string> passes = tqc::pipelinePassNames();
  if (!dumpAfter.empty() && !is_contained(passes, dumpAfter))
    return fail("unknown pass '" + dumpAfter +
                "' for --dump-after; accepted: " + join(passes, ", "));

  mlir::DialectRegistry registry;
  tqc::registerDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.printOpOnDiagnostic(false);
  ctx.printStackTraceOnDiagnostic(false);
  mlir::ScopedDiagnosticHandler diagnostics(
      &ctx, [](mlir::Diagnostic &d) { printDiagnostic(d); });

  mlir::OwningOpRef<mlir::ModuleOp> module;
  tqc::CompileRequest request = requestFromFlags();
  if (!inputFile.empty()) {
    std::string err;
    std::unique_ptr<MemoryBuffer> buffer =
        mlir::openInputFile(inputFile, &err);
    if (!buffer)
      return fail("cannot read '" + inputFile + "': " + err);
    SourceMgr sm;
    sm.AddNewSourceBuffer(std::move(buffer), SMLoc());
    module = mlir::parseSourceFile<mlir::ModuleOp>(sm, &ctx);
    if (!module)
      return 1; // the diagnostic handler printed why
  } else {
    std::string err = tqc::checkRequest(request);
    if (!err.empty())
      return fail(err);
    module = tqc::buildRequestModule(ctx, request);
    // A plan given on the command line wins over the shipped database; with
    // an explicit --tuning-db the two conflict.
    const bool planOptions = planBlockN.getNumOccurrences() ||
                             planSplits.getNumOccurrences() ||
                             planWarps.getNumOccurrences() ||
                             planStages.getNumOccurrences();
    if (planOptions && !tuningDb.empty() && tuningDb != "none")
      return fail("--tuning-db " + tuningDb + " and --block-n/--splits/"
                  "--warps/--stages both choose the decode plans; give one of them");
    if (tuningDb != "none" && !(planOptions && tuningDb.empty())) {
      bool shipped = tuningDb.empty();
      std::string path =
          shipped ? shippedTuningDb(request.arch, argv[0]) : tuningDb;
      if (!path.empty() && !applyTuningDb(ctx, *module, request, path, shipped))
        return 1;
    }
  }
  if ((emit == "bundle" || emit == "cubin" || emit == "hsaco") && outputDir.empty())
    return fail("--emit=" + emit + " writes files: give the output directory "
                "with -o DIR (or print with --emit=summary, mlir, cuda, ptx)");

  std::string dumped;
  raw_string_ostream dumpStream(dumped);
  bool ok = mlir::succeeded(tqc::runPipeline(*module, request, dumpAfter, dumpStream));
  outs() << dumped;
  if (!ok)
    return 1;

  std::string ir, summary;
  raw_string_ostream irStream(ir), summaryStream(summary);
  module->print(irStream);
  tqc::printLayoutSummary(*module, summaryStream);

  if (emit == "mlir" || emit == "summary") {
    if (!outputDir.empty()) {
      if (!writeFile(outputDir, "kernels.mlir", ir) ||
          (emit == "summary" && !writeFile(outputDir, "layout.txt", summary)))
        return 1;
      if (emit == "summary")
        outs() << "\n" << ir << "\n" << summary;
      return 0;
    }
    if (dumpAfter.empty() || emit == "mlir")
      outs() << ir;
    if (emit == "summary")
      outs() << "\n" << summary;
    return 0;
  }

  // The back ends: NVIDIA (cuda, ptx, cubin) and AMD (hip, hsaco); bundle.
  mlir::FailureOr<tqc::KernelConfig> config =
      tqc::extractKernelConfig(*module);
  if (failed(config))
    return 1;
  const bool amd = tqc::isAmdArch(config->arch);
  if (amd ? nvidiaOnly : amdOnly)
    return fail("--emit=" + emit + " does not apply to " + config->arch);
  std::string source = tqc::emitCudaSource(*config, TQC_VERSION);
  const char *sourceName = amd ? "kernels.hip" : "kernels.cu";
  if (emit == "cuda" || emit == "hip") {
    if (outputDir.empty()) {
      outs() << source;
      return 0;
    }
    return writeFile(outputDir, sourceName, source) ? 0 : 1;
  }
  tqc::KernelBuild build =
      tqc::buildKernels(source, config->arch, /*ptxOnly=*/emit == "ptx");
  if (!build.error.empty())
    return fail(build.error);
  if (emit != "ptx")
    if (std::string err = tqc::checkSharedMemory(*config, build); !err.empty())
      return fail(err);
  if (emit == "ptx") {
    if (outputDir.empty()) {
      outs() << build.ptx;
      return 0;
    }
    return writeFile(outputDir, "kernels.ptx", build.ptx) ? 0 : 1;
  }
  StringRef image(build.image.data(), build.image.size());
  std::vector<tqc::KernelEntry> kernels = tqc::kernelEntries(*config);
  if (emit == "cubin" || emit == "hsaco") {
    if (!writeFile(outputDir, build.imageName, image))
      return 1;
    printKernels(kernels, build);
    return 0;
  }

  std::string manifest = tqc::manifestJson(*config, build, TQC_VERSION);
  std::string header = tqc::bundleHeader(manifest, build.image, build.ptx);
  struct Out {
    std::string name;
    StringRef text;
  };
  std::vector<Out> files = {{"manifest.json", manifest}, {sourceName, source}};
  if (!amd)
    files.push_back({"kernels.ptx", build.ptx});
  files.push_back({build.imageName, image});
  files.push_back({"tqc_bundle.h", header});
  files.push_back({"kernels.mlir", ir});
  files.push_back({"layout.txt", summary});
  outs() << "tqc " << TQC_VERSION << ": bundle for preset "
         << config->preset << ", head_dim " << config->headDim << ", "
         << config->numQHeads << "/" << config->numKVHeads << " heads, "
         << config->arch << " -> " << outputDir << "/\n";
  for (const Out &f : files) {
    if (!writeFile(outputDir, f.name, f.text, /*announce=*/false))
      return 1;
    outs() << format("  %-14s %9zu bytes\n", f.name.c_str(), f.text.size());
  }
  printKernels(kernels, build);
  const tqc::Layout &l = config->layout;
  outs() << format("cache: uint8[num_blocks, %d, %lld] (%s layout), %lld "
                   "bytes per token-head (bf16: %d, %.2fx smaller)\n",
                   l.numKVHeads, (long long)l.regionBytes,
                   tqc::toString(l.kind), (long long)l.bytesPerTokenHead(),
                   4 * config->headDim,
                   4.0 * config->headDim / double(l.bytesPerTokenHead()));
  outs() << "decode plans (" << config->planSource << "), by batch bucket:\n";
  for (const tqc::PlanConfig &p : config->plans) {
    std::string buckets;
    for (int64_t b : p.buckets)
      buckets += (buckets.empty() ? "" : ",") + std::to_string(b);
    // Stages other than the default double buffer: whether they became
    // the decode's copy ring (dynamic shared memory) or not.
    std::string stages;
    if (p.decode.stages != 2) {
      const int64_t ring = tqc::decodeRingBytes(*config, p.decode);
      stages = p.decode.stages == 1
                   ? std::string(", 1 stage (no step loaded ahead)")
                   : ", " + std::to_string(p.decode.stages) + " stages" +
                         (ring ? " (copy ring of " +
                                     std::to_string(ring / (p.decode.warps *
                                                            l.regionBytes)) +
                                     " steps per warp, " +
                                     std::to_string(ring) +
                                     " B of shared memory)"
                               : std::string(" (no ring here: as 2)"));
    }
    outs() << format("  %-10s max_batch %-16s BLOCK_N %lld, %2lld split%s, "
                     "%lld warps, %lld query heads per CTA",
                     p.decodeName.c_str(), buckets.c_str(),
                     (long long)p.decode.blockN, (long long)p.decode.splits,
                     p.decode.splits == 1 ? "" : "s",
                     (long long)p.decode.warps,
                     (long long)p.decode.headsPerCta)
           << stages << "\n";
  }
  if (config->extend.present)
    outs() << format("extend (every bucket): %d chunk tokens x %d query heads "
                     "per CTA, BLOCK_N %lld, %lld warps\n",
                     config->extendTileTokens(), config->gqaRatio(),
                     (long long)config->extend.blockN,
                     (long long)config->extend.warps);
  else
    outs() << "extend: not in this bundle (" << config->extendNote << ")\n";
  return 0;
}
