//===- driver.h - The CUDA driver API, loaded at run time -------*- C++ -*-===//
//
// libtqrt declares the few driver types and entry points it uses itself
// instead of including cuda.h, so it builds without the CUDA toolkit, and it
// dlopens libcuda.so.1 on first use instead of linking it, so it loads and
// checks arguments on machines without a GPU. The constants below are the
// driver API's stable values (tests/driver_abi_test.cpp compares them with
// cuda.h where the toolkit is installed).
//
// Beyond what libtqrt itself calls, the table holds what a tool driving a
// GPU on its own needs (the autotuner: primary context, memory, streams,
// events, stream capture and graphs). Those entry points are bound when the
// driver has them; `missingToolApi` names the first one it lacks, so an old
// driver only fails the tool, never libtqrt's own loading. The driver loader
// is the static library tqrt_driver, linked into libtqrt and into tools, so
// there is one loader. Members are named after the exported symbol
// (`cuMemAlloc_v2`, which cuda.h's `cuMemAlloc` expands to), so that
// tests/driver_symbols_test.cpp can check each signature against cuda.h.
//
//===----------------------------------------------------------------------===//
#ifndef TQRT_SRC_DRIVER_H
#define TQRT_SRC_DRIVER_H

#include <cstddef>
#include <string>

namespace tqrt::cu {

using Result = int;
using Device = int;
using Context = struct CUctx_st *;
using Module = struct CUmod_st *;
using Function = struct CUfunc_st *;
using Stream = struct CUstream_st *;
using Event = struct CUevent_st *;
using Graph = struct CUgraph_st *;
using GraphExec = struct CUgraphExec_st *;
using DevicePtr = unsigned long long; // CUdeviceptr on 64-bit hosts

constexpr Result kSuccess = 0;
constexpr Result kErrorOutOfMemory = 2;
constexpr Result kErrorNotInitialized = 3;
constexpr Result kErrorNoDevice = 100;
constexpr Result kErrorInvalidContext = 201;
constexpr Result kErrorNoBinaryForGpu = 209;
constexpr Result kErrorInvalidPtx = 218;
constexpr Result kErrorUnsupportedPtxVersion = 222;

constexpr int kDevAttrMultiprocessorCount = 16;
constexpr int kDevAttrL2CacheSize = 38;
constexpr int kDevAttrComputeCapabilityMajor = 75;
constexpr int kDevAttrComputeCapabilityMinor = 76;
constexpr int kDevAttrMaxSharedMemoryPerBlockOptin = 97;
constexpr int kFuncAttrMaxThreadsPerBlock = 0;
constexpr int kFuncAttrSharedSizeBytes = 1;
constexpr int kFuncAttrMaxDynamicSharedSizeBytes = 8;
constexpr int kJitErrorLogBuffer = 5;
constexpr int kJitErrorLogBufferSizeBytes = 6;
constexpr unsigned kStreamNonBlocking = 1;
constexpr unsigned kEventDefault = 0;
constexpr int kStreamCaptureModeThreadLocal = 1;

/// cuLaunchKernelEx's configuration (cuda.h's CUlaunchConfig and
/// CUlaunchAttribute, same layout: tests/driver_abi_test.cpp compares them).
/// libtqrt sets one attribute: programmatic stream serialization, which lets
/// a kernel that waits with griddepcontrol.wait launch while its predecessor
/// in the stream still runs (sm_90+, captured into graphs as a programmatic
/// edge).
constexpr int kLaunchAttrProgrammaticStreamSerialization = 6;
struct LaunchAttribute {
  int id;
  char pad[4];
  union alignas(8) { // cuda.h's value union holds pointers
    char bytes[64];
    int programmaticStreamSerializationAllowed;
  } value;
};
struct LaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  Stream hStream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};

