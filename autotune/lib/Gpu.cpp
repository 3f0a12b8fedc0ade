//===- Gpu.cpp - Owned driver objects -------------------------------------===//
#include "Gpu.h"

namespace tqc::autotune::gpu {

const cu::Api &api() {
  const cu::Driver &d = cu::driver();
  if (!d.usable)
    throw GpuError("no CUDA device: " + d.why, cu::kErrorNoDevice);
  if (const char *missing = cu::missingToolApi(d))
    throw GpuError(std::string("the CUDA driver has no ") + missing +
                       "; the autotuner needs a driver for CUDA 12.0 or newer",
                   cu::kErrorNotInitialized);
  return d.api;
}

void check(cu::Result r, const char *what) {
  if (r != cu::kSuccess)
    throw GpuError(std::string(what) + ": " + cu::describe(r), r);
}

PrimaryContext::PrimaryContext(int ordinal) {
  const cu::Api &a = api();
  check(a.cuDeviceGet(&dev_, ordinal), "cuDeviceGet");
  check(a.cuDevicePrimaryCtxRetain(&ctx_, dev_), "cuDevicePrimaryCtxRetain");
  cu::Result r = a.cuCtxSetCurrent(ctx_);
  if (r != cu::kSuccess) {
    a.cuDevicePrimaryCtxRelease_v2(dev_);
    check(r, "cuCtxSetCurrent");
  }
}

PrimaryContext::~PrimaryContext() {
  const cu::Api &a = cu::driver().api;
  // Let queued work finish before the context may go away; errors here
  // have been reported by the loop already.
  a.cuCtxSynchronize();
  a.cuCtxSetCurrent(nullptr);
  a.cuDevicePrimaryCtxRelease_v2(dev_);
}

Buffer::Buffer(size_t bytes, const char *what) {
  if (bytes == 0)
    bytes = 16; // a valid, aligned pointer for empty arrays
  cu::Result r = api().cuMemAlloc_v2(&ptr_, bytes);
  if (r != cu::kSuccess) {
    ptr_ = 0;
    throw GpuError(std::string("cuMemAlloc of ") + std::to_string(bytes) +
                       " bytes for " + what + ": " + cu::describe(r),
                   r);
  }
  bytes_ = bytes;
}

void Buffer::reset() {
  if (ptr_)
    cu::driver().api.cuMemFree_v2(ptr_);
  ptr_ = 0;
  bytes_ = 0;
}

void Buffer::upload(const void *host, size_t bytes, size_t offset) {
  if (offset + bytes > bytes_)
    throw GpuError("upload of " + std::to_string(bytes) + " bytes at " +
                       std::to_string(offset) + " overruns a buffer of " +
                       std::to_string(bytes_),
                   cu::kSuccess);
  check(api().cuMemcpyHtoD_v2(ptr_ + offset, host, bytes), "cuMemcpyHtoD");
}

void Buffer::zero() { check(api().cuMemsetD8_v2(ptr_, 0, bytes_), "cuMemsetD8"); }

Stream::Stream() {
  check(api().cuStreamCreate(&s_, cu::kStreamNonBlocking), "cuStreamCreate");
}

Stream::~Stream() {
  if (s_)
    cu::driver().api.cuStreamDestroy_v2(s_);
}

void Stream::synchronize(const char *what) {
  check(api().cuStreamSynchronize(s_), what);
}

Event::Event() {
  check(api().cuEventCreate(&e_, cu::kEventDefault), "cuEventCreate");
}

Event::~Event() {
  if (e_)
    cu::driver().api.cuEventDestroy_v2(e_);
}

void GraphExec::reset() {
  if (g_)
    cu::driver().api.cuGraphExecDestroy(g_);
  g_ = nullptr;
}

std::pair<size_t, size_t> memoryInfo() {
  size_t freeBytes = 0, total = 0;
  check(api().cuMemGetInfo_v2(&freeBytes, &total), "cuMemGetInfo");
  return {freeBytes, total};
}

} // namespace tqc::autotune::gpu
