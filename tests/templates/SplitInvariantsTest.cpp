//===- SplitInvariantsTest.cpp - The decode's split ranges, on the host ---===//
//
// The fixed-grid rule (DESIGN.md) puts every split CTA in the grid and lets
// each sequence use splitsUsed(L) of them, with the token ranges of
// splitRange. These are the functions the kernels run (templates/tq/decode.h,
// compiled here against the CPU emulation of the target layer); the test
// checks, for every plan shape tq-plan-launch accepts and lengths 0..20000
// plus long ones, that
//   - the used split count is in [1, splits] and never depends on anything
//     but L (the grid is the plan's, whatever the lengths);
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

template <int BlockN, int Splits> struct Plan {
  static constexpr int kBlockN = BlockN, kSplits = Splits;
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
  for (int L : lengths) {
    const int S = tq::decode_detail::splitsUsed<P>(L);
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

TEST(SplitInvariants, OneSplitForShortSequences) {
  // A sequence up to the floor uses one split (its CTA writes the output,
  // no ticket); the floor shrinks as the plan's split count grows.
  using Many = Plan<64, 32>;
  using Few = Plan<64, 2>;
  EXPECT_EQ(tq::decode_detail::splitsUsed<Many>(0), 1);
  EXPECT_EQ(tq::decode_detail::splitsUsed<Many>(128), 1);
  EXPECT_EQ(tq::decode_detail::splitsUsed<Many>(129), 2);
  EXPECT_EQ(tq::decode_detail::splitsUsed<Many>(1 << 20), 32);
  EXPECT_EQ(tq::decode_detail::splitsUsed<Few>(2048), 1);
  EXPECT_EQ(tq::decode_detail::splitsUsed<Few>(2049), 2);
}

} // namespace
