//===- GpuKernelTest.cpp - The kernels against the host numerics, on a GPU ===//
//
// The GPU tier (ctest label `gpu`). Each test loads a bundle that tqc built
// (tests/gpu/make-bundles.sh; directory from TQC_GPU_BUNDLES), launches it
// through the C runtime exactly as an engine would, and compares with the
// host numerics on fresh random data:
//  - store: the cache bytes equal HostCodec::storeTokens' bytes (rounding
//    ties may differ; their fraction is reported and must stay below 1e-3),
//    untouched slots keep their poison, negative slots are skipped;
//  - decode: every output row is within 1e-2 relative error of the float64
//    reference over the dequantized cache, with ragged lengths (0, 1, not a
//    multiple of the block size, more tokens than one split holds), shuffled
//    block tables, a batch below the plan's maximum, poisoned outputs that
//    must all be written, and padding between rows that must not be.
// Without a CUDA device every test skips with the reason.
//
//===----------------------------------------------------------------------===//

#include "bundle_fixture.h"
#include "gpu_test_util.h"
#include "tqrt/tqrt.h"
#include "tq/abi.h"

#include "tqc/numerics/attention.h"
#include "tqc/numerics/cache.h"
#include "tqc/numerics/minifloat.h"
#include "tqc/numerics/spec.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace tqc_gpu_test;


//===----------------------------------------------------------------------===//
// Store
//===----------------------------------------------------------------------===//

class Store : public BundleTest {};

