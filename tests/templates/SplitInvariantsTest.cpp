//===- SplitInvariantsTest.cpp - The decode's split ranges, on the host ---===//
//
// The fixed-grid rule (DESIGN.md) puts every split CTA in the grid and lets
// each sequence use splitsUsed(L, batch) of them, with the token ranges of
// splitRange. These are the functions the kernels run (templates/tq/decode.h,
// compiled here against the CPU emulation of the target layer); the test
// checks, for every plan shape tq-plan-launch accepts, batches 1..64 and
// lengths 0..20000 plus long ones, that
//   - the used split count is in [1, splits] and depends on nothing but L
//     and the launch's batch (the grid is the plan's, whatever both are);
//   - the used splits' ranges tile [0, L) exactly once, in order, each
//     starting on a BLOCK_N tile;
//   - a split beyond the last token is empty (it must then be neutral in the
//     merge: max -inf, sum 0, which the emulator's decode runs check).
//
//===----------------------------------------------------------------------===//
#include "tq/target_cuda.h" // the emulation (templates/emu), by include path
#include "tq/decode.h"

#include <gtest/gtest.h>

#include <functional>
#include <vector>

namespace emu {
std::function<void()> gBody;
uintptr_t gSharedBase;
} // namespace emu

namespace {

template <int BlockN, int Splits, int Warps = 4, int HeadsPerCta = 4>
struct Plan {
  static constexpr int kBlockN = BlockN, kSplits = Splits, kWarps = Warps,
                       kHeadsPerCta = HeadsPerCta, kNumQHeads = 32,
                       kNumKVHeads = 8, kSmCount = 132;
};

struct Stats {
  long emptySplits = 0, lengths = 0;
};

template <int BlockN, int Splits> void checkPlan(Stats &st) {
  using P = Plan<BlockN, Splits>;
  std::vector<int> lengths;
  for (int L = 0; L <= 20000; ++L)
    lengths.push_back(L);
  for (int L : {32767, 32768, 32769, 65536, 131071, 131072, 1 << 20})
    lengths.push_back(L);
  for (int batch : {1, 8, 64}) {
    for (int L : lengths) {
      const int S = tq::decode_detail::splitsUsed<P>(L, batch);
      ASSERT_GE(S, 1) << "L " << L;
      ASSERT_LE(S, Splits) << "L " << L;
      int next = 0;
      for (int s = 0; s < S; ++s) {
        int b = -1, e = -1;
        tq::decode_detail::splitRange<P>(L, s, S, b, e);
        if (b >= e) { // empty: only past the last token
          ASSERT_GE(b, L) << "an empty split inside the sequence (BLOCK_N "
                          << BlockN << ", splits " << Splits << ", L " << L
                          << ", split " << s << ")";
          ++st.emptySplits;
          continue;
        }
        ASSERT_EQ(b, next) << "gap or overlap at split " << s << " (BLOCK_N "
                           << BlockN << ", splits " << Splits << ", L " << L
                           << ")";
        ASSERT_EQ(b % BlockN, 0) << "split " << s << " starts inside a tile";
        next = e;
      }
      ASSERT_EQ(next, L) << "tokens [" << next << ", " << L
                         << ") belong to no split (BLOCK_N " << BlockN
                         << ", splits " << Splits << ")";
      ++st.lengths;
    }
  }
}

template <int BlockN> void checkAllSplits(Stats &st) {
  checkPlan<BlockN, 1>(st);
  checkPlan<BlockN, 2>(st);
  checkPlan<BlockN, 3>(st);
  checkPlan<BlockN, 4>(st);
  checkPlan<BlockN, 8>(st);
  checkPlan<BlockN, 16>(st);
  checkPlan<BlockN, 32>(st);
  checkPlan<BlockN, 64>(st);
}

TEST(SplitInvariants, EveryTokenInExactlyOneSplit) {
  Stats st;
  checkAllSplits<16>(st);
  checkAllSplits<32>(st);
  checkAllSplits<64>(st);
  checkAllSplits<128>(st);
  checkAllSplits<256>(st);
  EXPECT_GT(st.lengths, 0);
  // BLOCK_N 256 with short splits leaves trailing splits empty: the case
  // whose neutrality the emulator run with BLOCK_N 256 checks.
  EXPECT_GT(st.emptySplits, 0);
}

TEST(SplitInvariants, SplitCountCappedByLengthAndBatch) {
  namespace dd = tq::decode_detail;
  // 32 query heads, 4 per CTA: 8 head groups. 8 warps per CTA on 132 SMs
  // fill one wave with 132 * 16 / 8 = 264 CTAs.
  using W8 = Plan<64, 32, 8, 4>;
  // Length: 128 tokens per split at least; a short sequence uses one split
  // (its CTA writes the output, no ticket).
  EXPECT_EQ(dd::splitsUsed<W8>(0, 1), 1);
  EXPECT_EQ(dd::splitsUsed<W8>(128, 1), 1);
  EXPECT_EQ(dd::splitsUsed<W8>(129, 1), 2);
  EXPECT_EQ(dd::splitsUsed<W8>(1 << 20, 1), 32); // 264 / 8 = 33 > 32
  // Batch: 8 rows x 8 groups = 64 CTAs per split. Idle SMs (8 warps per
  // SM: 132 / 64 = 2 splits) take 128-token splits, deeper occupancy (up to
  // 264 / 64 = 4) 512-token ones.
  EXPECT_EQ(dd::splitsUsed<W8>(300, 8), 2);
  EXPECT_EQ(dd::splitsUsed<W8>(1536, 8), 3);
  EXPECT_EQ(dd::splitsUsed<W8>(1 << 20, 8), 4);
  using W4 = Plan<64, 32, 4, 4>; // 4 warps: caps 4 (idle) and 8 at batch 8
  EXPECT_EQ(dd::splitsUsed<W4>(1024, 8), 4);
  EXPECT_EQ(dd::splitsUsed<W4>(8192, 8), 8);
  // 32 rows fill the wave alone: no split at any length.
  EXPECT_EQ(dd::splitsUsed<W8>(1 << 20, 32), 1);
  EXPECT_EQ(dd::splitsUsed<W8>(1 << 20, 256), 1);
  // 4 warps per CTA: twice the resident CTAs, 528 / 256 = 2 at batch 32.
  EXPECT_EQ(dd::splitsUsed<W4>(1 << 20, 32), 2);
  // 2 heads per CTA: 16 groups, 264 / 128 = 2 at batch 8.
  EXPECT_EQ((dd::splitsUsed<Plan<64, 32, 8, 2>>(1 << 20, 8)), 2);
  // The batch's cap alone (the CTAs above it leave before any wait).
  EXPECT_EQ(dd::splitCap<W8>(1), 32);
  EXPECT_EQ(dd::splitCap<W8>(8), 4);
  EXPECT_EQ(dd::splitCap<W8>(64), 1);
  for (int batch : {1, 3, 8, 17, 64})
    for (int L : {0, 1, 5000, 1 << 20})
      EXPECT_LE(dd::splitsUsed<W8>(L, batch), dd::splitCap<W8>(batch));
  // A one-split plan never splits.
  EXPECT_EQ((dd::splitsUsed<Plan<64, 1, 8, 4>>(1 << 20, 1)), 1);
}

// The short-sequence half-group path (decode.h HalfHeads): the launch's
// grid (groups, batch, splits) maps onto the half-group plan's grid (2 x
// groups, batch, splits / 2) one to one, and that plan's splits of a row
// (idle-SM fill only) tile the row for every half-group.
TEST(SplitInvariants, HalfHeadsGridCoversEveryHalfGroupOnce) {
  namespace dd = tq::decode_detail;
  using W8 = Plan<64, 16, 8, 4>;
  using H = tq::HalfHeads<W8>;
  static_assert(H::kHeadsPerCta == 2 && H::kSplits == 8);
  constexpr int kGroups = W8::kNumQHeads / W8::kHeadsPerCta;
  for (int batch : {1, 2, 8})
    for (int L : {0, 1, 100, 1024, 2000}) {
      const int32_t lens[1] = {L};
      tq_decode_args a{};
      a.seq_lens = lens;
      a.batch = batch;
      std::vector<int> seen(2 * kGroups * H::kSplits, 0);
      std::vector<int> next(2 * kGroups, 0);
      for (int z = 0; z < W8::kSplits; ++z)
        for (int x = 0; x < kGroups; ++x) {
          emu::State &st = emu::S();
          st.bx = x, st.by = 0, st.bz = z;
          const int x2 = TQ_CTA_X(H), z2 = TQ_CTA_Z(H);
          ASSERT_LT(x2, 2 * kGroups);
          ++seen[x2 * H::kSplits + z2];
          dd::SplitWork w;
          if (!dd::splitWork<H>(a, w))
            continue;
          ASSERT_TRUE((dd::ctaMayWork<W8, true>(a))) << "z " << z;
          if (w.tokBegin >= w.tokEnd)
            continue;
          ASSERT_EQ(w.tokBegin, next[x2]) << "half-group " << x2 << ", L " << L;
          next[x2] = w.tokEnd;
        }
      for (int v : seen)
        ASSERT_EQ(v, 1);
      for (int x2 = 0; x2 < 2 * kGroups; ++x2)
        ASSERT_EQ(next[x2], L) << "half-group " << x2 << ", batch " << batch;
    }
  // Only the splits that fill idle SMs: B=8 at 1K (16 groups x 8 rows fill
  // 132 SMs once) takes 1, where the whole-group plan's policy takes 2.
  EXPECT_EQ(dd::splitsUsed<H>(1024, 8), 1);
  EXPECT_EQ(dd::splitsUsed<W8>(1024, 8), 2);
  EXPECT_EQ(dd::splitsUsed<H>(1024, 1), 8);
}

} // namespace
