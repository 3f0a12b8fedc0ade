//===- error.h - Status + message plumbing of the C ABI ---------*- C++ -*-===//
//
// Inside the library, setup code (bundle loading, plan creation) reports a
// failure by throwing tqrt::Error; the C entry points catch it, store the
// message in the calling thread's buffer and return the status. Exceptions
// never cross the C ABI. The launch path does not throw: it formats straight
// into the buffer with snprintf, so a failing launch allocates nothing.
//
//===----------------------------------------------------------------------===//
#ifndef TQRT_SRC_ERROR_H
#define TQRT_SRC_ERROR_H

#include "tqrt/tqrt.h"

#include <string>
#include <utility>

namespace tqrt {

struct Error {
  tqrt_status status;
  std::string message;
  Error(tqrt_status s, std::string m) : status(s), message(std::move(m)) {}
};

[[noreturn]] inline void fail(tqrt_status s, std::string m) {
  throw Error(s, std::move(m));
}

/// Clears the calling thread's message (no allocation: the buffer is fixed).
void clearError();
/// Stores a message and returns `s`, for one-line `return setError(...)`.
tqrt_status setError(tqrt_status s, const char *message);
/// printf-style; the message is truncated to the buffer (1 KiB).
tqrt_status setErrorf(tqrt_status s, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

} // namespace tqrt

#endif