TEST_P(Store, WritesTheHostCodecsBytes) {
  const int d = spec_.headDim;
  const int numTokens = 700, numBlocks = 64;
  const int64_t cacheBytes = codec_->cacheBytes(numBlocks);
  std::mt19937_64 rng(1234 + d);
  std::normal_distribution<double> normal;

  // Keys and values in bf16 (what the kernel reads) and as floats (what the
  // host codec encodes): the same numbers. Per-token scales vary so norms and
  // min/max differ across tokens; one token is all zeros.
  const int64_t elems = int64_t(numTokens) * kNumKVHeads * d;
  std::vector<uint16_t> kBits(elems), vBits(elems);
  std::vector<float> kHost(elems), vHost(elems);
  for (int64_t i = 0; i < elems; ++i) {
    int64_t token = i / (kNumKVHeads * d);
    double scale = token == 5 ? 0.0 : 0.25 + (token % 7);
    kBits[i] = tqc::encodeBf16(scale * normal(rng));
    vBits[i] = tqc::encodeBf16(scale * normal(rng) + 0.5 * (token % 3));
    kHost[i] = float(tqc::decodeBf16(kBits[i]));
    vHost[i] = float(tqc::decodeBf16(vBits[i]));
  }
  // Distinct slots in shuffled order; every 11th token is skipped.
  std::vector<int64_t> slots(numBlocks * kBlockSize);
  std::iota(slots.begin(), slots.end(), 0);
  std::shuffle(slots.begin(), slots.end(), rng);
  std::vector<int64_t> slotMapping(numTokens);
  for (int t = 0; t < numTokens; ++t)
    slotMapping[t] = t % 11 == 3 ? -1 : slots[t];

  std::vector<uint8_t> expected(cacheBytes, 0xA5);
  codec_->storeTokens(kHost.data(), vHost.data(), numTokens,
                      slotMapping.data(), expected.data());

  TQRT_OK(tqrt_plan_create(bundle_, /*max_batch=*/1, /*max_tokens=*/1024,
                           &plan_));
  DeviceBuffer key(elems * 2), value(elems * 2), cache(cacheBytes),
      mapping(numTokens * 8);
  ASSERT_TRUE(key.ptr && value.ptr && cache.ptr && mapping.ptr);
  CUDA_OK(cudaMemcpy(key.ptr, kBits.data(), elems * 2, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(value.ptr, vBits.data(), elems * 2, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(mapping.ptr, slotMapping.data(), numTokens * 8,
                     cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(cache.ptr, 0xA5, cacheBytes));
  TQRT_OK(tqrt_launch_store(plan_, TQRT_DTYPE_BF16, key.ptr, kNumKVHeads * d,
                            d, value.ptr, kNumKVHeads * d, d, cache.ptr,
                            cacheBytes,
                            static_cast<const int64_t *>(mapping.ptr),
                            numTokens, nullptr));
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<uint8_t> got(cacheBytes);
  CUDA_OK(cudaMemcpy(got.data(), cache.ptr, cacheBytes, cudaMemcpyDeviceToHost));

  // Compare field by field, token-head by token-head.
  int64_t fieldsTotal = 0, fieldsDiffer = 0, bytesTotal = 0, bytesDiffer = 0;
  std::string firstDiff;
  const tqc::Layout &l = codec_->layout();
  for (int64_t block = 0; block < numBlocks; ++block)
    for (int pos = 0; pos < kBlockSize; ++pos)
      for (int h = 0; h < kNumKVHeads; ++h)
        for (const tqc::Field &f : l.fields) {
          int64_t a = l.address(f, block, pos, h);
          bool differs = std::memcmp(&got[a], &expected[a], f.bytes) != 0;
          for (int64_t i = 0; i < f.bytes; ++i)
            bytesDiffer += got[a + i] != expected[a + i];
          bytesTotal += f.bytes;
          ++fieldsTotal;
          if (differs) {
            ++fieldsDiffer;
            if (firstDiff.empty())
              firstDiff = std::string(tqc::toString(f.kind)) + " of block " +
                          std::to_string(block) + " pos " +
                          std::to_string(pos) + " head " + std::to_string(h);
          }
        }
  double byteFraction = double(bytesDiffer) / double(bytesTotal);
  std::printf("[store %s] %lld of %lld bytes differ (%.2e), %lld of %lld "
              "fields%s%s\n",
              GetParam().bundleName().c_str(), (long long)bytesDiffer,
              (long long)bytesTotal, byteFraction, (long long)fieldsDiffer,
              (long long)fieldsTotal, firstDiff.empty() ? "" : "; first: ",
              firstDiff.c_str());
  EXPECT_LT(byteFraction, 1e-3) << "first difference: " << firstDiff;
}

//===----------------------------------------------------------------------===//
// Decode
//===----------------------------------------------------------------------===//

class Decode : public BundleTest {
protected:
  /// Decode over sequences of `lens` (the last row is not launched and
  /// must stay untouched) with a plan for `maxBatch` rows. 2600 tokens use
  /// several splits (decode.h splitsUsed: at least 512 tokens per split with
  /// 8), so partials merge.
  void runDecode(tqrt_dtype dtype,
                 std::vector<int32_t> lens = {0, 1, 17, 300, 2600, 77},
                 int maxBatch = 8);
};

void Decode::runDecode(tqrt_dtype dtype, std::vector<int32_t> lens,
                       int maxBatch) {
  const int d = spec_.headDim, hq = spec_.numQHeads;
  // Ragged: empty, one token, not a multiple of the block size, more than one
  // split's share, and a row beyond `batch` that must stay untouched.
  const int batch = int(lens.size());
  const int rows = std::max(batch, maxBatch); // host/device buffer rows
  std::mt19937_64 rng(99 + d * 7 + hq);
  std::normal_distribution<double> normal;
  // Shuffled block tables (unused entries point at garbage blocks), every
  // real token encoded by the host codec.
  const PagedCache pc = makePagedCache(*codec_, lens, rows, rng);
  const std::vector<uint8_t> &cache = pc.bytes;
  const std::vector<int32_t> &table = pc.table;
  const int maxBlocksPerSeq = pc.maxBlocksPerSeq;
  const int64_t cacheBytes = int64_t(cache.size());

  // Queries in the launch dtype; rows padded to check strided writes.
  const int64_t rowStride = int64_t(hq) * d + 64;
  std::vector<uint16_t> query(size_t(rows) * rowStride);
  std::vector<double> queryHost(size_t(batch) * hq * d);
  for (int b = 0; b < batch; ++b)
    for (int h = 0; h < hq; ++h)
      for (int i = 0; i < d; ++i) {
        uint16_t q = encode(2.0 * normal(rng), dtype);
        query[size_t(b) * rowStride + size_t(h) * d + i] = q;
        queryHost[(size_t(b) * hq + h) * d + i] = decode(q, dtype);
      }

  double scale = 1.0 / std::sqrt(double(d));
  std::vector<double> ref(size_t(batch) * hq * d);
  tqc::PagedBatch pb;
  pb.cache = cache.data();
  pb.blockTable = table.data();
  pb.maxBlocksPerSeq = maxBlocksPerSeq;
  pb.seqLens = lens.data();
  pb.numSeqs = batch;
  tqc::referenceDecode(*codec_, pb, queryHost.data(), scale, ref.data());

  // The launch: batch - 1 rows of a plan for maxBatch (the last row is not
  // processed: its output must stay poisoned).
  const int launched = batch - 1;
  TQRT_OK(tqrt_plan_create(bundle_, maxBatch, /*max_tokens=*/maxBatch, &plan_));
  tqrt_plan_info info;
  TQRT_OK(tqrt_plan_get_info(plan_, &info));
  DeviceBuffer dCache(cacheBytes), dTable(table.size() * 4),
      dLens(lens.size() * 4), dQuery(query.size() * 2),
      dOut(size_t(rows) * rowStride * 2),
      dWork(std::max<uint64_t>(info.workspace_bytes, 16));
  ASSERT_TRUE(dCache.ptr && dTable.ptr && dLens.ptr && dQuery.ptr &&
              dOut.ptr && dWork.ptr);
  CUDA_OK(cudaMemcpy(dCache.ptr, cache.data(), cacheBytes, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dTable.ptr, table.data(), table.size() * 4, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dLens.ptr, lens.data(), lens.size() * 4, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dQuery.ptr, query.data(), query.size() * 2, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(dOut.ptr, 0xFF, dOut.bytes)); // NaN in bf16 and fp16
  // The workspace: partials poisoned (NaN), the split tickets zeroed as
  // abi.h requires; every decode must leave the tickets at zero.
  const size_t ticketBytes =
      info.workspace_bytes ? size_t(maxBatch) * TQ_TICKETS_PER_ROW(hq) * 4 : 0;
  CUDA_OK(cudaMemset(dWork.ptr, 0xFF, dWork.bytes));
  CUDA_OK(cudaMemset(dWork.ptr, 0, ticketBytes));
  auto launch = [&] {
    TQRT_OK(tqrt_launch_decode(
        plan_, dtype, dQuery.ptr, rowStride, d, dCache.ptr, cacheBytes,
        static_cast<const int32_t *>(dTable.ptr), maxBlocksPerSeq,
        static_cast<const int32_t *>(dLens.ptr), dOut.ptr, rowStride, d,
        launched, float(scale), dWork.ptr, info.workspace_bytes, nullptr));
    CUDA_OK(cudaDeviceSynchronize());
  };
  launch();
  std::vector<uint16_t> out(size_t(rows) * rowStride);
  CUDA_OK(cudaMemcpy(out.data(), dOut.ptr, out.size() * 2, cudaMemcpyDeviceToHost));
  // A second launch on the same workspace: tickets back at zero, and the
  // same bits (the merge order is fixed whichever split finishes last).
  std::vector<uint32_t> tickets(ticketBytes / 4, 1);
  CUDA_OK(cudaMemcpy(tickets.data(), dWork.ptr, ticketBytes, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < tickets.size(); ++i)
    ASSERT_EQ(tickets[i], 0u) << "split ticket " << i << " left non-zero";
  CUDA_OK(cudaMemset(dOut.ptr, 0xFF, dOut.bytes));
  launch();
  std::vector<uint16_t> again(out.size());
  CUDA_OK(cudaMemcpy(again.data(), dOut.ptr, again.size() * 2, cudaMemcpyDeviceToHost));
  ASSERT_TRUE(again == out) << "a second decode on the same workspace differs";

  std::vector<double> errors;
  for (int b = 0; b < batch; ++b) {
    for (int h = 0; h < hq; ++h) {
      const uint16_t *row = &out[size_t(b) * rowStride + size_t(h) * d];
      const double *want = &ref[(size_t(b) * hq + h) * d];
      if (b >= launched) {
        for (int i = 0; i < d; ++i)
          ASSERT_EQ(row[i], 0xFFFF) << "row " << b << " is beyond batch but "
                                    << "was written";
        continue;
      }
      double num = 0, den = 0;
      for (int i = 0; i < d; ++i) {
        double x = decode(row[i], dtype);
        ASSERT_TRUE(std::isfinite(x)) << "seq " << b << " head " << h
                                      << " coord " << i << " not written or "
                                      << "not finite (len " << lens[b] << ")";
        num += (x - want[i]) * (x - want[i]);
        den += want[i] * want[i];
      }
      if (lens[b] == 0) {
        EXPECT_EQ(num, 0.0) << "an empty sequence must output zeros";
        continue;
      }
      double rel = std::sqrt(num / std::max(den, 1e-30));
      errors.push_back(rel);
      EXPECT_LE(rel, 1e-2) << "seq " << b << " (len " << lens[b] << ") head "
                           << h;
    }
    // Padding after each row stays untouched.
    for (int64_t i = int64_t(hq) * d; i < rowStride; ++i)
      ASSERT_EQ(out[size_t(b) * rowStride + i], 0xFFFF)
          << "padding of row " << b << " was written";
  }
  std::sort(errors.begin(), errors.end());
  std::printf("[decode %s %s, max_batch %d] rel. error median %.2e, max "
              "%.2e over %zu rows (plan %d: %d splits, workspace %llu B)\n",
              GetParam().bundleName().c_str(),
              dtype == TQRT_DTYPE_BF16 ? "bf16" : "f16", maxBatch,
              errors[errors.size() / 2], errors.back(), errors.size(),
              info.plan_index, info.splits,
              (unsigned long long)info.workspace_bytes);
}

TEST_P(Decode, Bf16MatchesTheFloat64Reference) { runDecode(TQRT_DTYPE_BF16); }
TEST_P(Decode, Fp16MatchesTheFloat64Reference) { runDecode(TQRT_DTYPE_FP16); }

/// A bundle with the built-in per-bucket plans: one long sequence on the
/// plan for max_batch 1 (the most splits), and a batch on the plan for 64
/// (one split: decode writes the output itself).
class DecodeBuckets : public Decode {};
TEST_P(DecodeBuckets, EveryBucketsPlanMatchesTheReference) {
  runDecode(TQRT_DTYPE_BF16, {4999, 0}, 1);
  if (HasFatalFailure())
    return;
  tqrt_plan_destroy(plan_);
  plan_ = nullptr;
  runDecode(TQRT_DTYPE_BF16, {0, 1, 17, 300, 1000, 77}, 64);
}

const char *const kPresets[] = {"k8v4", "k4v4", "k3v4", "k3v3",
                                "k4v2", "k2v2", "bf16"};
/// The presets the vLLM layout holds (FORMATS.md).
const char *const kVllmPresets[] = {"k8v4", "k4v4", "k3v4", "k3v3"};

std::vector<Geometry> storeGeometries() {
  std::vector<Geometry> out;
  for (int d : {64, 128, 256}) {
    for (const char *p : kPresets)
      out.push_back({p, false, d, 4, 8});
    out.push_back({"k3v4", true, d, 4, 8});
    for (const char *p : kVllmPresets)
      out.push_back({p, false, d, 4, 8, true});
  }
  return out;
}

std::vector<Geometry> decodeGeometries() {
  std::vector<Geometry> out;
  for (int d : {64, 128, 256})
    for (int g : {1, 4, 8}) {
      for (const char *p : kPresets)
        out.push_back({p, false, d, g, 8});
      out.push_back({"k3v4", true, d, g, 8});
    }
  for (int d : {64, 128, 256})
    for (const char *p : kVllmPresets)
      out.push_back({p, false, d, 4, 8, true});
  // One split: decode writes the output itself (no combine kernel).
  for (const char *p : {"k3v4", "k4v2"})
    out.push_back({p, false, 128, 4, 1});
  // Plans of 3+ stages: the copy ring (decode_tc.h) wherever the recipe
  // takes it (every preset is built; those without the ring run as 2), with
  // 8 splits (few steps per warp) and one (the ring's phases wrapping).
  for (int d : {64, 128, 256})
    for (const char *p : kPresets)
      out.push_back({p, false, d, 4, 8, false, 4});
  out.push_back({"k3v4", false, 128, 4, 1, false, 3});
  out.push_back({"k3v4", false, 128, 4, 8, false, 1}); // 1: no step ahead
  out.push_back({"k4v4", false, 64, 8, 1, false, 6});
  out.push_back({"k2v2", false, 128, 1, 2, false, 8});
  return out;
}

/// Bundles with tq-plan-launch's per-bucket plans (splits 0 = the default).
std::vector<Geometry> bucketGeometries() {
  return {{"k3v4", false, 128, 4, 0}, {"k4v2", false, 64, 8, 0}};
}

INSTANTIATE_TEST_SUITE_P(Gpu, Store, testing::ValuesIn(storeGeometries()),
                         geometryName);
INSTANTIATE_TEST_SUITE_P(Gpu, Decode, testing::ValuesIn(decodeGeometries()),
                         geometryName);
INSTANTIATE_TEST_SUITE_P(Gpu, DecodeBuckets,
                         testing::ValuesIn(bucketGeometries()), geometryName);


} // namespace

/// Without a GPU the whole tier is one skipped ctest entry (exit code 77,
/// SKIP_RETURN_CODE) with the reason, rather than a hundred skipped cases.
int main(int argc, char **argv) {
  testing::InitGoogleTest(&argc, argv);
  std::string why = gpuUnavailable();
  if (!why.empty() && !GTEST_FLAG_GET(list_tests)) {
    std::printf("SKIPPED: the GPU tests need a CUDA device: %s\n",
                why.c_str());
    return 77;
  }
  return RUN_ALL_TESTS();
}
