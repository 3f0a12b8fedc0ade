//===- driver_abi_test.cpp - The driver declarations against cuda.h ------===//
//
// libtqrt declares the driver API itself (src/driver.h) so it builds without
// the toolkit; where the toolkit's cuda.h is present, this checks that every
// constant it uses has cuda.h's value. The checks are static_asserts: the
// test binary does not build if one is wrong. Nothing here links libcuda.
//
//===----------------------------------------------------------------------===//
#include "driver.h"

#include <gtest/gtest.h>

#if TQRT_HAVE_CUDA_H
#include <cuda.h>

namespace cu = tqrt::cu;
static_assert(cu::kSuccess == CUDA_SUCCESS);
static_assert(cu::kErrorNotInitialized == CUDA_ERROR_NOT_INITIALIZED);
static_assert(cu::kErrorNoDevice == CUDA_ERROR_NO_DEVICE);
static_assert(cu::kErrorInvalidContext == CUDA_ERROR_INVALID_CONTEXT);
static_assert(cu::kErrorNoBinaryForGpu == CUDA_ERROR_NO_BINARY_FOR_GPU);
static_assert(cu::kErrorInvalidPtx == CUDA_ERROR_INVALID_PTX);
static_assert(cu::kErrorUnsupportedPtxVersion == CUDA_ERROR_UNSUPPORTED_PTX_VERSION);
static_assert(cu::kDevAttrComputeCapabilityMajor == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(cu::kDevAttrComputeCapabilityMinor == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(cu::kDevAttrMaxSharedMemoryPerBlockOptin == CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
static_assert(cu::kFuncAttrMaxThreadsPerBlock == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
static_assert(cu::kFuncAttrSharedSizeBytes == CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
static_assert(cu::kFuncAttrMaxDynamicSharedSizeBytes == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
static_assert(cu::kJitErrorLogBuffer == CU_JIT_ERROR_LOG_BUFFER);
static_assert(cu::kJitErrorLogBufferSizeBytes == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
// Enums passed as int: same size.
static_assert(sizeof(CUjit_option) == sizeof(int));
static_assert(sizeof(CUdevice_attribute) == sizeof(int));
static_assert(sizeof(CUfunction_attribute) == sizeof(int));
static_assert(sizeof(CUresult) == sizeof(cu::Result));
static_assert(sizeof(CUdevice) == sizeof(cu::Device));
// cuLaunchKernelEx's structs, member by member.
#include <cstddef>
static_assert(cu::kLaunchAttrProgrammaticStreamSerialization ==
              CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
static_assert(sizeof(CUlaunchAttributeID) == sizeof(int));
static_assert(sizeof(CUlaunchAttribute) == sizeof(cu::LaunchAttribute));
static_assert(alignof(CUlaunchAttribute) == alignof(cu::LaunchAttribute));
static_assert(alignof(CUlaunchConfig) == alignof(cu::LaunchConfig));
static_assert(offsetof(CUlaunchAttribute, value) ==
              offsetof(cu::LaunchAttribute, value));
static_assert(offsetof(CUlaunchAttribute,
                       value.programmaticStreamSerializationAllowed) ==
              offsetof(cu::LaunchAttribute,
                       value.programmaticStreamSerializationAllowed));
static_assert(sizeof(CUlaunchConfig) == sizeof(cu::LaunchConfig));
#define TQRT_SAME_OFFSET(m)                                                    \
  static_assert(offsetof(CUlaunchConfig, m) == offsetof(cu::LaunchConfig, m));
TQRT_SAME_OFFSET(gridDimX)
TQRT_SAME_OFFSET(gridDimZ)
TQRT_SAME_OFFSET(blockDimX)
TQRT_SAME_OFFSET(blockDimZ)
TQRT_SAME_OFFSET(sharedMemBytes)
TQRT_SAME_OFFSET(hStream)
TQRT_SAME_OFFSET(attrs)
TQRT_SAME_OFFSET(numAttrs)
#undef TQRT_SAME_OFFSET
#endif

TEST(DriverAbi, ConstantsMatchCudaH) {
#if !TQRT_HAVE_CUDA_H
  GTEST_SKIP() << "cuda.h not available: the constants were not compared";
#endif
}
