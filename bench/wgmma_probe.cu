// Checks the wgmma building blocks of the Hopper extend (templates/tq/
// wgmma_cuda.h) on an sm_90a GPU against a float64 host product: S = Q·Kᵀ
// with both operands K-major in 128-byte-swizzled shared memory (m64n64k16,
// 8 k steps over head_dim 128), then O = P·V with P = fp16(S) as register A
// fragments and V MN-major (m64n128k16, 4 k steps over 64 tokens). Variant 1
// swaps V's LBO and SBO, to show which reading of the PTX canonical layout
// the hardware takes.
//   nvcc -std=c++17 -gencode arch=compute_90a,code=sm_90a -I templates \
//     bench/wgmma_probe.cu -o /tmp/wgmma_probe
#include "tq/target_cuda.h"
#include <cuda_fp16.h>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace {
constexpr int M = 64, D = 128, BN = 64;

__device__ void fill(uint8_t *tile, int rows, const __half *src, int r, int col) {
  const int cb = col / 64, ch = (col % 64) / 8, w = col % 8;
  *reinterpret_cast<__half *>(tile + cb * rows * 128 + tq::swizzle128Offset(r, ch) + w * 2) =
      src[r * D + col];
}

__global__ void probe(const __half *q, const __half *k, const __half *v, float *s_out,
                      float *o_out, int variant) {
  __shared__ __align__(1024) uint8_t sQ[M * D * 2], sK[BN * D * 2], sV[BN * D * 2];
  const int tid = threadIdx.x;
  for (int i = tid; i < M * D; i += 128) fill(sQ, M, q, i / D, i % D);
  for (int i = tid; i < BN * D; i += 128) {
    fill(sK, BN, k, i / D, i % D);
    fill(sV, BN, v, i / D, i % D);
  }
  tq::fenceProxyAsyncShared();
  __syncthreads();
  
  float s[8][4] = {};
  const uint32_t aq = tq::sharedAddress(sQ), ak = tq::sharedAddress(sK),
                 av = tq::sharedAddress(sV);
  tq::wgmmaFence();
  for (int kk = 0; kk < D / 16; ++kk) {
    const uint32_t off = (kk / 4) * 64 * 128 + (kk % 4) * 32;
    const uint32_t offK = (kk / 4) * BN * 128 + (kk % 4) * 32;
    tq::wgmmaSS<64>(s, tq::wgmmaDesc(aq + off, 16, 1024), tq::wgmmaDesc(ak + offK, 16, 1024),
                  kk > 0);
  }
  tq::wgmmaCommit();
  tq::wgmmaWait<0>();
  tq::wgmmaPin(s);
  const int warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  for (int j = 0; j < 8; ++j)
    for (int e = 0; e < 4; ++e)
      s_out[(16 * warp + g + 8 * (e / 2)) * BN + 8 * j + 2 * t + e % 2] = s[j][e];
  float o[16][4] = {};
  const uint32_t lbo = variant ? 1024 : BN * 128, sbo = variant ? BN * 128 : 1024;
  tq::wgmmaFence();
  for (int kv = 0; kv < BN / 16; ++kv) {
    const uint32_t pa[4] = {tq::packHalf2(s[2 * kv][0], s[2 * kv][1]),
                            tq::packHalf2(s[2 * kv][2], s[2 * kv][3]),
                            tq::packHalf2(s[2 * kv + 1][0], s[2 * kv + 1][1]),
                            tq::packHalf2(s[2 * kv + 1][2], s[2 * kv + 1][3])};
    tq::wgmmaRS<128>(o, pa, tq::wgmmaDesc(av + kv * 2048, lbo, sbo), kv > 0);
  }
  tq::wgmmaCommit();
  tq::wgmmaWait<0>();
  tq::wgmmaPin(o);
  for (int j = 0; j < 16; ++j)
    for (int e = 0; e < 4; ++e)
      o_out[(16 * warp + g + 8 * (e / 2)) * D + 8 * j + 2 * t + e % 2] = o[j][e];
}
} // namespace

int main() {
  std::mt19937 rng(7);
  std::normal_distribution<float> nd(0.f, 1.f);
  std::vector<__half> hq(M * D), hk(BN * D), hv(BN * D);
  for (auto &x : hq) x = __float2half(nd(rng) * 0.25f);
  for (auto &x : hk) x = __float2half(nd(rng) * 0.25f);
  for (auto &x : hv) x = __float2half(nd(rng));
  __half *q, *k, *v;
  float *s, *o;
  cudaMalloc(&q, M * D * 2); cudaMalloc(&k, BN * D * 2); cudaMalloc(&v, BN * D * 2);
  cudaMalloc(&s, M * BN * 4); cudaMalloc(&o, M * D * 4);
  cudaMemcpy(q, hq.data(), M * D * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(k, hk.data(), BN * D * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(v, hv.data(), BN * D * 2, cudaMemcpyHostToDevice);
  int bad = 0;
  for (int variant = 0; variant < 2; ++variant) {
    cudaMemset(s, 0, M * BN * 4); cudaMemset(o, 0, M * D * 4);
    probe<<<1, 128>>>(q, k, v, s, o, variant);
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) { printf("variant %d: %s\n", variant, cudaGetErrorString(err)); return 1; }
    std::vector<float> hs(M * BN), ho(M * D);
    cudaMemcpy(hs.data(), s, M * BN * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(ho.data(), o, M * D * 4, cudaMemcpyDeviceToHost);
    double es = 0, ms = 0, eo = 0, mo = 0;
    for (int r = 0; r < M; ++r)
      for (int n = 0; n < BN; ++n) {
        double acc = 0;
        for (int c = 0; c < D; ++c) acc += double(__half2float(hq[r * D + c])) * __half2float(hk[n * D + c]);
        es = fmax(es, fabs(acc - hs[r * BN + n])); ms = fmax(ms, fabs(acc));
      }
    for (int r = 0; r < M; ++r)
      for (int c = 0; c < D; ++c) {
        double acc = 0;
        for (int n = 0; n < BN; ++n)
          acc += double(__half2float(__float2half(hs[r * BN + n]))) * __half2float(hv[n * D + c]);
        eo = fmax(eo, fabs(acc - ho[r * D + c])); mo = fmax(mo, fabs(acc));
      }
    const bool okS = es <= 1e-3 * ms, okO = eo <= 1e-3 * mo;
    printf("variant %d (V lbo %s): S max err %.3g of %.3g %s; O max err %.3g of %.3g %s\n", variant,
           variant ? "1024, sbo column blocks" : "column blocks, sbo 1024", es, ms,
           okS ? "ok" : "WRONG", eo, mo, okO ? "ok" : "WRONG");
    bad += !okS || (!okO && variant == 0);
  }
  return bad ? 1 : 0;
}
