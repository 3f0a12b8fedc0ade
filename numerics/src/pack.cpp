//===- pack.cpp - Little-endian bitstream packing -------------------------===//

#include "tqc/numerics/pack.h"

#include "tqc/numerics/layout.h"

#include <stdexcept>
#include <string>

namespace tqc {

namespace {

void checkSpan(int64_t count, int bits, int64_t bytes) {
  if (bits < 1 || bits > 8)
    throw std::invalid_argument("packing width " + std::to_string(bits) +
                                " bits; accepted: 1..8");
  if (count < 0 || bytes < packedBytes(count, bits))
    throw std::invalid_argument(
        std::to_string(count) + " codes of " + std::to_string(bits) +
        " bits need " + std::to_string(packedBytes(count, bits)) +
        " bytes; the span has " + std::to_string(bytes));
}

} // namespace

void packBits(const uint8_t *codes, int64_t count, int bits, uint8_t *out,
              int64_t outBytes) {
  checkSpan(count, bits, outBytes);
  const unsigned limit = 1u << bits;
  // Bits accumulate at the top of `pending`; whole bytes leave from the
  // bottom, so stream bit i lands at bit i mod 8 of byte ⌊i/8⌋.
  uint32_t pending = 0;
  int pendingBits = 0;
  int64_t o = 0;
  for (int64_t j = 0; j < count; ++j) {
    if (codes[j] >= limit)
      throw std::invalid_argument("code " + std::to_string(codes[j]) + " at " +
                                  std::to_string(j) + " does not fit in " +
                                  std::to_string(bits) + " bits");
    pending |= uint32_t(codes[j]) << pendingBits;
    pendingBits += bits;
    while (pendingBits >= 8) {
      out[o++] = uint8_t(pending);
      pending >>= 8;
      pendingBits -= 8;
    }
  }
  if (pendingBits > 0)
    out[o++] = uint8_t(pending);
}

void unpackBits(const uint8_t *in, int64_t inBytes, int64_t count, int bits,
                uint8_t *codes) {
  checkSpan(count, bits, inBytes);
  const uint32_t mask = (1u << bits) - 1;
  uint32_t pending = 0;
  int pendingBits = 0;
  int64_t i = 0;
  for (int64_t j = 0; j < count; ++j) {
    while (pendingBits < bits) {
      pending |= uint32_t(in[i++]) << pendingBits;
      pendingBits += 8;
    }
    codes[j] = uint8_t(pending & mask);
    pending >>= bits;
    pendingBits -= bits;
  }
}

} // namespace tqc
