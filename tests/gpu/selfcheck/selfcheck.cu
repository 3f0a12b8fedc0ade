//===- selfcheck.cu - Store and decode kernels against the host numerics --===//
//
// Built once per configuration, with the generated translation unit
// (gen_spec's output, exactly what tqc's emitter will produce) included
// below, so the kernels are the ones the TU defines:
//
//   nvcc -std=c++17 -arch=sm_90 -I templates -I numerics/include
//        -DTQ_TU='"gen/x.cu"' selfcheck.cu libtqc_numerics.a -o x
//   ./x <the recipe arguments given to gen_spec for x.cu>
//
// (geometry and plan come from the TU's TqSpec; the recipe arguments rebuild
// the numerics spec, and the TU's layout constants are checked against it).
//
// For each activation dtype (bf16, fp16):
//  1. store: random K/V tokens (plus a zero vector, a one-hot and a constant
//     one) go through tq_store_* into a 0xA5-filled paged cache, in shuffled
//     order with skipped (-1) slots and padded activation strides; the cache
//     bytes are compared with numerics' HostCodec::storeTokens on the same
//     input (every byte of the cache, so stray writes show too).
//  2. decode: sequences of ragged lengths (0, 1, non-multiples of the block
//     size, several splits' worth) over shuffled block tables read that
//     GPU-written cache; tq_decode_* (merging its own splits) is
//     compared with numerics' float64 referenceDecode over the same bytes:
//     relative error per output row, NaN check, exact zeros for an empty
//     sequence, and rows b >= batch (poisoned beforehand) left untouched.
// Prints one PASS/FAIL line per check; exit status 1 on any FAIL.
//===----------------------------------------------------------------------===//
#include TQ_TU

#include "selfcheck_spec.h"
#include "tqc/numerics/attention.h"
#include "tqc/numerics/cache.h"
#include "tqc/numerics/minifloat.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>


using tqc::FieldKind;

namespace {

#define CUDA_CHECK(x)                                                          \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      std::printf("FAIL cuda: %s at %s:%d: %s\n", #x, __FILE__, __LINE__,      \
                  cudaGetErrorString(e_));                                     \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

using S = TqSpec;
constexpr int D = S::kHeadDim;
constexpr int Hq = S::kNumQHeads;
constexpr int Hkv = S::kNumKVHeads;
constexpr int BS = S::kBlockSize;

std::string g_name; // configuration label for the report lines
int g_failures = 0;

void report(bool ok, const std::string &what, const std::string &detail) {
  std::printf("%s %-7s %s: %s\n", ok ? "PASS" : "FAIL", what.c_str(),
              g_name.c_str(), detail.c_str());
  if (!ok)
    ++g_failures;
}

template <class T> struct DT;
template <> struct DT<tq::bf16_t> {
  static const char *name() { return "bf16"; }
  static uint16_t enc(double x) { return tqc::encodeBf16(x); }
  static double dec(uint16_t b) { return tqc::decodeBf16(b); }
};
template <> struct DT<tq::f16_t> {
  static const char *name() { return "f16"; }
  static uint16_t enc(double x) { return tqc::encodeFp16(x); }
  static double dec(uint16_t b) { return tqc::decodeFp16(b); }
};

template <class T> struct Kernels;
template <> struct Kernels<tq::bf16_t> {
  static constexpr auto store = tq_store_bf16;
  static constexpr auto decode = tq_decode_bf16;
};
template <> struct Kernels<tq::f16_t> {
  static constexpr auto store = tq_store_f16;
  static constexpr auto decode = tq_decode_f16;
};

