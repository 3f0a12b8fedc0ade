//===- FakeCudaDriver.cpp - A CPU stand-in for libcuda, for tests ---------===//
//
// Loaded through TQRT_LIBCUDA by the autotuner's end-to-end test, so the
// measurement loop (memory, store fill, capture, graphs, events, failures,
// cleanup) runs on a machine without a GPU. "Device" memory is host memory;
// kernels do nothing but take simulated time from a small cost model, so the
// tuner has a ranking to find. Everything the tuner passes is checked:
// pointer ranges against live allocations, block tables against the cache,
// and that one graph replay never reads a cache block twice (the cold-L2
// claim). At exit, FAKE_CUDA_STATS (a path) receives counters of objects
// left alive and of violations, which the test requires to be zero.
//
// Environment: FAKE_CUDA_L2 (bytes, default 1 MiB), FAKE_CUDA_BLOCK_STRIDE
// and FAKE_CUDA_BLOCK_SIZE (the recipe's, to check block tables),
// FAKE_CUDA_FAIL_THREADS (decode launches of that many threads fail as
// out of resources), FAKE_CUDA_FAULT_BATCH (a graph of decodes of that
// batch faults: the next synchronization returns an illegal address, and
// every one after it, like a lost context), FAKE_CUDA_STATS.
//
//===----------------------------------------------------------------------===//
#include "tq/abi.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace {

using Result = int;
constexpr Result kOk = 0, kInvalidValue = 1, kOutOfMemory = 2,
                 kInvalidDevice = 101, kInvalidContext = 201,
                 kNotFound = 500, kIllegalAddress = 700,
                 kLaunchOutOfResources = 701, kCaptureInvalidated = 901;

long envLong(const char *name, long fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::strtol(v, nullptr, 10) : fallback;
}

struct Function {
  std::string name;
};
struct Module {
  std::vector<Function *> functions;
};
struct Node {
  const Function *fn; // null: a memset node (the tuner's --isolate separator)
  unsigned grid[3], block[3];
  tq_decode_args decode; // a copy: the arguments are passed by value
  tq_store_args store;
};
struct Stream {
  double clockUs = 0;
  bool capturing = false, invalidated = false;
  std::vector<Node> nodes;
};
struct Graph {
  std::vector<Node> nodes;
};
struct Exec {
  std::vector<Node> nodes;
};
struct Event {
  double timeUs = 0;
};
struct Context {
  int refs = 0;
};

struct Stats {
  long allocs = 0, frees = 0, liveBytes = 0, peakBytes = 0;
  long modules = 0, streams = 0, events = 0, graphs = 0, execs = 0;
  long launches = 0, graphLaunches = 0, badRanges = 0, badBlocks = 0,
       duplicateBlocks = 0, failedLaunches = 0, memsets = 0;
  double minReplayBytes = -1;
  ~Stats();
};

std::mutex gMutex;
std::map<uintptr_t, size_t> gAllocs; // base -> bytes
Stats gStats;
Context gContext;
thread_local Context *tCurrent = nullptr;
long gEventTick = 0;
Result gSticky = 0; // a fault's error, returned by every synchronization

Stats::~Stats() {
  const char *path = std::getenv("FAKE_CUDA_STATS");
  if (!path || !*path)
    return;
  if (FILE *f = std::fopen(path, "w")) {
    std::fprintf(f,
                 "allocs %ld\nfrees %ld\nlive_bytes %ld\npeak_bytes %ld\n"
                 "modules %ld\nstreams %ld\nevents %ld\ngraphs %ld\nexecs %ld\n"
                 "context_refs %d\nlaunches %ld\ngraph_launches %ld\n"
                 "failed_launches %ld\nbad_ranges %ld\nbad_blocks %ld\n"
                 "duplicate_blocks %ld\nmin_replay_bytes %.0f\nmemsets %ld\n",
                 allocs, frees, liveBytes, peakBytes, modules, streams, events,
                 graphs, execs, gContext.refs, launches, graphLaunches,
                 failedLaunches, badRanges, badBlocks, duplicateBlocks,
                 minReplayBytes, memsets);
    std::fclose(f);
  }
}

/// The allocation holding [p, p + bytes), or null.
const std::pair<const uintptr_t, size_t> *find(const void *p, size_t bytes) {
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  auto it = gAllocs.upper_bound(a);
  if (it == gAllocs.begin())
    return nullptr;
  --it;
  if (a + bytes > it->first + it->second)
    return nullptr;
  return &*it;
}

bool inRange(const void *p, size_t bytes) {
  if (p && find(p, bytes))
    return true;
  ++gStats.badRanges;
  return false;
}

enum class Kind { Store, Decode, Other };
Kind kindOf(const Function *f) {
  if (f->name.find("store") != std::string::npos)
    return Kind::Store;
  if (f->name.find("decode") != std::string::npos)
    return Kind::Decode;
  return Kind::Other;
}

