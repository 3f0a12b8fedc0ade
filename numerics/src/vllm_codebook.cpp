//===- vllm_codebook.cpp - vLLM's fp32 Lloyd-Max centroids (--layout vllm) ===//
//
// vLLM's TurboQuant backend quantizes keys against Lloyd-Max levels for
// N(0, 1/D) that its centroids.py computes with a fixed recipe (uniform start
// on ±3.5σ, trapezoid cell integrals with 200 points, outer edges ±10.5σ, at
// most 200 iterations, tolerance 1e-10, float64, rounded to fp32). That
// recipe stops short of the converged Gaussian book (CodebookDist::Gaussian
// differs in the 4th digit: 3-bit c·√D 0.24509 here vs 0.24498 there), so a
// byte-compatible cache needs vLLM's exact fp32 values. They are data, listed
// as the fp32 bit patterns of vllm-project/vllm centroids.py at 06d0369
// (../shared/reference/vllm-turboquant.md, appendix); the midpoints are
// computed in fp32 as vLLM's store does, (c[i] + c[i+1]) / 2.
//
//===----------------------------------------------------------------------===//

#include "vllm_codebook.h"

#include <cstdint>
#include <cstring>

namespace tqc {

namespace {

// Positive halves, ascending; the negative levels are their negations
// (vLLM's tables are symmetric bit for bit).
constexpr uint32_t kD64B3[] = {0x3cfadcfbu, 0x3dc171fcu, 0x3e2bed53u,
                               0x3e899f54u};
constexpr uint32_t kD64B4[] = {0x3c83828au, 0x3d46b9ffu, 0x3da82948u,
                               0x3df1444au, 0x3e20cd0cu, 0x3e4f16c0u,
                               0x3e846170u, 0x3eaec76eu};
constexpr uint32_t kD128B3[] = {0x3cb16317u, 0x3d88c955u, 0x3df3243du,
                                0x3e42a09fu};
constexpr uint32_t kD128B4[] = {0x3c39fbaeu, 0x3d0c8559u, 0x3d6dd0e1u,
                                0x3daa99f2u, 0x3de3682bu, 0x3e126f17u,
                                0x3e3b36e7u, 0x3e772cc4u};
constexpr uint32_t kD256B3[] = {0x3c7adcfbu, 0x3d4171fcu, 0x3dabed53u,
                                0x3e099f54u};
constexpr uint32_t kD256B4[] = {0x3c03828au, 0x3cc6b9ffu, 0x3d282948u,
                                0x3d71444au, 0x3da0cd0cu, 0x3dcf16c0u,
                                0x3e046170u, 0x3e2ec76eu};

float fromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

} // namespace

bool vllmCodebookExists(int headDim, int bits) {
  return (headDim == 64 || headDim == 128 || headDim == 256) &&
         (bits == 3 || bits == 4);
}

std::vector<float> vllmCodebookLevels(int headDim, int bits) {
  const uint32_t *half = nullptr;
  int n = 0;
  auto pick = [&](const uint32_t *t, int count) { half = t, n = count; };
  if (headDim == 64)
    bits == 3 ? pick(kD64B3, 4) : pick(kD64B4, 8);
  else if (headDim == 128)
    bits == 3 ? pick(kD128B3, 4) : pick(kD128B4, 8);
  else
    bits == 3 ? pick(kD256B3, 4) : pick(kD256B4, 8);
  std::vector<float> levels(2 * n);
  for (int i = 0; i < n; ++i) {
    levels[n + i] = fromBits(half[i]);
    levels[n - 1 - i] = -fromBits(half[i]);
  }
  return levels;
}

std::vector<float> vllmCodebookMidpoints(const std::vector<float> &levels) {
  std::vector<float> mid(levels.size() - 1);
  for (size_t i = 0; i + 1 < levels.size(); ++i)
    mid[i] = (levels[i] + levels[i + 1]) / 2.0f; // fp32, as vLLM's store
  return mid;
}

} // namespace tqc