/// The TU's constants must be the layout numerics computes for this spec.
bool checkSpec(const tqc::HostCodec &codec) {
  const tqc::Layout &l = codec.layout();
  bool ok = l.blockStride == S::kBlockStride && l.headStride == S::kHeadStride;
  auto fieldOk = [&](FieldKind k, long long off, long long stride) {
    const tqc::Field *f = l.find(k);
    const bool same = f ? (f->offset == off && f->tokenStride == stride)
                        : off == -1;
    if (!same)
      std::printf("  field %s: TU offset %lld stride %lld, numerics %lld %lld\n",
                  tqc::toString(k), off, stride, f ? (long long)f->offset : -1LL,
                  f ? (long long)f->tokenStride : 0LL);
    return same;
  };
  ok &= fieldOk(FieldKind::KeyCodes, S::kKeyCodesOffset, S::kKeyCodesStride);
  ok &= fieldOk(FieldKind::KeySigns, S::kKeySignsOffset, S::kKeySignsStride);
  ok &= fieldOk(FieldKind::KeyScale, S::kKeyScaleOffset, S::kKeyScaleStride);
  ok &= fieldOk(FieldKind::KeyGamma, S::kKeyGammaOffset, S::kKeyGammaStride);
  ok &= fieldOk(FieldKind::KeyZero, tq::KeyZeroField<S>::kOffset,
                tq::KeyZeroField<S>::kStride);
  ok &= fieldOk(FieldKind::ValueCodes, S::kValueCodesOffset,
                S::kValueCodesStride);
  ok &= fieldOk(FieldKind::ValueScale, S::kValueScaleOffset,
                S::kValueScaleStride);
  ok &= fieldOk(FieldKind::ValueZero, S::kValueZeroOffset, S::kValueZeroStride);
  auto tensorOk = [&](const char *n, const tqc::TensorSpec &t, int quant,
                      int bits, bool qjl, int rot, int rounds) {
    static const int kinds[] = {TQ_QUANT_NONE, TQ_QUANT_LLOYD_MAX,
                                TQ_QUANT_UNIFORM, TQ_QUANT_FP8};
    const bool packed = t.quant.kind == tqc::QuantKind::LloydMax ||
                        t.quant.kind == tqc::QuantKind::Uniform;
    const bool rotated = t.rotation.kind != tqc::RotationKind::None;
    const bool same = quant == kinds[int(t.quant.kind)] &&
                      (!packed || bits == t.quant.codeBits()) &&
                      qjl == t.quant.qjl &&
                      rot == (rotated ? TQ_ROT_HADAMARD : TQ_ROT_NONE) &&
                      (!rotated || rounds == t.rotation.rounds);
    if (!same)
      std::printf("  %s recipe: TU and numerics disagree\n", n);
    return same;
  };
  ok &= tensorOk("key", codec.spec().key, S::kKeyQuant, S::kKeyBits,
                 S::kKeyQjl, S::kKeyRotation, S::kKeyRounds);
  ok &= tensorOk("value", codec.spec().value, S::kValueQuant, S::kValueBits,
                 S::kValueQjl, S::kValueRotation, S::kValueRounds);
  return ok;
}

struct Batch {
  std::vector<int32_t> lens;        // [maxBatch]; rows >= batch unused
  int batch = 0, maxBatch = 0;
  int tableStride = 0;
  std::vector<int32_t> table;       // [maxBatch][tableStride], -1 padded
  int64_t numBlocks = 0;
  // Tokens to store, in launch order: slot (or -1) per launch row.
  std::vector<int64_t> slots;
};

Batch makeBatch(std::mt19937_64 &rng) {
  Batch b;
  b.lens = {37, 0, 1, 1000, BS, 3 * BS + 5, 257, 700};
  b.batch = int(b.lens.size());
  b.maxBatch = b.batch + 2;
  b.lens.resize(b.maxBatch, 0);
  int maxBlocks = 0;
  int64_t blocks = 0;
  for (int s = 0; s < b.batch; ++s) {
    const int nb = (b.lens[s] + BS - 1) / BS;
    maxBlocks = std::max(maxBlocks, nb);
    blocks += nb;
  }
  b.numBlocks = blocks + 5; // a few blocks nobody uses
  b.tableStride = maxBlocks + 3;
  b.table.assign(size_t(b.maxBatch) * b.tableStride, -1);
  std::vector<int32_t> phys(b.numBlocks);
  std::iota(phys.begin(), phys.end(), 0);
  std::shuffle(phys.begin(), phys.end(), rng);
  size_t next = 0;
  for (int s = 0; s < b.batch; ++s)
    for (int i = 0; i < (b.lens[s] + BS - 1) / BS; ++i)
      b.table[size_t(s) * b.tableStride + i] = phys[next++];
  for (int s = 0; s < b.batch; ++s)
    for (int t = 0; t < b.lens[s]; ++t)
      b.slots.push_back(int64_t(b.table[size_t(s) * b.tableStride + t / BS]) *
                            BS + t % BS);
  for (int i = 0; i < 23; ++i) // skipped tokens
    b.slots.push_back(-1);
  std::shuffle(b.slots.begin(), b.slots.end(), rng);
  return b;
}