/// Checks a decode's arguments; returns the cache blocks it reads.
std::vector<int32_t> checkDecode(const Node &n) {
  const tq_decode_args &a = n.decode;
  std::vector<int32_t> blocks;
  size_t rows = size_t(a.batch);
  inRange(a.query, rows * size_t(a.query_stride_batch) * 2);
  inRange(a.out, rows * size_t(a.out_stride_batch) * 2);
  if (!inRange(a.seq_lens, rows * 4) ||
      !inRange(a.block_tables, rows * size_t(a.block_table_stride) * 4))
    return blocks;
  const auto *cache = find(a.cache, 1);
  if (!cache) {
    ++gStats.badRanges;
    return blocks;
  }
  long stride = envLong("FAKE_CUDA_BLOCK_STRIDE", 0);
  long bs = envLong("FAKE_CUDA_BLOCK_SIZE", 0);
  if (stride <= 0 || bs <= 0)
    return blocks;
  size_t cacheBlocks =
      (cache->first + cache->second - reinterpret_cast<uintptr_t>(a.cache)) /
      size_t(stride);
  for (size_t r = 0; r < rows; ++r) {
    long need = (a.seq_lens[r] + bs - 1) / bs;
    if (need > a.block_table_stride) {
      ++gStats.badBlocks;
      continue;
    }
    for (long k = 0; k < need; ++k) {
      int32_t id = a.block_tables[r * size_t(a.block_table_stride) + size_t(k)];
      if (id < 0 || size_t(id) >= cacheBlocks)
        ++gStats.badBlocks;
      else
        blocks.push_back(id);
    }
  }
  return blocks;
}

void checkStore(const Node &n) {
  const tq_store_args &a = n.store;
  size_t t = size_t(a.num_tokens);
  inRange(a.slot_mapping, t * 8);
  inRange(a.key, t * size_t(a.key_stride_token) * 2);
  inRange(a.value, t * size_t(a.value_stride_token) * 2);
  inRange(a.cache, 1);
}

/// Simulated microseconds: decode speeds up with CTAs until two waves of
/// 132 SMs, 8 warps cost 5 %.
double costUs(const Node &n) {
  double ctas = double(n.grid[0]) * n.grid[1] * n.grid[2];
  switch (kindOf(n.fn)) {
  case Kind::Store:
    return 1.0 + 0.001 * n.store.num_tokens;
  case Kind::Decode: {
    double len = n.decode.batch > 0 ? double(n.decode.seq_lens[0]) : 0.0;
    double work = double(n.decode.batch) * len * n.grid[0];
    double t = 2.0 + 0.0005 * work / std::min(ctas, 264.0) + 0.002 * ctas;
    return n.block[0] == 256 ? t * 1.05 : t;
  }
  case Kind::Other:
    break;
  }
  return 1.0;
}

} // namespace

