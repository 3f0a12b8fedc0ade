// The float64 reference attention over a paged compressed cache equals dense
// attention over the dequantized vectors (ALGORITHM.md §6, "Attention"):
// shuffled block tables, ragged lengths (not multiples of the block size),
// an empty sequence, GQA 4, decode and extend, several presets.
#include "tqc/numerics/attention.h"

#include "test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numeric>

using namespace tqc;

namespace {

constexpr int kDim = 128, kQHeads = 8, kKVHeads = 2, kBlock = 16;
constexpr int kMaxBlocksPerSeq = 5;
const std::vector<int32_t> kSeqLens = {37, 0, 16, 1, 70};
const std::vector<int32_t> kChunkLens = {5, 0, 16, 1, 3}; // extend queries

/// A batch stored through HostCodec::storeTokens into shuffled blocks, with
/// the original (float) K/V kept for comparison.
class PagedFixture {
public:
  explicit PagedFixture(const CacheSpec &spec) : codec(spec) {
    const int numSeqs = int(kSeqLens.size());
    int needed = 0;
    for (int len : kSeqLens)
      needed += (len + kBlock - 1) / kBlock;
    // Physical blocks in a scrambled order, with spares never referenced.
    std::vector<int32_t> physical(needed + 3);
    std::iota(physical.begin(), physical.end(), 0);
    SplitMix64 rng(77);
    for (size_t i = physical.size() - 1; i > 0; --i)
      std::swap(physical[i], physical[rng.next() % (i + 1)]);
    blockTable.assign(numSeqs * kMaxBlocksPerSeq, -1);
    int next = 0;
    for (int s = 0; s < numSeqs; ++s)
      for (int b = 0; b * kBlock < kSeqLens[s]; ++b)
        blockTable[s * kMaxBlocksPerSeq + b] = physical[next++];
    cache.assign(codec.cacheBytes(int64_t(physical.size())), 0);

    // All tokens of all sequences in one store call, with padding tokens
    // (slot −1) interleaved. Keys get a per-sequence offset so that the
    // softmax is far from uniform.
    GaussianStream g(1234);
    const size_t row = size_t(kKVHeads) * kDim;
    std::vector<float> k, v;
    std::vector<int64_t> slots;
    original.resize(numSeqs);
    for (int s = 0; s < numSeqs; ++s)
      for (int t = 0; t < kSeqLens[s]; ++t) {
        std::vector<float> kt = test::gaussianFloats(g, row, 1.5);
        std::vector<float> vt = test::gaussianFloats(g, row);
        k.insert(k.end(), kt.begin(), kt.end());
        v.insert(v.end(), vt.begin(), vt.end());
        original[s].push_back({kt, vt});
        const int32_t block = blockTable[s * kMaxBlocksPerSeq + t / kBlock];
        slots.push_back(int64_t(block) * kBlock + t % kBlock);
        if (t % 7 == 3) { // padding
          std::vector<float> junk = test::gaussianFloats(g, row, 50);
          k.insert(k.end(), junk.begin(), junk.end());
          v.insert(v.end(), junk.begin(), junk.end());
          slots.push_back(-1);
        }
      }
    codec.storeTokens(k.data(), v.data(), int64_t(slots.size()), slots.data(),
                      cache.data());
    batch = {cache.data(), blockTable.data(), kMaxBlocksPerSeq, kSeqLens.data(),
             numSeqs};
  }

  /// K/V of a (sequence, KV head) as dense float64 rows: dequantized from
  /// the cache, or the original inputs.
  void denseKV(int s, int kvHead, bool dequantized, std::vector<double> &k,
               std::vector<double> &v) const {
    k.assign(size_t(kSeqLens[s]) * kDim, 0);
    v.assign(size_t(kSeqLens[s]) * kDim, 0);
    for (int t = 0; t < kSeqLens[s]; ++t) {
      double *kt = &k[size_t(t) * kDim], *vt = &v[size_t(t) * kDim];
      if (dequantized) {
        const int32_t block = blockTable[s * kMaxBlocksPerSeq + t / kBlock];
        codec.decodeTokenHead(cache.data(), block, t % kBlock, kvHead, kt, vt);
      } else {
        const auto &[ko, vo] = original[s][t];
        std::copy_n(&ko[size_t(kvHead) * kDim], kDim, kt);
        std::copy_n(&vo[size_t(kvHead) * kDim], kDim, vt);
      }
    }
  }

  /// Dense attention for query rows [firstRow, firstRow + n) of sequence s,
  /// causal as in referenceExtend.
  void denseChunk(int s, int firstRow, int n, const double *query,
                  bool dequantized, double scale, double *out) const {
    std::vector<double> k, v;
    for (int kvHead = 0; kvHead < kKVHeads; ++kvHead) {
      denseKV(s, kvHead, dequantized, k, v);
      for (int i = 0; i < n; ++i)
        for (int h = kvHead * 4; h < kvHead * 4 + 4; ++h) {
          const size_t r = (size_t(firstRow + i) * kQHeads + h) * kDim;
          denseAttention(query + r, k.data(), v.data(), kSeqLens[s] - n + i + 1,
                         kDim, scale, out + r);
        }
    }
  }

