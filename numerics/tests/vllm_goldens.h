//===- vllm_goldens.h - Hand-computed vLLM-layout slots (FORMATS.md) ------===//
//
// One token-head per vLLM preset at head_dim 64, with the slot bytes worked
// out by hand from FORMATS.md (not from tqc's code). Shared by the host test
// (numerics/tests/vllm_golden_test.cpp) and the GPU tier
// (tests/gpu/VllmGoldenTest.cpp), which stores the same bf16 inputs through
// the kernels. Every input is exactly representable in bf16, and every key
// coordinate lies ≥ 0.006 from a midpoint, so fp32 rounding cannot move it.
//
// Keys (codebook presets). k = (a, b, c, 0, …): with H the normalized 64×64
// Sylvester matrix, H[i][j] = (−1)^popcount(i & j) / 8, so
//   y_i = (a + b·(−1)^(i&1) + c·(−1)^((i>>1)&1)) / (8·n),   n = ‖k‖ = 3,
// which repeats with period 4. Cells: idx = #{fp32 midpoints ≤ y} against
// vLLM's D=64 midpoints (3-bit ±0.06254, ±0.13118, ±0.21835 and 0; 4-bit
// 0, ±0.03229, ±0.06531, ±0.09996, ±0.13742, ±0.17963, ±0.23040, ±0.29996).
//  - (2, 1, 2): y = 5/24, 3/24, 1/24, −1/24 = 0.2083, 0.125, 0.0417, −0.0417
//      3-bit idx 6, 5, 4, 3: 8 codes = Σ idx_i << 3i = 0x72E72E -> 2E E7 72
//      4-bit idx 13, 11, 9, 6: bytes (13 | 11<<4, 9 | 6<<4) = BD 69
//  - (1, 2, 2): y = 5/24, 1/24, 1/24, −3/24
//      3-bit idx 6, 4, 4, 2: 0x526526 -> 26 65 52
//   The norm is stored raw (corrected at read): fp16(3) = 0x4200 -> 00 42.
// Values (uniform, per token-head): scale = (max − min)/(2^b − 1) in fp32,
// q = floor((v − min)/scale + 0.5) with that unrounded scale; scale and min
// stored as fp16.
//  - j%16·0.5 − 2: min −2 (C000), scale 0.5 (3800), q = j%16:
//      bytes 10 32 54 76 98 BA DC FE repeated
//  - j%8·0.25 + 1: min 1 (3C00), scale 0.25 (3400), q = j%8 (3-bit):
//      0xFAC688 -> 88 C6 FA repeated
//  - 0, 0.9453125, 0.9140625, 0.75, then by j%4: 0, 0.46875, 0.25, 0.75:
//      scale = 0.9453125/15 = 0.0630208 (fp16 0.0630493 = 2C09), min 0.
//      0.9140625/scale = 14.504 -> q 15 (the fp16-rounded scale would give
//      14.498 -> 14: this is the "codes from the unrounded scale" rule);
//      0.75 -> 11.90 -> 12, 0.46875 -> 7.44 -> 7, 0.25 -> 3.97 -> 4.
//      q = 0, 15, 15, 12, then 0, 7, 4, 12: bytes F0 CF, then 70 C4 repeated
// k8v4 keys: raw fp8 e4m3 casts (bias 7), saturating: by j%8 0.5 -> 30,
// −1.5 -> BC, 500 -> 448 = 7E, 2^-8 (subnormal 2/8·2^-6) -> 02, −448 -> FE,
// 2 -> 40, 0.30078125 = 1.203·2^-2 -> nearest 1.25·2^-2 = 2A, 3.25 -> 45.
//
//===----------------------------------------------------------------------===//
#ifndef TQC_TESTS_VLLM_GOLDENS_H
#define TQC_TESTS_VLLM_GOLDENS_H

#include <cstdint>
#include <string>
#include <vector>

