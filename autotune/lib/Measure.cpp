//===- Measure.cpp - Timing candidate plans on the local GPU --------------===//
//
// Every driver call is checked (Gpu.h throws), every object is owned, and
// the runtime does the launches, so the kernels see exactly the arguments an
// engine passes. A candidate that cannot be captured, instantiated or
// launched is recorded as failed; an error that leaves the context unusable
// (a faulting kernel) stops the run with the candidate named.
//
//===----------------------------------------------------------------------===//
#include "tqc/Autotune/Measure.h"

#include "Gpu.h"
#include "tqc/Autotune/Progress.h"
#include "tqrt/tqrt.h"

#include <algorithm>
#include <map>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>

namespace tqc::autotune {

bool queryDevice(int ordinal, DeviceDesc &out, std::string &error) {
  tqrt_device_desc d;
  tqrt_status s = tqrt_device_info(ordinal, &d);
  if (s != TQRT_OK) {
    error = tqrt_last_error();
    return false;
  }
  out.name = d.name;
  out.ordinal = d.ordinal;
  out.computeCapability = d.compute_capability;
  out.smCount = d.sm_count;
  out.l2Bytes = d.l2_cache_bytes;
  out.totalMemory = d.total_memory_bytes;
  out.driverVersion = d.driver_version;
  return true;
}

int64_t replicasFor(int64_t batch, int64_t blocksPerSequence,
                    int64_t blockStride, int64_t l2Bytes, double factor,
                    int64_t maxReplicas) {
  double perReplica = double(batch) * double(blocksPerSequence) *
                      double(blockStride);
  double target = factor * double(std::max<int64_t>(l2Bytes, 1));
  // "More than factor x L2": one replica more than the exact quotient.
  int64_t r = int64_t(std::floor(target / std::max(perReplica, 1.0))) + 1;
  return std::clamp<int64_t>(r, 1, std::max<int64_t>(maxReplicas, 1));
}

namespace {

using Clock = std::chrono::steady_clock;
namespace cu = tqrt::cu;

/// splitmix64: a small, seedable generator (the data only has to be
/// random-looking and non-zero, and the same on every run).
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [-1, 1).
  float symmetric() { return float(double(next() >> 11) * 0x1.0p-52 - 1.0); }
};

uint16_t toBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  u += 0x7fffu + ((u >> 16) & 1u); // round to nearest even
  return uint16_t(u >> 16);
}