extern "C" {

Result cuInit(unsigned) { return kOk; }
Result cuDriverGetVersion(int *v) { *v = 13000; return kOk; }
Result cuDeviceGetCount(int *n) { *n = 1; return kOk; }
Result cuDeviceGet(int *d, int ordinal) {
  if (ordinal != 0)
    return kInvalidDevice;
  *d = 0;
  return kOk;
}
Result cuDeviceGetName(char *name, int len, int) {
  std::snprintf(name, size_t(len), "Fake GPU");
  return kOk;
}
Result cuDeviceTotalMem_v2(size_t *bytes, int) {
  *bytes = size_t(8) << 30;
  return kOk;
}
Result cuDeviceGetAttribute(int *v, int attr, int) {
  switch (attr) {
  case 75: *v = 9; break;         // compute capability major
  case 76: *v = 0; break;         // minor
  case 16: *v = 132; break;       // SMs
  case 38: *v = int(envLong("FAKE_CUDA_L2", 1 << 20)); break;
  case 97: *v = 232448; break;    // shared memory opt-in
  default: *v = 0;
  }
  return kOk;
}
Result cuDevicePrimaryCtxRetain(Context **c, int) {
  std::lock_guard<std::mutex> l(gMutex);
  ++gContext.refs;
  *c = &gContext;
  return kOk;
}
Result cuDevicePrimaryCtxRelease_v2(int) {
  std::lock_guard<std::mutex> l(gMutex);
  --gContext.refs;
  return kOk;
}
Result cuCtxSetCurrent(Context *c) { tCurrent = c; return kOk; }
Result cuCtxGetCurrent(Context **c) { *c = tCurrent; return kOk; }
Result cuCtxGetDevice(int *d) {
  if (!tCurrent)
    return kInvalidContext;
  *d = 0;
  return kOk;
}
Result cuCtxGetId(Context *, unsigned long long *id) { *id = 1; return kOk; }
Result cuCtxSynchronize() { return gSticky; }

Result cuMemGetInfo_v2(size_t *freeBytes, size_t *total) {
  std::lock_guard<std::mutex> l(gMutex);
  *total = size_t(8) << 30;
  *freeBytes = *total - size_t(gStats.liveBytes);
  return kOk;
}
Result cuMemAlloc_v2(unsigned long long *p, size_t bytes) {
  std::lock_guard<std::mutex> l(gMutex);
  if (bytes == 0)
    return kInvalidValue;
  if (gStats.liveBytes + long(bytes) > (8l << 30))
    return kOutOfMemory;
  void *m = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!m)
    return kOutOfMemory;
  gAllocs[reinterpret_cast<uintptr_t>(m)] = bytes;
  ++gStats.allocs;
  gStats.liveBytes += long(bytes);
  gStats.peakBytes = std::max(gStats.peakBytes, gStats.liveBytes);
  *p = reinterpret_cast<uintptr_t>(m);
  return kOk;
}
Result cuMemFree_v2(unsigned long long p) {
  std::lock_guard<std::mutex> l(gMutex);
  auto it = gAllocs.find(uintptr_t(p));
  if (it == gAllocs.end())
    return kInvalidValue;
  gStats.liveBytes -= long(it->second);
  ++gStats.frees;
  std::free(reinterpret_cast<void *>(p));
  gAllocs.erase(it);
  return kOk;
}
Result cuMemsetD8_v2(unsigned long long p, unsigned char v, size_t n) {
  std::lock_guard<std::mutex> l(gMutex);
  if (!inRange(reinterpret_cast<void *>(p), n))
    return kInvalidValue;
  std::memset(reinterpret_cast<void *>(p), v, n);
  return kOk;
}
Result cuMemsetD8Async(unsigned long long p, unsigned char v, size_t n,
                       Stream *s) {
  std::lock_guard<std::mutex> l(gMutex);
  if (!inRange(reinterpret_cast<void *>(p), n))
    return kInvalidValue;
  ++gStats.memsets;
  if (s && s->capturing) {
    Node node{};
    node.fn = nullptr;
    s->nodes.push_back(node);
    return kOk;
  }
  std::memset(reinterpret_cast<void *>(p), v, n);
  if (s)
    s->clockUs += 1.0;
  return kOk;
}
Result cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t n) {
  std::lock_guard<std::mutex> l(gMutex);
  if (!inRange(reinterpret_cast<void *>(dst), n))
    return kInvalidValue;
  std::memcpy(reinterpret_cast<void *>(dst), src, n);
  return kOk;
}
Result cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t n) {
  std::lock_guard<std::mutex> l(gMutex);
  if (!inRange(reinterpret_cast<void *>(src), n))
    return kInvalidValue;
  std::memcpy(dst, reinterpret_cast<void *>(src), n);
  return kOk;
}

Result cuModuleLoadData(Module **m, const void *) {
  std::lock_guard<std::mutex> l(gMutex);
  *m = new Module;
  ++gStats.modules;
  return kOk;
}
Result cuModuleLoadDataEx(Module **m, const void *image, unsigned, int *,
                          void **) {
  return cuModuleLoadData(m, image);
}
Result cuModuleUnload(Module *m) {
  std::lock_guard<std::mutex> l(gMutex);
  for (Function *f : m->functions)
    delete f;
  delete m;
  --gStats.modules;
  return kOk;
}
Result cuModuleGetFunction(Function **f, Module *m, const char *name) {
  std::lock_guard<std::mutex> l(gMutex);
  if (!name || !*name)
    return kNotFound;
  *f = new Function{name};
  m->functions.push_back(*f);
  return kOk;
}
Result cuFuncGetAttribute(int *v, int attr, Function *) {
  *v = attr == 0 ? 1024 : 0;
  return kOk;
}
Result cuFuncSetAttribute(Function *, int, int) { return kOk; }

Result cuLaunchKernel(Function *f, unsigned gx, unsigned gy, unsigned gz,
                      unsigned bx, unsigned by, unsigned bz, unsigned,
                      Stream *s, void **params, void **) {
  std::lock_guard<std::mutex> l(gMutex);
  Node n{f, {gx, gy, gz}, {bx, by, bz}, {}, {}};
  Kind k = kindOf(f);
  if (k == Kind::Store)
    std::memcpy(&n.store, params[0], sizeof n.store);
  else
    std::memcpy(&n.decode, params[0], sizeof n.decode);
  long failThreads = envLong("FAKE_CUDA_FAIL_THREADS", 0);
  if (k == Kind::Decode && failThreads && long(bx) == failThreads) {
    ++gStats.failedLaunches;
    if (s && s->capturing)
      s->invalidated = true;
    return kLaunchOutOfResources;
  }
  if (k == Kind::Store)
    checkStore(n);
  else
    checkDecode(n);
  ++gStats.launches;
  if (s && s->capturing)
    s->nodes.push_back(n);
  else if (s)
    s->clockUs += costUs(n);
  return kOk;
}

