/* store_decode.c - embed a tqc bundle, store tokens, run one decode step.
 *
 * What an engine does with the runtime, in order:
 *   1. load the bundle embedded by the generated header tqc_bundle.h;
 *   2. allocate the paged cache from the manifest's layout;
 *   3. plan a batch bucket (fixed grids + workspace size), once;
 *   4. store new tokens (keys/values -> cache slots) and run decode, on the
 *      engine's stream with the engine's device memory.
 * The CUDA runtime API allocates and copies memory here; the tqrt calls
 * themselves never allocate or synchronize.
 *
 * Build: see runtime/CMakeLists.txt (target tqrt_store_decode); the
 * include path must hold a bundle's tqc_bundle.h. Run: ./tqrt_store_decode
 * Exit status 0 when every output is finite and the empty sequence's row is
 * zero.
 */
#include "tqc_bundle.h"
#include "tqrt/tqrt.h"

#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TQRT_CHECK(call)                                                       \
  do {                                                                         \
    tqrt_status s_ = (call);                                                   \
    if (s_ != TQRT_OK) {                                                       \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__,                   \
              tqrt_status_name(s_), tqrt_last_error());                        \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

#define CUDA_CHECK(call)                                                       \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                       \
              cudaGetErrorString(e_));                                         \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

/* float -> bf16 bits, round to nearest even (inputs here are finite). */
static uint16_t to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

static float from_bf16(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* Uniform in [-1, 1), from a fixed-seed xorshift so runs are repeatable. */
static float uniform(uint64_t *state) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return (float)((*state >> 11) * (1.0 / 9007199254740992.0)) * 2.0f - 1.0f;
}

static void *device_alloc(size_t bytes) {
  void *p = NULL;
  CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
  return p;
}