/// Random token-heads of varied magnitude, with a few special vectors.
std::vector<float> makeTokens(std::mt19937_64 &rng, size_t numTokens,
                              uint16_t (*enc)(double), double (*dec)(uint16_t),
                              std::vector<uint16_t> &bits) {
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> mag(-2.5, 2.5); // log magnitude
  const size_t n = numTokens * Hkv * D;
  std::vector<float> x(n);
  bits.resize(n);
  for (size_t th = 0; th < numTokens * Hkv; ++th) {
    const double m = std::exp(mag(rng));
    const double shift = (th % 7 == 3) ? normal(rng) : 0.0; // some offset
    for (int j = 0; j < D; ++j) {
      double v = normal(rng) * m + shift * m;
      if (th == 5) v = 0.0;                 // zero vector: scale 0
      if (th == 6) v = j == 17 ? 3.0 : 0.0; // one-hot
      if (th == 7) v = 0.75;                // constant: uniform scale -> 0
      const uint16_t b = enc(v);
      bits[th * D + j] = b;
      x[th * D + j] = float(dec(b));
    }
  }
  return x;
}

/// Byte offsets (within a token-head's block region) of every field byte.
struct FieldSpan {
  FieldKind kind;
  int64_t offset, stride, bytes;
};

template <class T> void runDtype(const tqc::HostCodec &codec, uint64_t seed) {
  using K = Kernels<T>;
  const std::string dt = DT<T>::name();
  std::mt19937_64 rng(seed);
  const Batch bt = makeBatch(rng);
  const size_t nTok = bt.slots.size();
  const int64_t cacheBytes = codec.cacheBytes(bt.numBlocks);

  // ---- store -------------------------------------------------------------
  std::vector<uint16_t> kbits, vbits;
  const std::vector<float> keys =
      makeTokens(rng, nTok, DT<T>::enc, DT<T>::dec, kbits);
  const std::vector<float> values =
      makeTokens(rng, nTok, DT<T>::enc, DT<T>::dec, vbits);
  std::vector<uint8_t> hostCache(cacheBytes, 0xA5);
  codec.storeTokens(keys.data(), values.data(), int64_t(nTok), bt.slots.data(),
                    hostCache.data());

  // Device activations with padded token strides (elements).
  const int64_t strideTok = int64_t(Hkv) * D + 8;
  std::vector<uint16_t> kdev(nTok * strideTok, 0x7fff), vdev(nTok * strideTok, 0x7fff);
  for (size_t t = 0; t < nTok; ++t)
    for (int h = 0; h < Hkv; ++h)
      for (int j = 0; j < D; ++j) {
        kdev[t * strideTok + h * D + j] = kbits[(t * Hkv + h) * D + j];
        vdev[t * strideTok + h * D + j] = vbits[(t * Hkv + h) * D + j];
      }
  uint16_t *dK, *dV;
  uint8_t *dCache;
  int64_t *dSlots;
  CUDA_CHECK(cudaMalloc(&dK, kdev.size() * 2));
  CUDA_CHECK(cudaMalloc(&dV, vdev.size() * 2));
  CUDA_CHECK(cudaMalloc(&dCache, cacheBytes));
  CUDA_CHECK(cudaMalloc(&dSlots, nTok * sizeof(int64_t)));
  CUDA_CHECK(cudaMemcpy(dK, kdev.data(), kdev.size() * 2, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dV, vdev.data(), vdev.size() * 2, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dCache, 0xA5, cacheBytes));
  CUDA_CHECK(cudaMemcpy(dSlots, bt.slots.data(), nTok * sizeof(int64_t),
                        cudaMemcpyHostToDevice));
  tq_store_args sa{};
  sa.key = dK;
  sa.value = dV;
  sa.cache = dCache;
  sa.slot_mapping = dSlots;
  sa.key_stride_token = strideTok;
  sa.key_stride_head = D;
  sa.value_stride_token = strideTok;
  sa.value_stride_head = D;
  sa.num_tokens = int32_t(nTok);
  const int maxTokens = int(nTok) + 7; // grid > num_tokens: extra CTAs leave
  K::store<<<maxTokens, S::kStoreWarps * 32>>>(sa);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<uint8_t> gpuCache(cacheBytes);
  CUDA_CHECK(cudaMemcpy(gpuCache.data(), dCache, cacheBytes,
                        cudaMemcpyDeviceToHost));
  {
    const tqc::Layout &l = codec.layout();
    std::vector<uint8_t> isField(cacheBytes, 0);
    int64_t fieldBytes = 0;
    std::vector<int64_t> diffByField(8, 0), diffVecByField(8, 0),
        vecByField(8, 0);
    int shown = 0;
    for (int64_t slot : bt.slots) {
      if (slot < 0)
        continue;
      for (int h = 0; h < Hkv; ++h)
        for (const tqc::Field &f : l.fields) {
          const int64_t a = l.address(f, slot / BS, slot % BS, h);
          bool differs = false;
          for (int64_t i = 0; i < f.bytes; ++i) {
            isField[a + i] = 1;
            if (hostCache[a + i] != gpuCache[a + i]) {
              ++diffByField[int(f.kind)];
              differs = true;
              if (shown < 8) {
                std::printf("  %s differs: slot %lld head %d byte %lld: gpu "
                            "0x%02x host 0x%02x\n",
                            tqc::toString(f.kind), (long long)slot, h,
                            (long long)i, gpuCache[a + i], hostCache[a + i]);
                ++shown;
              }
            }
          }
          fieldBytes += f.bytes;
          ++vecByField[int(f.kind)];
          diffVecByField[int(f.kind)] += differs;
        }
    }
    int64_t stray = 0, diff = 0;
    for (int64_t i = 0; i < cacheBytes; ++i) {
      if (!isField[i] && gpuCache[i] != hostCache[i])
        ++stray;
      if (isField[i] && gpuCache[i] != hostCache[i])
        ++diff;
    }
    char buf[512];
    int n = std::snprintf(buf, sizeof buf,
                          "%lld of %lld field bytes differ (%.4f%%), %lld "
                          "stray bytes written;",
                          (long long)diff, (long long)fieldBytes,
                          100.0 * double(diff) / double(fieldBytes),
                          (long long)stray);
    for (const tqc::Field &f : l.fields)
      n += std::snprintf(buf + n, sizeof buf - n, " %s %lld/%lld",
                         tqc::toString(f.kind),
                         (long long)diffVecByField[int(f.kind)],
                         (long long)vecByField[int(f.kind)]);
    // Ties at rounding / codebook boundaries may differ (store.h); anything
    // above 0.1% of the bytes, or any stray write, is a bug.
    report(stray == 0 && double(diff) <= 1e-3 * double(fieldBytes),
           "store", dt + ": " + buf);
  }

  // ---- decode ------------------------------------------------------------
  int32_t *dTable, *dLens;
  CUDA_CHECK(cudaMalloc(&dTable, bt.table.size() * 4));
  CUDA_CHECK(cudaMalloc(&dLens, bt.lens.size() * 4));
  CUDA_CHECK(cudaMemcpy(dTable, bt.table.data(), bt.table.size() * 4,
                        cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dLens, bt.lens.data(), bt.lens.size() * 4,
                        cudaMemcpyHostToDevice));
  const int64_t qStrideB = int64_t(Hq) * D + 16;
  std::vector<uint16_t> qbits(size_t(bt.maxBatch) * qStrideB, 0x7fff);
  std::vector<double> qref(size_t(bt.batch) * Hq * D);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (int b = 0; b < bt.batch; ++b)
    for (int h = 0; h < Hq; ++h)
      for (int j = 0; j < D; ++j) {
        const uint16_t v = DT<T>::enc(normal(rng));
        qbits[b * qStrideB + h * D + j] = v;
        qref[(size_t(b) * Hq + h) * D + j] = DT<T>::dec(v);
      }
  uint16_t *dQ, *dOut;
  float *dWs;
  const size_t outElems = size_t(bt.maxBatch) * Hq * D;
  const int64_t wsFloats =
      TQ_WORKSPACE_FLOATS(bt.maxBatch, Hq, S::kSplits, D);
  CUDA_CHECK(cudaMalloc(&dQ, qbits.size() * 2));
  CUDA_CHECK(cudaMalloc(&dOut, outElems * 2));
  CUDA_CHECK(cudaMalloc(&dWs, wsFloats * 4));
  CUDA_CHECK(cudaMemcpy(dQ, qbits.data(), qbits.size() * 2,
                        cudaMemcpyHostToDevice));

  tqc::PagedBatch pb;
  pb.cache = gpuCache.data();
  pb.blockTable = bt.table.data();
  pb.maxBlocksPerSeq = bt.tableStride;
  pb.seqLens = bt.lens.data();
  pb.numSeqs = bt.batch;
  std::vector<double> ref(size_t(bt.batch) * Hq * D);

  for (double scaleMul : {1.0, 6.0}) { // 6x: peaky softmax
    const double scale = scaleMul / std::sqrt(double(D));
    tqc::referenceDecode(codec, pb, qref.data(), scale, ref.data());
    CUDA_CHECK(cudaMemset(dOut, 0xFF, outElems * 2)); // NaN poison
    CUDA_CHECK(cudaMemset(dWs, 0xFF, wsFloats * 4));
    // The split tickets start at zero (abi.h); the partials stay poisoned.
    CUDA_CHECK(cudaMemset(dWs, 0, size_t(bt.maxBatch) * TQ_TICKETS_PER_ROW(Hq) * 4));
    tq_decode_args da{};
    da.query = dQ;
    da.cache = dCache;
    da.block_tables = dTable;
    da.seq_lens = dLens;
    da.out = dOut;
    da.workspace = S::kSplits > 1 ? dWs : nullptr;
    da.query_stride_batch = qStrideB;
    da.query_stride_head = D;
    da.out_stride_batch = int64_t(Hq) * D;
    da.out_stride_head = D;
    da.block_table_stride = bt.tableStride;
    da.batch = bt.batch;
    da.max_batch = bt.maxBatch;
    da.scale = float(scale);
    K::decode<<<dim3(Hq / S::kHeadsPerCta, bt.maxBatch, S::kSplits),
                S::kWarps * 32>>>(da);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<uint16_t> out(outElems);
    CUDA_CHECK(cudaMemcpy(out.data(), dOut, outElems * 2,
                          cudaMemcpyDeviceToHost));
    double maxErr = 0, sumErr = 0;
    int rows = 0, nans = 0, badZero = 0, touched = 0, worstB = -1, worstH = -1;
    for (int b = 0; b < bt.maxBatch; ++b)
      for (int h = 0; h < Hq; ++h) {
        const uint16_t *o = &out[(size_t(b) * Hq + h) * D];
        if (b >= bt.batch) {
          for (int j = 0; j < D; ++j)
            touched += o[j] != 0xFFFF;
          continue;
        }
        const double *r = &ref[(size_t(b) * Hq + h) * D];
        double num = 0, den = 0;
        bool nan = false, nonzero = false;
        for (int j = 0; j < D; ++j) {
          const double v = DT<T>::dec(o[j]);
          nan |= std::isnan(v);
          nonzero |= v != 0.0;
          num += (v - r[j]) * (v - r[j]);
          den += r[j] * r[j];
        }
        nans += nan;
        if (bt.lens[b] == 0) {
          badZero += nonzero;
          continue;
        }
        const double err = std::sqrt(num / std::max(den, 1e-300));
        ++rows;
        sumErr += err;
        if (!(err <= maxErr)) {
          maxErr = err;
          worstB = b;
          worstH = h;
        }
      }
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "scale %.3g: max rel err %.3g (seq %d head %d), mean %.3g "
                  "over %d rows; %d NaN rows, %d nonzero empty-seq rows, %d "
                  "elements written past batch",
                  scale, maxErr, worstB, worstH, sumErr / std::max(rows, 1),
                  rows, nans, badZero, touched);
    report(maxErr <= 1e-2 && nans == 0 && badZero == 0 && touched == 0,
           "decode", dt + " splits " + std::to_string(S::kSplits) + " " + buf);
  }
  cudaFree(dK);
  cudaFree(dV);
  cudaFree(dCache);
  cudaFree(dSlots);
  cudaFree(dTable);
  cudaFree(dLens);
  cudaFree(dQ);
  cudaFree(dOut);
  cudaFree(dWs);
}

} // namespace

