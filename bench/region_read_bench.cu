// The read bandwidth a paged decode can reach, without any decode: warps
// read (page, head) regions of a paged cache the way the decode's CTAs do
// (8 KV heads per page, each warp one head of a run of pages), with
// 16-byte loads and several regions in flight per warp, and nothing else.
// It separates the access pattern's limit (random pages of 1888-byte
// regions for k3v4 at head_dim 128 and 16-token pages) from the kernel's.
//
//   nvcc -O3 -arch=sm_90 -o /tmp/region_read bench/region_read_bench.cu
//   /tmp/region_read            (prints one line per pattern)
#include "cuda_check.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

// Warp w reads head (w % heads) of pages order[w / heads + j * groups],
// j = 0, 1, ...: the warps of one group read the heads of the same pages at
// about the same time. U regions per warp are loaded before any is used.
template <int U>
__global__ void readRegions(const uint4 *__restrict__ cache,
                            const int *__restrict__ order, int pages,
                            int heads, int regionVecs, int pageVecs,
                            unsigned *sink) {
  const int lane = threadIdx.x & 31;
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int warps = (gridDim.x * blockDim.x) >> 5;
  const int groups = warps / heads;
  const int h = warp % heads, g0 = warp / heads;
  if (g0 >= groups)
    return;
  uint4 acc = make_uint4(0, 0, 0, 0);
  for (int j = g0; j < pages; j += U * groups) {
    for (int c = lane; c < regionVecs; c += 32) {
      uint4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int k = j + u * groups;
        v[u] = k < pages ? __ldg(cache + size_t(order[k]) * pageVecs +
                                 size_t(h) * regionVecs + c)
                         : make_uint4(0, 0, 0, 0);
      }
#pragma unroll
      for (int u = 0; u < U; ++u)
        acc.x ^= v[u].x, acc.y ^= v[u].y, acc.z ^= v[u].z, acc.w ^= v[u].w;
    }
  }
  if ((acc.x ^ acc.y ^ acc.z ^ acc.w) == 0x9e3779b9u)
    atomicAdd(sink, 1u);
}

int main() {
  const size_t kBytes = size_t(2) << 30; // 2 GiB, far beyond the 60 MB L2
  uint4 *cache;
  unsigned *sink;
  CHECK(cudaMalloc(&cache, kBytes));
  CHECK(cudaMalloc(&sink, sizeof(unsigned)));
  CHECK(cudaMemset(cache, 0x5a, kBytes));
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  struct Pattern {
    const char *name;
    int regionBytes, heads;
    bool shuffled;
  };
  const Pattern patterns[] = {
      {"k3v4 D128, 16-token pages (1888 B x 8 heads), random pages", 1888, 8, true},
      {"k3v4 D128, 16-token pages, pages in order", 1888, 8, false},
      {"k3v4 D128, 32-token pages (3776 B x 8 heads), random pages", 3776, 8, true},
      {"k3v4 D128, 64-token pages (7552 B x 8 heads), random pages", 7552, 8, true},
      {"whole 15104-byte pages (one head per page), random pages", 15104, 1, true},
      {"bf16 D128, 16-token pages (8192 B x 8 heads), random pages", 8192, 8, true},
  };
  std::mt19937 rng(7);
  for (const Pattern &p : patterns) {
    const int pageBytes = p.regionBytes * p.heads;
    const int pages = int(kBytes / pageBytes);
    std::vector<int> order(pages);
    std::iota(order.begin(), order.end(), 0);
    if (p.shuffled)
      std::shuffle(order.begin(), order.end(), rng);
    int *dOrder;
    CHECK(cudaMalloc(&dOrder, pages * sizeof(int)));
    CHECK(cudaMemcpy(dOrder, order.data(), pages * sizeof(int),
                     cudaMemcpyHostToDevice));
    for (int warpsPerSm : {16, 32, 64}) {
      const int threads = 256, blocks = sms * warpsPerSm / 8;
      cudaEvent_t a, b;
      CHECK(cudaEventCreate(&a));
      CHECK(cudaEventCreate(&b));
      float best = 1e30f;
      for (int rep = 0; rep < 5; ++rep) {
        CHECK(cudaEventRecord(a));
        readRegions<4><<<blocks, threads>>>(cache, dOrder, pages, p.heads,
                                            p.regionBytes / 16, pageBytes / 16,
                                            sink);
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        best = std::min(best, ms);
      }
      const double bytes = double(pages) * pageBytes;
      printf("%-62s %2d warps/SM: %7.3f ms, %5.2f TB/s\n", p.name, warpsPerSm,
             best, bytes / (best * 1e-3) / 1e12);
    }
    CHECK(cudaFree(dOrder));
  }
  return 0;
}
