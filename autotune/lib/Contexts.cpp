//===- Contexts.cpp - The context-length distribution ---------------------===//
#include "tqc/Autotune/Contexts.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>

namespace tqc::autotune {

namespace {

/// `n` log-spaced integers from lo to hi inclusive, distinct, ascending.
std::vector<int64_t> logSpaced(int64_t lo, int64_t hi, int n) {
  std::vector<int64_t> out;
  for (int i = 0; i < n; ++i) {
    double t = n == 1 ? 0.0 : double(i) / double(n - 1);
    int64_t v = i == n - 1 ? hi
                           : int64_t(std::llround(
                                 double(lo) * std::pow(double(hi) / double(lo), t)));
    v = std::clamp(v, lo, hi);
    if (out.empty() || v > out.back())
      out.push_back(v);
  }
  return out;
}

bool parseLength(const std::string &s, int64_t &v) {
  if (s.empty() || s.size() > 12 ||
      s.find_first_not_of("0123456789") != std::string::npos)
    return false;
  v = std::stoll(s);
  return v >= 1;
}

} // namespace

ContextDistribution logUniform(int64_t lo, int64_t hi, int n) {
  ContextDistribution d;
  if (lo < 1 || hi < lo) {
    d.error = "context range " + std::to_string(lo) + ":" +
              std::to_string(hi) +
              " is empty; give MIN:MAX with 1 <= MIN <= MAX";
    return d;
  }
  if (n < 1 || n > 64) {
    d.error = "context points " + std::to_string(n) +
              " is out of range; accepted: 1..64";
    return d;
  }
  std::vector<int64_t> x = lo == hi ? std::vector<int64_t>{lo}
                                    : logSpaced(lo, hi, n);
  d.description = lo == hi ? "one length, " + std::to_string(lo)
                           : "log-uniform " + std::to_string(lo) + ".." +
                                 std::to_string(hi) + ", " +
                                 std::to_string(x.size()) +
                                 (x.size() == 1 ? " point" : " points");
  if (x.size() == 1) {
    d.points = {{x[0], 1.0}};
    return d;
  }
  // Hat-function weights against p(L) = 1 / (L ln(hi/lo)) on each segment
  // [a, b] (h = b - a, u = h / a, Z = ln(hi/lo)):
  //   right end: ∫ (L - a) / (h L Z) dL = (u - ln(1 + u)) / (u Z)
  //   left end:  the segment's mass ln(1 + u) / Z minus the right end's.
  // Both are non-negative. For close points (small u) the right end's
  // numerator cancels; its series u/2 - u²/3 + u³/4 keeps full precision.
  const double z = std::log(double(hi) / double(lo));
  std::vector<double> w(x.size(), 0.0);
  for (size_t i = 0; i + 1 < x.size(); ++i) {
    double u = double(x[i + 1] - x[i]) / double(x[i]);
    double g = u < 1e-3 ? u / 2 - u * u / 3 + u * u * u / 4
                        : (u - std::log1p(u)) / u;
    double mass = std::log1p(u) / z;
    w[i + 1] += g / z;
    w[i] += mass - g / z;
  }
  for (size_t i = 0; i < x.size(); ++i)
    d.points.push_back({x[i], w[i]});
  return d;
}

ContextDistribution parseContextRange(const std::string &text, int n) {
  size_t colon = text.find(':');
  int64_t lo = 0, hi = 0;
  bool ok = colon == std::string::npos
                ? parseLength(text, lo) && (hi = lo, true)
                : parseLength(text.substr(0, colon), lo) &&
                      parseLength(text.substr(colon + 1), hi);
  if (!ok) {
    ContextDistribution d;
    d.error = "--contexts '" + text +
              "' is not MIN:MAX or a length (positive token counts, e.g. "
              "256:131072)";
    return d;
  }
  return logUniform(lo, hi, n);
}

std::vector<double> interpolationWeights(const std::vector<int64_t> &x,
                                         const std::vector<ContextPoint> &mass) {
  std::vector<double> w(x.size(), 0.0);
  for (const ContextPoint &m : mass) {
    auto it = std::lower_bound(x.begin(), x.end(), m.length);
    if (it == x.end()) { // above the last point: it takes the mass
      w.back() += m.weight;
      continue;
    }
    size_t j = size_t(it - x.begin());
    if (*it == m.length || j == 0) {
      w[j] += m.weight;
      continue;
    }
    double a = double(x[j - 1]), b = double(x[j]), l = double(m.length);
    w[j - 1] += m.weight * (b - l) / (b - a);
    w[j] += m.weight * (l - a) / (b - a);
  }
  return w;
}

ContextDistribution parseContextHistogram(const std::string &text,
                                          const std::string &name, int n) {
  ContextDistribution d;
  if (n < 1 || n > 64) {
    d.error = "context points " + std::to_string(n) +
              " is out of range; accepted: 1..64";
    return d;
  }
  std::map<int64_t, double> mass;
  std::istringstream in(text);
  std::string line;
  for (int lineNo = 1; std::getline(in, line); ++lineNo) {
    std::string where = name + ":" + std::to_string(lineNo) + ": ";
    if (size_t hash = line.find('#'); hash != std::string::npos)
      line.resize(hash);
    std::istringstream fields(line);
    std::string lengthText, weightText, extra;
    if (!(fields >> lengthText))
      continue; // blank or comment
    if (!(fields >> weightText) || (fields >> extra)) {
      d.error = where + "expected 'length weight', got '" + line + "'";
      return d;
    }
    int64_t length = 0;
    if (!parseLength(lengthText, length)) {
      d.error = where + "length '" + lengthText +
                "' is not a positive token count";
      return d;
    }
    errno = 0;
    char *end = nullptr;
    double weight = std::strtod(weightText.c_str(), &end);
    if (*end || errno || !std::isfinite(weight) || weight < 0) {
      d.error = where + "weight '" + weightText +
                "' is not a finite non-negative number";
      return d;
    }
    mass[length] += weight;
  }
  double total = 0;
  for (auto &[length, weight] : mass)
    total += weight;
  if (mass.empty() || !(total > 0)) {
    d.error = name + ": no lengths with a positive weight (expected lines of "
                     "'length weight', e.g. '4096 0.25')";
    return d;
  }
  std::vector<ContextPoint> samples;
  for (auto &[length, weight] : mass)
    if (weight > 0)
      samples.push_back({length, weight / total});
  std::vector<int64_t> x;
  if (samples.size() <= size_t(n)) {
    for (const ContextPoint &s : samples)
      x.push_back(s.length);
  } else {
    x = logSpaced(samples.front().length, samples.back().length, n);
  }
  std::vector<double> w = interpolationWeights(x, samples);
  // A log-spaced point that no listed length is near gets no weight; it is
  // not worth measuring.
  for (size_t i = 0; i < x.size(); ++i)
    if (w[i] > 0)
      d.points.push_back({x[i], w[i]});
  d.description = "histogram " + name + " (" + std::to_string(samples.size()) +
                  " lengths, " + std::to_string(samples.front().length) +
                  ".." + std::to_string(samples.back().length) + "), " +
                  std::to_string(d.points.size()) +
                  (d.points.size() == 1 ? " point" : " points");
  return d;
}

std::string addReportLengths(ContextDistribution &d,
                             const std::vector<int64_t> &lengths) {
  size_t added = 0;
  for (int64_t l : lengths) {
    if (l < 1)
      return "--report-lengths: " + std::to_string(l) +
             " is not a positive token count";
    auto it = std::lower_bound(
        d.points.begin(), d.points.end(), l,
        [](const ContextPoint &p, int64_t x) { return p.length < x; });
    if (it != d.points.end() && it->length == l)
      continue; // already measured (with its weight)
    d.points.insert(it, ContextPoint{l, 0.0});
    ++added;
  }
  if (d.points.size() > 64)
    return "--report-lengths: " + std::to_string(d.points.size()) +
           " lengths to time in all; accepted: at most 64";
  if (added)
    d.description += " + " + std::to_string(added) + " report length" +
                     (added == 1 ? "" : "s");
  return "";
}

} // namespace tqc::autotune
