//===- vllm_codebook.h - vLLM's fp32 Lloyd-Max centroids -------*- C++ -*-===//
#ifndef TQC_NUMERICS_VLLM_CODEBOOK_H
#define TQC_NUMERICS_VLLM_CODEBOOK_H

#include "tqc/numerics/codebook.h"

#include <vector>

namespace tqc {

/// vLLM's 2^bits fp32 levels, ascending (requires vllmCodebookExists).
std::vector<float> vllmCodebookLevels(int headDim, int bits);
/// The fp32 midpoints (c[i] + c[i+1]) / 2 vLLM's store bucketizes against.
std::vector<float> vllmCodebookMidpoints(const std::vector<float> &levels);

} // namespace tqc

#endif // TQC_NUMERICS_VLLM_CODEBOOK_H
