// Stand-in kernels with the real ABI (templates/tq/abi.h), for testing the
// runtime end to end before tqc emits kernels. They implement an
// *uncompressed* paged cache (a "bf16 preset"): store copies each token's
// key and value bits into the layout of mock_manifest.json, and decode is
// plain split-KV attention in fp32 with the workspace format of abi.h; the
// split that finishes last merges (ticket in the workspace, as the real
// kernels do). Simple and slow on purpose: every value the runtime passes
// (pointers, strides, batch, max_batch, scale, the grid) changes the result,
// so the GPU tests can compare against a float64 reference in PyTorch.
//
// Geometry (must match mock_manifest.json): head_dim 64, 8 query heads,
// 2 KV heads, block_size 16, native layout with a key plane then a value
// plane per (block, head) region. Two decode plans, as tqc emits them (one
// kernel per plan and dtype, tq_decode_p<plan>_<dtype>): plans[0] splits the
// KV sequence 4 ways, plans[1] does not. Decode takes splits and
// heads_per_cta from its grid (gridDim.z, num_q_heads / gridDim.x).
//
// Extend (chunked prefill) as tqc emits it, two kernels per dtype: prep
// copies the chunk's keys and values into the workspace (fp16 rows, within
// TQ_EXTEND_WORKSPACE_BYTES), and the attention kernel reads the chunk from
// there only (so a right answer shows that prep ran first, on the same
// stream, with the same arguments). Its grid is (query_tiles, num_kv_heads):
// CTA x takes the x-th kTileTokens-row tile of the sequences in order, so a
// grid that is too small leaves rows unwritten.
#include "tq/abi.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace {

constexpr int kHeadDim = 64, kNumQ = 8, kNumKV = 2, kBlockSize = 16;
constexpr long long kTokenStride = kHeadDim * 2;              // bytes
constexpr long long kValueOffset = kBlockSize * kTokenStride; // value plane
constexpr long long kHeadStride = 2 * kValueOffset;
constexpr long long kBlockStride = kNumKV * kHeadStride;

