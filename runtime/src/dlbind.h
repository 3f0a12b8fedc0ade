//===- dlbind.h - Binding a dlopen'ed library's entry points ---*- C++ -*-===//
//
// The runtime loads its drivers at run time (libcuda in driver.cpp,
// libamdhip64 in hip.cpp) and binds each entry point through this one
// helper.
//
//===----------------------------------------------------------------------===//
#ifndef TQRT_SRC_DLBIND_H
#define TQRT_SRC_DLBIND_H

#include <dlfcn.h>

namespace tqrt {

/// fn = the symbol `name` of `lib` (a dlopen handle); false when absent.
template <class F> bool bindSymbol(void *lib, const char *name, F &fn) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  return fn != nullptr;
}

} // namespace tqrt

#endif // TQRT_SRC_DLBIND_H
