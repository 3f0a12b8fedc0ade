//===- driver.h - The CUDA driver API, loaded at run time -------*- C++ -*-===//
//
// libtqrt declares the few driver types and entry points it uses itself
// instead of including cuda.h, so it builds without the CUDA toolkit, and it
// dlopens libcuda.so.1 on first use instead of linking it, so it loads and
// checks arguments on machines without a GPU. The constants below are the
// driver API's stable values (tests/driver_abi_test.cpp compares them with
// cuda.h where the toolkit is installed).
//
//===----------------------------------------------------------------------===//
#ifndef TQRT_SRC_DRIVER_H
#define TQRT_SRC_DRIVER_H

#include <string>

namespace tqrt::cu {

using Result = int;
using Device = int;
using Context = struct CUctx_st *;
using Module = struct CUmod_st *;
using Function = struct CUfunc_st *;
using Stream = struct CUstream_st *;

constexpr Result kSuccess = 0;
constexpr Result kErrorNotInitialized = 3;
constexpr Result kErrorNoDevice = 100;
constexpr Result kErrorInvalidContext = 201;
constexpr Result kErrorNoBinaryForGpu = 209;
constexpr Result kErrorInvalidPtx = 218;
constexpr Result kErrorUnsupportedPtxVersion = 222;

constexpr int kDevAttrComputeCapabilityMajor = 75;
constexpr int kDevAttrComputeCapabilityMinor = 76;
constexpr int kDevAttrMaxSharedMemoryPerBlockOptin = 97;
constexpr int kFuncAttrMaxThreadsPerBlock = 0;
constexpr int kFuncAttrSharedSizeBytes = 1;
constexpr int kFuncAttrMaxDynamicSharedSizeBytes = 8;
constexpr int kJitErrorLogBuffer = 5;
constexpr int kJitErrorLogBufferSizeBytes = 6;

struct Api {
  Result (*cuInit)(unsigned);
  Result (*cuDriverGetVersion)(int *);
  Result (*cuDeviceGetCount)(int *);
  Result (*cuDeviceGetAttribute)(int *, int, Device);
  Result (*cuCtxGetCurrent)(Context *);
  Result (*cuCtxGetDevice)(Device *);
  Result (*cuCtxGetId)(Context, unsigned long long *); // CUDA >= 12.0; may be null
  Result (*cuModuleLoadData)(Module *, const void *);
  Result (*cuModuleLoadDataEx)(Module *, const void *, unsigned, int *,
                               void **);
  Result (*cuModuleUnload)(Module);
  Result (*cuModuleGetFunction)(Function *, Module, const char *);
  Result (*cuFuncGetAttribute)(int *, int, Function);
  Result (*cuFuncSetAttribute)(Function, int, int);
  Result (*cuLaunchKernel)(Function, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, Stream, void **,
                           void **);
  Result (*cuGetErrorName)(Result, const char **);
  Result (*cuGetErrorString)(Result, const char **);
};

/// The driver state of the process, set up once (thread-safe).
struct Driver {
  /// 1: the API is usable; 0: no driver library or no device (see `why`).
  bool usable = false;
  /// When not usable: true if the library was there but cuInit failed
  /// with something other than "no device" (a broken install).
  bool initFailed = false;
  Result initResult = kSuccess;
  std::string why;
  Api api{};
};

/// Loads libcuda.so.1 (or $TQRT_LIBCUDA) and calls cuInit(0) on first use.
const Driver &driver();

/// "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)".
std::string describe(Result r);
/// The same into a caller buffer, without allocating (for the launch path).
void describe(Result r, char *buf, size_t size);

} // namespace tqrt::cu

#endif
