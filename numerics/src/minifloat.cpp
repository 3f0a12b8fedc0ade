//===- minifloat.cpp - One rounding routine for three small formats -------===//

#include "tqc/numerics/minifloat.h"

#include <cmath>

namespace tqc {

namespace {

/// A binary float format with a sign bit, `expBits` exponent bits and
/// `mantBits` explicit mantissa bits.
struct Format {
  int expBits, mantBits, bias;
  /// IEEE: the all-ones exponent holds inf/NaN. Otherwise ("FN", e4m3) the
  /// all-ones exponent holds normal numbers and only all-ones is NaN, and
  /// overflow saturates to the largest finite value.
  bool ieee;
  uint32_t nanCode; // magnitude bits of the canonical NaN

  int maxExpField() const { return (1 << expBits) - 1; }
  uint32_t infCode() const { return uint32_t(maxExpField()) << mantBits; }
  /// Magnitude code of the largest finite value.
  uint32_t maxFiniteCode() const {
    return ieee ? infCode() - 1 : ((1u << (expBits + mantBits)) - 2);
  }
  uint32_t signBit() const { return 1u << (expBits + mantBits); }
};

constexpr Format kFp16{5, 10, 15, true, 0x200u | (31u << 10)};
constexpr Format kBf16{8, 7, 127, true, 0x40u | (255u << 7)};
constexpr Format kE4M3{4, 3, 7, false, 0x7Fu};

double decode(const Format &f, uint32_t bits) {
  const bool negative = bits & f.signBit();
  const uint32_t mag = bits & (f.signBit() - 1);
  const int expField = int(mag >> f.mantBits);
  const uint32_t mant = mag & ((1u << f.mantBits) - 1);
  double v;
  if (f.ieee && expField == f.maxExpField())
    v = mant ? NAN : INFINITY;
  else if (!f.ieee && mag == f.nanCode)
    v = NAN;
  else if (expField == 0) // subnormal: mant · 2^(1 − bias − mantBits)
    v = std::ldexp(double(mant), 1 - f.bias - f.mantBits);
  else
    v = std::ldexp(double(mant | (1u << f.mantBits)),
                   expField - f.bias - f.mantBits);
  return negative ? -v : v;
}

uint32_t encode(const Format &f, double x) {
  const uint32_t sign = std::signbit(x) ? f.signBit() : 0;
  if (std::isnan(x))
    return sign | f.nanCode;
  const double a = std::abs(x);
  if (std::isinf(a))
    return sign | (f.ieee ? f.infCode() : f.maxFiniteCode());
  if (a == 0)
    return sign;
  // Spacing of representable values around a: 2^(e − mantBits) for
  // a ∈ [2^e, 2^(e+1)), never below the subnormal spacing.
  int e;
  std::frexp(a, &e); // a = m·2^e, m ∈ [0.5, 1)
  e -= 1;
  const int minExp = 1 - f.bias;
  const int quantumExp = (e < minExp ? minExp : e) - f.mantBits;
  // a / quantum is exact (a power-of-two scaling); nearbyint rounds half to
  // even in the default rounding mode.
  const double units = std::nearbyint(std::ldexp(a, -quantumExp));
  // The rounded value units·2^quantumExp; units may have carried into the
  // next binade (units == 2^(mantBits+1)), which the code below handles.
  uint32_t code;
  if (units < std::ldexp(1.0, f.mantBits)) {
    code = uint32_t(units); // subnormal (or zero after rounding down)
  } else {
    int unitsExp; // units ∈ [2^mantBits, 2^(mantBits+1)]
    std::frexp(units, &unitsExp);
    const int valueExp = quantumExp + unitsExp - 1;
    const uint32_t mant =
        uint32_t(std::ldexp(units, f.mantBits - (unitsExp - 1))) &
        ((1u << f.mantBits) - 1);
    const int expField = valueExp + f.bias;
    if (expField > f.maxExpField() || (f.ieee && expField == f.maxExpField()))
      return sign | (f.ieee ? f.infCode() : f.maxFiniteCode());
    code = (uint32_t(expField) << f.mantBits) | mant;
    if (code > f.maxFiniteCode()) // e4m3: 0x7F is NaN, saturate instead
      code = f.maxFiniteCode();
  }
  return sign | code;
}

} // namespace

uint16_t encodeFp16(double x) { return uint16_t(encode(kFp16, x)); }
double decodeFp16(uint16_t bits) { return decode(kFp16, bits); }
uint16_t encodeBf16(double x) { return uint16_t(encode(kBf16, x)); }
double decodeBf16(uint16_t bits) { return decode(kBf16, bits); }
uint8_t encodeFp8E4M3(double x) { return uint8_t(encode(kE4M3, x)); }
double decodeFp8E4M3(uint8_t bits) { return decode(kE4M3, bits); }

} // namespace tqc
