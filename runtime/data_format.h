#pragma once
// Device data formats named in SuperDSC dataFormat_ fields.

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "runtime/numerics.h"

namespace spyre {

enum class DataFormat {
  Dl16,  // "SEN169_FP16": DLFloat16, the device's 16-bit float
  Fp32,  // "IEEE_FP32"
};

std::optional<DataFormat> parse_data_format(const std::string& name);
const char* data_format_name(DataFormat format);
int word_bytes(DataFormat format);

// Bytes in one stick, the unit the device moves and aligns data in: a stick
// holds 128 / word_bytes elements of the stick dimension.
constexpr int64_t kStickBytes = 128;

inline float load_element(DataFormat format, const uint8_t* p) {
  if (format == DataFormat::Dl16) {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    return dl16_to_float(bits);
  }
  float value;
  std::memcpy(&value, p, 4);
  return value;
}

inline void store_element(DataFormat format, uint8_t* p, float value) {
  if (format == DataFormat::Dl16) {
    const uint16_t bits = float_to_dl16(value);
    std::memcpy(p, &bits, 2);
  } else {
    std::memcpy(p, &value, 4);
  }
}

// The value a result takes once rounded to the format.
inline float round_to_format(DataFormat format, float value) {
  return format == DataFormat::Dl16 ? round_dl16(value) : value;
}

}  // namespace spyre
