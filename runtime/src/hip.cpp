//===- hip.cpp - Loading libamdhip64 ---------------------------------------===//
#include "hip.h"
#include "dlbind.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace tqrt::hip {

namespace {

std::string describeWith(const Api &a, Error e) {
  const char *name = a.hipGetErrorName ? a.hipGetErrorName(e) : nullptr;
  const char *text = a.hipGetErrorString ? a.hipGetErrorString(e) : nullptr;
  std::string out = name ? name : "hipError " + std::to_string(e);
  if (text && (!name || std::string(text) != name))
    out += std::string(" (") + text + ")";
  return out;
}

void load(Runtime &r) {
  // The versioned names too: libamdhip64.so itself comes with the -dev
  // package only.
  const char *env = std::getenv("TQRT_LIBAMDHIP64");
  const char *candidates[] = {"libamdhip64.so", "libamdhip64.so.7",
                              "libamdhip64.so.6", "libamdhip64.so.5"};
  void *lib = nullptr;
  std::string tried;
  if (env && *env) {
    lib = dlopen(env, RTLD_NOW | RTLD_LOCAL);
    tried = env;
  } else {
    for (const char *c : candidates) {
      lib = dlopen(c, RTLD_NOW | RTLD_LOCAL);
      if (lib)
        break;
      tried += std::string(tried.empty() ? "" : ", ") + c;
    }
  }
  if (!lib) {
    const char *err = dlerror();
    r.why = "the HIP runtime could not be loaded (tried " + tried +
            (err ? std::string(": ") + err : std::string()) +
            "); install ROCm or set TQRT_LIBAMDHIP64 to libamdhip64.so";
    return;
  }
  Api &a = r.api;
  const char *missing = nullptr;
#define TQRT_HIP_BIND(name)                                                    \
  if (!missing && !bindSymbol(lib, #name, a.name))                             \
    missing = #name;
  TQRT_HIP_BIND(hipInit)
  TQRT_HIP_BIND(hipGetDeviceCount)
  TQRT_HIP_BIND(hipGetDevice)
  TQRT_HIP_BIND(hipDeviceGetName)
  TQRT_HIP_BIND(hipModuleLoadData)
  TQRT_HIP_BIND(hipModuleUnload)
  TQRT_HIP_BIND(hipModuleGetFunction)
  TQRT_HIP_BIND(hipModuleLaunchKernel)
  TQRT_HIP_BIND(hipGetErrorName)
  TQRT_HIP_BIND(hipGetErrorString)
#undef TQRT_HIP_BIND
  if (missing) {
    r.why = "the HIP runtime library has no " + std::string(missing);
    return; // stays loaded: unloading a runtime is never safe
  }
  Error e = a.hipInit(0);
  int count = 0;
  if (e == kSuccess)
    e = a.hipGetDeviceCount(&count);
  // ROCm reports "no GPU" as hipErrorNoDevice or (hipInit, 5.x)
  // hipErrorInvalidDevice: a machine without an AMD GPU, not a broken one.
  if (e == kErrorNoDevice || e == kErrorInvalidDevice ||
      (e == kSuccess && count == 0)) {
    r.why = "the HIP runtime sees no AMD device (" +
            describeWith(a, e == kSuccess ? kErrorNoDevice : e) + ")";
    return;
  }
  if (e != kSuccess) {
    r.initFailed = true;
    r.why = "hipInit failed: " + describeWith(a, e);
    return;
  }
  r.usable = true;
}

} // namespace

const Runtime &runtime() {
  static Runtime r;
  static std::once_flag once;
  std::call_once(once, [] { load(r); });
  return r;
}

std::string describe(Error e) { return describeWith(runtime().api, e); }

} // namespace tqrt::hip
