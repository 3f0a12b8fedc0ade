//===- tqrt.cpp - The C ABI: bundles, plans, launches ---------------------===//
//
// Two paths with different rules:
// - setup (bundle load, plan creation, queries): may allocate, read files,
//   load modules and throw tqrt::Error internally; every entry point catches.
// - launch: validates with plain comparisons, formats failures into the
//   thread's fixed buffer, then makes one cuLaunchKernel call per kernel.
//   No allocation, no lock, no synchronization, no device read, so launches
//   can be captured into CUDA graphs.
//
//===----------------------------------------------------------------------===//
#include "tqrt/tqrt.h"

#include "driver.h"
#include "hip.h"
#include "error.h"
#include "manifest.h"
#include "tq/abi.h"

#include <cerrno>
#include <cstdint>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

using namespace tqrt;

// ---------------------------------------------------------------------------
// Error buffer
// ---------------------------------------------------------------------------

namespace {
// Fixed size, so that reporting a launch error allocates nothing; long JIT
// logs are truncated.
thread_local char gMessage[4096];
} // namespace

void tqrt::clearError() { gMessage[0] = '\0'; }

tqrt_status tqrt::setError(tqrt_status s, const char *message) {
  std::snprintf(gMessage, sizeof gMessage, "%s", message);
  return s;
}

tqrt_status tqrt::setErrorf(tqrt_status s, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  std::vsnprintf(gMessage, sizeof gMessage, format, ap);
  va_end(ap);
  return s;
}

namespace {

template <typename F> tqrt_status guarded(F &&body) {
  clearError();
  try {
    body();
    return TQRT_OK;
  } catch (const Error &e) {
    return setError(e.status, e.message.c_str());
  } catch (const std::bad_alloc &) {
    return setError(TQRT_INTERNAL, "out of host memory");
  } catch (const std::exception &e) {
    return setErrorf(TQRT_INTERNAL, "internal error: %s", e.what());
  } catch (...) {
    return setError(TQRT_INTERNAL, "internal error: unknown exception");
  }
}

} // namespace

// ---------------------------------------------------------------------------
// Objects
// ---------------------------------------------------------------------------

namespace {

/// The bundle's code loaded into one context.
struct LoadedModule {
  cu::Context ctx = nullptr;
  unsigned long long ctxId = 0;
  bool hasCtxId = false;
  cu::Module module = nullptr;
  const char *source = "none"; // "cubin", "ptx" or "hsaco"
  int device = -1, cc = 0;
  std::vector<cu::Function> fn; // per Manifest::kernels index
  // AMD bundles: the HSACO loaded on a HIP device (modules are per device).
  hip::Module hipModule = nullptr;
  std::vector<hip::Function> hipFn;
};

} // namespace

struct tqrt_bundle {
  Manifest m;
  std::vector<unsigned char> image;
  std::string ptx; // std::string keeps the NUL the driver needs after PTX
  Arch ptxArch;
  std::mutex mutex; // guards `modules` (plan creation only)
  std::vector<LoadedModule> modules;
};

struct tqrt_plan {
  const tqrt_bundle *bundle = nullptr;
  int32_t maxBatch = 0, maxTokens = 0;
  int planIndex = 0;              // into bundle->m.plans
  const PlanDesc *desc = nullptr; // that plan
  uint64_t workspaceBytes = 0;
  uint64_t extendWorkspaceBytes = 0; // 0: the bundle has no extend
  /// Per kind and dtype: the store kernel, the plan's decode kernel, and
  /// the extend_prep and extend kernels.
  struct Kernel {
    int index = -1; // into bundle->m.kernels; -1: none
    uint32_t grid[3] = {0, 0, 0};
    cu::Function fn = nullptr;
    hip::Function hipFn = nullptr; // AMD bundles
  } k[kNumKinds][kNumDtypes];
  bool bound = false;
  cu::Context ctx = nullptr;
  unsigned long long ctxId = 0;
  bool hasCtxId = false;
  int device = -1, cc = 0;
  const char *source = "none";
  std::string unboundReason; // why launches return NO_DEVICE
};

// ---------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------

