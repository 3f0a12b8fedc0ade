// CHECK(call) for the standalone CUDA benchmarks in bench/ (each compiled
// alone with nvcc; this header beside them is found by its quoted include):
// a failing runtime call prints itself and its error, and main returns 1.
#ifndef TQC_BENCH_CUDA_CHECK_H
#define TQC_BENCH_CUDA_CHECK_H

#include <cstdio>

#include <cuda_runtime.h>

#define CHECK(x)                                                              \
  do {                                                                        \
    cudaError_t e = (x);                                                      \
    if (e != cudaSuccess) {                                                   \
      fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e));                 \
      return 1;                                                               \
    }                                                                         \
  } while (0)

#endif // TQC_BENCH_CUDA_CHECK_H
