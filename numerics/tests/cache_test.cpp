// The host codec: what each field of a token-head holds, for every preset
// and both layouts, and the store's slot mapping.
#include "tqc/numerics/cache.h"
#include "tqc/numerics/minifloat.h"
#include "tqc/numerics/pack.h"

#include "test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace tqc;

namespace {

CacheSpec makeSpec(const std::string &name, int d = 128,
                   LayoutKind layout = LayoutKind::Native, bool qjl = false) {
  std::optional<CacheSpec> s = presetSpec(name, d, 8, 2, 16);
  EXPECT_TRUE(s.has_value()) << name;
  s->key.quant.qjl = qjl;
  useLayout(*s, layout);
  return *s;
}

/// The presets the vLLM layout holds (FORMATS.md).
bool isVllmPreset(const std::string &name) {
  return name == "k8v4" || name == "k4v4" || name == "k3v4" || name == "k3v3";
}

/// One token-head encoded into a fresh one-block cache.
struct Encoded {
  std::vector<float> k, v;
  std::vector<uint8_t> cache;
  std::vector<double> kOut, vOut;
};

Encoded encodeOne(const HostCodec &codec, std::vector<float> k,
                  std::vector<float> v, int head = 1, int pos = 5) {
  const int d = codec.spec().headDim;
  Encoded e{std::move(k),
            std::move(v),
            std::vector<uint8_t>(codec.cacheBytes(1), 0),
            {},
            {}};
  codec.encodeTokenHead(e.k.data(), e.v.data(), e.cache.data(), 0, pos, head);
  e.kOut.resize(d);
  e.vOut.resize(d);
  codec.decodeTokenHead(e.cache.data(), 0, pos, head, e.kOut.data(),
                        e.vOut.data());
  return e;
}

Encoded encodeRandom(const HostCodec &codec, uint64_t seed) {
  GaussianStream g(seed);
  const int d = codec.spec().headDim;
  return encodeOne(codec, test::gaussianFloats(g, d),
                   test::gaussianFloats(g, d));
}

double relativeError(const std::vector<float> &x,
                     const std::vector<double> &y) {
  double err = 0, ref = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    err += (x[i] - y[i]) * (x[i] - y[i]);
    ref += double(x[i]) * x[i];
  }
  return std::sqrt(err / ref);
}

const uint8_t *fieldAt(const HostCodec &codec, const Encoded &e, FieldKind kind,
                       int head = 1, int pos = 5) {
  const Field *f = codec.layout().find(kind);
  EXPECT_NE(f, nullptr) << toString(kind);
  return e.cache.data() + codec.layout().address(*f, 0, pos, head);
}

double fp16At(const uint8_t *p) {
  return decodeFp16(uint16_t(p[0] | p[1] << 8));
}

} // namespace

TEST(HostCodec, EveryPresetRoundTripsWithinItsPrecision) {
  // Loose per-format bounds on ‖x − x̃‖/‖x‖ for Gaussian inputs; the exact
  // semantics are checked by the tests below.
  const std::pair<const char *, double> bounds[] = {
      {"k8v4", 0.25}, {"k4v4", 0.25}, {"k3v4", 0.3},  {"k3v3", 0.3},
      {"k4v2", 0.45}, {"k2v2", 0.45}, {"bf16", 0.005}};
  for (auto [name, bound] : bounds)
    for (LayoutKind layout : {LayoutKind::Native, LayoutKind::VLLM})
      for (int d : {64, 128, 256}) {
        if (layout == LayoutKind::VLLM && !isVllmPreset(name))
          continue;
        HostCodec codec(makeSpec(name, d, layout));
        Encoded e = encodeRandom(codec, 1);
        EXPECT_LT(relativeError(e.k, e.kOut), bound) << name << " D=" << d;
        EXPECT_LT(relativeError(e.v, e.vOut), bound) << name << " D=" << d;
      }
  HostCodec qjl(makeSpec("k3v4", 128, LayoutKind::Native, true));
  Encoded e = encodeRandom(qjl, 2);
  EXPECT_LT(relativeError(e.k, e.kOut), 0.6); // unbiased, not small
}