namespace {

std::string readFile(const std::string &path, bool binary) {
  std::ifstream in(path, binary ? std::ios::binary : std::ios::in);
  if (!in)
    fail(TQRT_BAD_BUNDLE,
         "cannot read '" + path + "': " + std::strerror(errno));
  std::string data((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  if (in.bad())
    fail(TQRT_BAD_BUNDLE, "error reading '" + path + "'");
  return data;
}

void checkImage(const unsigned char *p, size_t n, const std::string &name) {
  // A cubin / HSACO is an ELF file; cuModuleLoadData also takes a fatbin.
  static const unsigned char elf[4] = {0x7F, 'E', 'L', 'F'};
  static const unsigned char fatbin[4] = {0x50, 0xED, 0x55, 0xBA};
  if (n < 4 || (std::memcmp(p, elf, 4) != 0 && std::memcmp(p, fatbin, 4) != 0))
    fail(TQRT_BAD_BUNDLE, name + " is not a cubin (no ELF or fatbin header; " +
                              std::to_string(n) + " bytes)");
}

void setPtx(tqrt_bundle &b, const char *p, size_t n, const std::string &name) {
  // PTX is text; a trailing NUL from a C array is not part of it.
  while (n > 0 && p[n - 1] == '\0')
    --n;
  b.ptx.assign(p, n);
  if (b.ptx.find('\0') != std::string::npos)
    fail(TQRT_BAD_BUNDLE, name + " is not PTX text (it holds a NUL byte)");
  // The arch the PTX was generated for is its .target directive
  // (".target sm_90a" in a compute_90a PTX), not necessarily the cubin's.
  size_t t = b.ptx.find(".target");
  if (t == std::string::npos)
    fail(TQRT_BAD_BUNDLE, name + " is not PTX (no .target directive)");
  t += 7;
  while (t < b.ptx.size() && (b.ptx[t] == ' ' || b.ptx[t] == '\t'))
    ++t;
  size_t e = t;
  while (e < b.ptx.size() && b.ptx[e] != ',' && b.ptx[e] != ' ' &&
         b.ptx[e] != '\t' && b.ptx[e] != '\n' && b.ptx[e] != '\r')
    ++e;
  if (!parseArch(b.ptx.substr(t, e - t), b.ptxArch) || !b.ptxArch.nvidia)
    fail(TQRT_BAD_BUNDLE, name + ": unknown PTX target \"" +
                              b.ptx.substr(t, e - t) + "\"");
}

void checkOut(void *out, const char *fn) {
  if (!out)
    fail(TQRT_INVALID_ARGUMENT, std::string(fn) + ": the output pointer is null");
}

} // namespace

extern "C" {

const char *tqrt_last_error(void) { return gMessage; }

const char *tqrt_status_name(tqrt_status s) {
  switch (s) {
  case TQRT_OK: return "TQRT_OK";
  case TQRT_INVALID_ARGUMENT: return "TQRT_INVALID_ARGUMENT";
  case TQRT_BAD_BUNDLE: return "TQRT_BAD_BUNDLE";
  case TQRT_UNSUPPORTED_VERSION: return "TQRT_UNSUPPORTED_VERSION";
  case TQRT_ARCH_MISMATCH: return "TQRT_ARCH_MISMATCH";
  case TQRT_SHAPE_MISMATCH: return "TQRT_SHAPE_MISMATCH";
  case TQRT_EXCEEDS_PLAN: return "TQRT_EXCEEDS_PLAN";
  case TQRT_WORKSPACE_TOO_SMALL: return "TQRT_WORKSPACE_TOO_SMALL";
  case TQRT_UNSUPPORTED_DTYPE: return "TQRT_UNSUPPORTED_DTYPE";
  case TQRT_NO_DEVICE: return "TQRT_NO_DEVICE";
  case TQRT_NO_CONTEXT: return "TQRT_NO_CONTEXT";
  case TQRT_CUDA_ERROR: return "TQRT_CUDA_ERROR";
  case TQRT_INTERNAL: return "TQRT_INTERNAL";
  case TQRT_UNSUPPORTED: return "TQRT_UNSUPPORTED";
  }
  return "TQRT_UNKNOWN_STATUS";
}

const char *tqrt_version(void) { return TQRT_VERSION_STRING; }
int tqrt_abi_version(void) { return TQ_ABI_VERSION; }

tqrt_status tqrt_bundle_load_dir(const char *dir, tqrt_bundle **out) {
  return guarded([&] {
    checkOut(out, "tqrt_bundle_load_dir");
    *out = nullptr;
    if (!dir || !*dir)
      fail(TQRT_INVALID_ARGUMENT, "tqrt_bundle_load_dir: dir is null or empty");
    std::string base(dir);
    if (base.back() != '/')
      base += '/';
    std::string manifestPath = base + "manifest.json";
    std::string text = readFile(manifestPath, false);
    auto b = std::make_unique<tqrt_bundle>();
    b->m = readManifest(text, manifestPath);
    std::string imagePath = base + b->m.imageFile;
    std::string image = readFile(imagePath, true);
    checkImage(reinterpret_cast<const unsigned char *>(image.data()),
               image.size(), imagePath);
    b->image.assign(image.begin(), image.end());
    if (!b->m.ptxFile.empty()) {
      std::string ptxPath = base + b->m.ptxFile;
      std::string ptx = readFile(ptxPath, true);
      setPtx(*b, ptx.data(), ptx.size(), ptxPath);
    }
    *out = b.release();
  });
}

tqrt_status tqrt_bundle_load_memory(const void *manifest, size_t manifestLen,
                                    const void *image, size_t imageLen,
                                    const void *ptx, size_t ptxLen,
                                    tqrt_bundle **out) {
  return guarded([&] {
    checkOut(out, "tqrt_bundle_load_memory");
    *out = nullptr;
    if (!manifest || manifestLen == 0)
      fail(TQRT_INVALID_ARGUMENT,
           "tqrt_bundle_load_memory: manifest is null or empty");
    // A pointer with length 0 means "none" (a header without PTX still
    // defines the array); a null pointer with a length is a caller bug.
    if (!image && imageLen)
      fail(TQRT_INVALID_ARGUMENT,
           "tqrt_bundle_load_memory: image is null but image_len is " +
               std::to_string(imageLen));
    if (!ptx && ptxLen)
      fail(TQRT_INVALID_ARGUMENT,
           "tqrt_bundle_load_memory: ptx is null but ptx_len is " +
               std::to_string(ptxLen));
    if (imageLen == 0 && ptxLen == 0)
      fail(TQRT_INVALID_ARGUMENT,
           "tqrt_bundle_load_memory: neither a cubin (image) nor PTX given");
    // The generated header's manifest array may carry a trailing NUL.
    const char *text = static_cast<const char *>(manifest);
    while (manifestLen > 0 && text[manifestLen - 1] == '\0')
      --manifestLen;
    auto b = std::make_unique<tqrt_bundle>();
    b->m = readManifest(std::string_view(text, manifestLen),
                        "manifest.json (in memory)");
    if (imageLen) {
      const auto *p = static_cast<const unsigned char *>(image);
      checkImage(p, imageLen, "the image (" + b->m.imageFile + ", in memory)");
      b->image.assign(p, p + imageLen);
    }
    if (ptxLen)
      setPtx(*b, static_cast<const char *>(ptx), ptxLen,
             "the PTX (in memory)");
    *out = b.release();
  });
}

void tqrt_bundle_destroy(tqrt_bundle *bundle) {
  if (!bundle)
    return;
  if (!bundle->m.arch.nvidia) {
    // No module loaded: do not load the HIP runtime just to destroy.
    if (!bundle->modules.empty()) {
      const hip::Runtime &h = hip::runtime();
      if (h.usable)
        for (LoadedModule &lm : bundle->modules)
          h.api.hipModuleUnload(lm.hipModule);
    }
    delete bundle;
    return;
  }
  const cu::Driver &d = cu::driver();
  if (d.usable)
    for (LoadedModule &lm : bundle->modules)
      d.api.cuModuleUnload(lm.module); // errors ignored: context may be gone
  delete bundle;
}

tqrt_status tqrt_bundle_get_info(const tqrt_bundle *b, tqrt_bundle_info *info) {
  return guarded([&] {
    if (!b)
      fail(TQRT_INVALID_ARGUMENT, "tqrt_bundle_get_info: bundle is null");
    checkOut(info, "tqrt_bundle_get_info");
    const Manifest &m = b->m;
    *info = tqrt_bundle_info{};
    info->arch = m.arch.text.c_str();
    info->vendor = m.vendor.c_str();
    info->preset = m.preset.c_str();
    info->generator = m.generator.c_str();
    info->schema_version = m.schemaVersion;
    info->abi_version = m.abiVersion;
    info->head_dim = m.headDim;
    info->num_q_heads = m.numQHeads;
    info->num_kv_heads = m.numKVHeads;
    info->block_size = m.blockSize;
    info->plan_source = m.planSource.c_str();
    info->num_plans = static_cast<int32_t>(m.plans.size());
    for (int dt = 0; dt < kNumDtypes; ++dt)
      if (m.hasDtype(dt))
        info->dtypes |= 1u << (dt + 1);
    info->softmax_scale = m.softmaxScale;
    info->has_image = !b->image.empty();
    info->has_ptx = !b->ptx.empty();
    const ExtendDesc &e = m.extend;
    info->has_extend = e.available;
    info->extend_tile_tokens = e.tileTokens;
    info->extend_block_n = e.blockN;
    info->extend_warps = e.warps;
    info->extend_workspace_bytes_per_token = e.workspaceBytesPerToken;
    info->extend_note = e.note.c_str();
  });
}

tqrt_status tqrt_bundle_get_plan(const tqrt_bundle *b, int32_t index,
                                 tqrt_plan_desc *plan) {
  return guarded([&] {
    if (!b)
      fail(TQRT_INVALID_ARGUMENT, "tqrt_bundle_get_plan: bundle is null");
    checkOut(plan, "tqrt_bundle_get_plan");
    const std::vector<PlanDesc> &plans = b->m.plans;
    if (index < 0 || static_cast<size_t>(index) >= plans.size())
      fail(TQRT_INVALID_ARGUMENT,
           "tqrt_bundle_get_plan: index " + std::to_string(index) +
               " is outside [0, " + std::to_string(plans.size()) + ")");
    const PlanDesc &p = plans[index];
    *plan = tqrt_plan_desc{};
    plan->buckets = p.buckets.data();
    plan->num_buckets = static_cast<int32_t>(p.buckets.size());
    plan->block_n = p.blockN;
    plan->splits = p.splits;
    plan->warps = p.warps;
    plan->heads_per_cta = p.headsPerCta;
    plan->stages = p.stages;
    plan->workspace_floats_per_batch_row = p.floatsPerBatchRow;
  });
}

tqrt_status tqrt_bundle_get_layout(const tqrt_bundle *b,
                                   tqrt_layout_info *layout) {
  return guarded([&] {
    if (!b)
      fail(TQRT_INVALID_ARGUMENT, "tqrt_bundle_get_layout: bundle is null");
    checkOut(layout, "tqrt_bundle_get_layout");
    const Manifest &m = b->m;
    *layout = tqrt_layout_info{};
    layout->kind = m.layoutKind.c_str();
    layout->dtype = m.layoutDtype.c_str();
    for (size_t i = 0; i < m.shape.size(); ++i)
      layout->shape[i] = m.shape[i];
    layout->block_stride = m.blockStride;
    layout->head_stride = m.headStride;
    layout->region_bytes = m.regionBytes;
    layout->bytes_per_token_head = m.bytesPerTokenHead;
    layout->alignment = m.alignment;
    layout->rank = static_cast<int32_t>(m.shape.size());
    layout->num_fields = static_cast<int32_t>(m.fields.size());
  });
}

tqrt_status tqrt_bundle_get_field(const tqrt_bundle *b, int32_t index,
                                  tqrt_field_info *field) {
  return guarded([&] {
    if (!b)
      fail(TQRT_INVALID_ARGUMENT, "tqrt_bundle_get_field: bundle is null");
    checkOut(field, "tqrt_bundle_get_field");
    if (index < 0 || static_cast<size_t>(index) >= b->m.fields.size())
      fail(TQRT_INVALID_ARGUMENT,
           "tqrt_bundle_get_field: index " + std::to_string(index) +
               " is outside [0, " + std::to_string(b->m.fields.size()) + ")");
    const FieldDesc &f = b->m.fields[index];
    field->name = f.name.c_str();
    field->dtype = f.dtype.c_str();
    field->bytes = f.bytes;
    field->offset = f.offset;
    field->token_stride = f.tokenStride;
  });
}

static void checkNumBlocks(const tqrt_bundle *b, int64_t numBlocks,
                           const char *fn) {
  if (!b)
    fail(TQRT_INVALID_ARGUMENT, std::string(fn) + ": bundle is null");
  if (numBlocks < 1)
    fail(TQRT_INVALID_ARGUMENT, std::string(fn) + ": num_blocks is " +
                                    std::to_string(numBlocks) +
                                    "; it must be at least 1");
  if (numBlocks > INT64_MAX / b->m.blockStride)
    fail(TQRT_INVALID_ARGUMENT,
         std::string(fn) + ": num_blocks " + std::to_string(numBlocks) +
             " times block_stride " + std::to_string(b->m.blockStride) +
             " overflows 64 bits");
}

tqrt_status tqrt_cache_shape(const tqrt_bundle *b, int64_t numBlocks,
                             int64_t shape[4], int32_t *rank) {
  return guarded([&] {
    checkNumBlocks(b, numBlocks, "tqrt_cache_shape");
    checkOut(shape, "tqrt_cache_shape");
    checkOut(rank, "tqrt_cache_shape");
    for (int i = 0; i < 4; ++i)
      shape[i] = i < static_cast<int>(b->m.shape.size()) ? b->m.shape[i] : 0;
    shape[0] = numBlocks;
    *rank = static_cast<int32_t>(b->m.shape.size());
  });
}

tqrt_status tqrt_cache_bytes(const tqrt_bundle *b, int64_t numBlocks,
                             uint64_t *bytes) {
  return guarded([&] {
    checkNumBlocks(b, numBlocks, "tqrt_cache_bytes");
    checkOut(bytes, "tqrt_cache_bytes");
    *bytes = static_cast<uint64_t>(numBlocks) *
             static_cast<uint64_t>(b->m.blockStride);
  });
}

} // extern "C"

// ---------------------------------------------------------------------------
// Plans
// ---------------------------------------------------------------------------

namespace {

int64_t evaluate(const GridExpr &e, const GridValues &values,
                 const std::string &where, int64_t limit) {
  // Each factor is below 2^33 (query_tiles: a sum of two int32 values) and
  // the limit below 2^31: checking before each multiplication keeps the
  // product far from overflow.
  int64_t v = e.literal;
  for (GridName n : e.names) {
    const int64_t f = values[static_cast<int>(n)];
    if (v > limit || f > limit) {
      v = limit + 1;
      break;
    }
    v *= f;
  }
  if (v > limit)
    fail(TQRT_INVALID_ARGUMENT,
         "tqrt_plan_create: " + where + " = \"" + e.text + "\" exceeds " +
             std::to_string(limit) + " for this plan; use a smaller bucket");
  return v;
}

void checkDriver(cu::Result r, const char *what) {
  if (r != cu::kSuccess)
    fail(TQRT_CUDA_ERROR, std::string("tqrt_plan_create: ") + what + ": " +
                              cu::describe(r));
}

std::string smName(int cc) { return "sm_" + std::to_string(cc); }

/// Loads the bundle's code into the current context `ctx` of device `dev`.
LoadedModule loadModule(const tqrt_bundle &b, const cu::Api &a,
                        cu::Context ctx, cu::Device dev) {
  const Manifest &m = b.m;
  LoadedModule lm;
  lm.ctx = ctx;
  lm.device = dev;
  int major = 0, minor = 0;
  checkDriver(a.cuDeviceGetAttribute(&major, cu::kDevAttrComputeCapabilityMajor, dev),
              "cuDeviceGetAttribute(compute capability)");
  checkDriver(a.cuDeviceGetAttribute(&minor, cu::kDevAttrComputeCapabilityMinor, dev),
              "cuDeviceGetAttribute(compute capability)");
  lm.cc = major * 10 + minor;
  const std::string device = "device " + std::to_string(dev) +
                             " (compute capability " + std::to_string(major) +
                             "." + std::to_string(minor) + ")";
  if (!m.arch.nvidia)
    fail(TQRT_ARCH_MISMATCH,
         "tqrt_plan_create: the bundle is for " + m.arch.text + " (" +
             m.vendor + "), not for a CUDA device");

  // The cubin when it runs on this device, else the PTX through the driver's
  // JIT; which one was used is reported by tqrt_plan_get_info.
  std::string tried;
  if (!b.image.empty()) {
    if (archRunsOn(m.arch, lm.cc, true)) {
      cu::Result r = a.cuModuleLoadData(&lm.module, b.image.data());
      if (r == cu::kSuccess)
        lm.source = "cubin";
      else if (r == cu::kErrorNoBinaryForGpu)
        tried = "the " + m.arch.text + " cubin was refused (" +
                cu::describe(r) + ")";
      else
        fail(TQRT_CUDA_ERROR, "tqrt_plan_create: loading the " + m.arch.text +
                                  " cubin on " + device + ": " + cu::describe(r));
    } else {
      tried = "the cubin is for " + m.arch.text;
    }
  }
  if (!lm.module && !b.ptx.empty()) {
    if (archRunsOn(b.ptxArch, lm.cc, false)) {
      char log[2048] = {0};
      int options[2] = {cu::kJitErrorLogBuffer, cu::kJitErrorLogBufferSizeBytes};
      void *values[2] = {log, reinterpret_cast<void *>(sizeof log)};
      cu::Result r =
          a.cuModuleLoadDataEx(&lm.module, b.ptx.c_str(), 2, options, values);
      if (r == cu::kErrorUnsupportedPtxVersion)
        fail(TQRT_ARCH_MISMATCH,
             "tqrt_plan_create: the driver is older than the bundle's PTX (" +
                 cu::describe(r) + "); update the NVIDIA driver or compile "
                 "the bundle for " + smName(lm.cc) + " so its cubin is used");
      if (r != cu::kSuccess)
        fail(TQRT_CUDA_ERROR, "tqrt_plan_create: JIT-compiling the " +
                                  b.ptxArch.text + " PTX on " + device + ": " +
                                  cu::describe(r) + (log[0] ? ": " : "") + log);
      lm.source = "ptx";
    } else {
      tried += std::string(tried.empty() ? "" : ", ") + "the PTX is for " +
               b.ptxArch.text;
    }
  } else if (!lm.module) {
    tried += std::string(tried.empty() ? "" : ", ") + "the bundle has no PTX";
  }
  if (!lm.module)
    fail(TQRT_ARCH_MISMATCH,
         "tqrt_plan_create: the bundle does not run on " + device + ": " +
             tried + "; compile it with tqc --arch " + smName(lm.cc));

  try {
    int optin = 0;
    a.cuDeviceGetAttribute(&optin, cu::kDevAttrMaxSharedMemoryPerBlockOptin,
                           dev);
    lm.fn.assign(m.kernels.size(), nullptr);
    for (size_t i = 0; i < m.kernels.size(); ++i) {
      const KernelDesc &k = m.kernels[i];
      cu::Function f = nullptr;
      cu::Result r = a.cuModuleGetFunction(&f, lm.module, k.symbol.c_str());
      if (r != cu::kSuccess)
        fail(TQRT_BAD_BUNDLE, "tqrt_plan_create: kernel '" + k.name +
                                  "': symbol '" + k.symbol + "' is not in the " +
                                  lm.source + " (" + cu::describe(r) + ")");
      int maxThreads = 0, staticShared = 0;
      checkDriver(a.cuFuncGetAttribute(&maxThreads, cu::kFuncAttrMaxThreadsPerBlock, f),
                  "cuFuncGetAttribute");
      checkDriver(a.cuFuncGetAttribute(&staticShared, cu::kFuncAttrSharedSizeBytes, f),
                  "cuFuncGetAttribute");
      int64_t threads = int64_t(k.block[0]) * k.block[1] * k.block[2];
      if (threads > maxThreads)
        fail(TQRT_BAD_BUNDLE,
             "tqrt_plan_create: kernel '" + k.name + "' is launched with " +
                 std::to_string(threads) + " threads but its code allows " +
                 std::to_string(maxThreads) + " (launch bounds / registers)");
      // Static plus dynamic shared memory above the default 48 KiB must be
      // opted into per function; this is setup, so it happens here and not
      // at launch.
      if (int64_t(k.dynamicSharedBytes) + staticShared > 48 * 1024) {
        if (optin > 0 && int64_t(k.dynamicSharedBytes) + staticShared > optin)
          fail(TQRT_ARCH_MISMATCH,
               "tqrt_plan_create: kernel '" + k.name + "' needs " +
                   std::to_string(k.dynamicSharedBytes + staticShared) +
                   " bytes of shared memory; " + device + " allows " +
                   std::to_string(optin));
        checkDriver(a.cuFuncSetAttribute(f, cu::kFuncAttrMaxDynamicSharedSizeBytes,
                                         static_cast<int>(k.dynamicSharedBytes)),
                    "cuFuncSetAttribute(max dynamic shared memory)");
      }
      lm.fn[i] = f;
    }
  } catch (...) {
    a.cuModuleUnload(lm.module);
    throw;
  }
  return lm;
}

/// Points the plan's kernels at a loaded module's functions (CUDA or HIP,
/// whichever the module holds) and marks the plan bound to its device.
void adoptModule(tqrt_plan &plan, const LoadedModule &lm) {
  for (auto &row : plan.k)
    for (tqrt_plan::Kernel &k : row)
      if (k.index >= 0) {
        k.fn = lm.fn.empty() ? nullptr : lm.fn[k.index];
        k.hipFn = lm.hipFn.empty() ? nullptr : lm.hipFn[k.index];
      }
  plan.bound = true;
  plan.device = lm.device;
  plan.cc = lm.cc;
  plan.source = lm.source;
}

/// An AMD bundle: binds `plan` to the current HIP device, loading the HSACO
/// there if this is the device's first plan. Without the HIP runtime or a
/// device the plan stays unbound (launches check, then say NO_DEVICE).
void bindHip(tqrt_plan &plan, tqrt_bundle &b) {
  const hip::Runtime &h = hip::runtime();
  if (!h.usable) {
    if (h.initFailed)
      fail(TQRT_CUDA_ERROR, "tqrt_plan_create: " + h.why);
    plan.unboundReason = h.why;
    return;
  }
  const hip::Api &a = h.api;
  int dev = 0;
  if (hip::Error e = a.hipGetDevice(&dev))
    fail(TQRT_CUDA_ERROR, "tqrt_plan_create: hipGetDevice: " + hip::describe(e));
  std::lock_guard<std::mutex> lock(b.mutex);
  const LoadedModule *lm = nullptr;
  for (const LoadedModule &x : b.modules)
    if (x.device == dev)
      lm = &x;
  if (!lm) {
    LoadedModule loaded;
    loaded.device = dev;
    loaded.source = "hsaco";
    hip::Error e = a.hipModuleLoadData(&loaded.hipModule, b.image.data());
    if (e == hip::kErrorNoBinaryForGpu || e == hip::kErrorInvalidImage) {
      char name[256] = {0};
      a.hipDeviceGetName(name, sizeof name, dev);
      fail(TQRT_ARCH_MISMATCH,
           "tqrt_plan_create: the bundle's " + b.m.arch.text +
               " code object does not run on device " + std::to_string(dev) +
               " (" + name + "): " + hip::describe(e) +
               "; compile it with tqc --arch for that GPU");
    }
    if (e != hip::kSuccess)
      fail(TQRT_CUDA_ERROR, "tqrt_plan_create: hipModuleLoadData: " +
                                hip::describe(e));
    loaded.hipFn.assign(b.m.kernels.size(), nullptr);
    for (size_t i = 0; i < b.m.kernels.size(); ++i) {
      const KernelDesc &k = b.m.kernels[i];
      if (hip::Error ge = a.hipModuleGetFunction(&loaded.hipFn[i],
                                                 loaded.hipModule,
                                                 k.symbol.c_str())) {
        a.hipModuleUnload(loaded.hipModule);
        fail(TQRT_BAD_BUNDLE, "tqrt_plan_create: kernel '" + k.name +
                                  "': symbol '" + k.symbol +
                                  "' is not in the hsaco (" +
                                  hip::describe(ge) + ")");
      }
    }
    b.modules.push_back(loaded);
    lm = &b.modules.back();
  }
  adoptModule(plan, *lm);
}

/// Binds `plan` to the current context, loading the bundle's code there if
/// this is the context's first plan.
void bind(tqrt_plan &plan, tqrt_bundle &b) {
  if (!b.m.arch.nvidia)
    return bindHip(plan, b);
  const cu::Driver &d = cu::driver();
  if (!d.usable) {
    if (d.initFailed)
      fail(TQRT_CUDA_ERROR, "tqrt_plan_create: " + d.why);
    plan.unboundReason = d.why;
    return; // an unbound plan: sizes and checks work, launches say NO_DEVICE
  }
  const cu::Api &a = d.api;
  cu::Context ctx = nullptr;
  checkDriver(a.cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
  if (!ctx)
    fail(TQRT_NO_CONTEXT,
         "tqrt_plan_create: no CUDA context is current on this thread; make "
         "the device's context current first (cudaSetDevice(dev) then "
         "cudaFree(0) with the runtime API, cuCtxSetCurrent with the driver "
         "API, torch.cuda.set_device(dev) and any CUDA op in PyTorch)");
  unsigned long long id = 0;
  bool hasId = a.cuCtxGetId && a.cuCtxGetId(ctx, &id) == cu::kSuccess;
  cu::Device dev = 0;
  checkDriver(a.cuCtxGetDevice(&dev), "cuCtxGetDevice");

  std::lock_guard<std::mutex> lock(b.mutex);
  const LoadedModule *lm = nullptr;
  for (const LoadedModule &x : b.modules)
    if (x.ctx == ctx && x.hasCtxId == hasId && x.ctxId == id)
      lm = &x;
  if (!lm) {
    LoadedModule loaded = loadModule(b, a, ctx, dev);
    loaded.ctxId = id;
    loaded.hasCtxId = hasId;
    b.modules.push_back(loaded);
    lm = &b.modules.back();
  }
  adoptModule(plan, *lm);
  plan.ctx = ctx;
  plan.ctxId = id;
  plan.hasCtxId = hasId;
}

} // namespace

extern "C" {

} // extern "C"

namespace {

/// tqrt_plan_create(_for): `planIndex` < 0 takes the bundle's plan for
/// max_batch. Messages name `fn`.
tqrt_status createPlan(const char *fn, const tqrt_bundle *bundle,
                       int32_t planIndex, int32_t maxBatch, int32_t maxTokens,
                       tqrt_plan **out) {
  return guarded([&] {
    checkOut(out, fn);
    *out = nullptr;
    if (!bundle)
      fail(TQRT_INVALID_ARGUMENT, std::string(fn) + ": bundle is null");
    if (maxBatch < 1)
      fail(TQRT_INVALID_ARGUMENT, std::string(fn) + ": max_batch is " +
                                      std::to_string(maxBatch) +
                                      "; it must be at least 1");
    if (maxTokens < 1)
      fail(TQRT_INVALID_ARGUMENT, std::string(fn) + ": max_tokens is " +
                                      std::to_string(maxTokens) +
                                      "; it must be at least 1");
    const Manifest &m = bundle->m;
    if (planIndex >= 0 && static_cast<size_t>(planIndex) >= m.plans.size())
      fail(TQRT_INVALID_ARGUMENT,
           std::string(fn) + ": plan_index " + std::to_string(planIndex) +
               " is outside [0, " + std::to_string(m.plans.size()) +
               ") (the bundle's plans)");
    auto plan = std::make_unique<tqrt_plan>();
    plan->bundle = bundle;
    plan->maxBatch = maxBatch;
    plan->maxTokens = maxTokens;
    plan->planIndex = planIndex >= 0 ? planIndex : choosePlan(m.plans, maxBatch);
    const PlanDesc &p = m.plans[plan->planIndex];
    plan->desc = &p;
    // The store and extend kernels, and the chosen plan's decode kernels.
    for (int dt = 0; dt < kNumDtypes; ++dt) {
      for (int kind : {int(TQRT_KERNEL_STORE), int(TQRT_KERNEL_EXTEND_PREP),
                       int(TQRT_KERNEL_EXTEND)})
        plan->k[kind][dt].index = m.kernelOf[kind][dt];
      plan->k[TQRT_KERNEL_DECODE][dt].index = p.decode[dt];
    }
    GridValues values{};
    values[int(GridName::MaxBatch)] = maxBatch;
    values[int(GridName::MaxTokens)] = maxTokens;
    values[int(GridName::NumQHeads)] = m.numQHeads;
    values[int(GridName::NumKVHeads)] = m.numKVHeads;
    values[int(GridName::HeadGroups)] = m.numQHeads / p.headsPerCta;
    values[int(GridName::Splits)] = p.splits;
    // CUDA's grid limits: x < 2^31, y and z < 2^16.
    const int64_t limits[3] = {INT32_MAX, 65535, 65535};
    for (auto &row : plan->k)
      for (tqrt_plan::Kernel &pk : row) {
        if (pk.index < 0)
          continue;
        const KernelDesc &k = m.kernels[pk.index];
        // query_tiles: the kernel's own (the reader guarantees tile_tokens
        // where a grid uses it): every sequence's chunk starts a new tile,
        // so max_batch tiles more than max_tokens needs.
        // token_tiles: the same tiles over one run of max_tokens tokens.
        const int64_t tokenTiles =
            k.tileTokens > 0
                ? (int64_t(maxTokens) + k.tileTokens - 1) / k.tileTokens
                : 0;
        values[int(GridName::QueryTiles)] =
            k.tileTokens > 0 ? tokenTiles + maxBatch : 0;
        values[int(GridName::TokenTiles)] = tokenTiles;
        for (int j = 0; j < 3; ++j)
          pk.grid[j] = static_cast<uint32_t>(evaluate(
              k.grid[j], values,
              "kernel '" + k.name + "' grid[" + std::to_string(j) + "]",
              limits[j]));
      }
    if (p.splits > 1) {
      uint64_t floats = static_cast<uint64_t>(p.floatsPerBatchRow) *
                        static_cast<uint64_t>(maxBatch);
      plan->workspaceBytes = floats * sizeof(float);
    }
    if (m.extend.available)
      plan->extendWorkspaceBytes =
          static_cast<uint64_t>(maxTokens) *
          static_cast<uint64_t>(m.extend.workspaceBytesPerToken);
    // Casting away const is confined to the module cache, which the bundle
    // guards with its mutex; the manifest itself is never modified.
    bind(*plan, const_cast<tqrt_bundle &>(*bundle));
    *out = plan.release();
  });
}

} // namespace

extern "C" {

tqrt_status tqrt_plan_create(const tqrt_bundle *bundle, int32_t maxBatch,
                             int32_t maxTokens, tqrt_plan **out) {
  return createPlan("tqrt_plan_create", bundle, -1, maxBatch, maxTokens, out);
}

tqrt_status tqrt_plan_create_for(const tqrt_bundle *bundle, int32_t planIndex,
                                 int32_t maxBatch, int32_t maxTokens,
                                 tqrt_plan **out) {
  if (planIndex < 0) { // createPlan reads a negative index as "choose"
    clearError();
    return setErrorf(TQRT_INVALID_ARGUMENT,
                     "tqrt_plan_create_for: plan_index is %d; it must be at "
                     "least 0",
                     static_cast<int>(planIndex));
  }
  return createPlan("tqrt_plan_create_for", bundle, planIndex, maxBatch,
                    maxTokens, out);
}

void tqrt_plan_destroy(tqrt_plan *plan) { delete plan; }

tqrt_status tqrt_plan_get_info(const tqrt_plan *plan, tqrt_plan_info *info) {
  return guarded([&] {
    if (!plan)
      fail(TQRT_INVALID_ARGUMENT, "tqrt_plan_get_info: plan is null");
    checkOut(info, "tqrt_plan_get_info");
    *info = tqrt_plan_info{};
    info->workspace_bytes = plan->workspaceBytes;
    info->max_batch = plan->maxBatch;
    info->max_tokens = plan->maxTokens;
    info->plan_index = plan->planIndex;
    info->splits = plan->desc->splits;
    info->block_n = plan->desc->blockN;
    info->warps = plan->desc->warps;
    info->heads_per_cta = plan->desc->headsPerCta;
    info->bound = plan->bound;
    info->device = plan->device;
    info->compute_capability = plan->cc;
    info->module_source = plan->source;
    info->extend_workspace_bytes = plan->extendWorkspaceBytes;
  });
}

} // extern "C"

// ---------------------------------------------------------------------------
// Launches: no exceptions, no allocation from here on.
// ---------------------------------------------------------------------------

namespace {

bool misaligned(const void *p, uintptr_t alignment) {
  return reinterpret_cast<uintptr_t>(p) % alignment != 0;
}

tqrt_status checkDtype(const tqrt_plan *plan, tqrt_dtype dtype,
                       const char *fn) {
  if (dtype != TQRT_DTYPE_BF16 && dtype != TQRT_DTYPE_FP16)
    return setErrorf(TQRT_INVALID_ARGUMENT,
                     "%s: dtype %d is not a tqrt_dtype (TQRT_DTYPE_BF16 = 1, "
                     "TQRT_DTYPE_FP16 = 2)",
                     fn, static_cast<int>(dtype));
  if (!plan->bundle->m.hasDtype(dtypeIndex(dtype))) {
    const Manifest &m = plan->bundle->m;
    return setErrorf(TQRT_UNSUPPORTED_DTYPE,
                     "%s: the bundle has no %s kernels (it has:%s%s)", fn,
                     dtypeName(dtypeIndex(dtype)),
                     m.hasDtype(0) ? " bf16" : "", m.hasDtype(1) ? " fp16" : "");
  }
  return TQRT_OK;
}

tqrt_status checkPointer(const void *p, uintptr_t alignment, const char *fn,
                         const char *name) {
  if (!p)
    return setErrorf(TQRT_INVALID_ARGUMENT, "%s: %s is null", fn, name);
  if (misaligned(p, alignment))
    return setErrorf(TQRT_INVALID_ARGUMENT,
                     "%s: %s (%p) is not %u-byte aligned", fn, name, p,
                     static_cast<unsigned>(alignment));
  return TQRT_OK;
}

/// Strides of a [rows, heads, head_dim] activation whose last dimension is
/// contiguous: positive, multiples of 8 elements (16 bytes of a 2-byte
/// dtype, so every head vector is 16-byte aligned), and no two head vectors
/// overlap. `rows` is this launch's row count (tokens or batch).
tqrt_status checkStrides(const char *fn, const char *name, const char *rowName,
                         int64_t rowStride, int64_t rows, int64_t headStride,
                         int64_t heads, int64_t headDim) {
  const char *which[2] = {rowName, "head"};
  const int64_t strides[2] = {rowStride, headStride};
  for (int i = 0; i < 2; ++i) {
    if (strides[i] <= 0)
      return setErrorf(TQRT_INVALID_ARGUMENT,
                       "%s: %s_stride_%s is %lld; strides are positive element "
                       "counts",
                       fn, name, which[i], static_cast<long long>(strides[i]));
    if (strides[i] % 8 != 0)
      return setErrorf(TQRT_INVALID_ARGUMENT,
                       "%s: %s_stride_%s is %lld elements; it must be a "
                       "multiple of 8 (16 bytes) so that every head vector "
                       "starts 16-byte aligned",
                       fn, name, which[i], static_cast<long long>(strides[i]));
  }
  // Dimensions of extent 1 take no room; the others, from the smaller
  // stride up, must each clear the span of the ones inside it.
  struct Dim { int64_t stride, extent; } dims[2] = {{rowStride, rows},
                                                    {headStride, heads}};
  if (dims[0].stride > dims[1].stride)
    std::swap(dims[0], dims[1]);
  __int128 span = headDim; // elements covered by the dimensions inside
  for (const Dim &d : dims) {
    if (d.extent <= 1)
      continue;
    if (d.stride < span)
      return setErrorf(TQRT_SHAPE_MISMATCH,
                       "%s: %s strides (%s %lld, head %lld elements) make the "
                       "head vectors of a [%lld, %lld, %lld] (%s, head, "
                       "head_dim) tensor overlap",
                       fn, name, rowName, static_cast<long long>(rowStride),
                       static_cast<long long>(headStride),
                       static_cast<long long>(rows),
                       static_cast<long long>(heads),
                       static_cast<long long>(headDim), rowName);
    span = static_cast<__int128>(d.stride) * (d.extent - 1) + span;
  }
  return TQRT_OK;
}

tqrt_status checkCache(const tqrt_plan *plan, const void *cache,
                       int64_t cacheBytes, const char *fn) {
  const Manifest &m = plan->bundle->m;
  uintptr_t align = m.alignment > 16 ? static_cast<uintptr_t>(m.alignment) : 16;
  if (tqrt_status s = checkPointer(cache, align, fn, "cache"))
    return s;
  if (cacheBytes <= 0 || cacheBytes % m.blockStride != 0)
    return setErrorf(TQRT_SHAPE_MISMATCH,
                     "%s: cache_bytes %lld is not a positive multiple of the "
                     "layout's block_stride %lld (the cache is a uint8 tensor "
                     "of shape [num_blocks, ...] from tqrt_cache_shape)",
                     fn, static_cast<long long>(cacheBytes),
                     static_cast<long long>(m.blockStride));
  return TQRT_OK;
}

/// Extend needs the bundle's extend kernels; the manifest says why not.
tqrt_status checkExtend(const tqrt_plan *plan, const char *fn) {
  const ExtendDesc &e = plan->bundle->m.extend;
  if (!e.available)
    return setErrorf(TQRT_UNSUPPORTED,
                     "%s: the bundle has no extend kernels: %s", fn,
                     e.note.c_str());
  return TQRT_OK;
}

/// The device side: the plan must be bound and its context current.
tqrt_status checkContext(const tqrt_plan *plan, const char *fn) {
  const bool amd = !plan->bundle->m.arch.nvidia; // launched through HIP
  if (!plan->bound)
    return setErrorf(TQRT_NO_DEVICE, "%s: no %s device: %s", fn,
                     amd ? "AMD" : "CUDA", plan->unboundReason.c_str());
  if (amd) {
    // HIP modules belong to a device: the current one must be the plan's.
    int dev = -1;
    hip::Error e = hip::runtime().api.hipGetDevice(&dev);
    if (e != hip::kSuccess)
      return setErrorf(TQRT_CUDA_ERROR, "%s: hipGetDevice: %s", fn,
                       hip::describe(e).c_str());
    if (dev != plan->device)
      return setErrorf(TQRT_NO_CONTEXT,
                       "%s: the current HIP device is %d, not the plan's "
                       "device %d; hipSetDevice(%d) first, or create a plan "
                       "per device",
                       fn, dev, plan->device, plan->device);
    return TQRT_OK;
  }
  const cu::Api &a = cu::driver().api;
  cu::Context ctx = nullptr;
  cu::Result r = a.cuCtxGetCurrent(&ctx);
  if (r != cu::kSuccess) {
    char text[256];
    cu::describe(r, text, sizeof text);
    return setErrorf(TQRT_CUDA_ERROR, "%s: cuCtxGetCurrent: %s", fn, text);
  }
  unsigned long long id = 0;
  bool same = ctx == plan->ctx;
  if (same && plan->hasCtxId)
    same = a.cuCtxGetId(ctx, &id) == cu::kSuccess && id == plan->ctxId;
  if (!same)
    return setErrorf(TQRT_NO_CONTEXT,
                     "%s: the current CUDA context is %s the one the plan was "
                     "created in (device %d); make that context current, or "
                     "create a plan per context",
                     fn, ctx ? "not" : "none, not", plan->device);
  return TQRT_OK;
}

tqrt_status launch(const tqrt_plan::Kernel &k, const KernelDesc &d,
                   void *stream, void *args, const char *fn) {
  if (k.hipFn) {
    // HIP passes a module kernel's arguments as one buffer.
    size_t size = static_cast<size_t>(d.argsBytes);
    void *extra[] = {hip::kLaunchParamBufferPointer, args,
                     hip::kLaunchParamBufferSize, &size, hip::kLaunchParamEnd};
    hip::Error e = hip::runtime().api.hipModuleLaunchKernel(
        k.hipFn, k.grid[0], k.grid[1], k.grid[2], d.block[0], d.block[1],
        d.block[2], d.dynamicSharedBytes, static_cast<hip::Stream>(stream),
        nullptr, extra);
    if (e != hip::kSuccess)
      return setErrorf(TQRT_CUDA_ERROR, "%s: launching %s (grid %u x %u x %u): %s",
                       fn, d.name.c_str(), k.grid[0], k.grid[1], k.grid[2],
                       hip::describe(e).c_str());
    return TQRT_OK;
  }
  void *params[1] = {args};
  const cu::Api &a = cu::driver().api;
  cu::Result r;
  // TQRT_PLAIN_LAUNCH=1 turns programmatic launches off (A/B timing, or to
  // rule them out when debugging); read once.
  static const bool plainOnly = [] {
    const char *e = std::getenv("TQRT_PLAIN_LAUNCH");
    return e && *e && std::strcmp(e, "0") != 0;
  }();
  if (d.programmaticLaunch && a.cuLaunchKernelEx && !plainOnly) {
    // The kernel waits for its predecessor itself (griddepcontrol.wait), so
    // its launch may overlap the previous kernel's tail; a graph capture
    // records the dependency as a programmatic edge.
    cu::LaunchAttribute attr{};
    attr.id = cu::kLaunchAttrProgrammaticStreamSerialization;
    attr.value.programmaticStreamSerializationAllowed = 1;
    cu::LaunchConfig cfg{};
    cfg.gridDimX = k.grid[0], cfg.gridDimY = k.grid[1], cfg.gridDimZ = k.grid[2];
    cfg.blockDimX = d.block[0], cfg.blockDimY = d.block[1];
    cfg.blockDimZ = d.block[2];
    cfg.sharedMemBytes = d.dynamicSharedBytes;
    cfg.hStream = static_cast<cu::Stream>(stream);
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    r = a.cuLaunchKernelEx(&cfg, k.fn, params, nullptr);
  } else {
    r = a.cuLaunchKernel(k.fn, k.grid[0], k.grid[1], k.grid[2], d.block[0],
                         d.block[1], d.block[2], d.dynamicSharedBytes,
                         static_cast<cu::Stream>(stream), params, nullptr);
  }
  const char *kernelName = d.name.c_str();
  if (r != cu::kSuccess) {
    char text[256];
    cu::describe(r, text, sizeof text);
    return setErrorf(TQRT_CUDA_ERROR, "%s: launching %s (grid %u x %u x %u): %s",
                     fn, kernelName, k.grid[0], k.grid[1], k.grid[2], text);
  }
  return TQRT_OK;
}

const KernelDesc &desc(const tqrt_plan *plan, int kind, int dt) {
  return plan->bundle->m.kernels[plan->k[kind][dt].index];
}

} // namespace

extern "C" {

tqrt_status tqrt_plan_get_launch(const tqrt_plan *plan, tqrt_kernel_kind kind,
                                 tqrt_dtype dtype, tqrt_launch_dims *dims) {
  clearError();
  const char *fn = "tqrt_plan_get_launch";
  if (!plan)
    return setErrorf(TQRT_INVALID_ARGUMENT, "%s: plan is null", fn);
  if (!dims)
    return setErrorf(TQRT_INVALID_ARGUMENT, "%s: the output pointer is null", fn);
  if (kind < TQRT_KERNEL_STORE || kind > TQRT_KERNEL_EXTEND)
    return setErrorf(TQRT_INVALID_ARGUMENT, "%s: kind %d is not a "
                     "tqrt_kernel_kind (0 store, 1 decode, 2 extend_prep, "
                     "3 extend)",
                     fn, static_cast<int>(kind));
  if (tqrt_status s = checkDtype(plan, dtype, fn))
    return s;
  if (kind == TQRT_KERNEL_EXTEND_PREP || kind == TQRT_KERNEL_EXTEND)
    if (tqrt_status s = checkExtend(plan, fn))
      return s;
  const tqrt_plan::Kernel &k = plan->k[kind][dtypeIndex(dtype)];
  const KernelDesc &d = desc(plan, kind, dtypeIndex(dtype));
  for (int j = 0; j < 3; ++j) {
    dims->grid[j] = k.grid[j];
    dims->block[j] = d.block[j];
  }
  dims->dynamic_shared_bytes = d.dynamicSharedBytes;
  dims->static_shared_bytes = d.staticSharedBytes;
  dims->programmatic_launch = d.programmaticLaunch ? 1u : 0u;
  dims->reserved = 0;
  return TQRT_OK;
}

tqrt_status tqrt_launch_store(const tqrt_plan *plan, tqrt_dtype dtype,
                              const void *key, int64_t keyStrideToken,
                              int64_t keyStrideHead, const void *value,
                              int64_t valueStrideToken,
                              int64_t valueStrideHead, void *cache,
                              int64_t cacheBytes, const int64_t *slotMapping,
                              int32_t numTokens, void *stream) {
  clearError();
  const char *fn = "tqrt_launch_store";
  if (!plan)
    return setErrorf(TQRT_INVALID_ARGUMENT, "%s: plan is null", fn);
  if (tqrt_status s = checkDtype(plan, dtype, fn))
    return s;
  const Manifest &m = plan->bundle->m;
  if (numTokens < 0)
    return setErrorf(TQRT_INVALID_ARGUMENT, "%s: num_tokens is %d", fn,
                     numTokens);
  if (numTokens > plan->maxTokens)
    return setErrorf(TQRT_EXCEEDS_PLAN,
                     "%s: num_tokens %d is above the plan's max_tokens %d "
                     "(its grid has max_tokens CTAs); create a plan for a "
                     "larger bucket",
                     fn, numTokens, plan->maxTokens);
  if (tqrt_status s = checkPointer(key, 16, fn, "key"))
    return s;
  if (tqrt_status s = checkPointer(value, 16, fn, "value"))
    return s;
  if (tqrt_status s = checkCache(plan, cache, cacheBytes, fn))
    return s;
  if (tqrt_status s = checkPointer(slotMapping, 8, fn, "slot_mapping"))
    return s;
  if (tqrt_status s = checkStrides(fn, "key", "token", keyStrideToken,
                                   numTokens, keyStrideHead, m.numKVHeads,
                                   m.headDim))
    return s;
  if (tqrt_status s = checkStrides(fn, "value", "token", valueStrideToken,
                                   numTokens, valueStrideHead, m.numKVHeads,
                                   m.headDim))
    return s;
  if (tqrt_status s = checkContext(plan, fn))
    return s;

  tq_store_args args;
  std::memset(&args, 0, sizeof args);
  args.key = key;
  args.value = value;
  args.cache = static_cast<uint8_t *>(cache);
  args.slot_mapping = slotMapping;
  args.key_stride_token = keyStrideToken;
  args.key_stride_head = keyStrideHead;
  args.value_stride_token = valueStrideToken;
  args.value_stride_head = valueStrideHead;
  args.num_tokens = numTokens;
  args.reserved = 0;
  const int dt = dtypeIndex(dtype);
  const KernelDesc &d = desc(plan, TQRT_KERNEL_STORE, dt);
  return launch(plan->k[TQRT_KERNEL_STORE][dt], d, stream, &args, fn);
}

namespace {

/// The softmax scale of a launch: 0 (the manifest's) or positive and finite.
tqrt_status checkScale(float scale, const char *fn) {
  if (!(scale >= 0.0f) || !std::isfinite(scale))
    return setErrorf(TQRT_INVALID_ARGUMENT,
                     "%s: scale is %g; it must be a positive finite number "
                     "(or 0 for the manifest's softmax_scale)",
                     fn, static_cast<double>(scale));
  return TQRT_OK;
}

tqrt_status checkBlockTableStride(int32_t blockTableStride, const char *fn) {
  if (blockTableStride < 1)
    return setErrorf(TQRT_INVALID_ARGUMENT,
                     "%s: block_table_stride is %d; it must be at least 1", fn,
                     blockTableStride);
  return TQRT_OK;
}

} // namespace

tqrt_status tqrt_launch_decode(const tqrt_plan *plan, tqrt_dtype dtype,
                               const void *query, int64_t queryStrideBatch,
                               int64_t queryStrideHead, const void *cache,
                               int64_t cacheBytes, const int32_t *blockTables,
                               int32_t blockTableStride,
                               const int32_t *seqLens, void *out,
                               int64_t outStrideBatch, int64_t outStrideHead,
                               int32_t batch, float scale, void *workspace,
                               uint64_t workspaceBytes, void *stream) {
  clearError();
  const char *fn = "tqrt_launch_decode";
  if (!plan)
    return setErrorf(TQRT_INVALID_ARGUMENT, "%s: plan is null", fn);
  if (tqrt_status s = checkDtype(plan, dtype, fn))
    return s;
  const Manifest &m = plan->bundle->m;
  if (batch < 0)
    return setErrorf(TQRT_INVALID_ARGUMENT, "%s: batch is %d", fn, batch);
  if (batch > plan->maxBatch)
    return setErrorf(TQRT_EXCEEDS_PLAN,
                     "%s: batch %d is above the plan's max_batch %d; create a "
                     "plan for a larger bucket",
                     fn, batch, plan->maxBatch);
  if (tqrt_status s = checkScale(scale, fn))
    return s;
  if (tqrt_status s = checkPointer(query, 16, fn, "query"))
    return s;
  if (tqrt_status s = checkCache(plan, cache, cacheBytes, fn))
    return s;
  if (tqrt_status s = checkPointer(blockTables, 4, fn, "block_tables"))
    return s;
  if (tqrt_status s = checkPointer(seqLens, 4, fn, "seq_lens"))
    return s;
  if (tqrt_status s = checkPointer(out, 16, fn, "out"))
    return s;
  if (tqrt_status s = checkBlockTableStride(blockTableStride, fn))
    return s;
  if (tqrt_status s = checkStrides(fn, "query", "batch", queryStrideBatch,
                                   batch, queryStrideHead, m.numQHeads,
                                   m.headDim))
    return s;
  if (tqrt_status s = checkStrides(fn, "out", "batch", outStrideBatch, batch,
                                   outStrideHead, m.numQHeads, m.headDim))
    return s;
  if (plan->workspaceBytes > 0) {
    if (tqrt_status s = checkPointer(workspace, 16, fn, "workspace"))
      return s;
    if (workspaceBytes < plan->workspaceBytes)
      return setErrorf(TQRT_WORKSPACE_TOO_SMALL,
                       "%s: workspace_bytes %llu is below the plan's %llu "
                       "(4 * max_batch %d * %lld floats per row of "
                       "plans[%d])",
                       fn, static_cast<unsigned long long>(workspaceBytes),
                       static_cast<unsigned long long>(plan->workspaceBytes),
                       plan->maxBatch,
                       static_cast<long long>(plan->desc->floatsPerBatchRow),
                       plan->planIndex);
  }
  if (tqrt_status s = checkContext(plan, fn))
    return s;

  tq_decode_args args;
  std::memset(&args, 0, sizeof args);
  args.query = query;
  args.cache = static_cast<const uint8_t *>(cache);
  args.block_tables = blockTables;
  args.seq_lens = seqLens;
  args.out = out;
  args.workspace = plan->workspaceBytes > 0 ? static_cast<float *>(workspace)
                                            : nullptr;
  args.query_stride_batch = queryStrideBatch;
  args.query_stride_head = queryStrideHead;
  args.out_stride_batch = outStrideBatch;
  args.out_stride_head = outStrideHead;
  args.block_table_stride = blockTableStride;
  args.batch = batch;
  args.max_batch = plan->maxBatch;
  args.scale = scale == 0.0f ? m.softmaxScale : scale;
  const int dt = dtypeIndex(dtype);
  const KernelDesc &dd = desc(plan, TQRT_KERNEL_DECODE, dt);
  if (tqrt_status s =
          launch(plan->k[TQRT_KERNEL_DECODE][dt], dd, stream, &args, fn))
    return s;
  return TQRT_OK;
}

namespace {
/// tqrt_launch_extend (store false: slotMapping null, the cache is only
/// read) and tqrt_launch_extend_store (store true); fn names the entry
/// point in errors.
tqrt_status launchExtend(
    const char *fn, bool store, const tqrt_plan *plan, tqrt_dtype dtype,
    const void *query, int64_t queryStrideToken, int64_t queryStrideHead,
    const void *key, int64_t keyStrideToken, int64_t keyStrideHead,
    const void *value, int64_t valueStrideToken, int64_t valueStrideHead,
    void *cache, int64_t cacheBytes, const int64_t *slotMapping,
    const int32_t *blockTables, int32_t blockTableStride,
    const int32_t *cuSeqlensQ, const int32_t *prefixLens, void *out,
    int64_t outStrideToken, int64_t outStrideHead, float *lse, int32_t batch,
    float scale, void *workspace, uint64_t workspaceBytes, void *stream) {
  if (!plan)
    return setErrorf(TQRT_INVALID_ARGUMENT, "%s: plan is null", fn);
  if (tqrt_status s = checkDtype(plan, dtype, fn))
    return s;
  if (tqrt_status s = checkExtend(plan, fn))
    return s;
  const Manifest &m = plan->bundle->m;
  if (batch < 1)
    return setErrorf(TQRT_INVALID_ARGUMENT,
                     "%s: batch is %d; it must be at least 1", fn, batch);
  if (batch > plan->maxBatch)
    return setErrorf(TQRT_EXCEEDS_PLAN,
                     "%s: batch %d is above the plan's max_batch %d (its "
                     "extend grid has query tiles for max_batch sequences); "
                     "create a plan for a larger bucket",
                     fn, batch, plan->maxBatch);
  if (tqrt_status s = checkScale(scale, fn))
    return s;
  // The chunk's keys and values come together or not at all (prefix only).
  if ((key == nullptr) != (value == nullptr))
    return setErrorf(TQRT_INVALID_ARGUMENT,
                     "%s: %s is null but %s is not; pass both (attend to the "
                     "chunk too) or neither (the prefix only)",
                     fn, key ? "value" : "key", key ? "key" : "value");
  const bool chunk = key != nullptr;
  if (store && !chunk)
    return setErrorf(TQRT_INVALID_ARGUMENT,
                     "%s: key and value are null, so there is no chunk to "
                     "store; pass the chunk's keys and values, or call "
                     "tqrt_launch_extend for the prefix only",
                     fn);
  if (tqrt_status s = checkPointer(query, 16, fn, "query"))
    return s;
  if (chunk) {
    if (tqrt_status s = checkPointer(key, 16, fn, "key"))
      return s;
    if (tqrt_status s = checkPointer(value, 16, fn, "value"))
      return s;
  }
  if (tqrt_status s = checkCache(plan, cache, cacheBytes, fn))
    return s;
  if (tqrt_status s = checkPointer(blockTables, 4, fn, "block_tables"))
    return s;
  if (tqrt_status s = checkPointer(cuSeqlensQ, 4, fn, "cu_seqlens_q"))
    return s;
  if (tqrt_status s = checkPointer(prefixLens, 4, fn, "prefix_lens"))
    return s;
  if (store)
    if (tqrt_status s = checkPointer(slotMapping, 8, fn, "slot_mapping"))
      return s;
  if (tqrt_status s = checkPointer(out, 16, fn, "out"))
    return s;
  if (lse && misaligned(lse, 4))
    return setErrorf(TQRT_INVALID_ARGUMENT,
                     "%s: lse (%p) is not 4-byte aligned", fn,
                     static_cast<void *>(lse));
  if (tqrt_status s = checkBlockTableStride(blockTableStride, fn))
    return s;
  // The chunk's total is on the device: the activations are checked as
  // [max_tokens, heads, head_dim] tensors, the rows the grids cover.
  const int64_t rows = plan->maxTokens;
  if (tqrt_status s = checkStrides(fn, "query", "token", queryStrideToken,
                                   rows, queryStrideHead, m.numQHeads,
                                   m.headDim))
    return s;
  if (chunk) {
    if (tqrt_status s = checkStrides(fn, "key", "token", keyStrideToken, rows,
                                     keyStrideHead, m.numKVHeads, m.headDim))
      return s;
    if (tqrt_status s = checkStrides(fn, "value", "token", valueStrideToken,
                                     rows, valueStrideHead, m.numKVHeads,
                                     m.headDim))
      return s;
  }
  if (tqrt_status s = checkStrides(fn, "out", "token", outStrideToken, rows,
                                   outStrideHead, m.numQHeads, m.headDim))
    return s;
  if (chunk) {
    if (tqrt_status s = checkPointer(workspace, 16, fn, "workspace"))
      return s;
    if (workspaceBytes < plan->extendWorkspaceBytes)
      return setErrorf(TQRT_WORKSPACE_TOO_SMALL,
                       "%s: workspace_bytes %llu is below the plan's "
                       "extend_workspace_bytes %llu (max_tokens %d * "
                       "num_kv_heads %d * (4 * head_dim %d + 8))",
                       fn, static_cast<unsigned long long>(workspaceBytes),
                       static_cast<unsigned long long>(
                           plan->extendWorkspaceBytes),
                       plan->maxTokens, m.numKVHeads, m.headDim);
  }
  if (tqrt_status s = checkContext(plan, fn))
    return s;

  tq_extend_args args;
  std::memset(&args, 0, sizeof args);
  args.query = query;
  args.key = key;
  args.value = value;
  args.cache = static_cast<uint8_t *>(cache);
  args.slot_mapping = slotMapping;
  args.block_tables = blockTables;
  args.cu_seqlens_q = cuSeqlensQ;
  args.prefix_lens = prefixLens;
  args.out = out;
  args.lse = lse;
  args.workspace = chunk ? workspace : nullptr;
  args.query_stride_token = queryStrideToken;
  args.query_stride_head = queryStrideHead;
  args.key_stride_token = chunk ? keyStrideToken : 0;
  args.key_stride_head = chunk ? keyStrideHead : 0;
  args.value_stride_token = chunk ? valueStrideToken : 0;
  args.value_stride_head = chunk ? valueStrideHead : 0;
  args.out_stride_token = outStrideToken;
  args.out_stride_head = outStrideHead;
  args.block_table_stride = blockTableStride;
  args.batch = batch;
  args.max_batch = plan->maxBatch;
  args.max_tokens = plan->maxTokens;
  args.scale = scale == 0.0f ? m.softmaxScale : scale;
  args.reserved = 0;
  const int dt = dtypeIndex(dtype);
  // The prep kernel writes the chunk into the workspace that the attention
  // kernel reads (and, with slot_mapping, into the cache): same stream, so
  // in order. Without a chunk there is nothing to prepare.
  if (chunk)
    if (tqrt_status s = launch(plan->k[TQRT_KERNEL_EXTEND_PREP][dt],
                               desc(plan, TQRT_KERNEL_EXTEND_PREP, dt), stream,
                               &args, fn))
      return s;
  return launch(plan->k[TQRT_KERNEL_EXTEND][dt],
                desc(plan, TQRT_KERNEL_EXTEND, dt), stream, &args, fn);
}

} // namespace

tqrt_status tqrt_launch_extend(
    const tqrt_plan *plan, tqrt_dtype dtype, const void *query,
    int64_t queryStrideToken, int64_t queryStrideHead, const void *key,
    int64_t keyStrideToken, int64_t keyStrideHead, const void *value,
    int64_t valueStrideToken, int64_t valueStrideHead, const void *cache,
    int64_t cacheBytes, const int32_t *blockTables, int32_t blockTableStride,
    const int32_t *cuSeqlensQ, const int32_t *prefixLens, void *out,
    int64_t outStrideToken, int64_t outStrideHead, float *lse, int32_t batch,
    float scale, void *workspace, uint64_t workspaceBytes, void *stream) {
  clearError();
  // The kernels only read the cache without a slot mapping.
  return launchExtend("tqrt_launch_extend", false, plan, dtype, query,
                      queryStrideToken, queryStrideHead, key, keyStrideToken,
                      keyStrideHead, value, valueStrideToken,
                      valueStrideHead, const_cast<void *>(cache), cacheBytes,
                      nullptr, blockTables, blockTableStride, cuSeqlensQ,
                      prefixLens, out, outStrideToken, outStrideHead, lse,
                      batch, scale, workspace, workspaceBytes, stream);
}

tqrt_status tqrt_launch_extend_store(
    const tqrt_plan *plan, tqrt_dtype dtype, const void *query,
    int64_t queryStrideToken, int64_t queryStrideHead, const void *key,
    int64_t keyStrideToken, int64_t keyStrideHead, const void *value,
    int64_t valueStrideToken, int64_t valueStrideHead, void *cache,
    int64_t cacheBytes, const int64_t *slotMapping,
    const int32_t *blockTables, int32_t blockTableStride,
    const int32_t *cuSeqlensQ, const int32_t *prefixLens, void *out,
    int64_t outStrideToken, int64_t outStrideHead, float *lse, int32_t batch,
    float scale, void *workspace, uint64_t workspaceBytes, void *stream) {
  clearError();
  return launchExtend("tqrt_launch_extend_store", true, plan, dtype, query,
                      queryStrideToken, queryStrideHead, key, keyStrideToken,
                      keyStrideHead, value, valueStrideToken,
                      valueStrideHead, cache, cacheBytes, slotMapping,
                      blockTables, blockTableStride, cuSeqlensQ, prefixLens,
                      out, outStrideToken, outStrideHead, lse, batch, scale,
                      workspace, workspaceBytes, stream);
}

tqrt_status tqrt_device_count(int32_t *count) {
  clearError();
  if (!count)
    return setError(TQRT_INVALID_ARGUMENT,
                    "tqrt_device_count: the output pointer is null");
  *count = 0;
  const cu::Driver &d = cu::driver();
  if (!d.usable)
    return setErrorf(d.initFailed ? TQRT_CUDA_ERROR : TQRT_NO_DEVICE,
                     "no CUDA device: %s", d.why.c_str());
  int n = 0;
  cu::Result r = d.api.cuDeviceGetCount(&n);
  if (r != cu::kSuccess) {
    char text[256];
    cu::describe(r, text, sizeof text);
    return setErrorf(TQRT_CUDA_ERROR, "cuDeviceGetCount: %s", text);
  }
  *count = n;
  if (n == 0)
    return setError(TQRT_NO_DEVICE, "no CUDA device: the driver sees none");
  return TQRT_OK;
}

tqrt_status tqrt_device_info(int32_t ordinal, tqrt_device_desc *desc) {
  int32_t count = 0;
  // Clears the error, and says why when there is no driver or no device.
  if (tqrt_status s = tqrt_device_count(&count))
    return s;
  if (!desc)
    return setError(TQRT_INVALID_ARGUMENT,
                    "tqrt_device_info: the output pointer is null");
  if (ordinal < 0 || ordinal >= count)
    return setErrorf(TQRT_INVALID_ARGUMENT,
                     "tqrt_device_info: device ordinal %d is outside [0, %d) "
                     "(the devices the driver sees)",
                     static_cast<int>(ordinal), static_cast<int>(count));
  const cu::Driver &d = cu::driver();
  const cu::Api &a = d.api;
  if (!a.cuDeviceGet || !a.cuDeviceGetName || !a.cuDeviceTotalMem_v2)
    return setError(TQRT_CUDA_ERROR,
                    "tqrt_device_info: the CUDA driver lacks cuDeviceGet, "
                    "cuDeviceGetName or cuDeviceTotalMem_v2; update the "
                    "NVIDIA driver");
  tqrt_device_desc out;
  std::memset(&out, 0, sizeof out);
  out.ordinal = ordinal;
  cu::Device dev = 0;
  int major = 0, minor = 0, sms = 0, l2 = 0, version = 0;
  size_t bytes = 0;
  struct Step {
    const char *what;
    cu::Result r;
  };
  // The queries run in order (a braced list is evaluated left to right);
  // the first failure is the one reported.
  cu::Result r = a.cuDeviceGet(&dev, ordinal);
  const char *what = "cuDeviceGet";
  if (r == cu::kSuccess) {
    Step steps[] = {
        {"cuDeviceGetName", a.cuDeviceGetName(out.name, sizeof out.name - 1, dev)},
        {"cuDeviceGetAttribute(compute capability)",
         a.cuDeviceGetAttribute(&major, cu::kDevAttrComputeCapabilityMajor, dev)},
        {"cuDeviceGetAttribute(compute capability)",
         a.cuDeviceGetAttribute(&minor, cu::kDevAttrComputeCapabilityMinor, dev)},
        {"cuDeviceGetAttribute(multiprocessor count)",
         a.cuDeviceGetAttribute(&sms, cu::kDevAttrMultiprocessorCount, dev)},
        {"cuDeviceGetAttribute(L2 cache size)",
         a.cuDeviceGetAttribute(&l2, cu::kDevAttrL2CacheSize, dev)},
        {"cuDeviceTotalMem", a.cuDeviceTotalMem_v2(&bytes, dev)},
        {"cuDriverGetVersion", a.cuDriverGetVersion(&version)}};
    for (const Step &st : steps)
      if (st.r != cu::kSuccess) {
        r = st.r;
        what = st.what;
        break;
      }
  }
  if (r != cu::kSuccess) {
    char text[256];
    cu::describe(r, text, sizeof text);
    return setErrorf(TQRT_CUDA_ERROR, "tqrt_device_info: %s on device %d: %s",
                     what, static_cast<int>(ordinal), text);
  }
  out.name[sizeof out.name - 1] = '\0';
  out.compute_capability = major * 10 + minor;
  out.sm_count = sms;
  out.l2_cache_bytes = l2;
  out.total_memory_bytes = bytes;
  out.driver_version = version;
  *desc = out;
  return TQRT_OK;
}

} // extern "C"