__device__ float toFloat(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ float toFloat(__half x) { return __half2float(x); }
template <typename T> __device__ T fromFloat(float x);
template <> __device__ __nv_bfloat16 fromFloat(float x) { return __float2bfloat16(x); }
template <> __device__ __half fromFloat(float x) { return __float2half(x); }

template <typename T> __device__ void store(const tq_store_args &a) {
  const int t = blockIdx.x;
  if (t >= a.num_tokens)
    return;
  const long long slot = a.slot_mapping[t];
  if (slot < 0)
    return;
  const long long block = slot / kBlockSize, pos = slot % kBlockSize;
  for (int i = threadIdx.x; i < kNumKV * kHeadDim; i += blockDim.x) {
    const int h = i / kHeadDim, d = i % kHeadDim;
    const T *k = static_cast<const T *>(a.key) + t * a.key_stride_token +
                 h * a.key_stride_head + d;
    const T *v = static_cast<const T *>(a.value) + t * a.value_stride_token +
                 h * a.value_stride_head + d;
    uint8_t *region = a.cache + block * kBlockStride + h * kHeadStride;
    reinterpret_cast<T *>(region + pos * kTokenStride)[d] = *k;
    reinterpret_cast<T *>(region + kValueOffset + pos * kTokenStride)[d] = *v;
  }
}

template <typename T> __device__ void decode(const tq_decode_args &a) {
  const int b = blockIdx.y;
  if (b >= a.batch)
    return;
  const int headsPerCta = kNumQ / gridDim.x;
  const bool active = threadIdx.x < headsPerCta; // one thread per head
  const int qh0 = blockIdx.x * headsPerCta;
  const int h = qh0 + (active ? threadIdx.x : 0);
  const int kvh = h / (kNumQ / kNumKV);
  const int splits = gridDim.z, s = blockIdx.z;
  const int len = a.seq_lens[b];
  const int chunk = (len + splits - 1) / splits;
  const int t0 = s * chunk, t1 = min(len, t0 + chunk);
  const T *q = static_cast<const T *>(a.query) + b * a.query_stride_batch +
               h * a.query_stride_head;
  const float scaleLog2 = a.scale * 1.4426950408889634f;
  float m = -INFINITY, l = 0.f, acc[kHeadDim];
  for (int d = 0; d < kHeadDim; ++d)
    acc[d] = 0.f;
  for (int t = t0; active && t < t1; ++t) {
    const int block = a.block_tables[(long long)b * a.block_table_stride +
                                     t / kBlockSize];
    const uint8_t *region = a.cache + block * kBlockStride + kvh * kHeadStride;
    const T *k = reinterpret_cast<const T *>(region + (t % kBlockSize) * kTokenStride);
    const T *v = reinterpret_cast<const T *>(region + kValueOffset +
                                             (t % kBlockSize) * kTokenStride);
    float dot = 0.f;
    for (int d = 0; d < kHeadDim; ++d)
      dot += toFloat(q[d]) * toFloat(k[d]);
    const float score = dot * scaleLog2;
    const float mNew = fmaxf(m, score);
    const float alpha = exp2f(m - mNew), p = exp2f(score - mNew);
    l = l * alpha + p;
    for (int d = 0; d < kHeadDim; ++d)
      acc[d] = acc[d] * alpha + p * toFloat(v[d]);
    m = mNew;
  }
  T *o = static_cast<T *>(a.out) + b * a.out_stride_batch + h * a.out_stride_head;
  if (splits == 1) {
    for (int d = 0; active && d < kHeadDim; ++d)
      o[d] = fromFloat<T>(l > 0.f ? acc[d] / l : 0.f);
    return;
  }
  // abi.h's workspace: tickets, partials (unnormalized here), (max, sum).
  const long long tickets = (long long)a.max_batch * TQ_TICKETS_PER_ROW(kNumQ);
  const long long row0 = ((long long)b * kNumQ + h) * splits;
  float *partial = a.workspace + tickets;
  float *ml = partial + (long long)a.max_batch * kNumQ * splits * kHeadDim;
  if (active) {
    for (int d = 0; d < kHeadDim; ++d)
      partial[(row0 + s) * kHeadDim + d] = acc[d];
    ml[(row0 + s) * 2] = m;
    ml[(row0 + s) * 2 + 1] = l;
  }
  __threadfence();
  __syncthreads();
  __shared__ bool last;
  if (threadIdx.x == 0) {
    unsigned *ticket = reinterpret_cast<unsigned *>(a.workspace) +
                       b * TQ_TICKETS_PER_ROW(kNumQ) + qh0;
    last = atomicAdd(ticket, 1u) == unsigned(splits) - 1u;
    if (last)
      *ticket = 0u;
  }
  __syncthreads();
  if (!last || !active)
    return;
  __threadfence();
  float mm = -INFINITY;
  for (int j = 0; j < splits; ++j)
    mm = fmaxf(mm, __ldcg(&ml[(row0 + j) * 2]));
  for (int d = 0; d < kHeadDim; ++d) {
    float sum = 0.f, x = 0.f;
    if (mm != -INFINITY)
      for (int j = 0; j < splits; ++j) {
        const float w = exp2f(__ldcg(&ml[(row0 + j) * 2]) - mm);
        sum += __ldcg(&ml[(row0 + j) * 2 + 1]) * w;
        x += __ldcg(&partial[(row0 + j) * kHeadDim + d]) * w;
      }
    o[d] = fromFloat<T>(sum > 0.f ? x / sum : 0.f);
  }
}

constexpr int kTileTokens = 16; // mock_manifest.json's extend tile_tokens

template <typename T> __device__ void extendPrep(const tq_extend_args &a) {
  const int t = blockIdx.x;
  if (t >= a.cu_seqlens_q[a.batch])
    return;
  __half *wk = static_cast<__half *>(a.workspace);
  __half *wv = wk + (long long)a.max_tokens * kNumKV * kHeadDim;
  for (int i = threadIdx.x; i < kNumKV * kHeadDim; i += blockDim.x) {
    const int h = i / kHeadDim, d = i % kHeadDim;
    const long long row = ((long long)t * kNumKV + h) * kHeadDim + d;
    wk[row] = __float2half(toFloat(static_cast<const T *>(a.key)[
        t * a.key_stride_token + h * a.key_stride_head + d]));
    wv[row] = __float2half(toFloat(static_cast<const T *>(a.value)[
        t * a.value_stride_token + h * a.value_stride_head + d]));
  }
}

template <typename T> __device__ void extend(const tq_extend_args &a) {
  // This CTA's tile: the sequences' tiles in order.
  int tile = blockIdx.x, b = 0;
  for (; b < a.batch; ++b) {
    const int n = (a.cu_seqlens_q[b + 1] - a.cu_seqlens_q[b] + kTileTokens - 1) /
                  kTileTokens;
    if (tile < n)
      break;
    tile -= n;
  }
  if (b == a.batch)
    return;
  const int ratio = kNumQ / kNumKV, kvh = blockIdx.y;
  if (threadIdx.x >= ratio)
    return;
  const int h = kvh * ratio + threadIdx.x; // one thread per query head
  const int first = a.cu_seqlens_q[b], len = a.cu_seqlens_q[b + 1] - first;
  const int prefix = a.prefix_lens[b];
  const __half *wk = static_cast<const __half *>(a.workspace);
  const __half *wv = wk + (long long)a.max_tokens * kNumKV * kHeadDim;
  for (int i = tile * kTileTokens; i < min(len, (tile + 1) * kTileTokens); ++i) {
    const long long row = first + i;
    const T *q = static_cast<const T *>(a.query) + row * a.query_stride_token +
                 h * a.query_stride_head;
    float m = -INFINITY, l = 0.f, acc[kHeadDim];
    for (int d = 0; d < kHeadDim; ++d)
      acc[d] = 0.f;
    // The prefix from the cache, then chunk tokens 0..i from the workspace.
    const int chunk = a.key ? i + 1 : 0;
    for (int t = 0; t < prefix + chunk; ++t) {
      float dot = 0.f, v[kHeadDim];
      if (t < prefix) {
        const int block = a.block_tables[(long long)b * a.block_table_stride +
                                         t / kBlockSize];
        const uint8_t *region =
            a.cache + block * kBlockStride + kvh * kHeadStride;
        const T *kp = reinterpret_cast<const T *>(region + (t % kBlockSize) * kTokenStride);
        const T *vp = reinterpret_cast<const T *>(region + kValueOffset +
                                                  (t % kBlockSize) * kTokenStride);
        for (int d = 0; d < kHeadDim; ++d) {
          dot += toFloat(q[d]) * toFloat(kp[d]);
          v[d] = toFloat(vp[d]);
        }
      } else {
        const long long w = ((first + t - prefix) * (long long)kNumKV + kvh) * kHeadDim;
        for (int d = 0; d < kHeadDim; ++d) {
          dot += toFloat(q[d]) * __half2float(wk[w + d]);
          v[d] = __half2float(wv[w + d]);
        }
      }
      const float score = dot * a.scale, mNew = fmaxf(m, score);
      const float alpha = expf(m - mNew), p = expf(score - mNew);
      l = l * alpha + p;
      for (int d = 0; d < kHeadDim; ++d)
        acc[d] = acc[d] * alpha + p * v[d];
      m = mNew;
    }
    T *o = static_cast<T *>(a.out) + row * a.out_stride_token + h * a.out_stride_head;
    for (int d = 0; d < kHeadDim; ++d)
      o[d] = fromFloat<T>(l > 0.f ? acc[d] / l : 0.f);
    if (a.lse)
      a.lse[row * kNumQ + h] = l > 0.f ? m + logf(l) : -INFINITY;
  }
}

} // namespace

extern "C" __global__ void tq_store_bf16(const tq_store_args a) { store<__nv_bfloat16>(a); }
extern "C" __global__ void tq_store_f16(const tq_store_args a) { store<__half>(a); }
// plans[0]: 4 splits.
extern "C" __global__ void tq_decode_p0_bf16(const tq_decode_args a) { decode<__nv_bfloat16>(a); }
extern "C" __global__ void tq_decode_p0_f16(const tq_decode_args a) { decode<__half>(a); }
// plans[1]: one split.
extern "C" __global__ void tq_decode_p1_bf16(const tq_decode_args a) { decode<__nv_bfloat16>(a); }
extern "C" __global__ void tq_decode_p1_f16(const tq_decode_args a) { decode<__half>(a); }
extern "C" __global__ void tq_extend_prep_bf16(const tq_extend_args a) { extendPrep<__nv_bfloat16>(a); }
extern "C" __global__ void tq_extend_prep_f16(const tq_extend_args a) { extendPrep<__half>(a); }
extern "C" __global__ void tq_extend_bf16(const tq_extend_args a) { extend<__nv_bfloat16>(a); }
extern "C" __global__ void tq_extend_f16(const tq_extend_args a) { extend<__half>(a); }