TEST(HostCodec, ZeroVectorStoresZeroAndReconstructsExactZero) {
  for (const char *name : {"k3v4", "k2v2", "k4v2"})
    for (LayoutKind layout : {LayoutKind::Native, LayoutKind::VLLM})
      for (bool qjl : {false, true}) {
        if (layout == LayoutKind::VLLM && (qjl || !isVllmPreset(name)))
          continue; // not a vLLM format (VllmLayoutRejects... below)
        HostCodec codec(makeSpec(name, 128, layout, qjl));
        Encoded e = encodeOne(codec, std::vector<float>(128, 0.0f),
                              std::vector<float>(128, 0.0f));
        EXPECT_EQ(fp16At(fieldAt(codec, e, FieldKind::KeyScale)), 0.0) << name;
        for (int j = 0; j < 128; ++j) {
          ASSERT_EQ(e.kOut[j], 0.0) << name << " qjl=" << qjl;
          ASSERT_EQ(e.vOut[j], 0.0) << name << " qjl=" << qjl;
        }
      }
}

TEST(HostCodec, NativeNormCorrectionStoresNormOverCentroidNorm) {
  HostCodec codec(makeSpec("k3v4"));
  Encoded e = encodeRandom(codec, 3);
  std::vector<uint8_t> idx(128);
  unpackBits(fieldAt(codec, e, FieldKind::KeyCodes), 48, 128, 3, idx.data());
  double c2 = 0;
  for (uint8_t i : idx)
    c2 += std::pow(codec.key().codebook()->levels[i], 2);
  std::vector<double> k(e.k.begin(), e.k.end());
  const double n = norm(k.data(), 128);
  EXPECT_EQ(fp16At(fieldAt(codec, e, FieldKind::KeyScale)),
            roundToFp16(n / std::sqrt(c2)));
  EXPECT_NEAR(norm(e.kOut.data(), 128), n, n * std::ldexp(1, -11));
}

TEST(HostCodec, VllmLayoutStoresTheNormAndCorrectsAtRead) {
  HostCodec codec(makeSpec("k3v4", 128, LayoutKind::VLLM));
  Encoded e = encodeRandom(codec, 4);
  std::vector<double> k(e.k.begin(), e.k.end());
  const double n = norm(k.data(), 128);
  EXPECT_EQ(fp16At(fieldAt(codec, e, FieldKind::KeyScale)), roundToFp16(n));
  EXPECT_NEAR(norm(e.kOut.data(), 128), n, n * std::ldexp(1, -11));
}

TEST(HostCodec, NativeUniformCodesAreNearestLevelsOfTheStoredGrid) {
  HostCodec codec(makeSpec("k3v3"));
  for (uint64_t seed = 0; seed < 20; ++seed) {
    Encoded e = encodeRandom(codec, 10 + seed);
    const double scale = fp16At(fieldAt(codec, e, FieldKind::ValueScale));
    const double zero = fp16At(fieldAt(codec, e, FieldKind::ValueZero));
    for (int j = 0; j < 128; ++j) {
      double best = INFINITY;
      for (int q = 0; q < 8; ++q)
        best = std::min(best, std::abs(e.v[j] - (zero + q * scale)));
      EXPECT_LE(std::abs(e.v[j] - e.vOut[j]), best + 1e-12) << j;
    }
  }
}

TEST(HostCodec, VllmUniformCodesUseTheExactScale) {
  HostCodec codec(makeSpec("k3v4", 128, LayoutKind::VLLM));
  Encoded e = encodeRandom(codec, 5);
  const double lo = *std::min_element(e.v.begin(), e.v.end());
  const double hi = *std::max_element(e.v.begin(), e.v.end());
  const double scale = (hi - lo) / 15;
  std::vector<uint8_t> q(128);
  unpackBits(fieldAt(codec, e, FieldKind::ValueCodes), 64, 128, 4, q.data());
  for (int j = 0; j < 128; ++j)
    EXPECT_EQ(q[j],
              std::clamp(std::floor((e.v[j] - lo) / scale + 0.5), 0.0, 15.0));
  EXPECT_EQ(fp16At(fieldAt(codec, e, FieldKind::ValueScale)),
            roundToFp16(scale));
  EXPECT_EQ(fp16At(fieldAt(codec, e, FieldKind::ValueZero)), roundToFp16(lo));
}

TEST(HostCodec, ConstantValuesDequantizeToTheirFp16WithoutNaN) {
  // scale = 1e-8 rounds to fp16 0: every code is 0 and v̂ = zero16.
  HostCodec codec(makeSpec("k3v4"));
  Encoded e = encodeOne(codec, std::vector<float>(128, 1.0f),
                        std::vector<float>(128, 0.3f));
  EXPECT_EQ(fp16At(fieldAt(codec, e, FieldKind::ValueScale)), 0.0);
  for (double v : e.vOut)
    EXPECT_EQ(v, roundToFp16(0.3f));
}

