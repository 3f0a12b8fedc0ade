//===- Gpu.h - Owned driver objects for the measurement loop ---*- C++ -*-===//
//
// Thin RAII owners over the dlopen'ed driver (runtime/src/driver.h): every
// driver call is checked, and a failure throws GpuError with the call and
// the driver's name for the error, so the loop stays readable and nothing
// leaks on an early exit. Internal to the autotuner; nothing here escapes
// Measure.cpp's catch.
//
//===----------------------------------------------------------------------===//
#ifndef TQC_AUTOTUNE_LIB_GPU_H
#define TQC_AUTOTUNE_LIB_GPU_H

#include "driver.h"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace tqc::autotune::gpu {

namespace cu = tqrt::cu;

struct GpuError : std::runtime_error {
  GpuError(const std::string &what, cu::Result r)
      : std::runtime_error(what), result(r) {}
  cu::Result result;
};

/// The loaded driver with every entry point the tuner calls, or throws.
const cu::Api &api();

/// Throws GpuError("what: CUDA_ERROR_... (text)") unless r is success.
void check(cu::Result r, const char *what);

/// The device's primary context, current on this thread while it lives.
class PrimaryContext {
public:
  explicit PrimaryContext(int ordinal);
  ~PrimaryContext();
  PrimaryContext(const PrimaryContext &) = delete;
  PrimaryContext &operator=(const PrimaryContext &) = delete;

private:
  cu::Device dev_ = 0;
  cu::Context ctx_ = nullptr;
};

/// Device memory (freed on destruction).
class Buffer {
public:
  Buffer() = default;
  explicit Buffer(size_t bytes, const char *what);
  ~Buffer() { reset(); }
  Buffer(Buffer &&o) noexcept
      : ptr_(std::exchange(o.ptr_, 0)), bytes_(std::exchange(o.bytes_, 0)) {}
  Buffer &operator=(Buffer &&o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, 0);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  void reset();
  cu::DevicePtr ptr() const { return ptr_; }
  void *get() const { return reinterpret_cast<void *>(ptr_); }
  size_t bytes() const { return bytes_; }
  void upload(const void *host, size_t bytes, size_t offset = 0);
  void zero();

private:
  cu::DevicePtr ptr_ = 0;
  size_t bytes_ = 0;
};

class Stream {
public:
  Stream();
  ~Stream();
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  cu::Stream get() const { return s_; }
  void synchronize(const char *what);

private:
  cu::Stream s_ = nullptr;
};

class Event {
public:
  Event();
  ~Event();
  Event(Event &&o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
  cu::Event get() const { return e_; }

private:
  cu::Event e_ = nullptr;
};

/// An instantiated CUDA graph.
class GraphExec {
public:
  GraphExec() = default;
  ~GraphExec() { reset(); }
  GraphExec(const GraphExec &) = delete;
  GraphExec &operator=(const GraphExec &) = delete;
  void reset();
  cu::GraphExec get() const { return g_; }
  cu::GraphExec *out() { reset(); return &g_; }

private:
  cu::GraphExec g_ = nullptr;
};

/// (free, total) bytes of the current context's device.
std::pair<size_t, size_t> memoryInfo();

} // namespace tqc::autotune::gpu

#endif // TQC_AUTOTUNE_LIB_GPU_H
