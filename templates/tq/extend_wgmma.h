/*===- extend_wgmma.h - The extend attention on Hopper warpgroup mma ------===*
 *
 * extend.h's attention (same work mapping, same numerics: rotated fp16
 * queries scaled per row, prefix tiles dequantized into fp16, chunk tiles
 * from the prep's workspace, one online softmax in the exp2 domain) with
 * the products on sm_90a's asynchronous warpgroup mma instead of per-warp
 * mma.sync: the warpgroup's tensor cores read the query and key/value tiles
 * straight from shared memory, so no warp spends issue slots on ldmatrix
 * and each tile is read once per 64 query rows instead of once per 16.
 *
 * A CTA is kExtendWarps / 4 warpgroups (8 warps: 128 query rows = 128 / G
 * chunk tokens × G heads); warpgroup w owns rows 64w..64w+63, warp w owns
 * rows 16w..16w+15 (extend.h's row mapping). Shared memory (dynamic, the
 * manifest's dynamic_shared_bytes, aligned here to 1024 bytes): the queries
 * [D/64 column blocks][kRows][64 fp16] and two buffers of a key tile and a
 * value tile [D/64][BN][64 fp16], all in the 128-byte swizzle wgmma reads
 * (wgmma_cuda.h). Per tile: S = Q·Kᵀ (wgmma m64nBNk16 × D/16, both operands
 * K-major from shared memory), scale / zero / masks / online softmax on the
 * accumulator (extend_detail::scoresToProbs, the mma.sync layout), then
 * O += P·V with P as register A fragments and V MN-major (m64nDk16 ×
 * BN/16). The next tile's loads (chunk: cp.async; prefix: its codes and
 * scalars into registers) are issued once S is, and are in flight during
 * both products; its dequantization (prefix) runs while O += P·V does.
 * One barrier per tile; writes to a buffer are published to the tensor
 * cores (the async proxy) by fence.proxy.async before that barrier.
 *
 * Warp specialization (Spec::kExtendProducerWarps = 4, FA3's structure): a
 * producer warpgroup after the consumer warps does all the tile loading and
 * dequantization into the same two buffers, handing them over by mbarriers
 * (full: written, empty: read by every consumer), and the consumer
 * warpgroups run S, the softmax and P·V each at its own pace, so one's
 * softmax runs under the other's products and neither waits on a copy.
 * setmaxnreg splits the CTA's registers (producer 104-128 by the key
 * codes, consumers 184).
 *
 * CTAs of a sequence without a prefix (ExtendWgmmaPlan::kChunkOnlyCtas)
 * are their own instantiation: attention among the chunk's rows alone,
 * where nothing is rotated (chunkRotated), so the producer copies the
 * queries, keys and values straight from the extend's inputs by cp.async
 * (issueRawQueries, KvTileStream::issueRawChunkTensor), the products run
 * in the inputs' type (bf16 or fp16) with scale·log2(e) applied in the
 * softmax, the prep writes no workspace rows for them, and the two
 * consumer warpgroups take turns on the tensor cores (FA3's ping-pong:
 * producer 88 / consumers 208 registers).
 *
 * Only where the compiler chose it (the extend Spec's kExtendWgmma: an
 * sm_90a bundle with warps a multiple of 4, block_n 64 or 128, head_dim 64
 * or 128); compiler/lib/KernelConfig.cpp extendWgmmaSharedBytes computes
 * the same shared memory.
 *===----------------------------------------------------------------------===*/
#ifndef TQ_EXTEND_WGMMA_H
#define TQ_EXTEND_WGMMA_H

