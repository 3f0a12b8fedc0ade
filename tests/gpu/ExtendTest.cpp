//===- ExtendTest.cpp - The extend kernels against the host numerics ------===//
//
// GPU tier (label gpu): tqrt_launch_extend (and tqrt_launch_extend_store,
// whose cache bytes must equal tqrt_launch_store's) on the bundles
// GpuKernelTest.cpp uses (every preset extend supports, head_dim 64 and
// 128, GQA 1/4/8),
// against numerics' referenceExtendChunk: float64 attention over the
// dequantized prefix and the exact chunk, causal within the chunk. One
// ragged batch covers an empty prefix, a chunk of one token, an empty chunk,
// a long prefix, and lengths off the tile grid; it runs with the chunk
// (prep + attention) and prefix-only (no chunk), both writing the LSE,
// which is checked too, and with outlier scales (values spanning +-39936,
// tiny chunk rows: tiles whose scales cannot be folded into fp16 values).
// Rows beyond the batch's tokens and the padding between rows must stay
// untouched.
//
//===----------------------------------------------------------------------===//

#include "bundle_fixture.h"
#include "gpu_test_util.h"
#include "tqrt/tqrt.h"

#include "tqc/numerics/attention.h"
#include "tqc/numerics/cache.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

namespace {

using namespace tqc_gpu_test;

class Extend : public BundleTest {
protected:
  void run(tqrt_dtype dtype, bool withChunk, bool outliers = false,
           bool fusedStore = false);
};

void Extend::run(tqrt_dtype dtype, bool withChunk, bool outliers,
                 bool fusedStore) {
  tqrt_bundle_info binfo;
  TQRT_OK(tqrt_bundle_get_info(bundle_, &binfo));
  ASSERT_EQ(binfo.has_extend, 1) << "the bundle has no extend kernel: "
                                 << (binfo.extend_note ? binfo.extend_note
                                                       : "");
  const int d = spec_.headDim, hq = spec_.numQHeads, hkv = kNumKVHeads;
  // (prefix, chunk): empty prefix, one-token chunks, an empty chunk, a long
  // prefix, lengths that are no multiple of the 16-token tile or 64-token
  // key tile.
  const std::vector<int32_t> prefix = {0, 0, 300, 77, 16, 1100, 5};
  const std::vector<int32_t> chunk = {1, 37, 1, 150, 0, 70, 19};
  const int batch = int(prefix.size()), maxBatch = 9;
  std::vector<int32_t> cu(batch + 1, 0);
  for (int b = 0; b < batch; ++b)
    cu[b + 1] = cu[b] + chunk[b];
  const int total = cu[batch], maxTokens = total + 5;
  std::mt19937_64 rng(5 + d * 11 + hq);
  std::normal_distribution<double> normal;
  // The prefix: garbage cache, every prefix token by the host codec.
  const PagedCache pc =
      makePagedCache(*codec_, prefix, maxBatch, rng, outliers);
  const std::vector<uint8_t> &cache = pc.bytes;
  const std::vector<int32_t> &table = pc.table;
  const int maxBlocksPerSeq = pc.maxBlocksPerSeq;
  const int64_t cacheBytes = int64_t(cache.size());
  // fusedStore: the chunk's rows also go to the cache (extend_store), into
  // blocks after the prefixes' (garbage before), every 6th row skipped.
  const int64_t blockBytes = codec_->cacheBytes(2) - codec_->cacheBytes(1);
  const int64_t prefixBlocks = cacheBytes / blockBytes;
  const int64_t launchCacheBytes =
      cacheBytes + (fusedStore ? blockBytes * ((maxTokens + kBlockSize - 1) /
                                               kBlockSize)
                               : 0);
  std::vector<int64_t> chunkSlots(maxTokens, -1);
  for (int r = 0; r < maxTokens; ++r)
    if (r % 6 != 4)
      chunkSlots[r] = (prefixBlocks + r / kBlockSize) * kBlockSize +
                      r % kBlockSize;

  // Queries (rows padded) and the chunk's keys/values, in the launch dtype.
  const int64_t qStride = int64_t(hq) * d + 64, kvStride = int64_t(hkv) * d;
  std::vector<uint16_t> query(size_t(maxTokens) * qStride),
      ck(size_t(maxTokens) * kvStride), cv(size_t(maxTokens) * kvStride);
  std::vector<double> qd(size_t(total) * hq * d),
      kd(size_t(total) * kvStride), vd(size_t(total) * kvStride);
  for (int r = 0; r < total; ++r) {
    for (int h = 0; h < hq; ++h)
      for (int i = 0; i < d; ++i) {
        uint16_t x = encode(2.0 * normal(rng), dtype);
        query[r * qStride + h * d + i] = x;
        qd[(size_t(r) * hq + h) * d + i] = decode(x, dtype);
      }
    // outliers: every 5th row tiny (2^-12: the prep scales it), every 7th
    // row's values holding -39936 and 39936 (P times them past fp16's
    // range before the prep wrote such rows as they are), every key of
    // scale 0.5 (makePagedCache says why).
    const double tiny = outliers && r % 5 == 1 ? 1.0 / 4096 : 1.0;
    const double kScale = outliers ? 0.5 : 0.5 + r % 4;
    for (int j = 0; j < kvStride; ++j) {
      uint16_t x = encode(tiny * kScale * normal(rng), dtype);
      ck[r * kvStride + j] = x;
      kd[r * kvStride + j] = decode(x, dtype);
      double vy = tiny * ((0.5 + r % 3) * normal(rng) - 0.5);
      if (outliers && r % 7 == 3 && j % d < 2)
        vy = j % d == 0 ? -39936.0 : 39936.0;
      uint16_t y = encode(vy, dtype);
      cv[r * kvStride + j] = y;
      vd[r * kvStride + j] = decode(y, dtype);
    }
  }
  const double scale = 1.0 / std::sqrt(double(d));
  tqc::PagedBatch pb;
  pb.cache = cache.data();
  pb.blockTable = table.data();
  pb.maxBlocksPerSeq = maxBlocksPerSeq;
  pb.seqLens = prefix.data();
  pb.numSeqs = batch;
  std::vector<double> ref(size_t(total) * hq * d), refLse(size_t(total) * hq);
  tqc::referenceExtendChunk(*codec_, pb, cu.data(), qd.data(),
                            withChunk ? kd.data() : nullptr, vd.data(), scale,
                            ref.data(), refLse.data());
  // The LSE bound: fp16 mma operands round each product q_i·k_i, so a
  // score's error scales with scale·|q|·max|k| (its size without
  // cancellation), not with the score itself: 2^-9 of that.
  std::vector<double> lseTol(size_t(total) * hq);
  for (int b = 0; b < batch; ++b)
    for (int kh = 0; kh < hkv; ++kh) {
      double kmax = 0;
      std::vector<double> kk(d), vv(d);
      for (int t = 0; t < prefix[b]; ++t) {
        codec_->decodeTokenHead(
            cache.data(), table[size_t(b) * maxBlocksPerSeq + t / kBlockSize],
            t % kBlockSize, kh, kk.data(), vv.data());
        kmax = std::max(kmax, std::sqrt(std::inner_product(
                                  kk.begin(), kk.end(), kk.begin(), 0.0)));
      }
      for (int i = 0; i < chunk[b]; ++i) {
        const int r = cu[b] + i;
        if (withChunk) {
          const double *kr = &kd[size_t(r) * kvStride + kh * d];
          kmax = std::max(kmax,
                          std::sqrt(std::inner_product(kr, kr + d, kr, 0.0)));
        }
        for (int h = kh * (hq / hkv); h < (kh + 1) * (hq / hkv); ++h) {
          const double *qr = &qd[(size_t(r) * hq + h) * d];
          lseTol[size_t(r) * hq + h] =
              std::ldexp(scale * std::sqrt(std::inner_product(qr, qr + d, qr, 0.0)) *
                             kmax, -9) + 1e-6;
        }
      }
    }

  TQRT_OK(tqrt_plan_create(bundle_, maxBatch, maxTokens, &plan_));
  tqrt_plan_info info;
  TQRT_OK(tqrt_plan_get_info(plan_, &info));
  ASSERT_GT(info.extend_workspace_bytes, 0u);
  DeviceBuffer dCache(launchCacheBytes), dTable(table.size() * 4),
      dCu(cu.size() * 4), dPrefix(prefix.size() * 4),
      dQuery(query.size() * 2), dKey(ck.size() * 2), dValue(cv.size() * 2),
      dOut(size_t(maxTokens) * qStride * 2),
      dLse(size_t(maxTokens) * hq * 4), dWork(info.extend_workspace_bytes);
  ASSERT_TRUE(dCache.ptr && dTable.ptr && dCu.ptr && dPrefix.ptr &&
              dQuery.ptr && dKey.ptr && dValue.ptr && dOut.ptr && dLse.ptr &&
              dWork.ptr);
  auto up = [](DeviceBuffer &d, const void *h, size_t n) {
    return cudaMemcpy(d.ptr, h, n, cudaMemcpyHostToDevice);
  };
  CUDA_OK(cudaMemset(dCache.ptr, 0x5A, launchCacheBytes));
  CUDA_OK(up(dCache, cache.data(), cacheBytes));
  CUDA_OK(up(dTable, table.data(), table.size() * 4));
  CUDA_OK(up(dCu, cu.data(), cu.size() * 4));
  CUDA_OK(up(dPrefix, prefix.data(), prefix.size() * 4));
  CUDA_OK(up(dQuery, query.data(), query.size() * 2));
  CUDA_OK(up(dKey, ck.data(), ck.size() * 2));
  CUDA_OK(up(dValue, cv.data(), cv.size() * 2));
  CUDA_OK(cudaMemset(dOut.ptr, 0xFF, dOut.bytes)); // NaN in bf16 and fp16
  CUDA_OK(cudaMemset(dLse.ptr, 0xFF, dLse.bytes));
  CUDA_OK(cudaMemset(dWork.ptr, 0xFF, dWork.bytes));
  if (fusedStore) {
    ASSERT_TRUE(withChunk);
    // What the store kernel writes for the same rows and slots, into a
    // copy of the cache.
    DeviceBuffer dWant(launchCacheBytes), dSlots(chunkSlots.size() * 8);
    ASSERT_TRUE(dWant.ptr && dSlots.ptr);
    CUDA_OK(cudaMemcpy(dWant.ptr, dCache.ptr, launchCacheBytes,
                       cudaMemcpyDeviceToDevice));
    CUDA_OK(up(dSlots, chunkSlots.data(), chunkSlots.size() * 8));
    const int64_t *slots = static_cast<const int64_t *>(dSlots.ptr);
    TQRT_OK(tqrt_launch_store(plan_, dtype, dKey.ptr, kvStride, d,
                              dValue.ptr, kvStride, d, dWant.ptr,
                              launchCacheBytes, slots, total, nullptr));
    TQRT_OK(tqrt_launch_extend_store(
        plan_, dtype, dQuery.ptr, qStride, d, dKey.ptr, kvStride, d,
        dValue.ptr, kvStride, d, dCache.ptr, launchCacheBytes, slots,
        static_cast<const int32_t *>(dTable.ptr), maxBlocksPerSeq,
        static_cast<const int32_t *>(dCu.ptr),
        static_cast<const int32_t *>(dPrefix.ptr), dOut.ptr, qStride, d,
        static_cast<float *>(dLse.ptr), batch, float(scale), dWork.ptr,
        info.extend_workspace_bytes, nullptr));
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<uint8_t> got(launchCacheBytes), want(launchCacheBytes);
    CUDA_OK(cudaMemcpy(got.data(), dCache.ptr, launchCacheBytes,
                       cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(want.data(), dWant.ptr, launchCacheBytes,
                       cudaMemcpyDeviceToHost));
    int64_t differ = 0, first = -1;
    for (int64_t i = 0; i < launchCacheBytes; ++i)
      if (got[i] != want[i] && differ++ == 0)
        first = i;
    EXPECT_EQ(differ, 0) << "the fused store's cache differs from the store "
                            "kernel's in "
                         << differ << " bytes, the first at byte " << first
                         << " (block " << first / blockBytes << ")";
    // The store wrote something: the chunk's first block changed.
    EXPECT_FALSE(std::equal(got.begin() + cacheBytes,
                            got.begin() + cacheBytes + blockBytes,
                            std::vector<uint8_t>(blockBytes, 0x5A).begin()));
  } else {
    TQRT_OK(tqrt_launch_extend(
        plan_, dtype, dQuery.ptr, qStride, d,
        withChunk ? dKey.ptr : nullptr, kvStride, d,
        withChunk ? dValue.ptr : nullptr, kvStride, d, dCache.ptr,
        launchCacheBytes, static_cast<const int32_t *>(dTable.ptr),
        maxBlocksPerSeq, static_cast<const int32_t *>(dCu.ptr),
        static_cast<const int32_t *>(dPrefix.ptr), dOut.ptr, qStride, d,
        static_cast<float *>(dLse.ptr), batch, float(scale), dWork.ptr,
        info.extend_workspace_bytes, nullptr));
    CUDA_OK(cudaDeviceSynchronize());
  }
  std::vector<uint16_t> out(size_t(maxTokens) * qStride);
  std::vector<float> lse(size_t(maxTokens) * hq);
  CUDA_OK(cudaMemcpy(out.data(), dOut.ptr, out.size() * 2,
                     cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(lse.data(), dLse.ptr, lse.size() * 4,
                     cudaMemcpyDeviceToHost));

  std::vector<double> errors;
  double worstLse = 0;
  for (int r = 0; r < maxTokens; ++r) {
    for (int h = 0; h < hq; ++h) {
      const uint16_t *row = &out[size_t(r) * qStride + size_t(h) * d];
      if (r >= total) {
        for (int i = 0; i < d; ++i)
          ASSERT_EQ(row[i], 0xFFFF) << "row " << r << " is beyond the "
                                    << total << " chunk rows but was written";
        continue;
      }
      const double *want = &ref[(size_t(r) * hq + h) * d];
      double num = 0, den = 0;
      for (int i = 0; i < d; ++i) {
        double x = decode(row[i], dtype);
        ASSERT_TRUE(std::isfinite(x)) << "row " << r << " head " << h
                                      << " coord " << i
                                      << " not written or not finite";
        num += (x - want[i]) * (x - want[i]);
        den += want[i] * want[i];
      }
      if (den == 0) { // nothing to attend to: zeros
        EXPECT_EQ(num, 0.0) << "row " << r << " head " << h;
      } else {
        const double rel = std::sqrt(num / den);
        errors.push_back(rel);
        EXPECT_LE(rel, 1e-2) << "row " << r << " head " << h;
      }
      const double wl = refLse[size_t(r) * hq + h], gl = lse[size_t(r) * hq + h];
      if (std::isinf(wl)) {
        EXPECT_TRUE(std::isinf(gl) && gl < 0)
            << "row " << r << " head " << h << ": LSE " << gl
            << " for a row with nothing to attend to (want -inf)";
      } else {
        worstLse = std::max(worstLse, std::fabs(gl - wl));
        EXPECT_LE(std::fabs(gl - wl), lseTol[size_t(r) * hq + h])
            << "row " << r << " head " << h << ": LSE " << gl << " want "
            << wl;
      }
    }
    for (int64_t i = int64_t(hq) * d; i < qStride; ++i)
      ASSERT_EQ(out[size_t(r) * qStride + i], 0xFFFF)
          << "padding of row " << r << " was written";
  }
  ASSERT_FALSE(errors.empty());
  std::sort(errors.begin(), errors.end());
  std::printf("[extend %s %s %s] rel. error median %.2e, max %.2e over %zu "
              "rows; LSE max abs error %.2e\n",
              GetParam().bundleName().c_str(),
              dtype == TQRT_DTYPE_BF16 ? "bf16" : "f16",
              fusedStore ? "prefix+chunk, stored"
              : withChunk ? "prefix+chunk"
                          : "prefix only",
              errors[errors.size() / 2], errors.back(), errors.size(),
              worstLse);
}

TEST_P(Extend, Bf16PrefixAndChunkMatchTheFloat64Reference) {
  run(TQRT_DTYPE_BF16, true);
}
TEST_P(Extend, Fp16PrefixAndChunkMatchTheFloat64Reference) {
  run(TQRT_DTYPE_FP16, true);
}
TEST_P(Extend, PrefixOnlyMatchesTheFloat64Reference) {
  run(TQRT_DTYPE_BF16, false);
}
// Scales far from 1: prefix value ranges of +-39936 (the per-column
// scales on prefix tiles), chunk rows the prep writes as they are next to
// tiny ones it scales (chunk tiles that skip the per-column multiplies and
// ones that need them); fails where P times a value scale leaves fp16.
TEST_P(Extend, OutlierScalesMatchTheFloat64Reference) {
  run(TQRT_DTYPE_BF16, true, true);
}
// tqrt_launch_extend_store: the same attention, and the chunk in the cache
// exactly as tqrt_launch_store writes it (skipped rows untouched).
TEST_P(Extend, FusedStoreWritesTheStoreKernelsBytes) {
  run(TQRT_DTYPE_BF16, true, false, true);
}
TEST_P(Extend, Fp16FusedStoreWritesTheStoreKernelsBytes) {
  run(TQRT_DTYPE_FP16, true, false, true);
}

/// The bundles of GpuKernelTest.cpp's decode tier whose presets extend
/// supports (templates/tq/extend.h: no bf16 storage, no QJL, head_dim 64
/// and 128).
std::vector<Geometry> extendGeometries() {
  std::vector<Geometry> out;
  for (int d : {64, 128})
    for (int g : {1, 4, 8})
      for (const char *p : {"k8v4", "k4v4", "k3v4", "k3v3", "k4v2", "k2v2"})
        out.push_back({p, false, d, g, 8});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Gpu, Extend, testing::ValuesIn(extendGeometries()),
                         geometryName);

/// What a bundle without extend says (bf16 storage, QJL keys).
class ExtendUnavailable : public BundleTest {};
TEST_P(ExtendUnavailable, TheBundleSaysWhy) {
  tqrt_bundle_info binfo;
  TQRT_OK(tqrt_bundle_get_info(bundle_, &binfo));
  EXPECT_EQ(binfo.has_extend, 0);
  ASSERT_NE(binfo.extend_note, nullptr);
  EXPECT_NE(std::string(binfo.extend_note).find("extend"), std::string::npos)
      << binfo.extend_note;
}
INSTANTIATE_TEST_SUITE_P(
    Gpu, ExtendUnavailable,
    testing::Values(Geometry{"bf16", false, 128, 4, 8},
                    Geometry{"k3v4", true, 128, 4, 8},
                    Geometry{"k3v4", false, 256, 4, 8}),
    geometryName);

} // namespace