Result cuStreamCreate(Stream **s, unsigned) {
  std::lock_guard<std::mutex> l(gMutex);
  *s = new Stream;
  ++gStats.streams;
  return kOk;
}
Result cuStreamDestroy_v2(Stream *s) {
  std::lock_guard<std::mutex> l(gMutex);
  delete s;
  --gStats.streams;
  return kOk;
}
Result cuStreamSynchronize(Stream *) { return gSticky; }
Result cuStreamBeginCapture_v2(Stream *s, int) {
  s->capturing = true;
  s->invalidated = false;
  s->nodes.clear();
  return kOk;
}
Result cuStreamEndCapture(Stream *s, Graph **g) {
  std::lock_guard<std::mutex> l(gMutex);
  s->capturing = false;
  if (s->invalidated) {
    *g = nullptr;
    return kCaptureInvalidated;
  }
  *g = new Graph{s->nodes};
  ++gStats.graphs;
  return kOk;
}
Result cuGraphInstantiateWithFlags(Exec **e, Graph *g, unsigned long long) {
  std::lock_guard<std::mutex> l(gMutex);
  *e = new Exec{g->nodes};
  ++gStats.execs;
  return kOk;
}
Result cuGraphDestroy(Graph *g) {
  std::lock_guard<std::mutex> l(gMutex);
  delete g;
  --gStats.graphs;
  return kOk;
}
Result cuGraphExecDestroy(Exec *e) {
  std::lock_guard<std::mutex> l(gMutex);
  delete e;
  --gStats.execs;
  return kOk;
}
Result cuGraphLaunch(Exec *e, Stream *s) {
  std::lock_guard<std::mutex> l(gMutex);
  ++gStats.graphLaunches;
  // Block tables are read at replay, as the GPU would: within one replay no
  // block may be read twice, or part of it would hit in L2.
  std::set<int32_t> seen;
  long stride = envLong("FAKE_CUDA_BLOCK_STRIDE", 0);
  for (const Node &n : e->nodes) {
    if (!n.fn) { // a memset node: its launch gap only
      s->clockUs += 1.0;
      continue;
    }
    if (kindOf(n.fn) == Kind::Decode)
      for (int32_t id : checkDecode(n))
        if (!seen.insert(id).second)
          ++gStats.duplicateBlocks;
    s->clockUs += costUs(n) + 1.0; // plus a node's launch gap
  }
  long faultBatch = envLong("FAKE_CUDA_FAULT_BATCH", 0);
  for (const Node &n : e->nodes)
    if (faultBatch && kindOf(n.fn) == Kind::Decode &&
        n.decode.batch == faultBatch)
      gSticky = kIllegalAddress;
  double bytes = double(seen.size()) * double(stride);
  if (gStats.minReplayBytes < 0 || bytes < gStats.minReplayBytes)
    gStats.minReplayBytes = bytes;
  return kOk;
}

Result cuEventCreate(Event **e, unsigned) {
  std::lock_guard<std::mutex> l(gMutex);
  *e = new Event;
  ++gStats.events;
  return kOk;
}
Result cuEventDestroy_v2(Event *e) {
  std::lock_guard<std::mutex> l(gMutex);
  delete e;
  --gStats.events;
  return kOk;
}
Result cuEventRecord(Event *e, Stream *s) {
  e->timeUs = s->clockUs;
  return kOk;
}
Result cuEventSynchronize(Event *) { return gSticky; }
Result cuEventElapsedTime_v2(float *ms, Event *a, Event *b) {
  // A little deterministic jitter, so medians and spreads mean something.
  double jitter = 1.0 + 0.002 * double((gEventTick++ * 7919) % 11 - 5);
  *ms = float((b->timeUs - a->timeUs) * jitter / 1000.0);
  return kOk;
}

Result cuGetErrorName(Result r, const char **s) {
  switch (r) {
  case kOk: *s = "CUDA_SUCCESS"; break;
  case kInvalidValue: *s = "CUDA_ERROR_INVALID_VALUE"; break;
  case kOutOfMemory: *s = "CUDA_ERROR_OUT_OF_MEMORY"; break;
  case kLaunchOutOfResources: *s = "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"; break;
  case kIllegalAddress: *s = "CUDA_ERROR_ILLEGAL_ADDRESS"; break;
  case kCaptureInvalidated: *s = "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"; break;
  default: *s = "CUDA_ERROR_UNKNOWN";
  }
  return kOk;
}
Result cuGetErrorString(Result, const char **s) {
  *s = "fake driver";
  return kOk;
}

} // extern "C"
