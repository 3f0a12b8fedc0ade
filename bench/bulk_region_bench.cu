// How fast bulk copies (cp.async.bulk, what the decode's ring uses on
// sm_90) read a paged k3v4 cache, by who issues them: per (page, head)
// region from each warp (the ring as it is: a CTA per KV head, each warp
// copying 1888-byte regions of its own 16-token pages; or warp w copying
// head w's region of the CTA's pages), or the whole page (all 8 heads,
// 15104 bytes) from one thread of the CTA into a CTA-wide ring. No
// decode: each consumer reads one word of its slot. Decides whether a
// decode whose CTA takes all KV heads of a page (docs/NOTES.md, "Page size
// and the decode's bandwidth") reads faster than region_read_bench's 3.8
// TB/s for 1888-byte regions.
//
//   nvcc -O3 -arch=sm_90 -o /tmp/bulk_region bench/bulk_region_bench.cu
//   /tmp/bulk_region            (prints one line per pattern and occupancy)
#include "cuda_check.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

constexpr int kHeads = 8, kRegion = 1888, kPage = kHeads * kRegion;

__device__ __forceinline__ uint32_t smem(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void barInit(uint64_t *b, int count) {
  asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(smem(b)), "r"(count));
}
// Arms the barrier for `bytes` and copies them (one thread).
__device__ __forceinline__ void bulkCopy(void *dst, const void *src, int bytes,
                                         uint64_t *b) {
  asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" ::"r"(smem(b)),
               "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
               " [%0], [%1], %2, [%3];" ::"r"(smem(dst)),
               "l"(src), "r"(bytes), "r"(smem(b))
               : "memory");
}
__device__ __forceinline__ void barWait(uint64_t *b, uint32_t parity) {
  asm volatile("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared.b64 p, [%0], %1;\n"
               " @!p bra W;\n}" ::"r"(smem(b)),
               "r"(parity)
               : "memory");
}

