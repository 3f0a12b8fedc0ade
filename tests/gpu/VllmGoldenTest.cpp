//===- VllmGoldenTest.cpp - The store kernel writes FORMATS.md's vLLM slots ===//
//
// The hand-computed slots of numerics/tests/vllm_goldens.h (one per vLLM
// preset, head_dim 64), stored through the GPU store kernel of each preset's
// --layout vllm bundle and compared byte for byte: the golden token-head and
// a second head of zeros, at a shuffled slot, with a skipped token (slot -1)
// and every other byte of the cache left as it was.
//
//===----------------------------------------------------------------------===//

#include "gpu_test_util.h"
#include "tqrt/tqrt.h"
#include "vllm_goldens.h"

#include "tqc/numerics/minifloat.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct Buffer {
  void *p = nullptr;
  explicit Buffer(size_t n) { cudaMalloc(&p, n ? n : 1); }
  ~Buffer() { cudaFree(p); }
};

TEST(VllmGolden, StoreKernelWritesTheHandComputedSlots) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0)
    GTEST_SKIP() << "no CUDA device";
  const char *root = std::getenv("TQC_GPU_BUNDLES");
  for (const tqc::vllm_golden::Golden &g : tqc::vllm_golden::goldens()) {
    SCOPED_TRACE(g.preset);
    const std::string dir =
        std::string(root ? root : TQC_GPU_BUNDLES_DEFAULT) + "/" + g.preset +
        "-vllm-d64-g4-s8";
    tqrt_bundle *bundle = nullptr;
    TQRT_OK(tqrt_bundle_load_dir(dir.c_str(), &bundle));
    tqrt_layout_info layout;
    TQRT_OK(tqrt_bundle_get_layout(bundle, &layout));
    ASSERT_STREQ(layout.kind, "vllm");
    ASSERT_EQ(layout.bytes_per_token_head, int64_t(g.slot.size()));
    const int hkv = 2, d = tqc::vllm_golden::kHeadDim, numBlocks = 3;
    uint64_t cacheBytes = 0;
    TQRT_OK(tqrt_cache_bytes(bundle, numBlocks, &cacheBytes));
    tqrt_plan *plan = nullptr;
    TQRT_OK(tqrt_plan_create(bundle, 1, 4, &plan));

    // Token 0: skipped; token 1: head 0 zeros, head 1 the golden, at
    // block 2 position 5 (slot 37).
    std::vector<uint16_t> k(2 * hkv * d, 0), v(2 * hkv * d, 0);
    for (int j = 0; j < d; ++j) {
      k[j] = v[j] = tqc::encodeBf16(1.0); // the skipped token
      k[(hkv + 1) * d + j] = tqc::encodeBf16(g.key[j]);
      v[(hkv + 1) * d + j] = tqc::encodeBf16(g.value[j]);
    }
    const int64_t slots[2] = {-1, 2 * 16 + 5};
    Buffer dk(k.size() * 2), dv(v.size() * 2), dc(cacheBytes), ds(16);
    CUDA_OK(cudaMemcpy(dk.p, k.data(), k.size() * 2, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dv.p, v.data(), v.size() * 2, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(ds.p, slots, 16, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(dc.p, 0xA5, cacheBytes));
    TQRT_OK(tqrt_launch_store(plan, TQRT_DTYPE_BF16, dk.p, hkv * d, d, dv.p,
                              hkv * d, d, dc.p, cacheBytes,
                              static_cast<const int64_t *>(ds.p), 2, nullptr));
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<uint8_t> got(cacheBytes);
    CUDA_OK(cudaMemcpy(got.data(), dc.p, cacheBytes, cudaMemcpyDeviceToHost));

    // FORMATS.md: block·stride_block + pos·stride_pos + head·stride_head.
    const size_t slot = g.slot.size();
    const size_t at = 2 * size_t(layout.block_stride) + 5 * hkv * slot + slot;
    EXPECT_EQ(tqc::vllm_golden::hexBytes(got.data() + at, slot),
              tqc::vllm_golden::hexBytes(g.slot.data(), slot));
    // Head 0's zeros: all-zero codes' slot is not checked byte for byte
    // here (the host tests cover zeros); it must lie right before.
    for (size_t i = 0; i < got.size(); ++i) {
      if (i >= at - slot && i < at + slot)
        continue;
      ASSERT_EQ(got[i], 0xA5) << "byte " << i << " outside the stored slots";
    }
    tqrt_plan_destroy(plan);
    tqrt_bundle_destroy(bundle);
  }
}

} // namespace
