//===- driver_symbols_test.cpp - Entry points against cuda.h --------------===//
//
// The tool entry points of src/driver.h are bound by symbol name, and
// several of cuda.h's names are macros for a versioned symbol
// (cuMemAlloc -> cuMemAlloc_v2). Where the toolkit's cuda.h is present this
// checks, at compile time, that each Api member has cuda.h's signature (with
// its enums and handles spelled as driver.h spells them) and, at run time,
// that the symbol bound is the one cuda.h's name expands to. driver.h comes
// first so that cuda.h's macros do not rename its members.
//
//===----------------------------------------------------------------------===//
#include "driver.h"

#include <gtest/gtest.h>

#include <type_traits>

#if TQRT_HAVE_CUDA_H
#include <cuda.h>

namespace {

namespace cu = tqrt::cu;

/// cuda.h's types as driver.h declares them: enums and CUresult are int;
/// handles point to driver.h's own incomplete structs (declared in
/// tqrt::cu, so distinct types of the same pointer representation).
template <class T> struct Plain { using type = T; };
template <class T> struct Plain<T *> { using type = typename Plain<T>::type *; };
template <class T> struct Plain<const T> {
  using type = const typename Plain<T>::type;
};
template <> struct Plain<CUcontext> { using type = cu::Context; };
template <> struct Plain<CUmodule> { using type = cu::Module; };
template <> struct Plain<CUfunction> { using type = cu::Function; };
template <> struct Plain<CUstream> { using type = cu::Stream; };
template <> struct Plain<CUevent> { using type = cu::Event; };
template <> struct Plain<CUgraph> { using type = cu::Graph; };
template <> struct Plain<CUgraphExec> { using type = cu::GraphExec; };
template <> struct Plain<CUresult> { using type = int; };
template <> struct Plain<CUdevice_attribute> { using type = int; };
template <> struct Plain<CUfunction_attribute> { using type = int; };
template <> struct Plain<CUjit_option> { using type = int; };
template <> struct Plain<CUstreamCaptureMode> { using type = int; };
template <> struct Plain<CUlaunchConfig> { using type = cu::LaunchConfig; };
template <class R, class... A> struct Plain<R (*)(A...)> {
  using type = typename Plain<R>::type (*)(typename Plain<A>::type...);
};
template <class F> using PlainFn = typename Plain<F>::type;

static_assert(std::is_same_v<CUdeviceptr, cu::DevicePtr>);
static_assert(std::is_same_v<CUdevice, cu::Device>);
static_assert(cu::kErrorOutOfMemory == CUDA_ERROR_OUT_OF_MEMORY);
static_assert(cu::kDevAttrMultiprocessorCount ==
              CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
static_assert(cu::kDevAttrL2CacheSize == CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
static_assert(cu::kStreamNonBlocking == CU_STREAM_NON_BLOCKING);
static_assert(cu::kEventDefault == CU_EVENT_DEFAULT);
static_assert(cu::kStreamCaptureModeThreadLocal ==
              CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);

#define TQRT_STR(x) #x
#define TQRT_XSTR(x) TQRT_STR(x)
#define TQRT_SIGNATURE(name, symbol)                                           \
  static_assert(std::is_same_v<decltype(cu::Api::symbol),                      \
                               PlainFn<decltype(&::symbol)>>,                  \
                "driver.h's " #symbol " differs from cuda.h's");
TQRT_CU_TOOL_FUNCTIONS(TQRT_SIGNATURE)
// libtqrt's own entry points too (none of them is a versioned macro).
TQRT_SIGNATURE(cuInit, cuInit)
TQRT_SIGNATURE(cuDriverGetVersion, cuDriverGetVersion)
TQRT_SIGNATURE(cuDeviceGetCount, cuDeviceGetCount)
TQRT_SIGNATURE(cuDeviceGetAttribute, cuDeviceGetAttribute)
TQRT_SIGNATURE(cuCtxGetCurrent, cuCtxGetCurrent)
TQRT_SIGNATURE(cuCtxGetDevice, cuCtxGetDevice)
TQRT_SIGNATURE(cuModuleLoadData, cuModuleLoadData)
TQRT_SIGNATURE(cuModuleLoadDataEx, cuModuleLoadDataEx)
TQRT_SIGNATURE(cuModuleUnload, cuModuleUnload)
TQRT_SIGNATURE(cuFuncGetAttribute, cuFuncGetAttribute)
TQRT_SIGNATURE(cuFuncSetAttribute, cuFuncSetAttribute)
TQRT_SIGNATURE(cuCtxGetId, cuCtxGetId)
TQRT_SIGNATURE(cuGetErrorString, cuGetErrorString)
TQRT_SIGNATURE(cuModuleGetFunction, cuModuleGetFunction)
TQRT_SIGNATURE(cuLaunchKernel, cuLaunchKernel)
TQRT_SIGNATURE(cuLaunchKernelEx, cuLaunchKernelEx)
TQRT_SIGNATURE(cuGetErrorName, cuGetErrorName)

TEST(DriverSymbols, BoundNameIsWhatCudaHExpandsTo) {
#define TQRT_NAME(name, symbol) EXPECT_STREQ(TQRT_XSTR(name), #symbol);
  TQRT_CU_TOOL_FUNCTIONS(TQRT_NAME)
#undef TQRT_NAME
}

} // namespace
#else
TEST(DriverSymbols, BoundNameIsWhatCudaHExpandsTo) {
  GTEST_SKIP() << "cuda.h not available: the entry points were not compared";
}
#endif