int main(int argc, char **argv) {
  selfcheck::Params p;
  try {
    for (int i = 1; i < argc; ++i)
      if (!selfcheck::parseArg(p, argc, argv, i) && argv[i][0] == '-' &&
          i + 1 < argc && argv[i + 1][0] != '-')
        ++i; // a plan argument (gen_spec's) and its value: not ours
  } catch (const std::exception &e) {
    std::printf("FAIL args: %s\n", e.what());
    return 1;
  }
  p.headDim = D; // geometry: the TU's
  p.numQHeads = Hq;
  p.numKVHeads = Hkv;
  p.blockSize = BS;
  tqc::CacheSpec spec;
  try {
    spec = selfcheck::makeSpec(p);
  } catch (const std::exception &e) {
    std::printf("FAIL spec: %s\n", e.what());
    return 1;
  }
  const tqc::HostCodec codec(spec);
  char name[256];
  std::snprintf(name, sizeof name,
                "[%s D=%d G=%d hpc=%d bs=%d bn=%d splits=%d warps=%d "
                "rounds=%d]",
                selfcheck::label(p, spec).c_str(), D, Hq / Hkv,
                S::kHeadsPerCta, BS, S::kBlockN, S::kSplits, S::kWarps,
                p.rounds);
  g_name = name;
  report(checkSpec(codec), "spec", "TU constants match numerics' layout");
  runDtype<tq::bf16_t>(codec, 0x5eed0001ull);
  runDtype<tq::f16_t>(codec, 0x5eed0002ull);
  return g_failures ? 1 : 0;
}
