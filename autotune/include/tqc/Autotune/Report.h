//===- Report.h - What a tuning run found, for people ----------*- C++ -*-===//
//
// A Markdown report (the chosen plan per bucket, each bucket's ranking with
// the latency at every context length) and one SVG heat map per bucket of
// expected latency over (BLOCK_N, splits), with warps, heads per CTA and
// stages fixed at the bucket's best plan.
//
//===----------------------------------------------------------------------===//
#ifndef TQC_AUTOTUNE_REPORT_H
#define TQC_AUTOTUNE_REPORT_H

#include "tqc/Autotune/Selection.h"

#include <string>
#include <vector>

namespace tqc::autotune {

struct ReportInput {
  const TimingTable *table = nullptr;
  std::vector<BucketChoice> choices; ///< per bucket
  /// Per bucket, the candidate equal to tq-plan-launch's built-in plan for
  /// it (-1: not among the candidates), to show what tuning gained.
  std::vector<int> defaults;
  /// Lines under the title: GPU, recipe, distribution, method, time.
  std::vector<std::string> header;
  /// Ranked rows shown per bucket (all when 0).
  size_t topRows = 12;
};

/// File name of a bucket's heat map: "heatmap_b8.svg".
std::string heatMapName(int64_t bucket);

/// The report (Markdown), linking the heat maps by heatMapName.
std::string reportMarkdown(const ReportInput &in);

/// The heat map of bucket index `bucket`.
std::string heatMapSvg(const TimingTable &t, size_t bucket,
                       const BucketChoice &choice);

} // namespace tqc::autotune

#endif // TQC_AUTOTUNE_REPORT_H
