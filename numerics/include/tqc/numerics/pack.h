//===- pack.h - Bit packing of codes (FORMATS.md "Bit packing") -*- C++ -*-===//
//
// Codes of `bits` bits form a little-endian bitstream: code j occupies stream
// bits [j·bits, j·bits + bits), and stream bit i is bit (i mod 8) of byte
// ⌊i/8⌋. So at 4 bits the low nibble holds the even code, at 2 bits
// byte = c0 | c1<<2 | c2<<4 | c3<<6, and at 3 bits 8 codes fill 3 bytes.
// QJL sign bits are 1-bit codes (1 = positive sketch value).
//
//===----------------------------------------------------------------------===//
#ifndef TQC_NUMERICS_PACK_H
#define TQC_NUMERICS_PACK_H

#include <cstdint>

namespace tqc {

/// Writes count codes (each < 2^bits, 1 ≤ bits ≤ 8) into out, which holds
/// outBytes ≥ packedBytes(count, bits) bytes (layout.h). Exactly
/// packedBytes(count, bits) bytes are written; the unused high bits of the
/// last byte are 0. Throws std::invalid_argument on a bad width, a code that
/// does not fit, or a short span.
void packBits(const uint8_t *codes, int64_t count, int bits, uint8_t *out,
              int64_t outBytes);

/// Reads count codes of `bits` bits from a span of inBytes bytes.
void unpackBits(const uint8_t *in, int64_t inBytes, int64_t count, int bits,
                uint8_t *codes);

} // namespace tqc

#endif // TQC_NUMERICS_PACK_H
