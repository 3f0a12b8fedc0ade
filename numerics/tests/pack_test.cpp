// Bit packing goldens (ALGORITHM.md §6 / FORMATS.md) and round trips.
#include "tqc/numerics/layout.h"
#include "tqc/numerics/pack.h"

#include <gtest/gtest.h>

#include <vector>

using namespace tqc;

TEST(Pack, Goldens) {
  uint8_t out[2] = {0xFF, 0xFF};
  const uint8_t two[] = {1, 2, 3, 0};
  packBits(two, 4, 2, out, 1);
  EXPECT_EQ(out[0], 0x39);

  const uint8_t four[] = {0xA, 0x3};
  packBits(four, 2, 4, out, 1);
  EXPECT_EQ(out[0], 0x3A); // low nibble = even coordinate

  // QJL signs [+,−,−,+,+,+,−,+], bit = 1 for positive.
  const uint8_t signs[] = {1, 0, 0, 1, 1, 1, 0, 1};
  packBits(signs, 8, 1, out, 1);
  EXPECT_EQ(out[0], 0xB9);
}

TEST(Pack, ThreeBitsFillThreeBytesPerEightCodes) {
  const uint8_t codes[8] = {1, 2, 3, 4, 5, 6, 7, 0};
  ASSERT_EQ(packedBytes(8, 3), 3);
  uint8_t out[4] = {0, 0, 0, 0xEE};
  packBits(codes, 8, 3, out, 3);
  EXPECT_EQ(out[3], 0xEE) << "wrote past the 3 bytes";
  // The 24-bit little-endian word Σ c_i << 3i.
  uint32_t word = 0;
  for (int i = 0; i < 8; ++i)
    word |= uint32_t(codes[i]) << (3 * i);
  EXPECT_EQ(out[0], word & 0xFF);
  EXPECT_EQ(out[1], (word >> 8) & 0xFF);
  EXPECT_EQ(out[2], (word >> 16) & 0xFF);
}

TEST(Pack, RoundTripEveryValueInEverySlot) {
  // 16 codes cover every bit alignment (the pattern repeats every 8 codes).
  const int count = 16;
  for (int bits = 1; bits <= 8; ++bits) {
    const int values = 1 << bits;
    std::vector<uint8_t> packed(packedBytes(count, bits)), back(count);
    for (int slot = 0; slot < count; ++slot)
      for (int v = 0; v < values; ++v) {
        std::vector<uint8_t> codes(count);
        for (int j = 0; j < count; ++j) // a busy background
          codes[j] = uint8_t((j * 37 + v * 11 + 5) % values);
        codes[slot] = uint8_t(v);
        packBits(codes.data(), count, bits, packed.data(), packed.size());
        unpackBits(packed.data(), packed.size(), count, bits, back.data());
        ASSERT_EQ(back, codes)
            << "bits=" << bits << " slot=" << slot << " value=" << v;
      }
  }
}

TEST(Pack, StreamBitOrder) {
  // Stream bit i is bit i mod 8 of byte i/8: a single 1 at code j of width b
  // sets exactly stream bit j·b.
  for (int bits = 1; bits <= 8; ++bits)
    for (int j = 0; j < 16; ++j) {
      std::vector<uint8_t> codes(16, 0), packed(packedBytes(16, bits));
      codes[j] = 1;
      packBits(codes.data(), 16, bits, packed.data(), packed.size());
      const int bit = j * bits;
      for (size_t byte = 0; byte < packed.size(); ++byte)
        EXPECT_EQ(packed[byte], int(byte) == bit / 8 ? (1 << (bit % 8)) : 0)
            << "bits=" << bits << " j=" << j;
    }
}

TEST(Pack, RejectsCodesThatDoNotFitAndShortSpans) {
  uint8_t out[4];
  const uint8_t big[] = {4};
  EXPECT_THROW(packBits(big, 1, 2, out, 4), std::invalid_argument);
  const uint8_t codes[8] = {};
  EXPECT_THROW(packBits(codes, 8, 3, out, 2), std::invalid_argument);
  EXPECT_THROW(packBits(codes, 8, 9, out, 4), std::invalid_argument);
  uint8_t back[8];
  EXPECT_THROW(unpackBits(out, 2, 8, 3, back), std::invalid_argument);
}
