//===- gpu_test_util.h - Assertions shared by the GPU tests ---------------===//
#ifndef TQC_TESTS_GPU_TEST_UTIL_H
#define TQC_TESTS_GPU_TEST_UTIL_H

#include "tqrt/tqrt.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

/// A CUDA runtime call that must succeed (fatal for the test otherwise).
#define CUDA_OK(expr)                                                          \
  do {                                                                         \
    cudaError_t e_ = (expr);                                                   \
    ASSERT_EQ(e_, cudaSuccess) << #expr << ": " << cudaGetErrorString(e_);     \
  } while (0)

/// A tqrt call that must succeed, with the runtime's message otherwise.
#define TQRT_OK(expr)                                                          \
  do {                                                                         \
    tqrt_status s_ = (expr);                                                   \
    ASSERT_EQ(s_, TQRT_OK) << #expr << ": " << tqrt_status_name(s_) << ": "   \
                           << tqrt_last_error();                               \
  } while (0)

#endif // TQC_TESTS_GPU_TEST_UTIL_H
