//===- Report.cpp - Markdown report and SVG heat maps ---------------------===//
#include "tqc/Autotune/Report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace tqc::autotune {

namespace {

std::string fmt(const char *format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

/// "123", "12.3", "1.23": three significant digits for microseconds.
std::string us(double v) {
  if (!std::isfinite(v))
    return "-";
  return v >= 100 ? fmt("%.0f", v) : v >= 10 ? fmt("%.1f", v) : fmt("%.2f", v);
}

std::string escapeXml(const std::string &s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  }
  return out;
}

/// Green (the best) through yellow to red (4x the best or worse), by the
/// logarithm of the ratio to the best.
std::string heatColor(double ratio) {
  double t = std::clamp(std::log(std::max(ratio, 1.0)) / std::log(4.0), 0.0, 1.0);
  struct Rgb { double r, g, b; };
  const Rgb stops[3] = {{26, 152, 80}, {254, 224, 139}, {215, 48, 39}};
  const Rgb &a = t < 0.5 ? stops[0] : stops[1];
  const Rgb &b = t < 0.5 ? stops[1] : stops[2];
  double u = t < 0.5 ? t * 2 : (t - 0.5) * 2;
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x",
                int(std::lround(a.r + (b.r - a.r) * u)),
                int(std::lround(a.g + (b.g - a.g) * u)),
                int(std::lround(a.b + (b.b - a.b) * u)));
  return buf;
}

std::string stateOf(const TimingTable &t, size_t b, size_t c) {
  const CandidateTimes &r = t.row(b, c);
  if (!r.failure.empty())
    return "failed";
  if (r.prunedAfter >= 0)
    return "pruned";
  return t.complete(b, c) ? "" : "not timed";
}

} // namespace

std::string heatMapName(int64_t bucket) {
  return "heatmap_b" + std::to_string(bucket) + ".svg";
}

