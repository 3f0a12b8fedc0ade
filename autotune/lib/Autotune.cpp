//===- Autotune.cpp - `tqc autotune` from options to files ----------------===//
#include "tqc/Autotune/Autotune.h"

#include "tqc/Autotune/CompileCandidates.h"
#include "tqc/Autotune/Contexts.h"
#include "tqc/Autotune/Measure.h"
#include "tqc/Autotune/Progress.h"
#include "tqc/Autotune/Report.h"
#include "tqc/Autotune/Selection.h"
#include "tqc/Autotune/TuningDbWriter.h"
#include "tqc/Compiler/CudaToolchain.h"

#include "tqc/numerics/spec.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace tqc::autotune {

std::string archForComputeCapability(int cc) {
  return "sm_" + std::to_string(cc);
}

std::string checkArchRunsOn(const std::string &arch, int cc,
                            const std::string &deviceName) {
  std::string digits = arch.substr(3);
  bool specific = !digits.empty() && digits.back() == 'a';
  if (specific)
    digits.pop_back();
  int code = std::atoi(digits.c_str());
  std::string device = deviceName + " (compute capability " +
                       std::to_string(cc / 10) + "." + std::to_string(cc % 10) +
                       ")";
  // A cubin runs on its major version with an equal or newer minor; an
  // arch-specific one (sm_90a) only on exactly its version.
  bool runs = specific ? code == cc : code / 10 == cc / 10 && code % 10 <= cc % 10;
  if (runs)
    return "";
  return "--arch " + arch + " does not run natively on " + device +
         ", so its timings would not be the ones a deployment sees; tune "
         "with --arch native (" + archForComputeCapability(cc) +
         ") or on a GPU of that arch";
}

Candidate builtInPlan(int64_t bucket, int64_t numQHeads, int64_t gqaRatio,
                      int64_t smCount) {
  // Mirrors tq-plan-launch's defaults (dialect/lib/PlanLaunch.cpp).
  Candidate c;
  c.blockN = 64;
  c.warps = 4;
  c.stages = 2;
  int64_t h = std::min<int64_t>(gqaRatio, 8);
  while (h > 1 && gqaRatio % h)
    --h;
  c.headsPerCta = std::max<int64_t>(h, 1);
  int64_t headGroups = numQHeads / c.headsPerCta;
  int64_t s = 1;
  while (s < 32 && headGroups * bucket * (s * 2) <= 2 * smCount)
    s *= 2;
  c.splits = s;
  return c;
}

namespace {

using Clock = std::chrono::steady_clock;

std::string listText(const std::vector<int64_t> &v) {
  std::string s;
  for (int64_t x : v)
    s += (s.empty() ? "" : ",") + std::to_string(x);
  return "{" + s + "}";
}

bool writeText(const std::filesystem::path &path, const std::string &text,
               std::string &error) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.flush();
  if (!out)
    error = "cannot write '" + path.string() + "'";
  return bool(out);
}

std::string timingsCsv(const TimingTable &t) {
  std::string s = "bucket,block_n,splits,warps,heads_per_cta,stages,length,"
                  "weight,us,spread,state\n";
  char buf[256];
  for (size_t b = 0; b < t.buckets.size(); ++b)
    for (size_t c = 0; c < t.candidates.size(); ++c) {
      const CandidateTimes &r = t.row(b, c);
      const Candidate &k = t.candidates[c];
      std::string state = !r.failure.empty() ? "failed"
                          : r.prunedAfter >= 0 ? "pruned"
                                               : "timed";
      for (size_t p = 0; p < t.points.size(); ++p) {
        std::snprintf(buf, sizeof buf,
                      "%lld,%lld,%lld,%lld,%lld,%lld,%lld,%.9g,%.3f,%.4f,%s\n",
                      (long long)t.buckets[b], (long long)k.blockN,
                      (long long)k.splits, (long long)k.warps,
                      (long long)k.headsPerCta, (long long)k.stages,
                      (long long)t.points[p].length, t.points[p].weight,
                      r.us[p], r.spread[p],
                      std::isfinite(r.us[p]) ? state.c_str()
                      : state == "timed"     ? "not timed"
                                             : state.c_str());
        s += buf;
      }
    }
  return s;
}

} // namespace