namespace tqc {
namespace vllm_golden {

constexpr int kHeadDim = 64;

struct Golden {
  std::string preset;
  std::vector<float> key, value; // kHeadDim each, bf16-exact
  std::vector<uint8_t> slot;     // the slot's expected bytes
};

/// "2E E7 72 ..." for readable failure messages.
inline std::string hexBytes(const uint8_t *p, size_t n) {
  static const char kDigits[] = "0123456789ABCDEF";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += kDigits[p[i] >> 4];
    s += kDigits[p[i] & 15];
    s += ' ';
  }
  return s;
}

inline std::vector<uint8_t> repeat(std::vector<uint8_t> unit, int times) {
  std::vector<uint8_t> out;
  for (int i = 0; i < times; ++i)
    out.insert(out.end(), unit.begin(), unit.end());
  return out;
}

inline std::vector<uint8_t> cat(std::vector<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> out;
  for (const std::vector<uint8_t> &p : parts)
    out.insert(out.end(), p.begin(), p.end());
  return out;
}

inline std::vector<float> sparseKey(float a, float b, float c) {
  std::vector<float> k(kHeadDim, 0.f);
  k[0] = a, k[1] = b, k[2] = c;
  return k;
}

inline std::vector<float> halfSteps() { // j%16·0.5 − 2
  std::vector<float> v(kHeadDim);
  for (int j = 0; j < kHeadDim; ++j)
    v[j] = float(j % 16) * 0.5f - 2.f;
  return v;
}

inline std::vector<float> quarterSteps() { // j%8·0.25 + 1
  std::vector<float> v(kHeadDim);
  for (int j = 0; j < kHeadDim; ++j)
    v[j] = float(j % 8) * 0.25f + 1.f;
  return v;
}

inline std::vector<float> exactScaleValues() {
  const float pattern[4] = {0.f, 0.46875f, 0.25f, 0.75f};
  std::vector<float> v(kHeadDim);
  for (int j = 0; j < kHeadDim; ++j)
    v[j] = pattern[j % 4];
  v[1] = 0.9453125f, v[2] = 0.9140625f, v[3] = 0.75f;
  return v;
}

inline std::vector<float> fp8Keys() {
  const float pattern[8] = {0.5f,    -1.5f, 500.f, 0.00390625f,
                            -448.f,  2.f,   0.30078125f, 3.25f};
  std::vector<float> k(kHeadDim);
  for (int j = 0; j < kHeadDim; ++j)
    k[j] = pattern[j % 8];
  return k;
}

inline std::vector<Golden> goldens() {
  const std::vector<uint8_t> norm3 = {0x00, 0x42};
  const std::vector<uint8_t> halfStepCodes =
      repeat({0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE}, 4);
  return {
      {"k3v4", sparseKey(2, 1, 2), exactScaleValues(),
       cat({repeat({0x2E, 0xE7, 0x72}, 8), norm3, {0xF0, 0xCF},
            repeat({0x70, 0xC4}, 15), {0x09, 0x2C, 0x00, 0x00}})},
      {"k4v4", sparseKey(2, 1, 2), halfSteps(),
       cat({repeat({0xBD, 0x69}, 16), norm3, halfStepCodes,
            {0x00, 0x38, 0x00, 0xC0}})},
      {"k3v3", sparseKey(1, 2, 2), quarterSteps(),
       cat({repeat({0x26, 0x65, 0x52}, 8), norm3, repeat({0x88, 0xC6, 0xFA}, 8),
            {0x00, 0x34, 0x00, 0x3C}})},
      {"k8v4", fp8Keys(), halfSteps(),
       cat({repeat({0x30, 0xBC, 0x7E, 0x02, 0xFE, 0x40, 0x2A, 0x45}, 8),
            halfStepCodes, {0x00, 0x38, 0x00, 0xC0}})},
  };
}

} // namespace vllm_golden
} // namespace tqc

#endif // TQC_TESTS_VLLM_GOLDENS_H