int main(void) {
  /* 1. The bundle, from the bytes compiled into this program. */
  tqrt_bundle *bundle = NULL;
  TQRT_CHECK(tqrt_bundle_load_memory(tqc_bundle_manifest, tqc_bundle_manifest_len,
                                     tqc_bundle_image, tqc_bundle_image_len,
                                     tqc_bundle_ptx, tqc_bundle_ptx_len, &bundle));
  tqrt_bundle_info info;
  TQRT_CHECK(tqrt_bundle_get_info(bundle, &info));
  tqrt_layout_info layout;
  TQRT_CHECK(tqrt_bundle_get_layout(bundle, &layout));
  printf("bundle: %s for %s, head_dim %d, %d query / %d KV heads, block_size %d, "
         "%d decode plan(s) (%s)\n",
         info.preset, info.arch, info.head_dim, info.num_q_heads,
         info.num_kv_heads, info.block_size, info.num_plans, info.plan_source);
  for (int i = 0; i < info.num_plans; ++i) {
    tqrt_plan_desc desc;
    TQRT_CHECK(tqrt_bundle_get_plan(bundle, i, &desc));
    printf("  plans[%d]: buckets %d..%d, splits %d, heads_per_cta %d, block_n %d\n",
           i, desc.buckets[0], desc.buckets[desc.num_buckets - 1], desc.splits,
           desc.heads_per_cta, desc.block_n);
  }
  printf("layout: %s, %lld bytes per token-head, %lld bytes per block\n",
         layout.kind, (long long)layout.bytes_per_token_head,
         (long long)layout.block_stride);
  if (!(info.dtypes & (1u << TQRT_DTYPE_BF16))) {
    fprintf(stderr, "this example feeds bf16 activations; the bundle has none\n");
    return 1;
  }

  /* The plan loads the kernels into the current context: make device 0's
   * primary context current first. */
  CUDA_CHECK(cudaSetDevice(0));
  CUDA_CHECK(cudaFree(0));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  /* A batch of 4 sequences with ragged lengths, one of them empty. */
  enum { kBatch = 4 };
  const int seq_lens[kBatch] = {37, 1, 0, 70};
  const int H = info.num_kv_heads, Q = info.num_q_heads, D = info.head_dim;
  const int bs = info.block_size;
  int total = 0, max_blocks = 0;
  for (int b = 0; b < kBatch; ++b) {
    int blocks = (seq_lens[b] + bs - 1) / bs;
    total += seq_lens[b];
    if (blocks > max_blocks)
      max_blocks = blocks;
  }

  /* 2. The cache: num_blocks is the engine's choice; twice what is needed,
   * handed out in a shuffled order as a paging allocator would. */
  const int num_blocks = 2 * kBatch * max_blocks;
  uint64_t cache_bytes = 0;
  TQRT_CHECK(tqrt_cache_bytes(bundle, num_blocks, &cache_bytes));
  void *cache = device_alloc(cache_bytes);
  CUDA_CHECK(cudaMemset(cache, 0, cache_bytes));
  printf("cache: %d blocks, %llu bytes\n", num_blocks,
         (unsigned long long)cache_bytes);

  uint64_t rng = 0x9E3779B97F4A7C15ull;
  int *perm = malloc(sizeof(int) * num_blocks);
  for (int i = 0; i < num_blocks; ++i)
    perm[i] = i;
  for (int i = num_blocks - 1; i > 0; --i) {
    int j = (int)((uniform(&rng) * 0.5f + 0.5f) * (float)i);
    int t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  const int table_stride = max_blocks > 0 ? max_blocks : 1;
  int32_t *tables = calloc((size_t)kBatch * table_stride, sizeof(int32_t));
  int64_t *slots = malloc(sizeof(int64_t) * (total ? total : 1));
  int next = 0, t = 0;
  for (int b = 0; b < kBatch; ++b) {
    for (int k = 0; k < (seq_lens[b] + bs - 1) / bs; ++k)
      tables[b * table_stride + k] = perm[next++];
    for (int p = 0; p < seq_lens[b]; ++p)
      slots[t++] = (int64_t)tables[b * table_stride + p / bs] * bs + p % bs;
  }

  /* 3. The plan for this bucket: every token of the prompt in one store. */
  tqrt_plan *plan = NULL;
  TQRT_CHECK(tqrt_plan_create(bundle, kBatch, total, &plan));
  tqrt_plan_info pinfo;
  TQRT_CHECK(tqrt_plan_get_info(plan, &pinfo));
  printf("plan: max_batch %d, max_tokens %d: plans[%d] (%d splits), workspace "
         "%llu bytes, kernels from the %s on device %d (sm_%d)\n",
         pinfo.max_batch, pinfo.max_tokens, pinfo.plan_index, pinfo.splits,
         (unsigned long long)pinfo.workspace_bytes, pinfo.module_source,
         pinfo.device, pinfo.compute_capability);

  /* Random keys, values [total, H, D] and queries [batch, Q, D] in bf16. */
  const size_t kv_elems = (size_t)total * H * D, q_elems = (size_t)kBatch * Q * D;
  uint16_t *host_k = malloc(2 * (kv_elems ? kv_elems : 1));
  uint16_t *host_v = malloc(2 * (kv_elems ? kv_elems : 1));
  uint16_t *host_q = malloc(2 * q_elems);
  for (size_t i = 0; i < kv_elems; ++i) {
    host_k[i] = to_bf16(uniform(&rng));
    host_v[i] = to_bf16(uniform(&rng));
  }
  for (size_t i = 0; i < q_elems; ++i)
    host_q[i] = to_bf16(uniform(&rng));

  void *key = device_alloc(2 * kv_elems), *value = device_alloc(2 * kv_elems);
  void *query = device_alloc(2 * q_elems), *out = device_alloc(2 * q_elems);
  void *d_slots = device_alloc(sizeof(int64_t) * total);
  void *d_tables = device_alloc(sizeof(int32_t) * kBatch * table_stride);
  void *d_lens = device_alloc(sizeof(int32_t) * kBatch);
  void *workspace = device_alloc(pinfo.workspace_bytes);
  /* Zeroed once: the decode keeps its split tickets there (abi.h). */
  CUDA_CHECK(cudaMemset(workspace, 0, pinfo.workspace_bytes ? pinfo.workspace_bytes : 1));
  CUDA_CHECK(cudaMemcpy(key, host_k, 2 * kv_elems, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(value, host_v, 2 * kv_elems, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(query, host_q, 2 * q_elems, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_slots, slots, sizeof(int64_t) * total, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_tables, tables, sizeof(int32_t) * kBatch * table_stride,
                        cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_lens, seq_lens, sizeof(int32_t) * kBatch,
                        cudaMemcpyHostToDevice));

  /* 4. Store every token, then one decode step (one kernel each). Both
   * are asynchronous on `stream`; strides are in elements. */
  TQRT_CHECK(tqrt_launch_store(plan, TQRT_DTYPE_BF16, key, (int64_t)H * D, D,
                               value, (int64_t)H * D, D, cache,
                               (int64_t)cache_bytes, d_slots, total, stream));
  TQRT_CHECK(tqrt_launch_decode(plan, TQRT_DTYPE_BF16, query, (int64_t)Q * D, D,
                                cache, (int64_t)cache_bytes, d_tables,
                                table_stride, d_lens, out, (int64_t)Q * D, D,
                                kBatch, 0.0f /* the manifest's scale */,
                                workspace, pinfo.workspace_bytes, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));

  uint16_t *host_out = malloc(2 * q_elems);
  CUDA_CHECK(cudaMemcpy(host_out, out, 2 * q_elems, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int b = 0; b < kBatch; ++b) {
    double sum = 0, sumsq = 0;
    for (int i = 0; i < Q * D; ++i) {
      float x = from_bf16(host_out[(size_t)b * Q * D + i]);
      if (!isfinite(x) || (seq_lens[b] == 0 && x != 0.0f))
        ++bad;
      sum += x;
      sumsq += (double)x * x;
    }
    printf("row %d (length %2d): mean %+.5f, rms %.5f\n", b, seq_lens[b],
           sum / (Q * D), sqrt(sumsq / (Q * D)));
  }

  tqrt_plan_destroy(plan);
  tqrt_bundle_destroy(bundle);
  void *device_buffers[] = {cache, key, value, query, out, d_slots, d_tables,
                            d_lens, workspace};
  for (size_t i = 0; i < sizeof device_buffers / sizeof *device_buffers; ++i)
    CUDA_CHECK(cudaFree(device_buffers[i]));
  CUDA_CHECK(cudaStreamDestroy(stream));
  free(perm);
  free(tables);
  free(slots);
  free(host_k);
  free(host_v);
  free(host_q);
  free(host_out);
  if (bad) {
    fprintf(stderr, "FAILED: %d outputs not finite, or not zero for the empty "
                    "sequence\n", bad);
    return 1;
  }
  printf("ok\n");
  return 0;
}
