//===- TuningDb.cpp - Read a tuning database ------------------------------===//
//
// Built with exceptions (nlohmann/json reports parse positions and type
// errors that way); none leaves this file.
//
//===----------------------------------------------------------------------===//

#include "tqc/Compiler/TuningDb.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace tqc {
namespace {

using json = nlohmann::json;

/// A required member of `obj`, or throws a message naming it.
const json &member(const json &obj, const std::string &where,
                   const char *name, json::value_t type) {
  auto it = obj.find(name);
  if (it == obj.end())
    throw std::runtime_error(where + " has no \"" + name + "\"");
  bool ok = it->type() == type ||
            (type == json::value_t::number_integer &&
             it->type() == json::value_t::number_unsigned) ||
            (type == json::value_t::number_float && it->is_number());
  if (!ok)
    throw std::runtime_error(where + "." + name + " is " + it->type_name() +
                             ", expected " +
                             (type == json::value_t::string ? "a string"
                              : type == json::value_t::object ? "an object"
                                                              : "a number"));
  return *it;
}

int64_t integer(const json &obj, const std::string &where, const char *name,
                int64_t lo, int64_t hi) {
  int64_t v = member(obj, where, name, json::value_t::number_integer)
                  .get<int64_t>();
  if (v < lo || v > hi)
    throw std::runtime_error(where + "." + name + " is " + std::to_string(v) +
                             "; accepted: " + std::to_string(lo) + ".." +
                             std::to_string(hi));
  return v;
}

std::string text(const json &obj, const std::string &where, const char *name) {
  return member(obj, where, name, json::value_t::string).get<std::string>();
}

std::string joinSet(const std::set<std::string> &s) {
  std::string out;
  for (const std::string &x : s)
    out += (out.empty() ? "" : ", ") + x;
  return out.empty() ? "none" : out;
}

} // namespace

TuningLookup lookupTuningDb(const std::string &path, const TuningQuery &q) {
  TuningLookup r;
  std::ifstream in(path);
  if (!in) {
    r.error = "cannot read tuning database '" + path + "'";
    return r;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  try {
    json db;
    try {
      db = json::parse(buffer.str());
    } catch (const json::parse_error &e) {
      throw std::runtime_error("malformed JSON at byte " +
                               std::to_string(e.byte) + ": " + e.what());
    }
    if (!db.is_object())
      throw std::runtime_error("the top level is not an object");
    std::string schema = text(db, "the database", "schema");
    if (schema != "tqc.tuning")
      throw std::runtime_error("schema is \"" + schema +
                               "\"; accepted: \"tqc.tuning\"");
    int64_t version =
        member(db, "the database", "schema_version",
               json::value_t::number_integer)
            .get<int64_t>();
    if (version != kTuningSchemaVersion)
      throw std::runtime_error("schema_version " + std::to_string(version) +
                               " is not supported; accepted: " +
                               std::to_string(kTuningSchemaVersion));
    auto entries = db.find("entries");
    if (entries == db.end() || !entries->is_array())
      throw std::runtime_error("\"entries\" must be an array");

    // Entries of this recipe on this arch, by GPU.
    std::map<std::string, std::vector<std::pair<TunedPlan, int64_t>>> byGpu;
    std::set<std::string> recipes;
    for (size_t i = 0; i < entries->size(); ++i) {
      const json &e = (*entries)[i];
      std::string where = "entries[" + std::to_string(i) + "]";
      if (!e.is_object())
        throw std::runtime_error(where + " is not an object");
      std::string gpu = text(e, where, "gpu");
      std::string arch = text(e, where, "arch");
      int64_t sms = integer(e, where, "sm_count", 1, 100000);
      std::string preset = text(e, where, "preset");
      // The cache layout the plans were timed on (optional, since the
      // first databases, all native, have none): the vLLM layout runs other
      // kernel code, so its plans are its own.
      std::string layout =
          e.contains("layout") ? text(e, where, "layout") : "native";
      if (layout != "native" && layout != "vllm")
        throw std::runtime_error(where + ".layout is \"" + layout +
                                 "\"; accepted: \"native\", \"vllm\"");
      int64_t d = integer(e, where, "head_dim", 1, 4096);
      int64_t g = integer(e, where, "gqa_ratio", 1, 1024);
      TunedPlan p;
      p.bucket = integer(e, where, "bucket", 1, 1 << 20);
      const json &plan = member(e, where, "plan", json::value_t::object);
      std::string pw = where + ".plan";
      p.blockN = integer(plan, pw, "block_n", 16, 256);
      if (p.blockN % 16)
        throw std::runtime_error(pw + ".block_n is " +
                                 std::to_string(p.blockN) +
                                 "; accepted: a multiple of 16 in 16..256");
      p.splits = integer(plan, pw, "splits", 1, 64);
      p.warps = integer(plan, pw, "warps", 1, 16);
      p.headsPerCta = integer(plan, pw, "heads_per_cta", 1, 8);
      p.stages = integer(plan, pw, "stages", 1, 8);
      recipes.insert(arch + " " + preset + " D=" + std::to_string(d) +
                     " GQA " + std::to_string(g) +
                     (layout == "native" ? "" : " layout " + layout));
      if (arch == q.arch && preset == q.preset && d == q.headDim &&
          g == q.gqaRatio && layout == q.layout)
        byGpu[gpu].push_back({p, sms});
    }

    if (byGpu.empty()) {
      r.warnings.push_back("tuning database '" + path + "' has no plans for " +
                           q.arch + " " + q.preset + " D=" +
                           std::to_string(q.headDim) + " GQA " +
                           std::to_string(q.gqaRatio) +
                           (q.layout == "native" ? "" : " layout " + q.layout) +
                           " (it has: " +
                           joinSet(recipes) + "); using built-in defaults");
      return r;
    }
    std::set<std::string> gpus;
    for (auto &[gpu, _] : byGpu)
      gpus.insert(gpu);
    std::string gpu = q.gpu;
    if (gpu.empty()) {
      if (byGpu.size() > 1)
        throw std::runtime_error("it has plans for several GPUs of " + q.arch +
                                 " (" + joinSet(gpus) +
                                 "); choose one with --gpu");
      gpu = byGpu.begin()->first;
    } else if (!byGpu.count(gpu)) {
      throw std::runtime_error("it has no plans for GPU \"" + gpu +
                               "\" with this recipe; it has: " +
                               joinSet(gpus));
    }
    auto &chosen = byGpu[gpu];
    std::sort(chosen.begin(), chosen.end(), [](auto &a, auto &b) {
      return a.first.bucket < b.first.bucket;
    });
    for (size_t i = 0; i < chosen.size(); ++i) {
      if (i && chosen[i].first.bucket == chosen[i - 1].first.bucket)
        throw std::runtime_error("two plans for bucket " +
                                 std::to_string(chosen[i].first.bucket) +
                                 " on " + gpu);
      r.plans.push_back(chosen[i].first);
    }
    r.gpu = gpu;
    r.smCount = chosen.front().second;
  } catch (const std::exception &e) {
    r.error = "tuning database '" + path + "': " + e.what();
    r.plans.clear();
  }
  return r;
}

} // namespace tqc
