#include "runtime/numerics.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

namespace spyre {
namespace {

uint32_t float_bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float bits_float(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

std::array<float, 65536> make_dl16_table() {
  std::array<float, 65536> table{};
  for (uint32_t b = 0; b < 65536; ++b) {
    const bool negative = (b & 0x8000) != 0;
    const int exponent = static_cast<int>((b >> 9) & 0x3F);
    const int fraction = static_cast<int>(b & 0x1FF);
    float magnitude;
    if (exponent == 0 && fraction == 0) {
      magnitude = 0.0f;
    } else if (exponent == 63 && fraction == 511) {
      magnitude = std::numeric_limits<float>::infinity();
    } else {
      magnitude = std::ldexp(1.0f + static_cast<float>(fraction) / 512.0f, exponent - 31);
    }
    table[b] = negative ? -magnitude : magnitude;
  }
  return table;
}

}  // namespace

const std::array<float, 65536> kDl16Values = make_dl16_table();

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t exp5 = (h >> 10) & 0x1F;
  const uint32_t mant = h & 0x3FF;
  if (exp5 == 0) {
    if (mant == 0) return bits_float(sign);
    // Subnormal half: value = mant * 2^-24.
    float magnitude = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -magnitude : magnitude;
  }
  if (exp5 == 0x1F) return bits_float(sign | 0x7F800000 | (mant << 13));
  return bits_float(sign | ((exp5 - 15 + 127) << 23) | (mant << 13));
}

uint16_t float_to_half(float value) {
  const uint32_t u = float_bits(value);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000);
  const uint32_t exp8 = (u >> 23) & 0xFF;
  uint32_t mant = u & 0x7FFFFF;
  if (exp8 == 0xFF) return sign | 0x7C00 | (mant ? 0x200 : 0);
  int32_t exponent = static_cast<int32_t>(exp8) - 127 + 15;
  if (exponent >= 0x1F) return sign | 0x7C00;
  if (exponent <= 0) {
    // Subnormal or zero half: shift the implicit-one mantissa into place.
    if (exponent < -10) return sign;
    mant |= 0x800000;
    const uint32_t shift = static_cast<uint32_t>(14 - exponent);
    uint32_t half_mant = mant >> shift;
    const uint32_t rest = mant & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half_mant & 1))) ++half_mant;
    return static_cast<uint16_t>(sign | half_mant);
  }
  uint32_t half_mant = mant >> 13;
  const uint32_t rest = mant & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (half_mant & 1))) {
    if (++half_mant == 0x400) {
      half_mant = 0;
      if (++exponent >= 0x1F) return sign | 0x7C00;
    }
  }
  return static_cast<uint16_t>(sign | (static_cast<uint32_t>(exponent) << 10) | half_mant);
}

uint16_t float_to_bf16(float value) {
  const uint32_t u = float_bits(value);
  if ((u & 0x7F800000) == 0x7F800000 && (u & 0x7FFFFF)) return static_cast<uint16_t>((u >> 16) | 0x40);
  const uint32_t rounded = u + 0x7FFF + ((u >> 16) & 1);
  return static_cast<uint16_t>(rounded >> 16);
}

float bf16_to_float(uint16_t bits) { return bits_float(static_cast<uint32_t>(bits) << 16); }

float fp8e4m3_to_float(uint8_t bits) {
  const int exponent = (bits >> 3) & 0xF, fraction = bits & 0x7;
  if (exponent == 0xF && fraction == 0x7) return std::numeric_limits<float>::quiet_NaN();
  const float magnitude = exponent == 0 ? std::ldexp(static_cast<float>(fraction), -9)
                                        : std::ldexp(static_cast<float>(8 + fraction), exponent - 10);
  return (bits & 0x80) ? -magnitude : magnitude;
}

uint8_t float_to_fp8e4m3(float value) {
  const auto sign = static_cast<uint8_t>((float_bits(value) >> 24) & 0x80);
  const float magnitude = std::fabs(value);
  // 464 lies halfway between 448 and 480 (the NaN code) and rounds to 448, the even one.
  if (!(magnitude <= 464.0f)) return sign | 0x7F;  // NaN, infinity, or beyond the largest value
  if (magnitude == 0.0f) return sign;
  int binade = 0;
  std::frexp(magnitude, &binade);           // magnitude = f * 2^binade, f in [0.5, 1)
  int exponent = std::max(binade - 1, -6);  // 1.x * 2^exponent; below 2^-6 subnormal steps of 2^-9
  auto steps = static_cast<int>(std::nearbyint(std::ldexp(magnitude, 3 - exponent)));  // ties to even
  if (steps == 16) {  // rounded up into the next binade
    ++exponent;
    steps = 8;
  }
  if (steps < 8) return static_cast<uint8_t>(sign | steps);  // subnormal (exponent field 0)
  return static_cast<uint8_t>(sign | ((exponent + 7) << 3) | (steps - 8));
}

}  // namespace spyre