TEST(HostCodec, Fp8KeysAreRawCasts) {
  HostCodec codec(makeSpec("k8v4"));
  GaussianStream g(6);
  std::vector<float> k = test::gaussianFloats(g, 128, 100); // some saturate
  Encoded e = encodeOne(codec, k, test::gaussianFloats(g, 128));
  const uint8_t *bytes = fieldAt(codec, e, FieldKind::KeyCodes);
  for (int j = 0; j < 128; ++j) {
    EXPECT_EQ(bytes[j], encodeFp8E4M3(k[j])) << j;
    EXPECT_EQ(e.kOut[j], decodeFp8E4M3(bytes[j]));
  }
}

TEST(HostCodec, Bf16StoresLittleEndianBf16) {
  HostCodec codec(makeSpec("bf16"));
  Encoded e = encodeRandom(codec, 7);
  const uint8_t *bytes = fieldAt(codec, e, FieldKind::ValueCodes);
  for (int j = 0; j < 128; ++j) {
    EXPECT_EQ(bytes[2 * j] | bytes[2 * j + 1] << 8, encodeBf16(e.v[j]));
    EXPECT_EQ(e.vOut[j], roundToBf16(e.v[j]));
  }
}

TEST(HostCodec, QjlScoreIsTheInnerProductWithTheDequantizedKey) {
  HostCodec codec(makeSpec("k3v4", 128, LayoutKind::Native, true));
  Encoded e = encodeRandom(codec, 8);
  GaussianStream g(9);
  const std::vector<double> q = test::gaussianVector(g, 128);
  const StoredVector key = codec.readKey(e.cache.data(), 0, 5, 1);
  const double score =
      codec.key().score(codec.key().prepareQuery(q.data()), key);
  EXPECT_NEAR(score, dot(q.data(), e.kOut.data(), 128), 1e-12 * 128);
  // γ is the norm of the residual against the stored (fp16-scaled) mse part.
  StoredVector mseOnly = key;
  mseOnly.gamma = 0;
  std::vector<double> mse(128);
  codec.key().reconstruct(mseOnly, mse.data());
  double r2 = 0;
  for (int j = 0; j < 128; ++j)
    r2 += (e.k[j] - mse[j]) * (e.k[j] - mse[j]);
  EXPECT_EQ(fp16At(fieldAt(codec, e, FieldKind::KeyGamma)),
            roundToFp16(std::sqrt(r2)));
}

TEST(HostCodec, StoreTokensFollowsSlotMappingAndSkipsNegativeSlots) {
  HostCodec codec(makeSpec("k3v4"));
  const int64_t tokens = 5, blocks = 3, row = 2 * 128;
  const int64_t slots[tokens] = {3, -1, 17, -5, 40};
  GaussianStream g(10);
  std::vector<float> k = test::gaussianFloats(g, tokens * row);
  std::vector<float> v = test::gaussianFloats(g, tokens * row);
  std::vector<uint8_t> stored(codec.cacheBytes(blocks), 0xCD);
  codec.storeTokens(k.data(), v.data(), tokens, slots, stored.data());
  // The same bytes as encoding each kept token-head by hand; everything
  // else untouched.
  std::vector<uint8_t> expected(codec.cacheBytes(blocks), 0xCD);
  for (int64_t t = 0; t < tokens; ++t)
    if (slots[t] >= 0)
      for (int h = 0; h < 2; ++h)
        codec.encodeTokenHead(&k[t * row + h * 128], &v[t * row + h * 128],
                              expected.data(), slots[t] / 16, slots[t] % 16, h);
  EXPECT_EQ(stored, expected);
  std::vector<double> kOut(128), vOut(128);
  codec.decodeTokenHead(stored.data(), 2, 8, 1, kOut.data(), vOut.data());
  EXPECT_LT(relativeError({&k[4 * row + 128], &k[4 * row + 256]}, kOut), 0.3);
}

TEST(HostCodec, RejectsInvalidSpecsWithTheValidationMessage) {
  CacheSpec s = makeSpec("k3v4");
  s.headDim = 96;
  try {
    HostCodec codec(s);
    FAIL() << "expected an exception";
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find("96"), std::string::npos) << e.what();
  }
}