namespace tq {

template <class Spec> struct ExtendWgmmaPlan {
  static constexpr int D = Spec::kHeadDim;
  static constexpr int G = Spec::kNumQHeads / Spec::kNumKVHeads;
  static constexpr int NW = Spec::kExtendWarps; // consumers: 16 rows each
  static constexpr int NT = NW * kWarpSize;
  // Warp specialization: a producer warpgroup after the NW consumer warps
  // loads/dequantizes the K/V tiles into the two-buffer ring (mbarriers
  // full/empty per buffer) while the consumers run the products and the
  // softmax; 0: every warp does both, in step (one barrier per tile).
  static constexpr int NP = Spec::kExtendProducerWarps;
  static constexpr int kProducerThreads = NP * kWarpSize;
  // setmaxnreg moves registers between the roles within what the CTA was
  // launched with (its launch bounds' count, 65536 / threads rounded down
  // to 8, per thread): an increase past that waits forever. 384 threads:
  // 168 each. ptxas's spills under the split are not monotonic in it (the
  // table in docs/NOTES.md, sessions 20-22): with a group's lookups before
  // its stores (KvTileStream::stageGroup) producer 128 / consumers 184
  // spill nothing for k3v4, k4v4, k3v3, k2v2, k4v2 at head_dim 64 and 128
  // (k3v4: 68 bytes at 112, 12 at 120); fp8 keys (k8v4: 88 bytes at 128)
  // nothing at 104 until the chunk tiles' softmax skipped its p·z terms
  // (session 24: 4 bytes at 104 and 112 for head_dim 128), nothing at
  // 120. TQ_EXTEND_PRODUCER_REGS overrides it (experiments).
  static constexpr int kLaunchRegs =
      (65536 / (NT + kProducerThreads)) / 8 * 8;
  static constexpr int kKeyBits = TensorInfo<Spec, true>::kCodeBits;
#ifdef TQ_EXTEND_PRODUCER_REGS
  static constexpr int kProducerRegs = TQ_EXTEND_PRODUCER_REGS;
#else
  static constexpr int kProducerRegs = kKeyBits == 8 ? 120 : 128;
#endif
  static constexpr int kConsumerRegs = 184;
  // CTAs whose sequence has no prefix as their own instantiation, with
  // FA3's ping-pong consumers: their producer only copies, so the
  // consumers can take the registers ping-pong needs (P(i-1)'s fragments,
  // S(i) and O live at once; below 192 ptxas serializes their wgmmas,
  // C7512), and they read the chunk's raw rows (kRawChunkCtas). The same
  // consumers in the general body (session 27's TQ_EXTEND_PINGPONG, ae3478b)
  // made the dequantizing producer spill and measured slower. Measured
  // (bench/results/2026-12-06-session28 run1, H100, k3v4): causal 4K
  // 374.7 -> 299.2 us, 8K 1259.1 -> 1056.4; with their raw epilogue
  // (finishRawRows, session 29 run1) 283.7 us against 294.7 without.
  // TQ_EXTEND_CHUNK_ONLY_CTAS=0 turns them off (every CTA the general body:
  // A/B runs).
#ifdef TQ_EXTEND_CHUNK_ONLY_CTAS
  static constexpr bool kChunkOnlyCtas = TQ_EXTEND_CHUNK_ONLY_CTAS && NP > 0;
#else
  static constexpr bool kChunkOnlyCtas = NP > 0;
#endif
  static constexpr bool kChunkPingPong = NW == 8;
  // Ping-pong CTAs also read their chunk from the extend's inputs
  // (issueRawQueries, KvTileStream::issueRawChunkTensor: 16-bit rows as
  // they are, bf16 or fp16 products), not from the prep's workspace.
  static constexpr bool kRawChunkCtas = kChunkOnlyCtas && kChunkPingPong;
  // Their producer also stores the CTA's own chunk tokens when asked
  // (storeTileRows, from its last two tiles, after its last issue), since
  // the prep does not read them; except with 4-bit Lloyd-Max keys at
  // head_dim 128 (k4v4, k4v2), whose store spills there (224 and 56 bytes
  // at 88 registers; the global-load form of session 28 spilled 24-64 at
  // every cap from 88 to 152): there the prep stores those rows.
  // And they write their output through a region of their own
  // (finishRawRows), except with those keys too: there ptxas spills 200
  // bytes (k4v4; at any producer cap from 80 to 104 some), so they keep
  // finishRows and the prep stores their rows.
  static constexpr bool kLloydMax4BitKeys128 =
      TensorInfo<Spec, true>::kQuant == TQ_QUANT_LLOYD_MAX &&
      TensorInfo<Spec, true>::kCodeBits == 4 && D == 128;
  // TQ_EXTEND_CHUNK_ONLY_STORES=0 / TQ_EXTEND_RAW_EPILOGUE=0 turn either
  // off (A/B runs).
  static constexpr bool kRawChunkExtras =
      kRawChunkCtas && !kLloydMax4BitKeys128;
#ifdef TQ_EXTEND_CHUNK_ONLY_STORES
  static constexpr bool kChunkOnlyStores =
      TQ_EXTEND_CHUNK_ONLY_STORES && kRawChunkExtras;
#else
  static constexpr bool kChunkOnlyStores = kRawChunkExtras;
#endif
#ifdef TQ_EXTEND_RAW_EPILOGUE
  static constexpr bool kRawEpilogue =
      TQ_EXTEND_RAW_EPILOGUE && kRawChunkExtras;
#else
  static constexpr bool kRawEpilogue = kRawChunkExtras;
#endif
#ifdef TQ_EXTEND_CHUNK_PRODUCER_REGS
  static constexpr int kChunkProducerRegs = TQ_EXTEND_CHUNK_PRODUCER_REGS;
#else
  static constexpr int kChunkProducerRegs = 88; // 56, 72 spilled (k3v4)
#endif
  // The rest of the CTA's allocation, at most 240.
  static constexpr int kChunkConsumerRegs = minInt(
      240, (kLaunchRegs * (NT + kProducerThreads) -
            kChunkProducerRegs * kProducerThreads) / NT / 8 * 8);
  static constexpr int BN = Spec::kExtendBlockN;
  // KvTileStream's Group for the prefix tiles: the compiler's choice
  // (Spec::kExtendUnitGroup, 4: four consecutive units of a token per
  // thread, whole code words, one block-table lookup per token) where the
  // layout's code words allow it (both thread counts are multiples of
  // 128), else a unit per thread per pass.
  static constexpr int kUnitGroup =
      extend_detail::unitsGroupable<Spec, 128, Spec::kExtendUnitGroup>()
          ? Spec::kExtendUnitGroup
          : 1;
  static constexpr int kRows = 16 * NW;
  static constexpr int kTokTile = kRows / G;
  static constexpr int kQBytes = kRows * D * 2;
  static constexpr int kTensorBytes = BN * D * 2; // one K or V tile
  static constexpr int kBufBytes = 2 * kTensorBytes;
  static constexpr int kOPitch = D + 4;           // floats per output row
  static constexpr int kOutBytes = kRows * kOPitch * 4;
  static constexpr int kMainBytes = kQBytes + 2 * kBufBytes;
  // The ping-pong CTAs' output rows in T (finishRawRows), after the rest:
  // 16 bytes of padding per row keep the quads' stores conflict-free.
  static constexpr int kRawOutPitch = D * 2 + 16;
  static constexpr int kRawOutAt = kMainBytes > kOutBytes ? kMainBytes
                                                          : kOutBytes;
  static constexpr int kRawOutBytes = NW == 8 ? kRows * kRawOutPitch : 0;
  static constexpr int kSmemBytes = kRawOutAt + kRawOutBytes + 1024;

  static_assert(NW % 4 == 0 && NW >= 4 && NW <= 16,
                "extend (wgmma): whole warpgroups");
  static_assert(BN == 64 || BN == 128, "extend (wgmma): block_n 64 or 128");
  static_assert(D == 64 || D == 128, "extend (wgmma): head_dim 64 or 128");
  static_assert(kRows % G == 0, "extend (wgmma): whole tokens per CTA");
  static_assert(BN <= NT, "a thread per token for the tile's scalars");
  static_assert(NP == 0 || (NP == 4 && BN <= kProducerThreads),
                "extend (wgmma): one producer warpgroup");
  static_assert(NP == 0 || kProducerRegs * kProducerThreads +
                                   kConsumerRegs * NT <=
                               kLaunchRegs * (NT + kProducerThreads),
                "extend (wgmma): the roles' registers fit the CTA's");
};

#if defined(TQ_TARGET_HAS_WGMMA)
namespace extend_detail {

/* Byte offset of 16-byte unit c (coordinates 8c..8c+7) of row r in a
 * swizzled tile of `rows` rows. */
TQ_INLINE uint32_t swizzledUnit(int rows, int r, int c) {
  return uint32_t((c >> 3) * rows * 128) + swizzle128Offset(r, c & 7);
}

/* Into L2, the query rows of the CTA one SM count later in launch order
 * (x fastest, then y), about the CTA that starts when this one ends (a CTA
 * fills its SM; CTAs end in about launch order), so that its query staging,
 * the consumers' first work, waits on L2 instead of DRAM: in the causal 4K
 * chunk that wait (long-scoreboard stalls on the query rows) was ~9 % of
 * all stall samples (ncu source counters,
 * bench/results/2026-12-06-session24-h100 run3; with the prefetch the
 * causal 4K went 407.8 -> 398.0 us, run4). A hint: wrong guesses cost a
 * little L2 traffic. The producer's threads issue it first thing: a line
 * should stay in L2 for longer than a CTA runs (an estimate: the kernel's
 * new lines, queries and outputs, are ~8 MB per 50 us of a 50 MB L2). */
template <class Spec, class T, int kTok>
TQ_INLINE void prefetchLaterQueries(const tq_extend_args &a, int tid,
                                    int threads) {
  constexpr int D = Spec::kHeadDim, G = Spec::kNumQHeads / Spec::kNumKVHeads;
  constexpr int kLines = D * 2 / 128; // 128-byte lines per query row
  const int gx = gridSizeX();
  const int later = blockIndexY() * gx + blockIndexX() + smIdCount();
  const int kvh = later / gx;
  if (kvh >= gridSizeY())
    return;
  int b = 0, tile = -1;
  findQueryTile<kTok>(a, later % gx, b, tile);
  if (tile < 0)
    return;
  const int row0 = a.cu_seqlens_q[b], n = a.cu_seqlens_q[b + 1] - row0;
  const int tok0 = tile * kTok, ntok = minInt(kTok, n - tok0);
  const T *q = static_cast<const T *>(a.query);
  for (int i = tid; i < ntok * G * kLines; i += threads) {
    const int r = i / kLines, part = i % kLines;
    prefetchL2(q + int64_t(row0 + tok0 + r / G) * a.query_stride_token +
               int64_t(kvh * G + r % G) * a.query_stride_head + part * 64);
  }
}

} // namespace extend_detail

/* One CTA's work (query tile `tile` of sequence b). kChunkOnly: the
 * sequence has no prefix (warp-specialized form only), so its producer only
 * issues copies and the roles split the registers the other way
 * (Pl::kChunkProducerRegs / kChunkConsumerRegs), which the ping-pong
 * consumers need (P(i-1)'s fragments, S(i) and O live at once). Separate
 * instantiations below the kernel's one branch: within one body, values
 * for both forms were hoisted above the role split and spilled (session
 * 25, ptxas). */
template <class Spec, class T, bool kChunkOnly>
TQ_INLINE void extendWgmmaCta(const tq_extend_args &a, int b, int tile) {
  using namespace extend_detail;
  using Pl = ExtendWgmmaPlan<Spec>;
  using KInfo = TensorInfo<Spec, true>;
  using VInfo = TensorInfo<Spec, false>;
  constexpr int D = Pl::D, NT = Pl::NT, BN = Pl::BN, kRows = Pl::kRows;
  constexpr int kTok = Pl::kTokTile, NTL = BN / 8, VS = BN / 16, OT = D / 8;
  constexpr int OP = Pl::kOPitch;
  constexpr bool kSpecialized = Pl::NP > 0;
  static_assert(!kChunkOnly || kSpecialized, "chunk-only CTAs: specialized");
  // Ping-pong CTAs take the chunk's queries, keys and values as the inputs
  // hold them (Pl::kRawChunkCtas, which the prep reads too): the products
  // in the inputs' type.
  constexpr bool kPingPong = kChunkOnly && Pl::kRawChunkCtas;
  constexpr bool kBf16 = kPingPong && DType<T>::kIsBf16;
  constexpr int kProducerRegs =
      kChunkOnly ? Pl::kChunkProducerRegs : Pl::kProducerRegs;
  constexpr int kConsumerRegs =
      kChunkOnly ? Pl::kChunkConsumerRegs : Pl::kConsumerRegs;
  const int kvh = blockIndexY();
  const int row0 = a.cu_seqlens_q[b];
  const int n = a.cu_seqlens_q[b + 1] - row0;
  const int P = kChunkOnly ? 0 : a.prefix_lens[b];
  const int tok0 = tile * kTok, ntok = minInt(kTok, n - tok0);
  const bool haveChunk = a.key != nullptr;

  if (dynamicSharedBytes() < uint32_t(Pl::kSmemBytes))
    trap(); // launched without the plan's shared memory
  uint8_t *const dyn = dynamicShared();
  uint8_t *const smem = dyn + ((1024u - (sharedAddress(dyn) & 1023u)) & 1023u);
  uint8_t *const sQ = smem;
  uint8_t *const sTiles = smem + Pl::kQBytes; // [buf][K | V]
  float *const sO = reinterpret_cast<float *>(smem); // after the last tile
  TQ_SHARED TQ_ALIGN(16) float sKs[2][BN], sKz[2][BN], sVs[2][BN], sVz[2][BN];
  TQ_SHARED float sRowF[kRows], sRowQs[kRows];
  TQ_SHARED uint32_t sLutK[UnitLut<KInfo>::kWords],
      sLutV[UnitLut<VInfo>::kWords];

  const int warp = warpIndex(), lane = laneIndex();
  const int g = lane >> 2, t = lane & 3, wg = warp >> 2;
  const bool producer = kSpecialized && warp >= Pl::NW;
  // Warp specialization's ring: full[s] completes when the producer has
  // written buffer s (its kProducerThreads arrivals), empty[s] when every
  // consumer thread has finished reading it.
  TQ_SHARED uint64_t sFull[2], sEmpty[2];
  // Ping-pong (kPingPong): sFull / sEmpty guard the key tiles, these the
  // value tiles (a key tile is refilled while its value tile still waits
  // for its product); sQFull the queries the producer copies.
  TQ_SHARED uint64_t sFullV[kPingPong ? 2 : 1], sEmptyV[kPingPong ? 2 : 1],
      sQFull;
  // Ping-pong CTAs store their own chunk tokens when asked (storeTileRows,
  // the producer warpgroup): the store's shared tables, sized for it.
  using StoreTb = store_detail::StoreTables<Spec, kPingPong ? Pl::NP : 1>;
  constexpr int kStoreRows = kPingPong ? StoreTb::kGroups : 1;
  TQ_SHARED store_detail::StoreReal<KInfo>
      sKeyBook[kPingPong ? StoreTb::kKeyLevels : 1];
  TQ_SHARED store_detail::StoreReal<VInfo>
      sValueBook[kPingPong ? StoreTb::kValueLevels : 1];
  TQ_SHARED uint8_t sCodes[kStoreRows][D];
  TQ_SHARED float sResid[kPingPong ? Pl::NP : 1][StoreTb::kResid];
  TQ_SHARED TQ_ALIGN(16) uint32_t sPairMasks[2][kPingPong ? D / 2 : 1];
  // The own tokens lie in the last two tiles (tile and token counts are
  // powers of two).
  static_assert(!Pl::kChunkOnlyStores || Pl::kTokTile <= 2 * BN,
                "a chunk-only CTA's own tokens within its last two tiles");
  const bool storing = Pl::kChunkOnlyStores && kPingPong &&
                       a.slot_mapping != nullptr;
  // Per buffer, per producer warp: whether its tokens' scales are all 1
  // (KvTileStream::unitScales: chunk rows the prep wrote as they are),
  // so the consumers skip the per-column multiplies when all four say so.
  TQ_SHARED TQ_ALIGN(16) uint32_t sUnitScales[2][4];

  // The prefix tiles' code tables (raw chunk CTAs have no prefix tiles).
  if (!kPingPong && warp == (kSpecialized ? Pl::NW : 0)) {
    if constexpr (KInfo::kQuant == TQ_QUANT_LLOYD_MAX)
      fillUnitLut<KInfo>(sLutK, Spec::keyLevels());
    if constexpr (VInfo::kQuant == TQ_QUANT_LLOYD_MAX)
      fillUnitLut<VInfo>(sLutV, Spec::valueLevels());
  }
  if constexpr (kSpecialized) {
    if (threadIndex() == 0) {
      TQ_UNROLL
      for (int i = 0; i < 2; ++i) {
        barrierInit(&sFull[i], Pl::kProducerThreads);
        barrierInit(&sEmpty[i], NT);
        if constexpr (kPingPong) {
          barrierInit(&sFullV[i], Pl::kProducerThreads);
          barrierInit(&sEmptyV[i], NT);
        }
      }
      if constexpr (kPingPong)
        barrierInit(&sQFull, Pl::kProducerThreads);
      fenceBarrierInit();
    }
  }
  auto queries = [&] {
    stageQueries<Spec, T, 16>(a, kvh, row0, tok0, ntok, chunkRotated(P),
                              sRowF, sRowQs,
                              [&](int r, int col, uint32_t h2) {
                                *reinterpret_cast<uint32_t *>(
                                    sQ + swizzledUnit(kRows, r, col >> 3) +
                                    (col & 7) * 2) = h2;
                              });
    fenceProxyAsyncShared(); // the queries are read by the tensor cores
  };
  if constexpr (kSpecialized) {
    // The tables and mbarriers first; then the producer loads its first
    // tiles while the consumers stage the queries (their own barrier): a
    // causal chunk's CTA walks ~16 tiles, and the queries' loads and
    // rotation before its first tile were a quarter of its time
    // (session 22's ncu).
    if constexpr (kPingPong) {
      if (storing && producer) // ordered before the store by the barrier
        store_detail::fillStoreTables<Spec, Pl::NP, false>(
            sKeyBook, sValueBook, sPairMasks, warp - Pl::NW);
    }
    // Ping-pong CTAs: the producer copies the queries (sQFull).
    barrier();
    if (!producer && !kPingPong) {
      queries();
      namedBarrier(1, NT);
    }
  } else {
    queries();
    barrier();
  }

  // Tile i lives in buffer i % 2: the key tile, then the value tile, each
  // 128-byte swizzled.
  auto unitAt = [&](int i) {
    return [=](int nn, int c, bool value) {
      return reinterpret_cast<uint16_t *>(
          sTiles + (i & 1) * Pl::kBufBytes + (value ? Pl::kTensorBytes : 0) +
          swizzledUnit(BN, nn, c));
    };
  };
  const int upto = haveChunk ? tok0 + ntok : 0;
  // The fused store's row words (storeTileRows): this lane's E coordinates
  // of chunk token tok's key or value row, from the last tiles in shared
  // memory, which hold the CTA's own tokens (kTokTile <= 2·BN: the
  // diagonal ones) and which nothing refills.
  constexpr int kStoreE = D / store_detail::kStoreGroup<Spec>;
  auto ownRowWords = [&](int tok, bool value, uint32_t(&x)[kStoreE / 2]) {
    const int c0 = (laneIndex() % store_detail::kStoreGroup<Spec>) *
                   (kStoreE / 8);
    const auto at = unitAt(tok / BN);
    TQ_UNROLL
    for (int u = 0; u < kStoreE / 8; ++u) {
      const u32x4 v =
          *reinterpret_cast<const u32x4 *>(at(tok % BN, c0 + u, value));
      x[4 * u] = v.x, x[4 * u + 1] = v.y;
      x[4 * u + 2] = v.z, x[4 * u + 3] = v.w;
    }
  };

  if constexpr (kSpecialized) {
    if (producer) {
      // --- Producer: tile i into buffer i % 2 once its consumers are done
      // with tile i - 2; a prefix tile's loads are issued one tile ahead.
      if constexpr (kPingPong) {
        issueRawQueries<Spec, T, kRows, Pl::kProducerThreads>(
            a, kvh, row0, tok0, ntok, threadIndex() - NT,
            [&](int r, int c) { return sQ + swizzledUnit(kRows, r, c); });
        copyAsyncArrive(&sQFull);
      }
      prefetchLaterQueries<Spec, T, kTok>(a, threadIndex() - NT,
                                          Pl::kProducerThreads);
      lowerRegisters<kProducerRegs>();
      using Stream =
          KvTileStream<Spec, Pl::kProducerThreads, BN, 64, Pl::kUnitGroup>;
      static_assert(Stream::kStep % 8 == 0,
                    "a thread's units 8k token rows apart");
      Stream tiles(a, b, kvh, row0, P, upto, threadIndex() - NT);
      const int numTiles = tiles.numTiles;
      if (numTiles > 0 && !tiles.isChunk(0))
        tiles.issue(0, unitAt(0));
      if constexpr (kPingPong) {
        // Chunk tiles only (no prefix), each tensor into its buffer once
        // its consumers are done with it, handed over as the copies land;
        // the inputs' rows, so nothing waits for the prep.
        for (int i = 0; i < numTiles; ++i) {
          const int buf = i & 1;
          const uint32_t freed = ((i >> 1) & 1) ^ 1;
          barrierWait(&sEmpty[buf], freed);
          tiles.template issueRawChunkTensor<T, false>(i, unitAt(i));
          copyAsyncArrive(&sFull[buf]);
          barrierWait(&sEmptyV[buf], freed);
          tiles.template issueRawChunkTensor<T, true>(i, unitAt(i));
          copyAsyncArrive(&sFullV[buf]);
        }
        if (storing) {
          // The CTA's own tokens into the cache (when asked), from the
          // last tiles (ownRowWords): the producer is otherwise idle while
          // the consumers finish those tiles and the epilogue, and the
          // rows cross memory once (session 28's form loaded them again,
          // between tiles 1 and 2, and held up tile 2: run2). Splitting
          // it (the producer the keys once its key tiles landed, warpgroup
          // 0 the values after its epilogue) gained nothing at causal 4K
          // and cost 6x over a 28K prefix (session 33, bench/results).
          copyAsyncWait<0>();
          namedBarrier(4, Pl::kProducerThreads); // every copy has landed
          storeTileRows<Spec, T, Pl::NP>(a, kvh, row0, tok0, ntok,
                                         warp - Pl::NW, sPairMasks, sKeyBook,
                                         sValueBook, sCodes, sResid,
                                         ownRowWords);
        }
        copyAsyncWait<0>(); // no copy outlives its thread
        // Without the raw epilogue sO overlays the tiles: the producer's
        // last reads of them before its writes.
        if constexpr (!Pl::kRawEpilogue)
          namedBarrierArrive(1, NT + Pl::kProducerThreads);
        return;
      }
      for (int i = 0; i < numTiles; ++i) {
        barrierWait(&sEmpty[i & 1], ((i >> 1) & 1) ^ 1);
        if (i == tiles.prefixTiles)
          waitForChunkRows(); // the prep's workspace, first read here
        if (tiles.isChunk(i))
          tiles.issue(i, unitAt(i));
        tiles.stage(i, unitAt(i), sLutK, sLutV, sKs, sKz, sVs, sVz);
        const bool unit =
            tiles.isChunk(i) && !anyLane(!tiles.unitScales(i));
        if (laneIndex() == 0)
          sUnitScales[i & 1][warp - Pl::NW] = unit;
        fenceProxyAsyncShared(); // the tile is read by the tensor cores
        barrierArrive(&sFull[i & 1]);
        if (i + 1 < numTiles && !tiles.isChunk(i + 1))
          tiles.issue(i + 1, unitAt(i + 1));
      }
      return;
    }
    raiseRegisters<kConsumerRegs>();
  }

  float rf[2], qs[2];
  int rTok[2];
  TQ_UNROLL
  for (int i = 0; i < 2; ++i) {
    const int r = warp * 16 + g + 8 * i;
    // Raw queries (ping-pong): the whole factor in the softmax's fma.
    rf[i] = kPingPong ? a.scale * kLog2e : sRowF[r];
    qs[i] = kPingPong ? 0.f : sRowQs[r];
    rTok[i] = r / Pl::G < ntok ? tok0 + r / Pl::G : -1; // -1: padding row
  }

  float m[2] = {negInf(), negInf()}, l[2] = {0.f, 0.f}, zb[2] = {0.f, 0.f};
  float o[OT][4];
  TQ_UNROLL
  for (int j = 0; j < OT; ++j)
    o[j][0] = o[j][1] = o[j][2] = o[j][3] = 0.f;

  // Swizzled rows are 128 bytes apart (64 fp16) wherever a thread's units
  // are whole swizzle periods (8 rows) apart, which whole warpgroups give.
  using Stream = KvTileStream<Spec, NT, BN, 64, Pl::kUnitGroup>;
  static_assert(Stream::kStep % 8 == 0, "a thread's units 8k token rows apart");
  Stream tiles(a, b, kvh, row0, P, upto);
  auto stage = [&](int i) {
    tiles.stage(i, unitAt(i), sLutK, sLutV, sKs, sKz, sVs, sVz);
    fenceProxyAsyncShared(); // the tile is read by the tensor cores
  };

  // S = Q·Kᵀ issued (issueScores), then the softmax and O += P·V issued
  // (attendTile; not waited for). The operand descriptors are built once:
  // a descriptor's address field is the byte address / 16, so a step
  // through a tile adds its offset / 16.
  const uint64_t qDesc =
      wgmmaDesc(sharedAddress(sQ) + uint32_t(wg * 64 * 128), 16, 1024);
  const uint64_t kDesc0 = wgmmaDesc(sharedAddress(sTiles), 16, 1024);
  const uint64_t vDesc0 =
      wgmmaDesc(sharedAddress(sTiles) + Pl::kTensorBytes, BN * 128, 1024);
  float s[NTL][4];
  TQ_UNROLL
  for (int j = 0; j < NTL; ++j)
    s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.f;
  auto issueScores = [&](int buf) {
    const uint64_t kDesc = wgmmaDescAdvance(kDesc0, buf * Pl::kBufBytes);
    wgmmaFence();
    TQ_UNROLL
    for (int kk = 0; kk < D / 16; ++kk) {
      const uint32_t inBlock = uint32_t((kk & 3) * 32);
      wgmmaSS<BN, kBf16>(s,
                  wgmmaDescAdvance(qDesc, (kk >> 2) * kRows * 128 + inBlock),
                  wgmmaDescAdvance(kDesc, (kk >> 2) * BN * 128 + inBlock),
                  kk > 0);
    }
    wgmmaCommit();
  };
  // Tile i's softmax on S (waited for) into P's A fragments, scaled by
  // the value scales; o rescaled where a row's maximum moved (o must be
  // ours: no O += P·V in flight).
  auto softmaxTile = [&](int i, bool unit, uint32_t (&pa)[VS][4]) {
    const int buf = i & 1;
    float corr[2];
    if (!unit)
      scaleColumns(s, sKs[buf], t);
    // Raw chunk tiles (ping-pong) have no zero points.
    const bool rescale = scoresToProbs<KInfo::kHasZero && !kPingPong,
                                       VInfo::kHasZero && !kPingPong>(
        s, rf, qs, rTok, sKz[buf], sVz[buf], tiles.count(i), tiles.isChunk(i),
        tiles.start(i), t, m, l, zb, corr);
    if (!unit)
      scaleColumns(s, sVs[buf], t);
    if (rescale) {
      TQ_UNROLL
      for (int j = 0; j < OT; ++j) {
        o[j][0] *= corr[0], o[j][1] *= corr[0];
        o[j][2] *= corr[1], o[j][3] *= corr[1];
      }
    }
    TQ_UNROLL
    for (int kv = 0; kv < VS; ++kv)
      probFragment<kBf16>(s, kv, pa[kv]);
  };
  // O += P·V over buffer buf's value tile (issued, not waited for).
  auto issueValues = [&](int buf, const uint32_t (&pa)[VS][4]) {
    const uint64_t vDesc = wgmmaDescAdvance(vDesc0, buf * Pl::kBufBytes);
    wgmmaFence();
    TQ_UNROLL
    for (int kv = 0; kv < VS; ++kv)
      wgmmaRS<D, kBf16>(o, pa[kv], wgmmaDescAdvance(vDesc, kv * 16 * 128), true);
    wgmmaCommit();
  };
  auto attendTile = [&](int i, bool unit) {
    wgmmaWait<0>();
    wgmmaPin(s);
    uint32_t pa[VS][4];
    softmaxTile(i, unit, pa);
    issueValues(i & 1, pa);
  };
  auto unitTile = [&](int i) {
    const u32x4 f = *reinterpret_cast<const u32x4 *>(sUnitScales[i & 1]);
    return (f.x & f.y & f.z & f.w) != 0u;
  };

  const int numTiles = tiles.numTiles;
  if constexpr (kSpecialized && kPingPong) {
    // --- Consumers taking turns (FA3's ping-pong; chunk tiles only):
    // warpgroup w issues O += P(i-1)·V(i-1) and S(i) back to back in its
    // turn (named barrier 2 + w), hands the turn over, and runs softmax(i)
    // while the other warpgroup's products keep the tensor cores busy.
    // Groups complete in order, so S(i)'s wait also finds P(i-1)·V(i-1)
    // done: o is ours for the rescale, key tile i and value tile i - 1 are
    // released. P(i - 1)'s fragments stay untouched until that wait (the
    // tensor cores read them).
    constexpr int kTurn = 2 * 128;
    uint32_t pa[VS][4];
    auto passTurn = [&](bool last) {
      if (wg == 0 || !last) // warpgroup 1's last turn has no taker
        namedBarrierArrive(2 + (wg ^ 1), kTurn);
    };
    // Value tile i - 1 must have landed before its product is issued (in
    // turn i), not before softmax(i - 1): that waits only for key tile i.
    auto valuesLanded = [&](int i) {
      barrierWait(&sFullV[i & 1], (i >> 1) & 1);
      fenceProxyAsyncShared(); // copied by cp.async, read by the tensor cores
    };
    barrierWait(&sQFull, 0); // the queries, copied by the producer
    if (wg == 1 && numTiles > 0)
      namedBarrierArrive(2, kTurn); // warpgroup 0 goes first
    for (int i = 0; i < numTiles; ++i) {
      const int buf = i & 1;
      barrierWait(&sFull[buf], (i >> 1) & 1);
      fenceProxyAsyncShared();
      if (i > 0)
        valuesLanded(i - 1);
      namedBarrier(2 + wg, kTurn);
      if (i > 0)
        issueValues((i - 1) & 1, pa);
      issueScores(buf);
      passTurn(false);
      wgmmaWait<0>();
      wgmmaPin(s);
      wgmmaPin(o);
      // S(i) and P(i-1)·V(i-1) are done: key tile i and value tile i - 1
      // are read (raw rows: no scalars for the softmax to read).
      barrierArrive(&sEmpty[buf]);
      if (i > 0)
        barrierArrive(&sEmptyV[(i - 1) & 1]);
      softmaxTile(i, true, pa); // unit scales, no zero points
    }
    if (numTiles > 0) {
      valuesLanded(numTiles - 1);
      namedBarrier(2 + wg, kTurn);
      issueValues((numTiles - 1) & 1, pa);
      passTurn(true);
      wgmmaWait<0>();
      wgmmaPin(o);
      barrierArrive(&sEmptyV[(numTiles - 1) & 1]);
    }
    // Nothing here reads the prep's work, yet the CTA waits for it before
    // it ends, so that the attention's completion still implies the prep's
    // (its workspace rows and fused store) for whatever the stream runs
    // next.
    waitForChunkRows();
    if constexpr (Pl::kRawEpilogue) {
      // The output through a region of its own: no barrier with the other
      // warpgroup or the producer (whose store may still read the tiles).
      static_assert(Pl::kRawOutBytes > 0, "ping-pong: eight consumer warps");
      finishRawRows<Spec, T, OT, Pl::kRawOutPitch>(
          a, o, m, l, rTok, kvh, row0, tok0, ntok, smem + Pl::kRawOutAt);
      return;
    }
    // Both warpgroups' and the producer's last reads of the tiles before
    // sO's writes.
    namedBarrier(1, NT + Pl::kProducerThreads);
  } else if constexpr (kSpecialized) {
    // --- Consumers: each warpgroup at its own pace, the producer ahead.
    for (int i = 0; i < numTiles; ++i) {
      barrierWait(&sFull[i & 1], (i >> 1) & 1);
      issueScores(i & 1);
      attendTile(i, unitTile(i));
      wgmmaWait<0>(); // O += P·V done: o is ours, buffer i & 1 read
      wgmmaPin(o);
      barrierArrive(&sEmpty[i & 1]);
    }
    namedBarrier(1, NT); // both warpgroups' last reads before sO's writes
  } else {
    // --- In step: tile i + 1 in flight while tile i is computed.
    if (numTiles > 0) {
      tiles.issue(0, unitAt(0));
      stage(0);
      barrier();
    }
    for (int i = 0; i < numTiles; ++i) {
      // S(i) first, then the next tile's loads while the tensor cores work.
      issueScores(i & 1);
      if (i + 1 < numTiles)
        tiles.issue(i + 1, unitAt(i + 1));
      attendTile(i, false);
      if (i + 1 < numTiles)
        stage(i + 1);
      wgmmaWait<0>(); // O += P·V done: o is ours, buffer i & 1 free
      wgmmaPin(o);
      barrier();
    }
  }

  // --- Epilogue (sO overlays the tiles: every read is behind a barrier).
  finishRows<Spec, T, OT, OP, 16>(a, o, m, l, zb, rTok, kvh, row0, tok0, ntok,
                                  chunkRotated(P), sO);
}
#endif

template <class Spec, class T>
TQ_DEVICE void extendWgmma(const tq_extend_args &a) {
#if defined(TQ_TARGET_HAS_WGMMA)
  using namespace extend_detail;
  using Pl = ExtendWgmmaPlan<Spec>;
  // Programmatic launch (extend.h waitForChunkRows): the producer waits
  // before its first chunk tile; the in-step form before its first tile.
  if constexpr (Pl::NP > 0)
    waitUnlessChunk(a);
  else
    waitForPrimaryGrid();

  int b = 0, tile = -1;
  findQueryTile<Pl::kTokTile>(a, b, tile);
  if (tile < 0)
    return;
  if constexpr (Pl::kChunkOnlyCtas) {
    if (a.prefix_lens[b] == 0) {
      extendWgmmaCta<Spec, T, true>(a, b, tile);
      return;
    }
  }
  extendWgmmaCta<Spec, T, false>(a, b, tile);
#else
  (void)a;
  trap(); // the compiler chooses this kernel for sm_90a bundles only
#endif
}

} // namespace tq

#endif // TQ_EXTEND_WGMMA_H
