//===- hip.h - The HIP module API, loaded at run time -----------*- C++ -*-===//
//
// The AMD counterpart of driver.h: libtqrt declares the few HIP types and
// entry points it uses instead of including hip_runtime_api.h, and dlopens
// libamdhip64 on first use, so it builds and checks arguments on machines
// without ROCm. tests/hip_abi_test.cpp compares every declaration with the
// HIP headers where they are installed (Debian: libamdhip64-dev).
//
//===----------------------------------------------------------------------===//
#ifndef TQRT_SRC_HIP_H
#define TQRT_SRC_HIP_H

#include <string>

namespace tqrt::hip {

using Error = int; // hipError_t
using Module = struct ihipModule_t *;
using Function = struct ihipModuleSymbol_t *;
using Stream = struct ihipStream_t *;

constexpr Error kSuccess = 0;
constexpr Error kErrorNoDevice = 100;
constexpr Error kErrorInvalidDevice = 101;
constexpr Error kErrorInvalidImage = 200;
constexpr Error kErrorNoBinaryForGpu = 209;

/// hipModuleLaunchKernel's `extra` markers: the argument struct is passed
/// as one buffer (HIP does not implement kernelParams for modules).
inline void *const kLaunchParamBufferPointer = reinterpret_cast<void *>(1);
inline void *const kLaunchParamBufferSize = reinterpret_cast<void *>(2);
inline void *const kLaunchParamEnd = reinterpret_cast<void *>(3);

struct Api {
  Error (*hipInit)(unsigned);
  Error (*hipGetDeviceCount)(int *);
  Error (*hipGetDevice)(int *);
  Error (*hipDeviceGetName)(char *, int, int);
  Error (*hipModuleLoadData)(Module *, const void *);
  Error (*hipModuleUnload)(Module);
  Error (*hipModuleGetFunction)(Function *, Module, const char *);
  Error (*hipModuleLaunchKernel)(Function, unsigned, unsigned, unsigned,
                                 unsigned, unsigned, unsigned, unsigned,
                                 Stream, void **, void **);
  const char *(*hipGetErrorName)(Error);
  const char *(*hipGetErrorString)(Error);
};

/// The HIP runtime of the process, set up once (thread-safe).
struct Runtime {
  bool usable = false; ///< loaded, hipInit succeeded, at least one device
  bool initFailed = false; ///< loaded, but hipInit failed otherwise
  std::string why;         ///< when not usable
  Api api{};
};

/// Loads $TQRT_LIBAMDHIP64, else libamdhip64.so (.7, .6, .5), and calls
/// hipInit(0) on first use.
const Runtime &runtime();

/// "hipErrorNoDevice (no ROCm-capable device is detected)".
std::string describe(Error e);

} // namespace tqrt::hip

#endif
