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

#include <cstdint>

namespace spyre {

// Largest finite DLFloat16: 2^32 * (1 + 510/512).
constexpr float kDl16Max = 8573157376.0f;
constexpr uint16_t kDl16Nan = 0x7FFF;

uint16_t float_to_dl16(float value);
float dl16_to_float(uint16_t bits);
// Round a float to the nearest DLFloat16 value (the device's result rounding).
inline float round_dl16(float value) { return dl16_to_float(float_to_dl16(value)); }

// IEEE 754 binary16 (host fp16 .npy files).
uint16_t float_to_half(float value);
float half_to_float(uint16_t bits);

// bfloat16 (host side only; the device computes bf16 tensors in DLFloat16).
uint16_t float_to_bf16(float value);
float bf16_to_float(uint16_t bits);

}  // namespace spyre