std::vector<uint16_t> randomBf16(size_t n, Rng &rng) {
  std::vector<uint16_t> v(n);
  for (uint16_t &x : v)
    x = toBf16(rng.symmetric());
  return v;
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  double pos = q * double(v.size() - 1);
  size_t i = size_t(pos);
  double f = pos - double(i);
  return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

std::string runtimeError(const std::string &what, tqrt_status s) {
  return what + ": " + tqrt_status_name(s) + ": " + tqrt_last_error();
}

struct BundleOwner {
  tqrt_bundle *b = nullptr;
  BundleOwner() = default;
  BundleOwner(BundleOwner &&o) noexcept : b(std::exchange(o.b, nullptr)) {}
  ~BundleOwner() { tqrt_bundle_destroy(b); }
};

struct PlanOwner {
  tqrt_plan *p = nullptr;
  PlanOwner() = default;
  PlanOwner(PlanOwner &&o) noexcept : p(std::exchange(o.p, nullptr)) {}
  PlanOwner &operator=(PlanOwner &&o) noexcept {
    if (this != &o) {
      tqrt_plan_destroy(p);
      p = std::exchange(o.p, nullptr);
    }
    return *this;
  }
  ~PlanOwner() { tqrt_plan_destroy(p); }
};

/// Stops the run: the context cannot be trusted any more.
struct Fatal : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The recipe's numbers, from the first bundle (all bundles of a run share
/// the recipe; only their plans differ).
struct Geometry {
  int64_t headDim = 0, numQ = 0, numKV = 0, blockSize = 0, blockStride = 0;
};

/// One measurement: the median latency per decode and the replays'
/// (p90 - p10) / median.
struct Sample {
  double medianUs = 0, spread = 0;
};

class Runner {
public:
  Runner(const std::vector<CandidateBundle> &bundles, TimingTable &table,
         const MeasureOptions &o)
      : in_(bundles), t_(table), o_(o), start_(Clock::now()) {}

  void run();

private:
  void log(const std::string &line) {
    if (o_.log)
      o_.log(line);
  }
  double elapsed() const {
    return std::chrono::duration<double>(Clock::now() - start_).count();
  }
  void loadBundles();
  void planPool();
  void fillPool();
  void measureBucket(size_t b);
  /// Block tables and lengths of point p for bucket b.
  void preparePoint(size_t b, size_t p, Rng &rng);
  /// One candidate at one point; false (recorded in its row, logged) when
  /// the candidate fails on its own; throws Fatal otherwise.
  bool timeOne(const tqrt_plan *plan, size_t b, size_t p, size_t c,
               Sample &out);
  /// The latency per decode, or throws std::runtime_error (candidate
  /// failure) / Fatal.
  Sample timeCandidate(const tqrt_plan *plan, size_t b, size_t p, size_t c,
                       int64_t replicas, int64_t blocksPerSeq);
  /// With MeasureOptions::isolate: the time per replica of a graph of
  /// `replicas` separator memsets alone (cached per replica count).
  double separatorUs(int64_t replicas);
  /// Per replica, the times of the o_.reps replays between events_[0..reps]
  /// (recorded and synchronized by the caller).
  std::vector<double> replayUs(int64_t replicas);
  void confirm(size_t b, const std::vector<PlanOwner> &plans, Rng &rng);
  void summarize(size_t b, size_t p, const std::vector<size_t> &alive);
  double workUnits(size_t b, size_t p) const;
  void progress(size_t b, size_t pointOrder, size_t i, size_t n, bool force);

  const std::vector<CandidateBundle> &in_;
  TimingTable &t_;
  const MeasureOptions &o_;
  Clock::time_point start_, lastLine_{};
  DeviceDesc dev_;
  Geometry g_;
  /// candidate -> (bundle, plan index)
  std::vector<std::pair<int, int>> where_;
  int64_t poolBlocks_ = 0;
  std::vector<std::vector<int64_t>> replicas_; // [bucket][point]
  EtaEstimator eta_;

  // Device state. Members are destroyed last to first, so the context
  // outlives the bundles (their modules are unloaded in it) and the
  // buffers (freed in it).
  std::unique_ptr<gpu::PrimaryContext> ctx_;
  std::unique_ptr<gpu::Stream> stream_;
  std::vector<gpu::Event> events_;
  std::vector<BundleOwner> bundles_;
  gpu::Buffer pool_, tables_, seqLens_, queries_, outs_;
  gpu::Buffer separator_; // 4 bytes the isolating memsets write
  std::map<int64_t, double> separatorUs_;
  std::vector<gpu::Buffer> workspaces_;
  uint64_t workspaceBytes_ = 0;
};

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

void Runner::loadBundles() {
  where_.assign(t_.candidates.size(), {-1, -1});
  for (size_t k = 0; k < in_.size(); ++k) {
    const CandidateBundle &cb = in_[k];
    BundleOwner owner;
    tqrt_status s = tqrt_bundle_load_memory(
        cb.manifest.data(), cb.manifest.size(), cb.cubin.data(),
        cb.cubin.size(), cb.ptx.data(), cb.ptx.size(), &owner.b);
    if (s != TQRT_OK)
      throw Fatal(runtimeError("loading candidate bundle " + std::to_string(k),
                               s));
    tqrt_bundle_info info;
    if ((s = tqrt_bundle_get_info(owner.b, &info)) != TQRT_OK)
      throw Fatal(runtimeError("tqrt_bundle_get_info", s));
    if (size_t(info.num_plans) != cb.candidates.size())
      throw Fatal("candidate bundle " + std::to_string(k) + " has " +
                  std::to_string(info.num_plans) + " plans for " +
                  std::to_string(cb.candidates.size()) +
                  " candidates (tq-plan-launch merged some)");
    // Plan i must be exactly candidate cb.candidates[i]: anything else
    // would file timings under the wrong plan.
    for (size_t i = 0; i < cb.candidates.size(); ++i) {
      tqrt_plan_desc d;
      if ((s = tqrt_bundle_get_plan(owner.b, int32_t(i), &d)) != TQRT_OK)
        throw Fatal(runtimeError("tqrt_bundle_get_plan", s));
      const Candidate &c = t_.candidates.at(size_t(cb.candidates[i]));
      if (d.block_n != c.blockN || d.splits != c.splits ||
          d.warps != c.warps || d.heads_per_cta != c.headsPerCta ||
          d.stages != c.stages)
        throw Fatal("candidate bundle " + std::to_string(k) + " plan " +
                    std::to_string(i) + " is not the candidate it was built "
                    "for (" + c.describe() + ")");
      where_[size_t(cb.candidates[i])] = {int(k), int(i)};
    }
    if (k == 0) {
      tqrt_layout_info l;
      if ((s = tqrt_bundle_get_layout(owner.b, &l)) != TQRT_OK)
        throw Fatal(runtimeError("tqrt_bundle_get_layout", s));
      if (!(info.dtypes & (1u << TQRT_DTYPE_BF16)))
        throw Fatal("the candidate bundle has no bf16 kernels");
      g_ = {info.head_dim, info.num_q_heads, info.num_kv_heads,
            info.block_size, l.block_stride};
    }
    bundles_.push_back(std::move(owner));
  }
  for (size_t c = 0; c < where_.size(); ++c)
    if (where_[c].first < 0)
      for (size_t b = 0; b < t_.buckets.size(); ++b)
        t_.row(b, c).failure = "not in any compiled bundle";
}

/// What a candidate's first measurement costs beyond its replays (module
/// load, first graph instantiation): ~30 ms each on the H200, where the first
/// length of 144 candidates took 5-6 s and their replays ~1 s (bench/results/
/// 2026-12-02-session14-h200 run3, session13-h200 run2). Charged to the first
/// length measured, so the first progress lines' rate is not taken for the
/// whole run's (an ETA 5-8x too long there before).
constexpr double kFirstLaunchS = 0.03;

double Runner::workUnits(size_t b, size_t p) const {
  // Seconds at 2 TB/s plus 4 us per launch, per replay, and the capture:
  // only the ratio matters (EtaEstimator rescales by the observed rate).
  int64_t r = replicas_[b][p];
  double bytes = double(r) * double(t_.buckets[b]) *
                 double(ceilDiv(t_.points[p].length, g_.blockSize)) *
                 double(g_.blockStride);
  double replay = bytes / 2e12 + double(r) * 4e-6;
  return replay * double(o_.reps + o_.warmup) + double(r) * 3e-6;
}

void Runner::planPool() {
  replicas_.assign(t_.buckets.size(), std::vector<int64_t>(t_.points.size()));
  std::string worst;
  for (size_t b = 0; b < t_.buckets.size(); ++b)
    for (size_t p = 0; p < t_.points.size(); ++p) {
      int64_t nblk = ceilDiv(t_.points[p].length, g_.blockSize);
      int64_t r = replicasFor(t_.buckets[b], nblk, g_.blockStride,
                              dev_.l2Bytes, o_.coldL2Factor, o_.maxReplicas);
      replicas_[b][p] = r;
      int64_t need = r * t_.buckets[b] * nblk;
      if (need > poolBlocks_) {
        poolBlocks_ = need;
        worst = "bucket " + std::to_string(t_.buckets[b]) + " at " +
                std::to_string(t_.points[p].length) + " tokens";
      }
      eta_.addTotal(workUnits(b, p) * double(t_.candidates.size()));
    }
  double poolBytes = double(poolBlocks_) * double(g_.blockStride);
  auto [freeBytes, total] = gpu::memoryInfo();
  // The pool plus a margin for queries, outputs, workspaces, block tables
  // and the store's inputs.
  double margin = 2.0 * (1 << 30);
  if (poolBytes + margin > double(freeBytes))
    throw Fatal("the cache pool for " + worst + " needs " +
                std::to_string(int64_t(poolBytes / (1 << 20))) +
                " MiB, but the device has " +
                std::to_string(int64_t(freeBytes >> 20)) + " MiB free of " +
                std::to_string(int64_t(total >> 20)) +
                "; lower the largest context (--contexts MIN:MAX, "
                "--report-lengths) or the largest bucket");
  log("cache pool: " + std::to_string(poolBlocks_) + " blocks of " +
      std::to_string(g_.blockStride) + " bytes (" +
      std::to_string(int64_t(poolBytes / (1 << 20))) + " MiB, sized by " +
      worst + "); " + std::to_string(int64_t(dev_.l2Bytes >> 20)) +
      " MiB L2, each replay reads > " +
      std::to_string(int(o_.coldL2Factor)) + "x that");
}

void Runner::fillPool() {
  pool_ = gpu::Buffer(size_t(poolBlocks_) * size_t(g_.blockStride), "the cache pool");
  const int64_t tokens = poolBlocks_ * g_.blockSize;
  // Whole blocks per store launch, so each launch can take the pool from
  // its first block on (a 16-byte aligned pointer, a multiple of
  // block_stride bytes).
  int64_t chunk = std::min<int64_t>(tokens, o_.storeChunkTokens);
  chunk = std::max<int64_t>(g_.blockSize, chunk / g_.blockSize * g_.blockSize);
  PlanOwner store;
  tqrt_status s = tqrt_plan_create_for(bundles_[0].b, 0, 1, int32_t(chunk),
                                       &store.p);
  if (s != TQRT_OK)
    throw Fatal(runtimeError("creating the store plan", s));
  Rng rng{o_.seed};
  const size_t elems = size_t(chunk * g_.numKV * g_.headDim);
  gpu::Buffer key(elems * 2, "random keys"), value(elems * 2, "random values"),
      slots(size_t(chunk) * 8, "the slot mapping");
  key.upload(randomBf16(elems, rng).data(), elems * 2);
  value.upload(randomBf16(elems, rng).data(), elems * 2);
  std::vector<int64_t> slotHost(static_cast<size_t>(chunk));
  std::iota(slotHost.begin(), slotHost.end(), int64_t(0));
  slots.upload(slotHost.data(), slotHost.size() * 8);
  const int64_t stride = g_.numKV * g_.headDim;
  for (int64_t first = 0; first < tokens; first += chunk) {
    int64_t n = std::min(chunk, tokens - first);
    int64_t firstBlock = first / g_.blockSize;
    auto *cache = static_cast<uint8_t *>(pool_.get()) +
                  firstBlock * g_.blockStride;
    int64_t cacheBytes = (poolBlocks_ - firstBlock) * g_.blockStride;
    s = tqrt_launch_store(store.p, TQRT_DTYPE_BF16, key.get(), stride,
                          g_.headDim, value.get(), stride, g_.headDim, cache,
                          cacheBytes, static_cast<const int64_t *>(slots.get()),
                          int32_t(n), stream_->get());
    if (s != TQRT_OK)
      throw Fatal(runtimeError("filling the cache pool (store)", s));
  }
  stream_->synchronize("filling the cache pool (store kernels)");
  log("filled the pool with the bundle's store kernel (" +
      std::to_string(tokens) + " tokens of random bf16 keys and values) in " +
      formatDuration(elapsed()));
}

void Runner::progress(size_t b, size_t pointOrder, size_t i, size_t n,
                      bool force) {
  auto now = Clock::now();
  if (!force && std::chrono::duration<double>(now - lastLine_).count() <
                    o_.progressIntervalS)
    return;
  lastLine_ = now;
  ProgressState s;
  s.bucket = t_.buckets[b];
  s.bucketIndex = b + 1;
  s.numBuckets = t_.buckets.size();
  s.length = t_.points[t_.points.size() - 1 - pointOrder].length;
  s.pointIndex = pointOrder + 1;
  s.numPoints = t_.points.size();
  s.candidate = i;
  s.numCandidates = n;
  s.elapsedS = elapsed();
  s.etaS = eta_.remaining(s.elapsedS);
  log(formatProgress(s));
}

Sample Runner::timeCandidate(const tqrt_plan *plan, size_t b, size_t p,
                             size_t c, int64_t replicas, int64_t nblk) {
  const cu::Api &a = gpu::api();
  const int64_t batch = t_.buckets[b];
  const int64_t rowElems = g_.numQ * g_.headDim;
  const size_t rowBytes = size_t(batch * rowElems * 2);
  cu::Stream s = stream_->get();

  // Capture the replicas into one graph, as an engine captures a step.
  gpu::check(a.cuStreamBeginCapture_v2(s, cu::kStreamCaptureModeThreadLocal),
             "cuStreamBeginCapture");
  std::string failure;
  for (int64_t r = 0; r < replicas && failure.empty(); ++r) {
    if (o_.isolate) {
      cu::Result m = a.cuMemsetD8Async(separator_.ptr(), 0, 4, s);
      if (m != cu::kSuccess)
        failure = "cuMemsetD8Async: " + cu::describe(m);
    }
    const auto *q = static_cast<const uint8_t *>(queries_.get()) + r * rowBytes;
    auto *out = static_cast<uint8_t *>(outs_.get()) + r * rowBytes;
    const auto *tables = static_cast<const int32_t *>(tables_.get()) +
                         r * batch * nblk;
    void *ws = workspaceBytes_ ? workspaces_[size_t(r) % workspaces_.size()].get()
                               : nullptr;
    tqrt_status st = tqrt_launch_decode(
        plan, TQRT_DTYPE_BF16, q, rowElems, g_.headDim, pool_.get(),
        int64_t(pool_.bytes()), tables, int32_t(nblk),
        static_cast<const int32_t *>(seqLens_.get()), out, rowElems,
        g_.headDim, int32_t(batch), 0.0f, ws, workspaceBytes_, s);
    if (st != TQRT_OK) // the message names tqrt_launch_decode and the kernel
      failure = std::string(tqrt_status_name(st)) + ": " + tqrt_last_error();
  }
  cu::Graph graph = nullptr;
  cu::Result endResult = a.cuStreamEndCapture(s, &graph);
  gpu::GraphExec exec;
  cu::Result instResult = cu::kSuccess;
  if (failure.empty() && endResult == cu::kSuccess && graph)
    instResult = a.cuGraphInstantiateWithFlags(exec.out(), graph, 0);
  if (graph)
    a.cuGraphDestroy(graph);
  if (failure.empty() && endResult != cu::kSuccess)
    failure = "cuStreamEndCapture: " + cu::describe(endResult);
  if (failure.empty() && instResult != cu::kSuccess)
    failure = "cuGraphInstantiate: " + cu::describe(instResult);
  if (!failure.empty())
    throw std::runtime_error(failure);

  // Warm up (first replays upload the graph), then back-to-back replays
  // with an event between each two.
  for (int i = 0; i < o_.warmup; ++i) {
    cu::Result r = a.cuGraphLaunch(exec.get(), s);
    if (r != cu::kSuccess)
      throw std::runtime_error("cuGraphLaunch: " + cu::describe(r));
  }
  cu::Result syncResult = a.cuStreamSynchronize(s);
  if (syncResult != cu::kSuccess)
    throw Fatal("running " + t_.candidates[c].describe() + " (bucket " +
                std::to_string(batch) + ", " +
                std::to_string(t_.points[p].length) +
                " tokens): " + cu::describe(syncResult) +
                "; the CUDA context is unusable after this, so the run "
                "stops (leave the candidate out with the --*-candidates "
                "lists to tune the rest)");
  gpu::check(a.cuEventRecord(events_[0].get(), s), "cuEventRecord");
  for (int i = 0; i < o_.reps; ++i) {
    cu::Result r = a.cuGraphLaunch(exec.get(), s);
    if (r != cu::kSuccess)
      throw std::runtime_error("cuGraphLaunch: " + cu::describe(r));
    gpu::check(a.cuEventRecord(events_[size_t(i) + 1].get(), s),
               "cuEventRecord");
  }
  syncResult = a.cuEventSynchronize(events_[size_t(o_.reps)].get());
  if (syncResult != cu::kSuccess)
    throw Fatal("timing " + t_.candidates[c].describe() + ": " +
                cu::describe(syncResult));
  std::vector<double> perDecodeUs = replayUs(replicas);
  if (o_.isolate) {
    const double sep = separatorUs(replicas);
    for (double &us : perDecodeUs)
      us = std::max(us - sep, 0.0);
  }
  Sample out;
  out.medianUs = percentile(perDecodeUs, 0.5);
  out.spread = out.medianUs > 0 ? (percentile(perDecodeUs, 0.9) -
                                   percentile(perDecodeUs, 0.1)) /
                                      out.medianUs
                                : 0;
  return out;
}

std::vector<double> Runner::replayUs(int64_t replicas) {
  const cu::Api &a = gpu::api();
  std::vector<double> us;
  for (int i = 0; i < o_.reps; ++i) {
    float ms = 0;
    gpu::check(a.cuEventElapsedTime_v2(&ms, events_[size_t(i)].get(),
                                       events_[size_t(i) + 1].get()),
               "cuEventElapsedTime");
    us.push_back(double(ms) * 1000.0 / double(replicas));
  }
  return us;
}

double Runner::separatorUs(int64_t replicas) {
  auto it = separatorUs_.find(replicas);
  if (it != separatorUs_.end())
    return it->second;
  const cu::Api &a = gpu::api();
  cu::Stream s = stream_->get();
  gpu::check(a.cuStreamBeginCapture_v2(s, cu::kStreamCaptureModeThreadLocal),
             "cuStreamBeginCapture");
  cu::Result m = cu::kSuccess;
  for (int64_t r = 0; r < replicas && m == cu::kSuccess; ++r)
    m = a.cuMemsetD8Async(separator_.ptr(), 0, 4, s);
  cu::Graph graph = nullptr;
  cu::Result end = a.cuStreamEndCapture(s, &graph);
  gpu::check(m, "cuMemsetD8Async");
  gpu::check(end, "cuStreamEndCapture");
  gpu::GraphExec exec;
  cu::Result inst = a.cuGraphInstantiateWithFlags(exec.out(), graph, 0);
  a.cuGraphDestroy(graph);
  gpu::check(inst, "cuGraphInstantiate");
  for (int i = 0; i < o_.warmup; ++i)
    gpu::check(a.cuGraphLaunch(exec.get(), s), "cuGraphLaunch");
  gpu::check(a.cuEventRecord(events_[0].get(), s), "cuEventRecord");
  for (int i = 0; i < o_.reps; ++i) {
    gpu::check(a.cuGraphLaunch(exec.get(), s), "cuGraphLaunch");
    gpu::check(a.cuEventRecord(events_[size_t(i) + 1].get(), s),
               "cuEventRecord");
  }
  gpu::check(a.cuEventSynchronize(events_[size_t(o_.reps)].get()),
             "cuEventSynchronize");
  const double median = percentile(replayUs(replicas), 0.5);
  separatorUs_[replicas] = median;
  return median;
}

void Runner::preparePoint(size_t b, size_t p, Rng &rng) {
  const int64_t batch = t_.buckets[b];
  const int64_t nblk = ceilDiv(t_.points[p].length, g_.blockSize);
  // Every replica's sequences get their own blocks, in shuffled order.
  std::vector<int32_t> perm(static_cast<size_t>(poolBlocks_));
  std::iota(perm.begin(), perm.end(), 0);
  for (size_t i = perm.size(); i > 1; --i)
    std::swap(perm[i - 1], perm[size_t(rng.next() % i)]);
  tables_.upload(perm.data(), size_t(replicas_[b][p] * batch * nblk) * 4);
  std::vector<int32_t> lens(static_cast<size_t>(batch),
                            int32_t(t_.points[p].length));
  seqLens_.upload(lens.data(), lens.size() * 4);
}

bool Runner::timeOne(const tqrt_plan *plan, size_t b, size_t p, size_t c,
                     Sample &out) {
  const int64_t nblk = ceilDiv(t_.points[p].length, g_.blockSize);
  try {
    out = timeCandidate(plan, b, p, c, replicas_[b][p], nblk);
    return true;
  } catch (const Fatal &) {
    throw;
  } catch (const gpu::GpuError &) {
    throw; // a driver call outside the candidate's own work failed
  } catch (const std::exception &e) {
    t_.row(b, c).failure = e.what();
    // A failed capture or launch must leave the context usable.
    cu::Result r = gpu::api().cuCtxSynchronize();
    if (r != cu::kSuccess)
      throw Fatal("after " + t_.candidates[c].describe() + " failed (" +
                  e.what() + "): " + cu::describe(r));
    log("candidate " + t_.candidates[c].describe() + " failed: " + e.what());
    return false;
  }
}

void Runner::measureBucket(size_t b) {
  const int64_t batch = t_.buckets[b];
  const size_t nc = t_.candidates.size(), np = t_.points.size();
  // One plan per candidate for this bucket (its grid and workspace).
  std::vector<PlanOwner> plans(nc);
  uint64_t maxWs = 0;
  for (size_t c = 0; c < nc; ++c) {
    if (where_[c].first < 0)
      continue;
    tqrt_status s = tqrt_plan_create_for(bundles_[size_t(where_[c].first)].b,
                                         where_[c].second, int32_t(batch), 1,
                                         &plans[c].p);
    tqrt_plan_info info;
    if (s == TQRT_OK)
      s = tqrt_plan_get_info(plans[c].p, &info);
    if (s != TQRT_OK) {
      t_.row(b, c).failure = runtimeError("tqrt_plan_create_for", s);
      for (size_t p = 0; p < np; ++p)
        eta_.removeFromTotal(workUnits(b, p));
      continue;
    }
    maxWs = std::max<uint64_t>(maxWs, info.workspace_bytes);
  }
  if (b == 0) // the first launch of every candidate that has a plan
    for (const PlanOwner &plan : plans)
      eta_.addTotal(plan.p ? kFirstLaunchS : 0.0);
  double confirmUnits = 0;
  for (size_t p = 0; p < np; ++p)
    confirmUnits += workUnits(b, p) * double(std::min<size_t>(o_.confirmTop, nc));
  eta_.addTotal(confirmUnits);

  // Buffers for the largest replica count of the bucket (the shortest
  // length). Workspaces rotate among as many as fit in 256 MiB: partials
  // are written then merged by the last split, like one per layer in an
  // engine. Zeroed once (abi.h's tickets); every candidate's plan has the
  // same max_batch here, so its tickets sit at the same offsets.
  int64_t maxReplicas = 1;
  for (size_t p = 0; p < np; ++p)
    maxReplicas = std::max(maxReplicas, replicas_[b][p]);
  const size_t rowBytes = size_t(batch * g_.numQ * g_.headDim * 2);
  Rng rng{o_.seed ^ (uint64_t(batch) * 0x100000001b3ull)};
  queries_ = gpu::Buffer(rowBytes * size_t(maxReplicas), "queries");
  {
    std::vector<uint16_t> q = randomBf16(rowBytes / 2 * size_t(maxReplicas), rng);
    queries_.upload(q.data(), q.size() * 2);
  }
  outs_ = gpu::Buffer(rowBytes * size_t(maxReplicas), "outputs");
  outs_.zero();
  if (o_.isolate && !separator_.bytes()) {
    separator_ = gpu::Buffer(4, "separator");
    log("isolated timing: a 4-byte memset before every decode of a replay, "
        "its own time subtracted");
  }
  seqLens_ = gpu::Buffer(size_t(batch) * 4, "sequence lengths");
  workspaces_.clear();
  workspaceBytes_ = maxWs;
  if (maxWs) {
    int64_t count = std::clamp<int64_t>(int64_t((256ull << 20) / maxWs), 1,
                                        maxReplicas);
    for (int64_t i = 0; i < count; ++i) {
      workspaces_.emplace_back(size_t(maxWs), "workspace");
      workspaces_.back().zero();
    }
  }

  for (size_t order = 0; order < np; ++order) {
    const size_t p = np - 1 - order; // longest first
    preparePoint(b, p, rng);
    std::vector<size_t> alive;
    for (size_t c = 0; c < nc; ++c)
      if (t_.row(b, c).failure.empty() && t_.row(b, c).prunedAfter < 0)
        alive.push_back(c);
    // A shuffled order, so clock or thermal drift over the pass does not
    // favour the candidates that happen to come first.
    for (size_t i = alive.size(); i > 1; --i)
      std::swap(alive[i - 1], alive[size_t(rng.next() % i)]);
    for (size_t i = 0; i < alive.size(); ++i) {
      progress(b, order, i + 1, alive.size(), i == 0 && order == 0);
      size_t c = alive[i];
      Sample sample;
      if (timeOne(plans[c].p, b, p, c, sample)) {
        t_.row(b, c).us[p] = sample.medianUs;
        t_.row(b, c).spread[p] = sample.spread;
      } else {
        for (size_t q = 0; q < p; ++q) // its shorter lengths are not needed
          eta_.removeFromTotal(workUnits(b, q));
      }
      eta_.addDone(workUnits(b, p) + (b == 0 && order == 0 ? kFirstLaunchS : 0));
    }
    // Candidates that can no longer win leave the race.
    if (o_.prune)
      for (int c : provablyLosing(t_, b, order + 1, o_.pruneMargin)) {
        t_.row(b, size_t(c)).prunedAfter = int(order + 1);
        for (size_t q = 0; q < p; ++q)
          eta_.removeFromTotal(workUnits(b, q));
      }
    summarize(b, p, alive);
  }
  confirm(b, plans, rng);
}

void Runner::confirm(size_t b, const std::vector<PlanOwner> &plans, Rng &rng) {
  // The leaders are timed a second time at every length, on freshly
  // shuffled blocks, and each cell becomes the mean of both runs: the
  // choice among close plans then rests on two independent samples, and
  // the spread reported includes the run-to-run difference.
  std::vector<int> leaders = rankCandidates(t_, b);
  if (leaders.size() > o_.confirmTop)
    leaders.resize(o_.confirmTop);
  if (leaders.size() < 2)
    return; // nothing to decide between
  const size_t np = t_.points.size();
  for (size_t order = 0; order < np; ++order) {
    const size_t p = np - 1 - order;
    preparePoint(b, p, rng);
    for (int c : leaders) {
      CandidateTimes &row = t_.row(b, size_t(c));
      if (!row.failure.empty())
        continue;
      double first = row.us[p];
      Sample again;
      if (timeOne(plans[size_t(c)].p, b, p, size_t(c), again)) {
        row.us[p] = 0.5 * (first + again.medianUs);
        double apart = std::abs(first - again.medianUs) / row.us[p];
        row.spread[p] = std::max({row.spread[p], again.spread, apart});
      }
      eta_.addDone(workUnits(b, p));
    }
  }
  BucketChoice ch = chooseBest(t_, b);
  if (ch.candidate >= 0) {
    char line[512];
    std::snprintf(line, sizeof line,
                  "bucket %lld: the %zu leaders timed twice; best %s, "
                  "%.2f us expected",
                  (long long)t_.buckets[b], leaders.size(),
                  t_.candidates[size_t(ch.candidate)].describe().c_str(),
                  ch.expectedUs);
    log(line);
  }
}

void Runner::summarize(size_t b, size_t p, const std::vector<size_t> &alive) {
  // A line per length: the fastest at this length so far.
  double best = std::numeric_limits<double>::infinity();
  size_t bestC = 0, timed = 0, pruned = 0;
  for (size_t c : alive)
    if (std::isfinite(t_.row(b, c).us[p])) {
      ++timed;
      if (t_.row(b, c).us[p] < best) {
        best = t_.row(b, c).us[p];
        bestC = c;
      }
    }
  for (size_t c = 0; c < t_.candidates.size(); ++c)
    pruned += t_.row(b, c).prunedAfter >= 0;
  if (!timed)
    return;
  int64_t replicas = replicas_[b][p];
  char line[512];
  std::snprintf(line, sizeof line,
                "bucket %lld, L=%lld: %zu timed (%lld %s per replay), "
                "fastest %.2f us: %s; %zu pruned so far; elapsed %s",
                (long long)t_.buckets[b], (long long)t_.points[p].length,
                timed, (long long)replicas,
                replicas == 1 ? "replica" : "replicas", best,
                t_.candidates[bestC].describe().c_str(), pruned,
                formatDuration(elapsed()).c_str());
  log(line);
}

void Runner::run() {
  std::string error;
  if (!queryDevice(o_.device, dev_, error))
    throw Fatal(error);
  if (o_.reps < 1 || o_.warmup < 0)
    throw Fatal("--reps must be at least 1");
  ctx_ = std::make_unique<gpu::PrimaryContext>(o_.device);
  stream_ = std::make_unique<gpu::Stream>();
  for (int i = 0; i <= o_.reps; ++i)
    events_.emplace_back();
  loadBundles();
  planPool();
  fillPool();
  tables_ = gpu::Buffer(size_t(poolBlocks_) * 4, "block tables");
  for (size_t b = 0; b < t_.buckets.size(); ++b)
  {
    measureBucket(b);
    t_.bucketsDone = b + 1;
  }
  log("measured in " + formatDuration(elapsed()));
}

} // namespace

std::string measure(const std::vector<CandidateBundle> &bundles,
                    TimingTable &table, const MeasureOptions &options) {
  if (bundles.empty())
    return "no candidate bundles to measure";
  try {
    Runner runner(bundles, table, options);
    runner.run();
  } catch (const std::exception &e) {
    return e.what();
  } catch (...) {
    return "unknown error while measuring";
  }
  return "";
}

} // namespace tqc::autotune
