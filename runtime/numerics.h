#pragma once
// Device and host number formats.
//
// DLFloat16 (SuperDSC "SEN169_FP16"): 1 sign bit, 6 exponent bits (bias 31),
// 9 fraction bits, value = (-1)^s * 2^(e-31) * (1 + m/512). Following the
// DLFloat paper (Agrawal et al., ARITH 2019) there are no subnormals; the
// all-zero exponent+fraction pattern is zero, and the single pattern e=63,
// m=511 is the merged NaN/infinity code (we decode it as a signed infinity,
// or NaN when produced from a NaN). Conversions from wider formats round to
// nearest, ties to even; magnitudes below 2^-31 flush to zero and magnitudes
// above the largest finite value (e=63, m=510, about 8.57e9) become the
// NaN/infinity code.

#include <array>
#include <cstdint>
#include <cstring>

namespace spyre {

// Largest finite DLFloat16: 2^32 * (1 + 510/512).
constexpr float kDl16Max = 8573157376.0f;
constexpr uint16_t kDl16Nan = 0x7FFF;

// Every DLFloat16 bit pattern decoded (filled before main runs).
extern const std::array<float, 65536> kDl16Values;

inline float dl16_to_float(uint16_t bits) { return kDl16Values[bits]; }

// Inline: the functional executor converts every element it stores.
inline uint16_t float_to_dl16(float value) {
  uint32_t u;
  std::memcpy(&u, &value, sizeof u);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000);
  const uint32_t exp8 = (u >> 23) & 0xFF;
  const uint32_t mant = u & 0x7FFFFF;
  if (exp8 == 0xFF) return sign | kDl16Nan;  // infinity or NaN
  if (exp8 == 0) return sign;                // zero or fp32 subnormal: far below 2^-31
  int32_t exponent = static_cast<int32_t>(exp8) - 127 + 31;
  uint32_t fraction = mant >> 14;
  const uint32_t rest = mant & 0x3FFF;
  if (rest > 0x2000 || (rest == 0x2000 && (fraction & 1))) {
    if (++fraction == 512) {
      fraction = 0;
      ++exponent;
    }
  }
  if (exponent < 0) return sign;  // underflow flushes to zero
  if (exponent > 63 || (exponent == 63 && fraction == 511)) return sign | kDl16Nan;
  // Exactly 2^-31 collides with the zero pattern; the nearest nonzero value is
  // 2^-31 * (1 + 1/512).
  if (exponent == 0 && fraction == 0) return sign | 1;
  return static_cast<uint16_t>(sign | (static_cast<uint32_t>(exponent) << 9) | fraction);
}
// Round a float to the nearest DLFloat16 value (the device's result rounding).
// Magnitudes in [2^-30, 2^32) stay normal and finite: their fraction is
// rounded to 9 bits (ties to even) in place, which is what the encoding and
// decoding above give, bit for bit; the rest take that path.
inline float round_dl16(float value) {
  uint32_t u;
  std::memcpy(&u, &value, sizeof u);
  const uint32_t exp8 = (u >> 23) & 0xFF;
  if (exp8 < 127 - 30 || exp8 > 127 + 31) return dl16_to_float(float_to_dl16(value));
  u += 0x1FFF + ((u >> 14) & 1);
  u &= 0xFFFFC000u;
  float rounded;
  std::memcpy(&rounded, &u, sizeof rounded);
  return rounded;
}

// FP8 E4M3 (SuperDSC "SEN143_FP8", PyTorch's float8_e4m3fn): 1 sign bit, 4
// exponent bits (bias 7), 3 fraction bits, subnormals below 2^-6, no
// infinity; S.1111.111 is NaN. Largest finite value 448. Conversions round to
// nearest, ties to even; magnitudes that round above 448 (from 464 up) and
// infinities become NaN, as PyTorch's cast gives (torch-spyre clamps to
// +-448 before it converts, its `clip` before `qfp8ch`).
constexpr float kFp8E4m3Max = 448.0f;
float fp8e4m3_to_float(uint8_t bits);
uint8_t float_to_fp8e4m3(float value);
inline float round_fp8e4m3(float value) { return fp8e4m3_to_float(float_to_fp8e4m3(value)); }

// IEEE 754 binary16 (host fp16 .npy files).
uint16_t float_to_half(float value);
float half_to_float(uint16_t h);

// bfloat16 (host side only; the device computes bf16 tensors in DLFloat16).
uint16_t float_to_bf16(float value);
float bf16_to_float(uint16_t bits);

}  // namespace spyre
