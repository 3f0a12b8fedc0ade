//===- Candidates.cpp - The launch plans a tuning run times ---------------===//
#include "tqc/Autotune/Candidates.h"

#include <algorithm>
#include <tuple>

namespace tqc::autotune {

bool Candidate::operator<(const Candidate &o) const {
  return std::tie(blockN, splits, warps, headsPerCta, stages) <
         std::tie(o.blockN, o.splits, o.warps, o.headsPerCta, o.stages);
}

std::string Candidate::describe() const {
  return "BLOCK_N " + std::to_string(blockN) + ", " + std::to_string(splits) +
         (splits == 1 ? " split, " : " splits, ") + std::to_string(warps) +
         " warps, " + std::to_string(headsPerCta) + " heads/CTA, " +
         std::to_string(stages) + " stages";
}

std::vector<int64_t> defaultHeadsPerCta(int64_t gqaRatio) {
  if (gqaRatio < 1)
    return {1};
  int64_t h = std::min<int64_t>(gqaRatio, 8);
  while (gqaRatio % h)
    --h;
  std::vector<int64_t> out{h};
  if (h % 2 == 0)
    out.push_back(h / 2);
  return out;
}

CandidateSpace defaultSpace(int64_t gqaRatio, bool copyRing) {
  CandidateSpace s;
  s.blockN = {32, 64, 128};
  s.splits = {1, 2, 4, 8, 16, 32};
  s.warps = {4, 8};
  s.headsPerCta = defaultHeadsPerCta(gqaRatio);
  s.stages = copyRing ? std::vector<int64_t>{2, 3} : std::vector<int64_t>{2};
  return s;
}

namespace {

/// The first value of `list` outside the accepted set, as a message.
std::string checkList(const std::vector<int64_t> &list, const char *name,
                      int64_t lo, int64_t hi, int64_t multiple,
                      const std::string &accepted) {
  for (int64_t v : list)
    if (v < lo || v > hi || v % multiple)
      return name + std::string(" ") + std::to_string(v) +
             " is not a valid candidate; accepted: " + accepted;
  return "";
}

} // namespace

CandidateList generateCandidates(const CandidateSpace &given,
                                 int64_t gqaRatio, bool copyRing) {
  CandidateList out;
  if (gqaRatio < 1) {
    out.error = "the GQA ratio is " + std::to_string(gqaRatio) +
                "; num_q_heads must be a positive multiple of num_kv_heads";
    return out;
  }
  CandidateSpace d = defaultSpace(gqaRatio, copyRing);
  auto pick = [](const std::vector<int64_t> &g, const std::vector<int64_t> &def) {
    return g.empty() ? def : g;
  };
  CandidateSpace s{pick(given.blockN, d.blockN), pick(given.splits, d.splits),
                   pick(given.warps, d.warps),
                   pick(given.headsPerCta, d.headsPerCta),
                   pick(given.stages, d.stages)};
  std::string err = checkList(s.blockN, "BLOCK_N", 16, 256, 16,
                              "a multiple of 16 in 16..256");
  if (err.empty())
    err = checkList(s.splits, "splits", 1, 64, 1, "1..64");
  if (err.empty())
    err = checkList(s.warps, "warps", 1, 16, 1, "1..16");
  if (err.empty())
    err = checkList(s.stages, "stages", 1, 8, 1, "1..8");
  if (err.empty())
    for (int64_t h : s.headsPerCta)
      if (h < 1 || h > 8 || gqaRatio % h) {
        err = "heads per CTA " + std::to_string(h) +
              " is not a valid candidate; accepted: a divisor of the GQA "
              "ratio " + std::to_string(gqaRatio) + " that is at most 8";
        break;
      }
  if (!err.empty()) {
    out.error = err;
    return out;
  }
  // Stage counts that compile to the same decode are one candidate (the
  // smallest listed): with the copy ring its slots hold two steps, so 3 is
  // 4, 5 is 6, 7 is 8; without it 3 or more run as 2.
  auto effective = [copyRing](int64_t st) -> int64_t {
    if (st < 3)
      return st;
    return copyRing ? (st + 1) / 2 * 2 : 2;
  };
  std::vector<int64_t> stages;
  for (int64_t st : s.stages) {
    bool same = false;
    for (int64_t other : s.stages)
      same |= other < st && effective(other) == effective(st);
    if (!same)
      stages.push_back(st);
  }
  for (int64_t b : s.blockN)
    for (int64_t sp : s.splits)
      for (int64_t w : s.warps)
        for (int64_t h : s.headsPerCta)
          for (int64_t st : stages)
            out.candidates.push_back(Candidate{b, sp, w, h, st});
  // Distinct: tq-plan-launch merges equal neighbouring plans, and a tuning
  // bundle needs one plan per candidate.
  std::sort(out.candidates.begin(), out.candidates.end());
  out.candidates.erase(
      std::unique(out.candidates.begin(), out.candidates.end()),
      out.candidates.end());
  return out;
}

bool parseIntList(const std::string &text, const std::string &what,
                  std::vector<int64_t> &out, std::string &error) {
  out.clear();
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos
                                              ? std::string::npos
                                              : comma - start);
    // Spaces around an item are allowed ("1, 8").
    size_t b = item.find_first_not_of(" \t");
    size_t e = item.find_last_not_of(" \t");
    item = b == std::string::npos ? "" : item.substr(b, e - b + 1);
    bool digits = !item.empty() && item.size() <= 9 &&
                  item.find_first_not_of("0123456789") == std::string::npos;
    int64_t v = digits ? std::stoll(item) : 0;
    if (!digits || v < 1) {
      error = what + ": '" + item + "' in '" + text +
              "' is not a positive integer (expected a comma-separated "
              "list such as 1,8,32)";
      return false;
    }
    if (std::find(out.begin(), out.end(), v) != out.end()) {
      error = what + ": " + std::to_string(v) + " appears twice in '" + text +
              "'";
      return false;
    }
    out.push_back(v);
    if (comma == std::string::npos)
      return true;
    start = comma + 1;
  }
}

} // namespace tqc::autotune
