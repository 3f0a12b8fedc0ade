//===- driver.cpp - dlopen of libcuda and cuInit --------------------------===//
#include "driver.h"
#include "dlbind.h"

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

namespace tqrt::cu {

namespace {

// Used inside load() too, where calling driver() would re-enter call_once.
void describeWith(const Api &a, Result r, char *buf, size_t size) {
  const char *name = nullptr, *text = nullptr;
  if (a.cuGetErrorName)
    a.cuGetErrorName(r, &name);
  if (a.cuGetErrorString)
    a.cuGetErrorString(r, &text);
  if (name && text)
    std::snprintf(buf, size, "%s (%s)", name, text);
  else
    std::snprintf(buf, size, "CUDA error %d", r);
}

std::string describeWith(const Api &a, Result r) {
  char buf[256];
  describeWith(a, r, buf, sizeof buf);
  return buf;
}

void load(Driver &d) {
  // TQRT_LIBCUDA lets a test point the runtime at a missing library (to
  // exercise the no-driver path on a GPU machine) and lets an unusual
  // install name its driver.
  const char *env = std::getenv("TQRT_LIBCUDA");
  const char *path = env && *env ? env : "libcuda.so.1";
  // RTLD_LOCAL: the driver's symbols stay out of the global namespace; the
  // CUDA runtime of the host application dlopens the same file and gets the
  // same, already loaded, library.
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *err = dlerror();
    d.why = std::string("the CUDA driver library could not be loaded (") +
            (err ? err : path) +
            "); install the NVIDIA driver or set TQRT_LIBCUDA to libcuda.so.1";
    return;
  }
  Api &a = d.api;
  const char *missing = nullptr;
#define TQRT_BIND(name)                                                        \
  if (!missing && !bindSymbol(lib, #name, a.name))                             \
    missing = #name;
  TQRT_BIND(cuInit)
  TQRT_BIND(cuDriverGetVersion)
  TQRT_BIND(cuDeviceGetCount)
  TQRT_BIND(cuDeviceGetAttribute)
  TQRT_BIND(cuCtxGetCurrent)
  TQRT_BIND(cuCtxGetDevice)
  TQRT_BIND(cuModuleLoadData)
  TQRT_BIND(cuModuleLoadDataEx)
  TQRT_BIND(cuModuleUnload)
  TQRT_BIND(cuModuleGetFunction)
  TQRT_BIND(cuFuncGetAttribute)
  TQRT_BIND(cuFuncSetAttribute)
  TQRT_BIND(cuLaunchKernel)
  TQRT_BIND(cuGetErrorName)
  TQRT_BIND(cuGetErrorString)
#undef TQRT_BIND
  if (missing) {
    d.why = std::string(path) + " has no " + missing +
            "; the NVIDIA driver is too old or the file is not libcuda";
    return; // the library stays loaded: unloading a driver is never safe
  }
  bindSymbol(lib, "cuCtxGetId", a.cuCtxGetId); // optional (CUDA >= 12.0)
  bindSymbol(lib, "cuLaunchKernelEx", a.cuLaunchKernelEx); // optional (CUDA >= 12.0)
  // Tool entry points: optional here (libtqrt does not call them);
  // missingToolApi() reports a gap to the tool that needs them.
#define TQRT_BIND_TOOL(name, symbol) bindSymbol(lib, #symbol, a.symbol);
  TQRT_CU_TOOL_FUNCTIONS(TQRT_BIND_TOOL)
#undef TQRT_BIND_TOOL
  // Drivers before CUDA 12.8 have only the original, same-signature entry.
  if (!a.cuEventElapsedTime_v2)
    bindSymbol(lib, "cuEventElapsedTime", a.cuEventElapsedTime_v2);

  d.initResult = a.cuInit(0);
  if (d.initResult == kErrorNoDevice) {
    d.why = "the CUDA driver sees no device (cuInit: " +
            describeWith(a, d.initResult) + ")";
    return;
  }
  if (d.initResult != kSuccess) {
    d.initFailed = true;
    d.why = "cuInit failed: " + describeWith(a, d.initResult);
    return;
  }
  d.usable = true;
}

} // namespace

const Driver &driver() {
  static Driver d;
  static std::once_flag once;
  std::call_once(once, [] { load(d); });
  return d;
}

const char *missingToolApi(const Driver &d) {
#define TQRT_CHECK_TOOL(name, symbol)                                          \
  if (!d.api.symbol)                                                           \
    return #symbol;
  TQRT_CU_TOOL_FUNCTIONS(TQRT_CHECK_TOOL)
#undef TQRT_CHECK_TOOL
  return nullptr;
}

void describe(Result r, char *buf, size_t size) {
  describeWith(driver().api, r, buf, size);
}

std::string describe(Result r) { return describeWith(driver().api, r); }

} // namespace tqrt::cu