// Per-warp rings, S slots per warp; lane 0 issues, the warp waits and reads
// a word. SAME_HEAD = false: warp w copies head w's region of each of its
// CTA's pages (the 8 heads of a page at once). SAME_HEAD = true, the decode
// as it is: CTA x takes head x % 8 (a grid of head groups) and its warps
// take different pages of it, so a page's 8 regions are read by 8 CTAs at
// unrelated times.
template <int S, bool SAME_HEAD>
__global__ void perWarpRegions(const uint8_t *cache, const int *order, int pages,
                               unsigned *sink) {
  extern __shared__ __align__(128) uint8_t ring[];
  __shared__ uint64_t bars[kHeads][S];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  uint8_t *slots = ring + warp * S * kRegion;
  if (lane == 0)
    for (int s = 0; s < S; ++s)
      barInit(&bars[warp][s], 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  __syncwarp();
  const int nw = blockDim.x >> 5, groups = gridDim.x / kHeads;
  if (SAME_HEAD && int(blockIdx.x) >= groups * kHeads)
    return;
  const int head = SAME_HEAD ? int(blockIdx.x) % kHeads : warp;
  const int first = SAME_HEAD ? (int(blockIdx.x) / kHeads) * nw + warp : blockIdx.x;
  const int step = SAME_HEAD ? groups * nw : gridDim.x;
  int issued = first;
  if (lane == 0)
    for (int s = 0; s < S && issued < pages; ++s, issued += step)
      bulkCopy(slots + s * kRegion,
               cache + size_t(order[issued]) * kPage + head * kRegion, kRegion,
               &bars[warp][s]);
  unsigned acc = 0;
  int k = 0;
  for (int j = first; j < pages; j += step, ++k) {
    const int s = k % S;
    barWait(&bars[warp][s], (k / S) & 1);
    acc ^= reinterpret_cast<const unsigned *>(slots + s * kRegion)[lane];
    __syncwarp();
    const int next = __shfl_sync(~0u, issued, 0);
    if (lane == 0 && next < pages)
      bulkCopy(slots + s * kRegion,
               cache + size_t(order[next]) * kPage + head * kRegion, kRegion,
               &bars[warp][s]);
    issued = next + step;
  }
  if (acc == 0x9e3779b9u)
    atomicAdd(sink, 1u);
}

// A CTA-wide ring of whole pages: thread 0 copies each page (all heads) in
// one bulk copy; every warp reads a word of its head's region; a CTA
// barrier frees the slot before the refill.
template <int S>
__global__ void perCtaPages(const uint8_t *cache, const int *order, int pages,
                            unsigned *sink) {
  extern __shared__ __align__(128) uint8_t ring[];
  __shared__ uint64_t bars[S];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (threadIdx.x == 0)
    for (int s = 0; s < S; ++s)
      barInit(&bars[s], 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  __syncthreads();
  const int first = blockIdx.x, step = gridDim.x;
  int issued = first;
  if (threadIdx.x == 0)
    for (int s = 0; s < S && issued < pages; ++s, issued += step)
      bulkCopy(ring + s * kPage, cache + size_t(order[issued]) * kPage, kPage,
               &bars[s]);
  unsigned acc = 0;
  int k = 0;
  for (int j = first; j < pages; j += step, ++k) {
    const int s = k % S;
    barWait(&bars[s], (k / S) & 1);
    acc ^= reinterpret_cast<const unsigned *>(ring + s * kPage + warp * kRegion)[lane];
    __syncthreads();
    if (threadIdx.x == 0) {
      if (issued < pages)
        bulkCopy(ring + s * kPage, cache + size_t(order[issued]) * kPage, kPage,
                 &bars[s]);
      issued += step;
    }
  }
  if (acc == 0x9e3779b9u)
    atomicAdd(sink, 1u);
}

template <class K>
float timeIt(K kernel, int blocks, int smemBytes, const uint8_t *cache,
             const int *order, int pages, unsigned *sink) {
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       smemBytes);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  float best = 1e30f;
  for (int rep = 0; rep < 5; ++rep) {
    cudaEventRecord(a);
    kernel<<<blocks, kHeads * 32, smemBytes>>>(cache, order, pages, sink);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    best = std::min(best, ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return cudaGetLastError() == cudaSuccess ? best : -1.f;
}

int main() {
  const size_t kBytes = size_t(2) << 30; // far beyond the 60 MB L2
  const int pages = int(kBytes / kPage);
  uint8_t *cache;
  unsigned *sink;
  int *order;
  CHECK(cudaMalloc(&cache, kBytes));
  CHECK(cudaMalloc(&sink, sizeof(unsigned)));
  CHECK(cudaMalloc(&order, pages * sizeof(int)));
  CHECK(cudaMemset(cache, 0x5a, kBytes));
  std::vector<int> h(pages);
  std::iota(h.begin(), h.end(), 0);
  std::shuffle(h.begin(), h.end(), std::mt19937(7));
  CHECK(cudaMemcpy(order, h.data(), pages * sizeof(int), cudaMemcpyHostToDevice));
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const double bytes = double(pages) * kPage;
  auto report = [&](const char *what, int ctasPerSm, int inflight, float ms) {
    if (ms < 0)
      printf("%-44s %d CTAs/SM: launch failed\n", what, ctasPerSm);
    else
      printf("%-44s %d CTAs/SM, %3d KB in flight/SM: %7.3f ms, %5.2f TB/s\n",
             what, ctasPerSm, inflight >> 10, ms, bytes / (ms * 1e-3) / 1e12);
  };
  for (int ctas : {1, 2, 3}) {
    // Per-warp regions, 4 slots per warp (60 KB per CTA, as a 4-stage ring).
    int sm4 = kHeads * 4 * kRegion;
    report("per-warp regions, a CTA per head (decode)", ctas, ctas * sm4,
           timeIt(perWarpRegions<4, true>, sms * ctas, sm4, cache, order, pages, sink));
    report("per-warp regions, warp w = head w", ctas, ctas * sm4,
           timeIt(perWarpRegions<4, false>, sms * ctas, sm4, cache, order, pages, sink));
    // Whole pages from one thread, 4 slots per CTA: the same bytes in flight.
    report("per-CTA 15104-byte pages, 4 slots/CTA", ctas, ctas * 4 * kPage,
           timeIt(perCtaPages<4>, sms * ctas, 4 * kPage, cache, order, pages, sink));
    if (ctas <= 2)
      report("per-CTA 15104-byte pages, 6 slots/CTA", ctas, ctas * 6 * kPage,
             timeIt(perCtaPages<6>, sms * ctas, 6 * kPage, cache, order, pages, sink));
  }
  return 0;
}
