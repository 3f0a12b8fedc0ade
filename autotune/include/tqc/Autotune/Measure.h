//===- Measure.h - Timing candidate plans on the local GPU -----*- C++ -*-===//
//
// For each batch bucket B and context length L (longest first), every
// candidate still in the race is timed the way an engine runs decode: one
// CUDA graph per bucket, replayed. The graph holds R decode launches
// (replicas), each over its own B sequences of L tokens whose blocks are
// spread over a pool filled once by the bundle's own store kernel from
// random bf16 keys and values, through shuffled block tables; R is chosen
// so one replay reads more than 4x the GPU's L2 of distinct cache, so the
// cache is cold. Latency = the median replay time (CUDA events between
// back-to-back replays) / R. Candidates are timed in a shuffled order, and
// after a bucket's pass its leaders are timed once more at every length.
//
//===----------------------------------------------------------------------===//
#ifndef TQC_AUTOTUNE_MEASURE_H
#define TQC_AUTOTUNE_MEASURE_H

#include "tqc/Autotune/Selection.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tqc::autotune {

/// A compiled bundle of candidates: plan i is candidates[i] of the run.
struct CandidateBundle {
  std::string manifest, ptx;
  std::vector<char> cubin;
  std::vector<int> candidates;
};

struct DeviceDesc {
  std::string name;
  int ordinal = 0, computeCapability = 0, smCount = 0, driverVersion = 0;
  int64_t l2Bytes = 0;
  uint64_t totalMemory = 0;
};

/// The device through the runtime (tqrt_device_info). False with the
/// runtime's message when there is no driver, no device or no such
/// ordinal.
bool queryDevice(int ordinal, DeviceDesc &out, std::string &error);

struct MeasureOptions {
  int device = 0;
  int reps = 30;   ///< timed replays per (bucket, length, candidate)
  int warmup = 3;  ///< untimed replays first
  double coldL2Factor = 4.0; ///< a replay reads > this x L2 of distinct cache
  int maxReplicas = 4096;
  bool prune = true;
  double pruneMargin = 0.10;
  /// A 4-byte memset between every two timed decodes of a replay (its own
  /// time, measured alone, subtracted): each decode then starts after the
  /// previous node has finished, as in an engine, where other kernels come
  /// between two decodes. Without it the decodes of a replay run back to
  /// back and a programmatic launch lets the next one's CTAs take their SM
  /// slots early, which favors small grids (bench/results/
  /// 2026-11-30-ncu-decode-h200.txt).
  bool isolate = false;
  /// After a bucket's pass, its fastest few are timed again at every
  /// length and their two medians averaged (0 or 1: no second pass).
  size_t confirmTop = 3;
  int64_t storeChunkTokens = 32768;
  uint64_t seed = 0x7475e3a1c0ffee01ull;
  double progressIntervalS = 3.0;
  /// One line per call (progress, notes); no newline included.
  std::function<void(const std::string &)> log;
};

/// Fills `table` (its buckets, candidates and points set by the caller).
/// Returns "" or a message for an error that stops the run (no device, a
/// bundle that does not load, out of memory, a context lost to a faulting
/// kernel). A candidate that fails on its own (launch or graph error) is
/// recorded in its row and the run goes on. After an error, the buckets
/// before table.bucketsDone are complete.
std::string measure(const std::vector<CandidateBundle> &bundles,
                    TimingTable &table, const MeasureOptions &options);

/// How many replicas a (bucket, length) needs: enough that one replay
/// reads more than factor x L2 bytes of distinct cache; at least 1, at
/// most maxReplicas. Exposed for tests.
int64_t replicasFor(int64_t batch, int64_t blocksPerSequence,
                    int64_t blockStride, int64_t l2Bytes, double factor,
                    int64_t maxReplicas);

} // namespace tqc::autotune

#endif // TQC_AUTOTUNE_MEASURE_H