  HostCodec codec;
  std::vector<int32_t> blockTable;
  std::vector<uint8_t> cache;
  std::vector<std::vector<std::pair<std::vector<float>, std::vector<float>>>>
      original;
  PagedBatch batch;
};

double maxAbsDiff(const std::vector<double> &a, const std::vector<double> &b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i)
    m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

double relativeL2(const std::vector<double> &a, const std::vector<double> &b) {
  return std::sqrt(test::squaredDistance(a, b) /
                   std::inner_product(b.begin(), b.end(), b.begin(), 0.0));
}

struct Case {
  const char *preset;
  bool qjl;
};

std::string caseName(const Case &c) {
  return std::string(c.preset) + (c.qjl ? "+qjl" : "");
}

CacheSpec caseSpec(const Case &c) {
  CacheSpec s = *presetSpec(c.preset, kDim, kQHeads, kKVHeads, kBlock);
  s.key.quant.qjl = c.qjl;
  return s;
}

const Case kCases[] = {{"k3v4", false},
                       {"k8v4", false},
                       {"k4v2", false},
                       {"bf16", false},
                       {"k3v4", true}};

const double kScale = 1 / std::sqrt(double(kDim));

} // namespace

// For QJL keys the dense comparison's "dequantized key" is
// x̃_mse + γ·√(π/2)/D·Sᵀz (HostCodec::decodeTokenHead), the vector whose
// inner products are the score estimator the reference uses.
TEST(ReferenceAttention, DecodeEqualsDenseOverDequantizedCache) {
  for (const Case &c : kCases) {
    PagedFixture fx(caseSpec(c));
    const int numSeqs = int(kSeqLens.size());
    GaussianStream g(55);
    const std::vector<double> q =
        test::gaussianVector(g, numSeqs * kQHeads * kDim);
    std::vector<double> ref(q.size()), dense(q.size(), 0.0),
        exact(q.size(), 0.0);
    referenceDecode(fx.codec, fx.batch, q.data(), kScale, ref.data());
    for (int s = 0; s < numSeqs; ++s)
      if (kSeqLens[s] > 0) {
        fx.denseChunk(s, s, 1, q.data(), true, kScale, dense.data());
        fx.denseChunk(s, s, 1, q.data(), false, kScale, exact.data());
      }
    EXPECT_LT(maxAbsDiff(ref, dense), 1e-12) << caseName(c);
    // Sequence 1 is empty: exact zeros, no NaN.
    for (int j = 0; j < kQHeads * kDim; ++j)
      ASSERT_EQ(ref[size_t(kQHeads) * kDim + j], 0.0) << caseName(c);
    for (double x : ref)
      ASSERT_TRUE(std::isfinite(x));
    // Against the original K/V the difference is the quantization error:
    // reported, not asserted.
    const double err = relativeL2(ref, exact);
    RecordProperty(caseName(c) + "_decode_rel_error_vs_original",
                   std::to_string(err));
    std::cout << caseName(c) << ": decode output relative error vs original "
              << "K/V " << err << "\n";
  }
}

TEST(ReferenceAttention, ExtendEqualsDenseOverDequantizedCache) {
  for (const Case &c : kCases) {
    PagedFixture fx(caseSpec(c));
    const int numSeqs = int(kSeqLens.size());
    std::vector<int32_t> start(numSeqs + 1, 0);
    for (int s = 0; s < numSeqs; ++s)
      start[s + 1] = start[s] + kChunkLens[s];
    GaussianStream g(66);
    const std::vector<double> q =
        test::gaussianVector(g, size_t(start.back()) * kQHeads * kDim);
    std::vector<double> ref(q.size()), dense(q.size(), 0.0);
    referenceExtend(fx.codec, fx.batch, start.data(), q.data(), kScale,
                    ref.data());
    for (int s = 0; s < numSeqs; ++s)
      fx.denseChunk(s, start[s], kChunkLens[s], q.data(), true, kScale,
                    dense.data());
    EXPECT_LT(maxAbsDiff(ref, dense), 1e-12) << caseName(c);
    for (double x : ref)
      ASSERT_TRUE(std::isfinite(x));
  }
}

TEST(ReferenceAttention, LastExtendQueryEqualsDecode) {
  PagedFixture fx(caseSpec({"k3v4", false}));
  const int numSeqs = int(kSeqLens.size());
  const size_t row = size_t(kQHeads) * kDim;
  std::vector<int32_t> start(numSeqs + 1, 0);
  for (int s = 0; s < numSeqs; ++s)
    start[s + 1] = start[s] + kChunkLens[s];
  GaussianStream g(88);
  const std::vector<double> q = test::gaussianVector(g, start.back() * row);
  std::vector<double> extend(q.size());
  referenceExtend(fx.codec, fx.batch, start.data(), q.data(), kScale,
                  extend.data());
  std::vector<double> lastQueries(numSeqs * row, 0.0), decode(numSeqs * row);
  for (int s = 0; s < numSeqs; ++s)
    if (kChunkLens[s] > 0)
      std::copy_n(&q[(start[s + 1] - 1) * row], row, &lastQueries[s * row]);
  referenceDecode(fx.codec, fx.batch, lastQueries.data(), kScale,
                  decode.data());
  for (int s = 0; s < numSeqs; ++s) {
    if (kChunkLens[s] == 0)
      continue;
    for (size_t j = 0; j < row; ++j)
      ASSERT_EQ(decode[s * row + j], extend[(start[s + 1] - 1) * row + j]);
  }
}

TEST(ReferenceAttention, ChunkLongerThanSequenceIsRejected) {
  PagedFixture fx(caseSpec({"k3v4", false}));
  std::vector<int32_t> start = {0, 0, 1, 1, 1, 1}; // sequence 1 is empty
  std::vector<double> q(size_t(kQHeads) * kDim, 1.0), out(q.size());
  EXPECT_THROW(referenceExtend(fx.codec, fx.batch, start.data(), q.data(),
                               kScale, out.data()),
               std::invalid_argument);
}

TEST(DenseAttention, NoKeysGivesZeros) {
  std::vector<double> q(4, 1.0), out(4, 7.0);
  denseAttention(q.data(), nullptr, nullptr, 0, 4, 1.0, out.data());
  for (double x : out)
    EXPECT_EQ(x, 0.0);
}
