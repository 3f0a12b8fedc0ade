//===- bundle_fixture.h - A GPU test's bundle, geometry and buffers ------===//
//
// Shared by the GPU tier's kernel tests (GpuKernelTest.cpp, ExtendTest.cpp):
// the bundle geometries tests/gpu/make-bundles.sh builds, a fixture that
// loads one with its host codec twin, device buffers, and the activation
// dtype's encoding.
//
//===----------------------------------------------------------------------===//
#ifndef TQC_TESTS_GPU_BUNDLE_FIXTURE_H
#define TQC_TESTS_GPU_BUNDLE_FIXTURE_H

#include "gpu_test_util.h"
#include "tqrt/tqrt.h"

#include "tqc/numerics/cache.h"
#include "tqc/numerics/minifloat.h"
#include "tqc/numerics/spec.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>

namespace tqc_gpu_test {

constexpr int kNumKVHeads = 2;
constexpr int kBlockSize = 16;


/// Why GPU tests cannot run here, or "" when they can.
inline std::string gpuUnavailable() {
  int32_t count = 0;
  if (tqrt_device_count(&count) != TQRT_OK)
    return tqrt_last_error();
  if (cudaFree(nullptr) != cudaSuccess)
    return "the CUDA runtime cannot create a context";
  return {};
}

inline std::string bundleRoot() {
  const char *dir = std::getenv("TQC_GPU_BUNDLES");
  return dir ? dir : TQC_GPU_BUNDLES_DEFAULT;
}

struct Geometry {
  std::string preset;
  bool qjl = false;
  int headDim = 128;
  int gqa = 4;
  int splits = 8;
  bool vllm = false; // --layout vllm (FORMATS.md's slots and numerics)

  std::string bundleName() const {
    return preset + (qjl ? "_qjl" : "") + (vllm ? "-vllm" : "") + "-d" +
           std::to_string(headDim) + "-g" + std::to_string(gqa) + "-s" +
           std::to_string(splits);
  }
  tqc::CacheSpec spec() const {
    tqc::CacheSpec s = *tqc::presetSpec(preset, headDim, gqa * kNumKVHeads,
                                        kNumKVHeads, kBlockSize);
    if (qjl) {
      s.key.quant.qjl = true;
      s.key.quant.qjlSeed = tqc::kQjlSeed;
    }
    if (vllm)
      tqc::useLayout(s, tqc::LayoutKind::VLLM);
    return s;
  }
};

inline void PrintTo(const Geometry &g, std::ostream *os) {
  *os << g.bundleName();
}

inline std::string geometryName(const testing::TestParamInfo<Geometry> &info) {
  std::string n = info.param.bundleName();
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
}

/// A device buffer freed on scope exit.
struct DeviceBuffer {
  void *ptr = nullptr;
  size_t bytes = 0;
  explicit DeviceBuffer(size_t n) : bytes(n) {
    if (cudaMalloc(&ptr, n ? n : 1) != cudaSuccess)
      ptr = nullptr;
  }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
};

inline uint16_t encode(double x, tqrt_dtype dt) {
  return dt == TQRT_DTYPE_BF16 ? tqc::encodeBf16(x) : tqc::encodeFp16(x);
}
inline double decode(uint16_t v, tqrt_dtype dt) {
  return dt == TQRT_DTYPE_BF16 ? tqc::decodeBf16(v) : tqc::decodeFp16(v);
}

/// A loaded bundle with its host twin; checks that both agree on the layout.
class BundleTest : public testing::TestWithParam<Geometry> {
protected:
  void SetUp() override {
    std::string why = gpuUnavailable();
    if (!why.empty())
      GTEST_SKIP() << why;
    std::string dir = bundleRoot() + "/" + GetParam().bundleName();
    ASSERT_EQ(tqrt_bundle_load_dir(dir.c_str(), &bundle_), TQRT_OK)
        << tqrt_last_error() << " (build the bundles with "
        << "tests/gpu/make-bundles.sh and point TQC_GPU_BUNDLES at them)";
    spec_ = GetParam().spec();
    codec_ = std::make_unique<tqc::HostCodec>(spec_);
    tqrt_layout_info layout;
    TQRT_OK(tqrt_bundle_get_layout(bundle_, &layout));
    ASSERT_EQ(layout.block_stride, codec_->layout().blockStride);
    ASSERT_EQ(layout.bytes_per_token_head,
              codec_->layout().bytesPerTokenHead());
  }
  void TearDown() override {
    tqrt_plan_destroy(plan_);
    tqrt_bundle_destroy(bundle_);
  }

  tqrt_bundle *bundle_ = nullptr;
  tqrt_plan *plan_ = nullptr;
  tqc::CacheSpec spec_;
  std::unique_ptr<tqc::HostCodec> codec_;
};

} // namespace tqc_gpu_test

#endif // TQC_TESTS_GPU_BUNDLE_FIXTURE_H
