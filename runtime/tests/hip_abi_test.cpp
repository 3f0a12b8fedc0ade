//===- hip_abi_test.cpp - src/hip.h against the HIP headers ---------------===//
//
// libtqrt declares the HIP module API itself (src/hip.h) and dlopens
// libamdhip64, so it builds without ROCm. Where the HIP headers are
// installed (Debian: libamdhip64-dev) this checks, at compile time, every
// constant and every entry point's signature against hip_runtime_api.h.
// Nothing here loads libamdhip64.
//
//===----------------------------------------------------------------------===//
#include "hip.h"

#include <gtest/gtest.h>

#include <type_traits>

#if TQRT_HAVE_HIP_H
#include <hip/hip_runtime_api.h>

namespace {

namespace h = tqrt::hip;

static_assert(h::kSuccess == hipSuccess);
static_assert(h::kErrorNoDevice == hipErrorNoDevice);
static_assert(h::kErrorInvalidDevice == hipErrorInvalidDevice);
static_assert(h::kErrorInvalidImage == hipErrorInvalidImage);
static_assert(h::kErrorNoBinaryForGpu == hipErrorNoBinaryForGpu);
static_assert(sizeof(hipError_t) == sizeof(h::Error));

/// hip_runtime_api.h's types as hip.h declares them.
template <class T> struct Plain { using type = T; };
template <class T> struct Plain<T *> { using type = typename Plain<T>::type *; };
template <class T> struct Plain<const T> {
  using type = const typename Plain<T>::type;
};
template <> struct Plain<hipError_t> { using type = int; };
template <> struct Plain<hipModule_t> { using type = h::Module; };
template <> struct Plain<hipFunction_t> { using type = h::Function; };
template <> struct Plain<hipStream_t> { using type = h::Stream; };
template <class R, class... A> struct Plain<R (*)(A...)> {
  using type = typename Plain<R>::type (*)(typename Plain<A>::type...);
};

#define TQRT_HIP_SIGNATURE(name)                                               \
  static_assert(std::is_same_v<decltype(h::Api::name),                         \
                               typename Plain<decltype(&::name)>::type>,       \
                "hip.h's " #name " differs from hip_runtime_api.h's");
TQRT_HIP_SIGNATURE(hipInit)
TQRT_HIP_SIGNATURE(hipGetDeviceCount)
TQRT_HIP_SIGNATURE(hipGetDevice)
TQRT_HIP_SIGNATURE(hipDeviceGetName)
TQRT_HIP_SIGNATURE(hipModuleLoadData)
TQRT_HIP_SIGNATURE(hipModuleUnload)
TQRT_HIP_SIGNATURE(hipModuleGetFunction)
TQRT_HIP_SIGNATURE(hipModuleLaunchKernel)
TQRT_HIP_SIGNATURE(hipGetErrorName)
TQRT_HIP_SIGNATURE(hipGetErrorString)
#undef TQRT_HIP_SIGNATURE

TEST(HipAbi, LaunchParamMarkers) {
  EXPECT_EQ(h::kLaunchParamBufferPointer, HIP_LAUNCH_PARAM_BUFFER_POINTER);
  EXPECT_EQ(h::kLaunchParamBufferSize, HIP_LAUNCH_PARAM_BUFFER_SIZE);
  EXPECT_EQ(h::kLaunchParamEnd, HIP_LAUNCH_PARAM_END);
}

} // namespace
#else
TEST(HipAbi, LaunchParamMarkers) {
  GTEST_SKIP() << "hip/hip_runtime_api.h not available: hip.h was not "
                  "compared (install libamdhip64-dev)";
}
#endif
