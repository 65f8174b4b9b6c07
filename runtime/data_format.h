#pragma once
// Device data formats named in SuperDSC dataFormat_ fields.

#include <climits>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "runtime/numerics.h"

namespace spyre {

enum class DataFormat {
  Dl16,  // "SEN169_FP16": DLFloat16, the device's 16-bit float
  Fp32,  // "IEEE_FP32"
  // "IEEE_INT32": torch-spyre keeps int32 and int64 tensors in it (int64
  // narrowed: its types_mapping.h) and computes on them in fp32, converting
  // with the int32tofp32 and fp32toint32 ops.
  Int32,
  // "SEN143_FP8": FP8 E4M3 (numerics.h), one byte, 128 per stick. torch-spyre
  // emits it for float8_e4m3fn tensors: qfp8ch converts scaled and clamped
  // fp16 into it, fp8todl16 back (its FP8 ops, constants.py SPYRE_FP8_OPS).
  Fp8E4m3,
};

std::optional<DataFormat> parse_data_format(const std::string& name);
const char* data_format_name(DataFormat format);
int word_bytes(DataFormat format);

// Bytes in one stick, the unit the device moves and aligns data in: a stick
// holds 128 / word_bytes elements of the stick dimension.
constexpr int64_t kStickBytes = 128;

// A value stored as IEEE_INT32: truncated toward zero, as a cast to an
// integer dtype does in PyTorch, and saturated at the int32 range (NaN: 0).
inline int32_t to_int32(float value) {
  if (!(value == value)) return 0;
  if (value >= 2147483647.0f) return INT32_MAX;
  if (value <= -2147483648.0f) return INT32_MIN;
  return static_cast<int32_t>(value);
}

inline float load_element(DataFormat format, const uint8_t* p) {
  if (format == DataFormat::Fp8E4m3) return fp8e4m3_to_float(*p);
  if (format == DataFormat::Dl16) {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    return dl16_to_float(bits);
  }
  if (format == DataFormat::Int32) {
    int32_t value;
    std::memcpy(&value, p, 4);
    return static_cast<float>(value);
  }
  float value;
  std::memcpy(&value, p, 4);
  return value;
}

inline void store_element(DataFormat format, uint8_t* p, float value) {
  if (format == DataFormat::Fp8E4m3) {
    *p = float_to_fp8e4m3(value);
  } else if (format == DataFormat::Dl16) {
    const uint16_t bits = float_to_dl16(value);
    std::memcpy(p, &bits, 2);
  } else if (format == DataFormat::Int32) {
    const int32_t word = to_int32(value);
    std::memcpy(p, &word, 4);
  } else {
    std::memcpy(p, &value, 4);
  }
}

// The value a result takes once rounded to the format.
inline float round_to_format(DataFormat format, float value) {
  if (format == DataFormat::Int32) return static_cast<float>(to_int32(value));
  if (format == DataFormat::Fp8E4m3) return round_fp8e4m3(value);
  return format == DataFormat::Dl16 ? round_dl16(value) : value;
}

}  // namespace spyre
