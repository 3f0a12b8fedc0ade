//===- TuningDbWriter.cpp - Merge tuned plans into a database -------------===//
//
// Validation is the compiler's reader (lookupTuningDb) so that "valid" means
// one thing; nlohmann's ordered_json keeps the members of kept entries in
// their order. Exceptions stay inside this file.
//
//===----------------------------------------------------------------------===//
#include "tqc/Autotune/TuningDbWriter.h"

#include "tqc/Compiler/TuningDb.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <tuple>

namespace tqc::autotune {

namespace {

using ojson = nlohmann::ordered_json;

bool exists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::string readAll(const std::string &path, bool &ok) {
  std::ifstream in(path, std::ios::binary);
  ok = bool(in);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The key of an entry the reader accepted (so every member is there).
struct EntryKey {
  std::string gpu, arch, preset, layout;
  int64_t headDim, gqa, bucket;
  bool operator<(const EntryKey &o) const {
    return std::tie(gpu, arch, preset, layout, headDim, gqa, bucket) <
           std::tie(o.gpu, o.arch, o.preset, o.layout, o.headDim, o.gqa,
                    o.bucket);
  }
};

EntryKey keyOf(const ojson &e) {
  return {e["gpu"].get<std::string>(),  e["arch"].get<std::string>(),
          e["preset"].get<std::string>(),
          e.contains("layout") ? e["layout"].get<std::string>() : "native",
          e["head_dim"].get<int64_t>(), e["gqa_ratio"].get<int64_t>(),
          e["bucket"].get<int64_t>()};
}

ojson entryJson(const TuningKey &k, const TunedBucket &b,
                const std::string &contexts) {
  ojson e;
  e["gpu"] = k.gpu;
  e["arch"] = k.arch;
  e["sm_count"] = k.smCount;
  e["preset"] = k.preset;
  if (k.layout != "native") // entries without it are native (TuningDb.cpp)
    e["layout"] = k.layout;
  e["head_dim"] = k.headDim;
  e["gqa_ratio"] = k.gqaRatio;
  e["bucket"] = b.bucket;
  ojson p;
  p["block_n"] = b.plan.blockN;
  p["splits"] = b.plan.splits;
  p["warps"] = b.plan.warps;
  p["heads_per_cta"] = b.plan.headsPerCta;
  p["stages"] = b.plan.stages;
  e["plan"] = p;
  e["expected_us"] = std::round(b.expectedUs * 100.0) / 100.0;
  e["contexts"] = contexts;
  return e;
}

/// The database text: the top level spread out, one entry per line, so a
/// database under version control diffs by entry.
std::string format(const ojson &db) {
  std::string out = "{\n";
  bool first = true;
  for (auto it = db.begin(); it != db.end(); ++it) {
    out += first ? "" : ",\n";
    first = false;
    out += "  " + ojson(it.key()).dump() + ": ";
    if (it.key() != "entries") {
      out += it.value().dump();
      continue;
    }
    out += "[";
    for (size_t i = 0; i < it.value().size(); ++i)
      out += (i ? ",\n    " : "\n    ") + it.value()[i].dump();
    out += it.value().empty() ? "]" : "\n  ]";
  }
  return out + "\n}\n";
}

std::string describeKey(const TuningKey &k) {
  return k.gpu + " (" + k.arch + ", " + std::to_string(k.smCount) + " SMs) " +
         k.preset + " D=" + std::to_string(k.headDim) + " GQA " +
         std::to_string(k.gqaRatio);
}

} // namespace

std::string checkExistingDb(const std::string &path) {
  if (!exists(path))
    return "";
  bool ok = false;
  std::string text = readAll(path, ok);
  if (!ok)
    return "cannot read the existing tuning database '" + path + "'";
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    return "the existing file '" + path +
           "' is empty, not a tuning database; remove it or choose another "
           "-o";
  // The reader validates the schema, the version and every entry whatever
  // the query; an empty query only matches nothing.
  TuningLookup r = lookupTuningDb(path, TuningQuery{});
  if (!r.error.empty())
    return r.error +
           "; refusing to merge into it (move it away or choose another -o)";
  return "";
}

DbMerge mergeTuningDb(const std::string &path, const TuningKey &key,
                      const std::vector<TunedBucket> &entries,
                      const std::string &contexts) {
  DbMerge m;
  if (std::string err = checkExistingDb(path); !err.empty()) {
    m.error = err;
    return m;
  }
  try {
    ojson db;
    if (exists(path)) {
      bool ok = false;
      db = ojson::parse(readAll(path, ok));
    } else {
      db["schema"] = "tqc.tuning";
      db["schema_version"] = kTuningSchemaVersion;
      db["entries"] = ojson::array();
    }
    std::set<int64_t> ours;
    for (const TunedBucket &b : entries)
      ours.insert(b.bucket);
    ojson kept = ojson::array();
    for (const ojson &e : db["entries"]) {
      EntryKey k = keyOf(e);
      bool same = k.gpu == key.gpu && k.arch == key.arch &&
                  k.preset == key.preset && k.layout == key.layout &&
                  k.headDim == key.headDim && k.gqa == key.gqaRatio &&
                  ours.count(k.bucket);
      if (!same) {
        kept.push_back(e);
        continue;
      }
      ++m.replaced;
      // The SM count is part of the key, but the reader takes one plan per
      // (GPU, bucket): a second entry would make the database unreadable.
      int64_t sms = e["sm_count"].get<int64_t>();
      if (sms != key.smCount)
        m.notes.push_back("replacing bucket " + std::to_string(k.bucket) +
                          " of " + key.gpu + " tuned with " +
                          std::to_string(sms) + " SMs by this run's (" +
                          std::to_string(key.smCount) + " SMs)");
    }
    m.kept = kept.size();
    for (const TunedBucket &b : entries)
      kept.push_back(entryJson(key, b, contexts));
    m.added = entries.size() - m.replaced;
    std::stable_sort(kept.begin(), kept.end(),
                     [](const ojson &a, const ojson &b) {
                       return keyOf(a) < keyOf(b);
                     });
    db["entries"] = kept;
    m.text = format(db);
    if (m.replaced)
      m.notes.push_back("replaced " + std::to_string(m.replaced) +
                        " entries of " + describeKey(key));
  } catch (const std::exception &e) {
    m.error = "tuning database '" + path + "': " + e.what();
  }
  return m;
}

DbMerge writeTuningDb(const std::string &path, const TuningKey &key,
                      const std::vector<TunedBucket> &entries,
                      const std::string &contexts) {
  DbMerge m = mergeTuningDb(path, key, entries, contexts);
  if (!m.error.empty())
    return m;
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << m.text;
    out.flush();
    if (!out) {
      m.error = "cannot write '" + tmp + "'";
      std::remove(tmp.c_str());
      return m;
    }
  }
  // Read back exactly as `tqc --tuning-db` will.
  TuningQuery q;
  q.arch = key.arch;
  q.preset = key.preset;
  q.headDim = int(key.headDim);
  q.gqaRatio = int(key.gqaRatio);
  q.gpu = key.gpu;
  q.layout = key.layout;
  TuningLookup r = lookupTuningDb(tmp, q);
  std::string mismatch = r.error;
  for (const TunedBucket &b : entries) {
    if (!mismatch.empty())
      break;
    auto it = std::find_if(r.plans.begin(), r.plans.end(),
                           [&](const TunedPlan &p) { return p.bucket == b.bucket; });
    if (it == r.plans.end() || it->blockN != b.plan.blockN ||
        it->splits != b.plan.splits || it->warps != b.plan.warps ||
        it->headsPerCta != b.plan.headsPerCta || it->stages != b.plan.stages)
      mismatch = "bucket " + std::to_string(b.bucket) +
                 " does not read back as written";
  }
  if (!mismatch.empty()) {
    std::remove(tmp.c_str());
    m.error = "the merged tuning database failed its read-back check (" +
              mismatch + "); '" + path + "' was left unchanged";
    return m;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    m.error = "cannot replace '" + path + "' with the merged database";
  }
  return m;
}

} // namespace tqc::autotune
