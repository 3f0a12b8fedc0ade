//===- minifloat.h - fp16, bf16 and fp8 e4m3 encodings ---------*- C++ -*-===//
//
// Bit-exact conversions between double and the small float formats the
// cache stores. Encoding rounds to nearest, ties to even, directly from the
// double (a float argument converts to double exactly, so there is no double
// rounding through float).
//  - fp16: IEEE binary16; subnormals kept; overflow (≥ 65520 after rounding)
//    gives ±inf; NaN → 0x7E00 (sign kept).
//  - bf16: the top half of an IEEE binary32; overflow gives ±inf;
//    NaN → 0x7FC0 (sign kept).
//  - fp8 e4m3: the OCP "FN" variant of CUDA's __nv_fp8_e4m3, converted as
//    __nv_cvt_double_to_fp8(x, __NV_SATFINITE, __NV_E4M3): bias 7, no inf,
//    max ±448, subnormals down to 2^-9; values beyond ±448 (±inf included)
//    saturate to ±448; NaN → 0x7F (sign kept: 0xFF for a negative NaN).
//    The codes 0x7F / 0xFF are the only NaNs.
// Decoding is exact.
//
//===----------------------------------------------------------------------===//
#ifndef TQC_NUMERICS_MINIFLOAT_H
#define TQC_NUMERICS_MINIFLOAT_H

#include <cstdint>

namespace tqc {

uint16_t encodeFp16(double x);
double decodeFp16(uint16_t bits);

uint16_t encodeBf16(double x);
double decodeBf16(uint16_t bits);

uint8_t encodeFp8E4M3(double x);
double decodeFp8E4M3(uint8_t bits);

/// x rounded to the format and back.
inline double roundToFp16(double x) { return decodeFp16(encodeFp16(x)); }
inline double roundToBf16(double x) { return decodeBf16(encodeBf16(x)); }
inline double roundToFp8E4M3(double x) {
  return decodeFp8E4M3(encodeFp8E4M3(x));
}

} // namespace tqc

#endif // TQC_NUMERICS_MINIFLOAT_H