std::string runAutotune(const AutotuneOptions &o) {
  const auto start = Clock::now();
  auto log = [&](const std::string &line) {
    if (o.log)
      o.log(line);
  };
  auto out = [&](const std::string &line) {
    if (o.out)
      o.out(line);
  };

  // ---- Everything that needs no GPU ------------------------------------
  CompileRequest request = o.request;
  const bool native = request.arch == "native";
  if (!native && !isNvidiaArch(request.arch))
    return "--arch '" + request.arch +
           "' is not an NVIDIA arch the tuner can time; accepted: native, "
           "sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100, sm_120, ...";
  {
    CompileRequest probe = request;
    if (native)
      probe.arch = "sm_90"; // the recipe is checked now, the arch later
    if (std::string err = checkRequest(probe); !err.empty())
      return err;
  }
  if (request.numKVHeads < 1 || request.numQHeads % request.numKVHeads)
    return "--num-q-heads " + std::to_string(request.numQHeads) +
           " is not a multiple of --num-kv-heads " +
           std::to_string(request.numKVHeads);
  const int64_t gqa = request.numQHeads / request.numKVHeads;
  if (o.buckets.empty())
    return "--buckets is empty; give the batch buckets to tune, e.g. "
           "--buckets 1,8,32,64";
  std::vector<int64_t> buckets = o.buckets;
  std::sort(buckets.begin(), buckets.end());
  for (int64_t b : buckets)
    if (b < 1 || b > 65535)
      return "bucket " + std::to_string(b) +
             " is out of range; accepted: 1..65535 (a decode grid's "
             "max_batch dimension)";
  if (o.reps < 1 || o.reps > 10000)
    return "--reps " + std::to_string(o.reps) +
           " is out of range; accepted: 1..10000";
  if (!o.contexts.empty() && !o.contextHistogram.empty())
    return "give either --contexts or --context-hist, not both";
  ContextDistribution dist;
  if (!o.contextHistogram.empty()) {
    std::ifstream in(o.contextHistogram);
    if (!in)
      return "cannot read --context-hist file '" + o.contextHistogram + "'";
    std::stringstream text;
    text << in.rdbuf();
    dist = parseContextHistogram(text.str(), o.contextHistogram,
                                 o.contextPoints);
  } else if (!o.contexts.empty()) {
    dist = parseContextRange(o.contexts, o.contextPoints);
  } else {
    dist = logUniform(kDefaultMinContext, kDefaultMaxContext, o.contextPoints);
  }
  if (!dist.error.empty())
    return dist.error;
  if (std::string err = addReportLengths(dist, o.reportLengths); !err.empty())
    return err;
  CandidateList cands = generateCandidates(o.space, gqa);
  if (!cands.error.empty())
    return cands.error;
  if (o.output.empty())
    return "give the tuning database to write with -o FILE (an existing "
           "database is merged into)";
  if (std::string err = checkExistingDb(o.output); !err.empty())
    return err;

  // ---- The device --------------------------------------------------------
  DeviceDesc dev;
  std::string why;
  if (!queryDevice(o.device, dev, why))
    return "tqc autotune times kernels on a local CUDA device: " + why;
  if (native)
    request.arch = archForComputeCapability(dev.computeCapability);
  else if (std::string err = checkArchRunsOn(request.arch,
                                             dev.computeCapability, dev.name);
           !err.empty())
    return err;
  char line[512];
  std::snprintf(line, sizeof line,
                "device %d: %s, %s, %d SMs, %lld MiB L2, %llu MiB, driver "
                "%d.%d",
                dev.ordinal, dev.name.c_str(), request.arch.c_str(),
                dev.smCount, (long long)(dev.l2Bytes >> 20),
                (unsigned long long)(dev.totalMemory >> 20),
                dev.driverVersion / 1000, dev.driverVersion % 1000 / 10);
  log(line);
  // Candidates are compiled for this GPU's SM count: the decode caps a
  // batch's splits by it (decode.h splitsUsed), and a database compiled in
  // later carries it (its sm_count key).
  if (request.smCount == 0)
    request.smCount = dev.smCount;
  // The default stages add 3 where this recipe, layout and arch take the
  // decode's copy ring; stage counts that compile alike (3 and 4 with the
  // ring, 2 and above without) are timed once.
  const bool copyRing = recipeTakesCopyRing(request);
  cands = generateCandidates(o.space, gqa, copyRing);
  std::optional<std::string> canonical = canonicalPreset(request.preset);
  std::string preset = canonical ? *canonical : request.preset;

  // ---- Compile ------------------------------------------------------------
  int jobs = o.jobs > 0 ? o.jobs
                        : int(std::clamp(std::thread::hardware_concurrency(),
                                         1u, 16u));
  const size_t n = cands.candidates.size();
  log("compiling " + std::to_string(n) + " candidates (BLOCK_N " +
      listText(o.space.blockN.empty() ? defaultSpace(gqa).blockN
                                      : o.space.blockN) +
      " x splits " +
      listText(o.space.splits.empty() ? defaultSpace(gqa).splits
                                      : o.space.splits) +
      " x warps " +
      listText(o.space.warps.empty() ? defaultSpace(gqa).warps : o.space.warps) +
      " x heads/CTA " +
      listText(o.space.headsPerCta.empty() ? defaultSpace(gqa).headsPerCta
                                           : o.space.headsPerCta) +
      " x stages " +
      listText(o.space.stages.empty() ? defaultSpace(gqa, copyRing).stages
                                      : o.space.stages) +
      ") for " + request.arch + " into " +
      std::to_string(std::min<size_t>(n, size_t(jobs))) + " bundle(s) on " +
      std::to_string(jobs) + " thread(s)");
  CompiledCandidates compiled =
      compileCandidates(request, cands.candidates, jobs, o.version, log);
  for (auto &[c, err] : compiled.dropped)
    log("warning: candidate " + cands.candidates[size_t(c)].describe() +
        " does not compile and is left out: " + err);
  if (!compiled.error.empty())
    return compiled.error;
  double compileS =
      std::chrono::duration<double>(Clock::now() - start).count();
  log("compiled in " + formatDuration(compileS));

  // ---- Measure ------------------------------------------------------------
  TimingTable table(buckets, cands.candidates, dist.points);
  for (auto &[c, err] : compiled.dropped)
    for (size_t b = 0; b < buckets.size(); ++b)
      table.row(b, size_t(c)).failure = "does not compile: " + err;
  std::string pointsText;
  for (const ContextPoint &p : dist.points) {
    std::snprintf(line, sizeof line, "%s%lld (%.3f)",
                  pointsText.empty() ? "" : ", ", (long long)p.length,
                  p.weight);
    pointsText += line;
  }
  log("contexts: " + dist.description + ": " + pointsText);
  MeasureOptions mo;
  mo.device = o.device;
  mo.reps = o.reps;
  mo.prune = o.prune;
  mo.isolate = o.isolate;
  mo.log = log;
  std::string measureError = measure(compiled.bundles, table, mo);
  if (!measureError.empty()) {
    // Keep what was measured: the finished buckets' choices are as good as
    // in a complete run; the others get no entry.
    if (table.bucketsDone == 0)
      return measureError;
    log("error: " + measureError);
    log("writing the " + std::to_string(table.bucketsDone) +
        " bucket(s) measured before the error");
    buckets.resize(table.bucketsDone);
    TimingTable done(buckets, cands.candidates, dist.points);
    for (size_t b = 0; b < buckets.size(); ++b)
      for (size_t c = 0; c < cands.candidates.size(); ++c)
        done.row(b, c) = table.row(b, c);
    done.bucketsDone = buckets.size();
    table = std::move(done);
  }

  // ---- Choose and write ----------------------------------------------------
  TuningKey key{dev.name, request.arch, preset, dev.smCount, request.headDim,
                gqa};
  if (request.overrides.layout)
    key.layout = *request.overrides.layout;
  std::vector<TunedBucket> entries;
  std::vector<BucketChoice> choices;
  std::vector<int> defaults;
  std::string failed;
  for (size_t b = 0; b < buckets.size(); ++b) {
    BucketChoice ch = chooseBest(table, b);
    choices.push_back(ch);
    Candidate def = builtInPlan(buckets[b], request.numQHeads, gqa,
                                dev.smCount);
    auto it = std::find(cands.candidates.begin(), cands.candidates.end(), def);
    defaults.push_back(it == cands.candidates.end()
                           ? -1
                           : int(it - cands.candidates.begin()));
    if (ch.candidate < 0) {
      failed += (failed.empty() ? "" : "; ") + ch.error;
      continue;
    }
    entries.push_back({buckets[b], cands.candidates[size_t(ch.candidate)],
                       ch.expectedUs});
  }
  double totalS = std::chrono::duration<double>(Clock::now() - start).count();
  if (!entries.empty()) {
    DbMerge m = writeTuningDb(o.output, key, entries, dist.description);
    if (!m.error.empty())
      return m.error;
    for (const std::string &note : m.notes)
      log("note: " + note);
    out("wrote " + o.output + " (" + std::to_string(entries.size()) +
        " entries for " + dev.name + " " + request.arch + " " + preset +
        " D=" + std::to_string(request.headDim) + " GQA " +
        std::to_string(gqa) +
        (key.layout == "native" ? "" : " layout " + key.layout) + "; " +
        std::to_string(m.kept) +
        " other entries kept)");
  }
  if (!o.reportDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.reportDir, ec);
    if (ec)
      return "cannot create the report directory '" + o.reportDir +
             "': " + ec.message();
    ReportInput ri;
    ri.table = &table;
    ri.choices = choices;
    ri.defaults = defaults;
    std::snprintf(line, sizeof line,
                  "GPU: %s (%s, %d SMs, %lld MiB L2), driver %d.%d",
                  dev.name.c_str(), request.arch.c_str(), dev.smCount,
                  (long long)(dev.l2Bytes >> 20), dev.driverVersion / 1000,
                  dev.driverVersion % 1000 / 10);
    ri.header.push_back(line);
    ri.header.push_back("recipe: preset " + preset + ", head_dim " +
                        std::to_string(request.headDim) + ", " +
                        std::to_string(request.numQHeads) + "/" +
                        std::to_string(request.numKVHeads) + " heads (GQA " +
                        std::to_string(gqa) + "), block size " +
                        std::to_string(request.blockSize) + ", bf16");
    ri.header.push_back("contexts: " + dist.description);
    ri.header.push_back(
        "candidates: " + std::to_string(n) + " (" +
        std::to_string(compiled.dropped.size()) + " did not compile), " +
        std::to_string(compiled.bundles.size()) + " bundle(s)");
    ri.header.push_back(
        "timing: CUDA graph replays, each of enough decode launches over "
        "distinct cache blocks (shuffled block tables) to read > 4x the L2; "
        "median of " + std::to_string(o.reps) + " replays after 3 warm-up "
        "replays; latency = replay / launches");
    ri.header.push_back("tqc " + o.version + ", NVRTC " + nvrtcVersion() +
                        ", nvJitLink " + nvJitLinkVersion() + "; compile " +
                        formatDuration(compileS) + ", total " +
                        formatDuration(totalS));
    std::filesystem::path dir(o.reportDir);
    std::string err;
    if (!writeText(dir / "report.md", reportMarkdown(ri), err) ||
        !writeText(dir / "timings.csv", timingsCsv(table), err))
      return err;
    for (size_t b = 0; b < buckets.size(); ++b)
      if (choices[b].candidate >= 0 &&
          !writeText(dir / heatMapName(buckets[b]),
                     heatMapSvg(table, b, choices[b]), err))
        return err;
    out("wrote " + (dir / "report.md").string() +
        ", timings.csv and a heat map per bucket");
  }
  out("plans per batch bucket (expected latency over " + dist.description +
      "; ties within " + std::to_string(int(100 * kTieMargin)) +
      " % to the smallest worst slowdown at any length):");
  for (size_t b = 0; b < buckets.size(); ++b) {
    if (choices[b].candidate < 0) {
      out("  bucket " + std::to_string(buckets[b]) + ": no plan");
      continue;
    }
    std::snprintf(line, sizeof line, "  bucket %-5lld %s: %.2f us",
                  (long long)buckets[b],
                  cands.candidates[size_t(choices[b].candidate)]
                      .describe()
                      .c_str(),
                  choices[b].expectedUs);
    out(line);
  }
  out("total time " + formatDuration(totalS) + " (compile " +
      formatDuration(compileS) + ")");
  if (!measureError.empty())
    return measureError + " (the buckets measured before it were written)";
  if (!failed.empty())
    return failed;
  return "";
}

} // namespace tqc::autotune