std::string heatMapSvg(const TimingTable &t, size_t b,
                       const BucketChoice &choice) {
  const int64_t bucket = t.buckets[b];
  std::set<int64_t> blockNs, splits;
  for (const Candidate &c : t.candidates) {
    blockNs.insert(c.blockN);
    splits.insert(c.splits);
  }
  // The slice through the best plan; without one, the first candidate's.
  const Candidate &best =
      t.candidates[choice.candidate >= 0 ? size_t(choice.candidate) : 0];
  const int cellW = 88, cellH = 46, left = 96, top = 84;
  const int width = left + cellW * int(splits.size()) + 20;
  const int height = top + cellH * int(blockNs.size()) + 56;
  std::string s;
  auto add = [&](const std::string &x) { s += x; };
  add("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
      std::to_string(width) + "\" height=\"" + std::to_string(height) +
      "\" font-family=\"sans-serif\" font-size=\"12\">\n");
  add("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
  add("<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">batch "
      "bucket " + std::to_string(bucket) +
      ": expected decode latency (us)</text>\n");
  add("<text x=\"10\" y=\"38\">" +
      escapeXml(std::to_string(best.warps) + " warps, " +
                std::to_string(best.headsPerCta) + " heads/CTA, " +
                std::to_string(best.stages) + " stages" +
                (choice.candidate >= 0 ? " (the best plan's)" : "")) +
      "; color: ratio to the best, green 1x to red 4x</text>\n");
  add("<text x=\"" + std::to_string(left + cellW * int(splits.size()) / 2) +
      "\" y=\"" + std::to_string(top - 26) +
      "\" text-anchor=\"middle\">splits</text>\n");
  add("<text x=\"10\" y=\"" + std::to_string(top - 8) +
      "\">BLOCK_N</text>\n");
  int col = 0;
  for (int64_t sp : splits)
    add("<text x=\"" + std::to_string(left + col++ * cellW + cellW / 2) +
        "\" y=\"" + std::to_string(top - 8) +
        "\" text-anchor=\"middle\" font-weight=\"bold\">" +
        std::to_string(sp) + "</text>\n");
  int row = 0;
  for (int64_t bn : blockNs) {
    int y = top + row++ * cellH;
    add("<text x=\"" + std::to_string(left - 10) + "\" y=\"" +
        std::to_string(y + cellH / 2 + 4) +
        "\" text-anchor=\"end\" font-weight=\"bold\">" + std::to_string(bn) +
        "</text>\n");
    col = 0;
    for (int64_t sp : splits) {
      int x = left + col++ * cellW;
      Candidate want = best;
      want.blockN = bn;
      want.splits = sp;
      auto it = std::find(t.candidates.begin(), t.candidates.end(), want);
      std::string fill = "#ffffff", label, sub;
      if (it != t.candidates.end()) {
        size_t c = size_t(it - t.candidates.begin());
        std::string state = stateOf(t, b, c);
        if (state.empty()) {
          double e = t.expectedUs(b, c);
          double ratio = choice.candidate >= 0 ? e / choice.expectedUs : 1.0;
          fill = heatColor(ratio);
          label = us(e);
          sub = int(c) == choice.candidate
                    ? "best"
                    : "+" + fmt("%.0f", (ratio - 1.0) * 100.0) + "%";
        } else {
          fill = "#d9d9d9";
          label = state;
        }
      }
      bool isBest = it != t.candidates.end() &&
                    int(it - t.candidates.begin()) == choice.candidate;
      add("<rect x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) +
          "\" width=\"" + std::to_string(cellW - 2) + "\" height=\"" +
          std::to_string(cellH - 2) + "\" fill=\"" + fill + "\" stroke=\"" +
          (isBest ? "#000000\" stroke-width=\"3" : "#ffffff\" stroke-width=\"1") +
          "\"/>\n");
      if (!label.empty())
        add("<text x=\"" + std::to_string(x + cellW / 2 - 1) + "\" y=\"" +
            std::to_string(y + (sub.empty() ? cellH / 2 + 4 : cellH / 2 - 2)) +
            "\" text-anchor=\"middle\">" + escapeXml(label) + "</text>\n");
      if (!sub.empty())
        add("<text x=\"" + std::to_string(x + cellW / 2 - 1) + "\" y=\"" +
            std::to_string(y + cellH / 2 + 13) +
            "\" text-anchor=\"middle\" font-size=\"10\">" + escapeXml(sub) +
            "</text>\n");
    }
  }
  add("<text x=\"10\" y=\"" + std::to_string(height - 14) +
      "\" font-size=\"10\">grey: pruned (provably slower) or failed; blank: "
      "not a candidate</text>\n");
  add("</svg>\n");
  return s;
}

std::string reportMarkdown(const ReportInput &in) {
  const TimingTable &t = *in.table;
  std::string s = "# tqc autotune report\n\n";
  for (const std::string &line : in.header)
    s += "- " + line + "\n";
  s += "\n## Context points\n\n| length | weight |\n|---:|---:|\n";
  for (const ContextPoint &p : t.points)
    s += "| " + std::to_string(p.length) + " | " + fmt("%.4f", p.weight) +
         " |\n";

  s += "\n## Chosen plans\n\n" +
       fmt("The lowest expected latency; plans within %.0f %% of it are ties, "
           "won by the smallest worst slowdown at any length (worst).\n\n",
           100 * kTieMargin) +
       "| bucket | BLOCK_N | splits | warps | heads/CTA | stages | expected us "
       "| worst | built-in plan us | gain |\n"
       "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (size_t b = 0; b < t.buckets.size(); ++b) {
    const BucketChoice &ch = in.choices[b];
    s += "| " + std::to_string(t.buckets[b]) + " | ";
    if (ch.candidate < 0) {
      s += "no plan | | | | | | | | |\n";
      continue;
    }
    const Candidate &c = t.candidates[size_t(ch.candidate)];
    s += std::to_string(c.blockN) + " | " + std::to_string(c.splits) + " | " +
         std::to_string(c.warps) + " | " + std::to_string(c.headsPerCta) +
         " | " + std::to_string(c.stages) + " | " + us(ch.expectedUs) + " | " +
         fmt("%.3fx", worstSlowdown(t, b, size_t(ch.candidate))) + " | ";
    int d = b < in.defaults.size() ? in.defaults[b] : -1;
    double de = d >= 0 ? t.expectedUs(b, size_t(d)) : NAN;
    if (d < 0)
      s += "not a candidate | |\n";
    else if (!std::isfinite(de))
      s += stateOf(t, b, size_t(d)) + " | |\n";
    else
      s += us(de) + " | " + fmt("%.2fx", de / ch.expectedUs) + " |\n";
  }

  for (size_t b = 0; b < t.buckets.size(); ++b) {
    const BucketChoice &ch = in.choices[b];
    s += "\n## Batch bucket " + std::to_string(t.buckets[b]) + "\n\n";
    if (ch.candidate < 0) {
      s += "No plan: " + ch.error + "\n";
      continue;
    }
    s += "![expected latency over BLOCK_N and splits](" +
         heatMapName(t.buckets[b]) + ")\n\n";
    s += "| rank | BLOCK_N | splits | warps | heads/CTA | stages | expected us "
         "| vs best |";
    for (const ContextPoint &p : t.points)
      s += " L=" + std::to_string(p.length) + " |";
    s += "\n|---:|---:|---:|---:|---:|---:|---:|---:|";
    for (size_t p = 0; p < t.points.size(); ++p)
      s += "---:|";
    s += "\n";
    std::vector<int> order = rankCandidates(t, b);
    size_t shown = in.topRows ? std::min(in.topRows, order.size()) : order.size();
    for (size_t i = 0; i < shown; ++i) {
      const Candidate &c = t.candidates[size_t(order[i])];
      const CandidateTimes &r = t.row(b, size_t(order[i]));
      double e = t.expectedUs(b, size_t(order[i]));
      s += "| " + std::to_string(i + 1) + " | " + std::to_string(c.blockN) +
           " | " + std::to_string(c.splits) + " | " + std::to_string(c.warps) +
           " | " + std::to_string(c.headsPerCta) + " | " +
           std::to_string(c.stages) + " | " + us(e) + " | " +
           (i == 0 ? std::string("best")
                   : "+" + fmt("%.1f", (e / ch.expectedUs - 1.0) * 100.0) +
                         "%") +
           " |";
      for (double v : r.us)
        s += " " + us(v) + " |";
      s += "\n";
    }
    size_t pruned = 0, failed = 0;
    std::string failures;
    for (size_t c = 0; c < t.candidates.size(); ++c) {
      const CandidateTimes &r = t.row(b, c);
      if (!r.failure.empty()) {
        ++failed;
        if (failed <= 5)
          failures += "- " + t.candidates[c].describe() + ": " + r.failure +
                      "\n";
      } else if (r.prunedAfter >= 0) {
        ++pruned;
      }
    }
    s += "\n" + std::to_string(order.size()) + " candidates timed at every "
         "length (" + std::to_string(order.size() - shown) +
         " more not shown), " + std::to_string(pruned) +
         " pruned as provably slower, " + std::to_string(failed) +
         " failed.\n";
    if (!failures.empty())
      s += "\nFailures" + std::string(failed > 5 ? " (first 5)" : "") +
           ":\n\n" + failures;
    const CandidateTimes &best = t.row(b, size_t(ch.candidate));
    double worst = 0;
    for (double v : best.spread)
      if (std::isfinite(v))
        worst = std::max(worst, v);
    s += "\nReplay spread of the best plan (p90 - p10 over the median): up "
         "to " + fmt("%.1f", worst * 100.0) +
         "%; plans closer than that are a tie.\n";
  }
  return s;
}

} // namespace tqc::autotune
