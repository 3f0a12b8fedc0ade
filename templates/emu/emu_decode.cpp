// templates/emu/run.sh: runs the generated TU's decode on the CPU emulator against the
// float64 reference, like tests/gpu/GpuKernelTest.cpp.
#include KERNELS_TU
#include "tqc/numerics/attention.h"
#include "tqc/numerics/cache.h"
#include "tqc/numerics/minifloat.h"
#include "tqc/numerics/spec.h"
#include <cmath>
#include <random>
#include <algorithm>
#include <numeric>
#include <cstdio>
#include <cstring>
namespace emu { std::function<void()> gBody; uintptr_t gSharedBase; }
static int gDummyStatic;
using Spec = PLAN;
int main(int argc, char **argv) {
  emu::gDynSharedBytes = uint32_t(Spec::kDynamicSharedBytes); // what the manifest gives the launch
  if (emu::gDynSharedBytes > sizeof(emu::gDynShared)) { printf("emu: %u B of dynamic shared memory, the emulator has %zu\n", emu::gDynSharedBytes, sizeof(emu::gDynShared)); return 1; }
  emu::gSharedBase = ((uintptr_t)&gDummyStatic & ~uintptr_t((1 << 24) - 1)) - (uintptr_t(1) << 30) - 0x400; // sm_90: user smem starts at 0x400
  const int d = Spec::kHeadDim, hq = Spec::kNumQHeads, hkv = Spec::kNumKVHeads, bs = Spec::kBlockSize;
  auto spec = tqc::presetSpec(PRESET, d, hq, hkv, bs);
  spec->key.quant.qjl = TqSpec::kKeyQjl;
  // Uniform values of other widths than the preset's (run.sh TQC_ARGS="--v-bits N").
  if (spec->value.quant.kind == tqc::QuantKind::Uniform) spec->value.quant.bits = TqSpec::kValueBits;
  if (VLLM_LAYOUT) tqc::useLayout(*spec, tqc::LayoutKind::VLLM);
  tqc::HostCodec codec(*spec);
  const std::vector<int32_t> lens = {0, 1, 17, 300, 2600, 77};
  const int batch = lens.size(), maxBatch = 8, maxBlocksPerSeq = 2600 / bs + 2;
  int numBlocks = 0; for (int l : lens) numBlocks += (l + bs - 1) / bs; numBlocks += 3;
  std::vector<uint8_t> cache(codec.cacheBytes(numBlocks) + 64);
  uint8_t *cacheAligned = (uint8_t *)(((uintptr_t)cache.data() + 15) & ~uintptr_t(15));
  std::mt19937_64 rng(99 + d * 7 + hq); std::normal_distribution<double> normal; std::uniform_int_distribution<int> byte(0, 255);
  std::vector<int32_t> physical(numBlocks); std::iota(physical.begin(), physical.end(), 0); std::shuffle(physical.begin(), physical.end(), rng);
  std::vector<int32_t> table(size_t(maxBatch) * maxBlocksPerSeq, numBlocks - 1);
  int next = 0;
  for (int b = 0; b < batch; ++b) for (int i = 0; i < (lens[b] + bs - 1) / bs; ++i) table[size_t(b) * maxBlocksPerSeq + i] = physical[next++];
  for (size_t i = 0; i < codec.cacheBytes(numBlocks); ++i) cacheAligned[i] = byte(rng);
  // Every token through the store kernel (one CTA per tile of
  // StoreTile::kTokens tokens, shuffled), and
  // through the host codec into a copy: the same bytes but for rare ties.
  std::vector<uint16_t> kBits, vBits; std::vector<float> kHost, vHost; std::vector<int64_t> slots;
  for (int b = 0; b < batch; ++b) for (int t = 0; t < lens[b]; ++t) {
    slots.push_back(int64_t(table[size_t(b) * maxBlocksPerSeq + t / bs]) * bs + t % bs);
    for (int h = 0; h < hkv; ++h) {
      double ks = 0.5 + (t % 5), vs = 0.5 + (t % 3);
      for (int i = 0; i < d; ++i) {
        kBits.push_back(tqc::encodeBf16(ks * normal(rng))); vBits.push_back(tqc::encodeBf16(vs * normal(rng) + 0.25));
        kHost.push_back(float(tqc::decodeBf16(kBits.back()))); vHost.push_back(float(tqc::decodeBf16(vBits.back())));
      }
    }
  }
  const int numTokens = int(slots.size());
  std::vector<uint8_t> hostCache(cacheAligned, cacheAligned + codec.cacheBytes(numBlocks));
  const std::vector<uint8_t> initialCache = hostCache; // the random bytes before any store
  codec.storeTokens(kHost.data(), vHost.data(), numTokens, slots.data(), hostCache.data());
  tq_store_args sa{}; sa.key = kBits.data(); sa.value = vBits.data(); sa.cache = cacheAligned; sa.slot_mapping = slots.data();
  sa.key_stride_token = sa.value_stride_token = int64_t(hkv) * d; sa.key_stride_head = sa.value_stride_head = d; sa.num_tokens = numTokens;
  constexpr int kTile = tq::StoreTile<TqSpec>::kTokens;
  std::vector<int> order((numTokens + kTile - 1) / kTile); std::iota(order.begin(), order.end(), 0); std::shuffle(order.begin(), order.end(), rng);
  auto runStore = [&](const tq_store_args &args) {
    for (int cta : order) emu::runCta(cta, 0, 0, TqSpec::kStoreWarps * 32, [&] { tq::store<TqSpec, tq::bf16_t>(args); });
  };
  runStore(sa);
  // A 16-byte-aligned cache of the same size holding `from`'s bytes, for
  // the stores below (the checks after the first one).
  auto cacheCopy = [&](std::vector<uint8_t> &buf, const uint8_t *from) {
    buf.assign(codec.cacheBytes(numBlocks) + 64, 0);
    uint8_t *c = (uint8_t *)(((uintptr_t)buf.data() + 15) & ~uintptr_t(15));
    std::copy(from, from + codec.cacheBytes(numBlocks), c);
    return c;
  };
  int tied = 0;
  for (int tok = 0; tok < numTokens; ++tok) for (int h = 0; h < hkv; ++h) {
    const int64_t blk = slots[tok] / bs, pos = slots[tok] % bs;
    for (bool key : {true, false}) {
      tqc::StoredVector a = key ? codec.readKey(cacheAligned, blk, pos, h) : codec.readValue(cacheAligned, blk, pos, h);
      tqc::StoredVector e = key ? codec.readKey(hostCache.data(), blk, pos, h) : codec.readValue(hostCache.data(), blk, pos, h);
      if (a.rotated != e.rotated || a.signs != e.signs || a.gamma != e.gamma) {
        if (getenv("EMU_VERBOSE")) { int n = 0; for (int i = 0; i < d; ++i) if (a.rotated[i] != e.rotated[i] && n++ < 3) printf("tok %d h %d %s i %d kernel %.9g host %.9g\n", tok, h, key ? "key" : "value", i, a.rotated[i], e.rotated[i]); }
        ++tied; break; }
    }
  }
  if (tied == 0 && !std::equal(hostCache.begin(), hostCache.end(), cacheAligned)) { printf("store: bytes outside the token-heads differ\n"); return 1; }
  if (tied > numTokens * hkv / 1000) { printf("store: %d of %d token-heads differ from the host codec\n", tied, numTokens * hkv); return 1; }
  // Garbage in stays visible: a NaN coordinate in one key and one value
  // (token-heads of their own) stores a vector that reads back with a NaN
  // (so attention over it is NaN, not finite and wrong); every other
  // token-head stores as before. Stored again over the store above.
  {
    std::vector<uint16_t> kNan = kBits, vNan = vBits;
    const int tk = numTokens / 3, tv = numTokens / 2, hk = 0, hv = hkv - 1;
    kNan[(size_t(tk) * hkv + hk) * d + 5] = 0x7fc0; // bf16 NaN
    vNan[(size_t(tv) * hkv + hv) * d + d / 2 + 1] = 0x7fc0;
    std::vector<uint8_t> nanBuf;
    uint8_t *nanCache = cacheCopy(nanBuf, cacheAligned);
    tq_store_args na = sa; na.key = kNan.data(); na.value = vNan.data(); na.cache = nanCache;
    runStore(na);
    for (int tok = 0; tok < numTokens; ++tok) for (int h = 0; h < hkv; ++h) {
      const int64_t blk = slots[tok] / bs, pos = slots[tok] % bs;
      for (bool key : {true, false}) {
        const bool poisoned = key ? (tok == tk && h == hk) : (tok == tv && h == hv);
        tqc::StoredVector a = key ? codec.readKey(nanCache, blk, pos, h) : codec.readValue(nanCache, blk, pos, h);
        if (poisoned) {
          if (std::none_of(a.rotated.begin(), a.rotated.end(), [](double x) { return std::isnan(x); })) {
            printf("store: a %s with a NaN coordinate reads back without NaN (token %d head %d)\n", key ? "key" : "value", tok, h);
            return 1;
          }
          continue;
        }
        tqc::StoredVector e = key ? codec.readKey(cacheAligned, blk, pos, h) : codec.readValue(cacheAligned, blk, pos, h);
        if (a.rotated != e.rotated || a.signs != e.signs || a.gamma != e.gamma) {
          printf("store: token %d head %d's %s changed beside a NaN input\n", tok, h, key ? "key" : "value");
          return 1;
        }
      }
    }
  }
  // Padding tokens (slot -1, as engines pad a batch) store nothing: every
  // 5th token's slot made -1, stored over the random bytes; its token-heads
  // keep those bytes (compared bit for bit: random bytes may read as NaN),
  // every other token-head is what the store above wrote.
  {
    std::vector<int64_t> padSlots = slots;
    for (int tok = 2; tok < numTokens; tok += 5) padSlots[tok] = -1;
    std::vector<uint8_t> padBuf;
    uint8_t *padCache = cacheCopy(padBuf, initialCache.data());
    tq_store_args pa = sa; pa.cache = padCache; pa.slot_mapping = padSlots.data();
    runStore(pa);
    auto same = [](const tqc::StoredVector &x, const tqc::StoredVector &y) {
      return x.rotated.size() == y.rotated.size() && x.signs == y.signs &&
             std::memcmp(x.rotated.data(), y.rotated.data(), x.rotated.size() * sizeof(double)) == 0 &&
             std::memcmp(&x.gamma, &y.gamma, sizeof(double)) == 0;
    };
    for (int tok = 0; tok < numTokens; ++tok) for (int h = 0; h < hkv; ++h) {
      const int64_t blk = slots[tok] / bs, pos = slots[tok] % bs;
      const uint8_t *want = padSlots[tok] < 0 ? initialCache.data() : cacheAligned;
      for (bool key : {true, false}) {
        auto read = [&](const uint8_t *c) { return key ? codec.readKey(c, blk, pos, h) : codec.readValue(c, blk, pos, h); };
        if (!same(read(padCache), read(want))) {
          printf("store: token %d head %d's %s %s\n", tok, h, key ? "key" : "value",
                 padSlots[tok] < 0 ? "was written though its slot is -1" : "differs beside padding tokens");
          return 1;
        }
      }
    }
  }
  const int64_t rowStride = int64_t(hq) * d + 64;
  std::vector<uint16_t> query(size_t(maxBatch) * rowStride);
  std::vector<double> qh(size_t(batch) * hq * d);
  for (int b = 0; b < batch; ++b) for (int h = 0; h < hq; ++h) for (int i = 0; i < d; ++i) {
    double x = 2.0 * normal(rng); uint16_t q = tqc::encodeBf16(x);
    query[size_t(b) * rowStride + size_t(h) * d + i] = q; qh[(size_t(b) * hq + h) * d + i] = tqc::decodeBf16(q); }
  double scale = 1.0 / std::sqrt(double(d));
  std::vector<double> ref(size_t(batch) * hq * d);
  tqc::PagedBatch pb; pb.cache = cacheAligned; pb.blockTable = table.data(); pb.maxBlocksPerSeq = maxBlocksPerSeq; pb.seqLens = lens.data(); pb.numSeqs = batch;
  tqc::referenceDecode(codec, pb, qh.data(), scale, ref.data());
  const int launched = batch - 1;
  std::vector<uint16_t> out(size_t(maxBatch) * rowStride, 0xFFFF);
  // Partials poisoned with NaN; the tickets zeroed, as abi.h requires.
  const size_t tickets = size_t(maxBatch) * TQ_TICKETS_PER_ROW(hq);
  std::vector<float> ws(TQ_WORKSPACE_FLOATS(maxBatch, hq, Spec::kSplits, d) + 16, NAN);
  std::fill(ws.begin(), ws.begin() + tickets, 0.f);
  tq_decode_args a{}; a.query = query.data(); a.cache = cacheAligned; a.block_tables = table.data(); a.seq_lens = lens.data();
  a.out = out.data(); a.workspace = ws.data(); a.query_stride_batch = rowStride; a.query_stride_head = d; a.out_stride_batch = rowStride; a.out_stride_head = d;
  a.block_table_stride = maxBlocksPerSeq; a.batch = launched; a.max_batch = maxBatch; a.scale = float(scale);
  // CTAs in a shuffled order (the GPU promises none), twice: the second
  // launch must find the tickets the first one left at zero.
  struct Cta { int x, y, z; };
  std::vector<Cta> ctas;
  for (int z = 0; z < Spec::kSplits; ++z) for (int y = 0; y < maxBatch; ++y) for (int x = 0; x < hq / Spec::kHeadsPerCta; ++x) ctas.push_back({x, y, z});
  for (int launch = 0; launch < 2; ++launch) {
    std::shuffle(ctas.begin(), ctas.end(), rng);
    for (const Cta &c : ctas) { emu::runCta(c.x, c.y, c.z, Spec::kWarps * 32, [&] { tq::decode<Spec, tq::bf16_t>(a); }); }
    for (size_t i = 0; i < tickets && Spec::kSplits > 1; ++i) if (ws[i] != 0.f) { printf("ticket %zu not zero after launch %d\n", i, launch); return 1; }
  }
  double worst = 0; int bad = 0;
  for (int b = 0; b < batch; ++b) for (int h = 0; h < hq; ++h) {
    const uint16_t *row = &out[size_t(b) * rowStride + size_t(h) * d]; const double *want = &ref[(size_t(b) * hq + h) * d];
    if (b >= launched) { for (int i = 0; i < d; ++i) if (row[i] != 0xFFFF) { printf("row beyond batch written\n"); return 1; } continue; }
    double num = 0, den = 0;
    for (int i = 0; i < d; ++i) { double x = tqc::decodeBf16(row[i]); if (!std::isfinite(x)) { printf("nonfinite b%d h%d i%d len %d\n", b, h, i, lens[b]); return 1; } num += (x - want[i]) * (x - want[i]); den += want[i] * want[i]; }
    if (lens[b] == 0) { if (num != 0) { printf("empty seq nonzero\n"); return 1; } continue; }
    double rel = std::sqrt(num / std::max(den, 1e-30)); worst = std::max(worst, rel); if (rel > 1e-2) { if (bad++ < 5) printf("b%d (len %d) h%d rel %.3e\n", b, lens[b], h, rel); }
  }
  printf("%s%s D%d hq%d splits %d: store %d/%d token-heads tied; decode worst rel %.3e %s\n", PRESET, VLLM_LAYOUT ? " (vllm)" : "", d, hq, Spec::kSplits, tied, numTokens * hkv, worst, bad ? "FAIL" : "ok");
  return bad ? 1 : 0;
}
