//===- GraphReplayTest.cpp - One captured decode serves every length ------===//
//
// The fixed-grid rule in practice: capture decode once for a batch bucket
// while every sequence has one token, then replay that graph while the
// lengths grow raggedly to 32K. At every step the replay must equal an eager
// launch with the same plan bit for bit, the graph must hold kernel nodes
// only (no copies, memsets or host nodes: nothing that synchronizes), and
// nothing is re-captured or re-instantiated.
//
//===----------------------------------------------------------------------===//

#include "gpu_test_util.h"
#include "tqrt/tqrt.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {


struct Buf {
  void *p = nullptr;
  explicit Buf(size_t n) { cudaMalloc(&p, n); }
  ~Buf() { cudaFree(p); }
};

uint16_t bf16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return uint16_t((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}

TEST(GraphReplay, GrowingLengthsMatchEagerBitForBit) {
  const char *root = std::getenv("TQC_GPU_BUNDLES");
  std::string dir = std::string(root ? root : TQC_GPU_BUNDLES_DEFAULT) +
                    "/k3v4-d128-g4-s8";
  tqrt_bundle *bundle = nullptr;
  TQRT_OK(tqrt_bundle_load_dir(dir.c_str(), &bundle));
  tqrt_bundle_info info;
  TQRT_OK(tqrt_bundle_get_info(bundle, &info));
  const int B = 4, maxLen = 32768, bs = info.block_size;
  const int hq = info.num_q_heads, hkv = info.num_kv_heads, d = info.head_dim;
  const int blocksPerSeq = maxLen / bs;
  const int numBlocks = B * blocksPerSeq;
  uint64_t cacheBytes = 0;
  TQRT_OK(tqrt_cache_bytes(bundle, numBlocks, &cacheBytes));

  tqrt_plan *plan = nullptr;
  const int chunk = 8192;
  TQRT_OK(tqrt_plan_create(bundle, B, chunk, &plan));
  tqrt_plan_info pinfo;
  TQRT_OK(tqrt_plan_get_info(plan, &pinfo));

  // Shuffled pages; every token of every sequence stored by the store kernel.
  std::mt19937 rng(7);
  std::vector<int32_t> table(numBlocks);
  for (int i = 0; i < numBlocks; ++i)
    table[i] = i;
  std::shuffle(table.begin(), table.end(), rng);
  Buf cache(cacheBytes), kv(size_t(chunk) * hkv * d * 2 * 2),
      slots(size_t(chunk) * 8), dTable(table.size() * 4), dLens(B * 4),
      query(size_t(B) * hq * d * 2), outGraph(size_t(B) * hq * d * 2),
      outEager(size_t(B) * hq * d * 2),
      work(pinfo.workspace_bytes ? pinfo.workspace_bytes : 16);
  // Zeroed once (abi.h's split tickets); graph and eager launches share it.
  CUDA_OK(cudaMemset(work.p, 0, pinfo.workspace_bytes ? pinfo.workspace_bytes : 16));
  std::normal_distribution<float> normal;
  std::vector<uint16_t> host(size_t(chunk) * hkv * d * 2);
  std::vector<int64_t> slotHost(chunk);
  for (int b = 0; b < B; ++b)
    for (int t0 = 0; t0 < maxLen; t0 += chunk) {
      for (uint16_t &x : host)
        x = bf16(normal(rng));
      for (int t = 0; t < chunk; ++t) {
        int pos = t0 + t;
        slotHost[t] = int64_t(table[b * blocksPerSeq + pos / bs]) * bs + pos % bs;
      }
      CUDA_OK(cudaMemcpy(kv.p, host.data(), host.size() * 2, cudaMemcpyHostToDevice));
      CUDA_OK(cudaMemcpy(slots.p, slotHost.data(), chunk * 8, cudaMemcpyHostToDevice));
      const uint16_t *k = static_cast<const uint16_t *>(kv.p);
      TQRT_OK(tqrt_launch_store(plan, TQRT_DTYPE_BF16, k, hkv * d, d,
                                k + size_t(chunk) * hkv * d, hkv * d, d,
                                cache.p, cacheBytes,
                                static_cast<const int64_t *>(slots.p), chunk,
                                nullptr));
    }
  std::vector<uint16_t> q(size_t(B) * hq * d);
  for (uint16_t &x : q)
    x = bf16(normal(rng));
  CUDA_OK(cudaMemcpy(query.p, q.data(), q.size() * 2, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dTable.p, table.data(), table.size() * 4, cudaMemcpyHostToDevice));
  std::vector<int32_t> lens(B, 1);
  CUDA_OK(cudaMemcpy(dLens.p, lens.data(), B * 4, cudaMemcpyHostToDevice));
  CUDA_OK(cudaDeviceSynchronize());

  auto decode = [&](void *out, cudaStream_t s) {
    return tqrt_launch_decode(
        plan, TQRT_DTYPE_BF16, query.p, int64_t(hq) * d, d, cache.p,
        cacheBytes, static_cast<const int32_t *>(dTable.p), blocksPerSeq,
        static_cast<const int32_t *>(dLens.p), out, int64_t(hq) * d, d, B,
        0.0f, work.p, pinfo.workspace_bytes, s);
  };

  // Capture once, at length 1.
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  tqrt_status captured = decode(outGraph.p, stream);
  CUDA_OK(cudaStreamEndCapture(stream, &graph));
  ASSERT_EQ(captured, TQRT_OK) << tqrt_last_error();
  size_t numNodes = 0;
  CUDA_OK(cudaGraphGetNodes(graph, nullptr, &numNodes));
  std::vector<cudaGraphNode_t> nodes(numNodes);
  CUDA_OK(cudaGraphGetNodes(graph, nodes.data(), &numNodes));
  ASSERT_EQ(numNodes, size_t(1))
      << "one decode kernel (it merges its own splits) and nothing else";
  for (cudaGraphNode_t n : nodes) {
    cudaGraphNodeType type;
    CUDA_OK(cudaGraphNodeGetType(n, &type));
    EXPECT_EQ(type, cudaGraphNodeTypeKernel) << "a non-kernel node in decode";
  }
  cudaGraphExec_t exec;
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));

  // Grow the lengths raggedly to 32K; the same exec serves every step.
  std::vector<uint16_t> a(q.size()), e(q.size());
  const int steps = 24;
  for (int step = 0; step <= steps; ++step) {
    for (int b = 0; b < B; ++b) {
      double f = double(step) / steps; // 0 .. 1, skewed per sequence
      int len = 1 + int((maxLen - 1) * std::pow(f, 1.0 + b));
      lens[b] = b == 1 && step % 5 == 2 ? 0 : len; // an empty row sometimes
    }
    CUDA_OK(cudaMemcpyAsync(dLens.p, lens.data(), B * 4,
                            cudaMemcpyHostToDevice, stream));
    CUDA_OK(cudaMemsetAsync(outGraph.p, 0xFF, q.size() * 2, stream));
    CUDA_OK(cudaMemsetAsync(outEager.p, 0xFF, q.size() * 2, stream));
    CUDA_OK(cudaGraphLaunch(exec, stream));
    ASSERT_EQ(decode(outEager.p, stream), TQRT_OK) << tqrt_last_error();
    CUDA_OK(cudaStreamSynchronize(stream));
    CUDA_OK(cudaMemcpy(a.data(), outGraph.p, a.size() * 2, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(e.data(), outEager.p, e.size() * 2, cudaMemcpyDeviceToHost));
    ASSERT_EQ(std::memcmp(a.data(), e.data(), a.size() * 2), 0)
        << "step " << step << ": graph replay differs from the eager launch "
        << "(lengths " << lens[0] << ", " << lens[1] << ", " << lens[2]
        << ", " << lens[3] << ")";
    for (size_t i = 0; i < a.size(); ++i)
      ASSERT_NE(a[i], 0xFFFF) << "step " << step << ": element " << i
                              << " not written";
  }
  std::printf("[graph k3v4-d128-g4-s8] %d steps, lengths 1 -> %d, %zu kernel "
              "node(s), replay == eager at every step\n",
              steps + 1, maxLen, numNodes);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
  tqrt_plan_destroy(plan);
  tqrt_bundle_destroy(bundle);
}

} // namespace