/// The tool entry points: (cuda.h's name, the symbol it expands to, which
/// is the Api member). Bound when present; see missingToolApi.
#define TQRT_CU_TOOL_FUNCTIONS(X)                                              \
  X(cuDeviceGet, cuDeviceGet)                                                  \
  X(cuDeviceGetName, cuDeviceGetName)                                          \
  X(cuDeviceTotalMem, cuDeviceTotalMem_v2)                                     \
  X(cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain)                        \
  X(cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease_v2)                   \
  X(cuCtxSetCurrent, cuCtxSetCurrent)                                          \
  X(cuCtxSynchronize, cuCtxSynchronize)                                        \
  X(cuMemGetInfo, cuMemGetInfo_v2)                                             \
  X(cuMemAlloc, cuMemAlloc_v2)                                                 \
  X(cuMemFree, cuMemFree_v2)                                                   \
  X(cuMemsetD8, cuMemsetD8_v2)                                                 \
  X(cuMemsetD8Async, cuMemsetD8Async)                                          \
  X(cuMemcpyHtoD, cuMemcpyHtoD_v2)                                             \
  X(cuMemcpyDtoH, cuMemcpyDtoH_v2)                                             \
  X(cuStreamCreate, cuStreamCreate)                                            \
  X(cuStreamDestroy, cuStreamDestroy_v2)                                       \
  X(cuStreamSynchronize, cuStreamSynchronize)                                  \
  X(cuEventCreate, cuEventCreate)                                              \
  X(cuEventDestroy, cuEventDestroy_v2)                                         \
  X(cuEventRecord, cuEventRecord)                                              \
  X(cuEventSynchronize, cuEventSynchronize)                                    \
  X(cuEventElapsedTime, cuEventElapsedTime_v2)                                 \
  X(cuStreamBeginCapture, cuStreamBeginCapture_v2)                             \
  X(cuStreamEndCapture, cuStreamEndCapture)                                    \
  X(cuGraphInstantiate, cuGraphInstantiateWithFlags)                           \
  X(cuGraphLaunch, cuGraphLaunch)                                              \
  X(cuGraphExecDestroy, cuGraphExecDestroy)                                    \
  X(cuGraphDestroy, cuGraphDestroy)

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
  /// CUDA >= 12.0; may be null (then programmatic launches fall back to
  /// cuLaunchKernel, which is always correct, only without the overlap).
  Result (*cuLaunchKernelEx)(const LaunchConfig *, Function, void **, void **);

  // Tool entry points (TQRT_CU_TOOL_FUNCTIONS); null when the driver lacks
  // them.
  Result (*cuDeviceGet)(Device *, int);
  Result (*cuDeviceGetName)(char *, int, Device);
  Result (*cuDeviceTotalMem_v2)(size_t *, Device);
  Result (*cuDevicePrimaryCtxRetain)(Context *, Device);
  Result (*cuDevicePrimaryCtxRelease_v2)(Device);
  Result (*cuCtxSetCurrent)(Context);
  Result (*cuCtxSynchronize)();
  Result (*cuMemGetInfo_v2)(size_t *, size_t *);
  Result (*cuMemAlloc_v2)(DevicePtr *, size_t);
  Result (*cuMemFree_v2)(DevicePtr);
  Result (*cuMemsetD8_v2)(DevicePtr, unsigned char, size_t);
  Result (*cuMemsetD8Async)(DevicePtr, unsigned char, size_t, Stream);
  Result (*cuMemcpyHtoD_v2)(DevicePtr, const void *, size_t);
  Result (*cuMemcpyDtoH_v2)(void *, DevicePtr, size_t);
  Result (*cuStreamCreate)(Stream *, unsigned);
  Result (*cuStreamDestroy_v2)(Stream);
  Result (*cuStreamSynchronize)(Stream);
  Result (*cuEventCreate)(Event *, unsigned);
  Result (*cuEventDestroy_v2)(Event);
  Result (*cuEventRecord)(Event, Stream);
  Result (*cuEventSynchronize)(Event);
  /// cuEventElapsedTime_v2 (CUDA >= 12.8), else the original entry point
  /// of the same signature.
  Result (*cuEventElapsedTime_v2)(float *, Event, Event);
  Result (*cuStreamBeginCapture_v2)(Stream, int); // CUstreamCaptureMode
  Result (*cuStreamEndCapture)(Stream, Graph *);
  Result (*cuGraphInstantiateWithFlags)(GraphExec *, Graph, unsigned long long);
  Result (*cuGraphLaunch)(GraphExec, Stream);
  Result (*cuGraphExecDestroy)(GraphExec);
  Result (*cuGraphDestroy)(Graph);
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

/// The first tool entry point (TQRT_CU_TOOL_FUNCTIONS) the loaded driver
/// lacks, or null when it has all. Only meaningful when `d.usable`.
const char *missingToolApi(const Driver &d);

/// "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)".
std::string describe(Result r);
/// The same into a caller buffer, without allocating (for the launch path).
void describe(Result r, char *buf, size_t size);

} // namespace tqrt::cu

#endif
