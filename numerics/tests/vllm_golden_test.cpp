//===- vllm_golden_test.cpp - The host codec writes FORMATS.md's vLLM slots ===//
//
// The hand-computed slots of vllm_goldens.h (one per vLLM preset) against the
// host codec, plus the vLLM layout's recipe checks: the exact fp32 codebook,
// the plain Hadamard, and clear errors for recipes vLLM does not have.
//
//===----------------------------------------------------------------------===//

#include "vllm_goldens.h"

#include "tqc/numerics/cache.h"
#include "tqc/numerics/codebook.h"
#include "tqc/numerics/minifloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace tqc {
namespace {

CacheSpec vllmSpec(const std::string &preset, int d) {
  std::optional<CacheSpec> s = presetSpec(preset, d, 8, 2, 16);
  EXPECT_TRUE(s.has_value()) << preset;
  useLayout(*s, LayoutKind::VLLM);
  return *s;
}

TEST(VllmGolden, HostCodecWritesTheHandComputedSlots) {
  for (const vllm_golden::Golden &g : vllm_golden::goldens()) {
    HostCodec codec(vllmSpec(g.preset, vllm_golden::kHeadDim));
    ASSERT_EQ(codec.layout().bytesPerTokenHead(), int64_t(g.slot.size()))
        << g.preset;
    std::vector<uint8_t> cache(codec.cacheBytes(2), 0xA5);
    // Block 1, position 5, head 1: the slot at FORMATS.md's address.
    codec.encodeTokenHead(g.key.data(), g.value.data(), cache.data(), 1, 5, 1);
    const int64_t slot = codec.layout().blockStride + 5 * 2 * int64_t(g.slot.size()) +
                         1 * int64_t(g.slot.size());
    EXPECT_EQ(vllm_golden::hexBytes(cache.data() + slot, g.slot.size()),
              vllm_golden::hexBytes(g.slot.data(), g.slot.size()))
        << g.preset;
    // Nothing else was touched.
    for (int64_t i = 0; i < int64_t(cache.size()); ++i) {
      if (i < slot || i >= slot + int64_t(g.slot.size())) {
        ASSERT_EQ(cache[i], 0xA5) << g.preset << " byte " << i;
      }
    }
  }
}

TEST(VllmGolden, GoldenInputsAreBf16Exact) {
  // The GPU tier feeds the same inputs as bf16.
  for (const vllm_golden::Golden &g : vllm_golden::goldens())
    for (const std::vector<float> *x : {&g.key, &g.value})
      for (float f : *x)
        ASSERT_EQ(decodeBf16(encodeBf16(f)), double(f)) << g.preset;
}

TEST(VllmLayout, CodebookIsVllmsFp32Table) {
  // D=128 3-bit, as fp32 bit patterns (vllm-project/vllm centroids.py).
  const uint32_t expected[8] = {0xbe42a09f, 0xbdf3243d, 0xbd88c955,
                                0xbcb16317, 0x3cb16317, 0x3d88c955,
                                0x3df3243d, 0x3e42a09f};
  std::shared_ptr<const Codebook> book =
      sharedCodebook(128, 3, CodebookDist::Vllm);
  ASSERT_EQ(book->size(), 8);
  for (int i = 0; i < 8; ++i) {
    const float f = float(book->levels[i]);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    EXPECT_EQ(bits, expected[i]) << i;
    EXPECT_EQ(double(f), book->levels[i]) << "levels are fp32 values";
  }
  // Midpoints in fp32: (c[i] + c[i+1]) / 2, the middle one exactly 0.
  EXPECT_EQ(book->boundaries[3], 0.0);
  EXPECT_EQ(float(book->boundaries[4]), 0.0442219786f);
  // D=256 levels are D=64's halved (σ = 1/√D), bit for bit.
  auto b64 = sharedCodebook(64, 4, CodebookDist::Vllm);
  auto b256 = sharedCodebook(256, 4, CodebookDist::Vllm);
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(b256->levels[i], b64->levels[i] / 2) << i;
  EXPECT_THROW(sharedCodebook(96, 3, CodebookDist::Vllm),
               std::invalid_argument);
  EXPECT_THROW(sharedCodebook(128, 2, CodebookDist::Vllm),
               std::invalid_argument);
}

TEST(VllmLayout, UsesThePlainHadamardAndTheVllmCodebook) {
  CacheSpec s = vllmSpec("k3v4", 128);
  EXPECT_EQ(s.key.rotation.kind, RotationKind::PlainHadamard);
  EXPECT_EQ(s.key.quant.dist, CodebookDist::Vllm);
  EXPECT_EQ(s.value.rotation.kind, RotationKind::None);
  EXPECT_EQ(validate(s), "");
  CacheSpec f = vllmSpec("k8v4", 64);
  EXPECT_EQ(f.key.rotation.kind, RotationKind::None);
  EXPECT_EQ(validate(f), "");
}

TEST(VllmLayout, RejectsRecipesVllmDoesNotHave) {
  auto error = [](CacheSpec s) { return validate(s); };
  EXPECT_NE(error(vllmSpec("k2v2", 128)).find("not a vLLM key format"),
            std::string::npos);
  EXPECT_NE(error(vllmSpec("k4v2", 128)).find("not a vLLM value format"),
            std::string::npos);
  EXPECT_NE(error(vllmSpec("bf16", 128)).find("accepted"), std::string::npos);
  CacheSpec qjl = *presetSpec("k3v4", 128, 8, 2, 16);
  qjl.key.quant.qjl = true;
  useLayout(qjl, LayoutKind::VLLM);
  EXPECT_NE(error(qjl).find("with qjl"), std::string::npos);
  CacheSpec rounds = *presetSpec("k3v4", 128, 8, 2, 16);
  rounds.key.rotation.rounds = 2;
  useLayout(rounds, LayoutKind::VLLM);
  EXPECT_NE(error(rounds).find("rotation rounds"), std::string::npos);
  CacheSpec d32 = *presetSpec("k3v4", 32, 8, 2, 16);
  useLayout(d32, LayoutKind::VLLM);
  EXPECT_EQ(error(d32), "head_dim 32 has no vLLM TurboQuant codebook; accepted "
                        "with --layout vllm: 64, 128, 256");
}

TEST(VllmLayout, KeyStoresTheNormAndFp32Cells) {
  // A random key: the stored indices are the cells of y = H·k/(n + 1e-8)
  // against the fp32 midpoints, the norm is ‖k‖ (not corrected).
  HostCodec codec(vllmSpec("k4v4", 128));
  std::vector<float> k(128), v(128, 0.f);
  uint64_t state = 99;
  for (float &x : k) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    x = float(int(state >> 40) % 2001 - 1000) / 256.f;
  }
  std::vector<uint8_t> cache(codec.cacheBytes(1), 0);
  codec.encodeTokenHead(k.data(), v.data(), cache.data(), 0, 0, 0);
  double n2 = 0;
  for (float x : k)
    n2 += double(x) * x;
  EXPECT_EQ(decodeFp16(cache[64] | cache[65] << 8), roundToFp16(std::sqrt(n2)));
  std::vector<double> y(k.begin(), k.end());
  for (double &x : y)
    x /= std::sqrt(n2);
  makeRotation({RotationKind::PlainHadamard, 0, 1}, 128)->apply(y.data());
  const Codebook &book = *codec.key().codebook();
  for (int j = 0; j < 128; ++j) {
    const int idx = (cache[j / 2] >> (4 * (j % 2))) & 15;
    EXPECT_EQ(idx, nearestIndex(book, y[j])) << j;
  }
}

} // namespace
} // namespace tqc
