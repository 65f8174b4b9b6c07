#include "runtime/data_format.h"

namespace spyre {

std::optional<DataFormat> parse_data_format(const std::string& name) {
  if (name == "SEN169_FP16") return DataFormat::Dl16;
  if (name == "IEEE_FP32") return DataFormat::Fp32;
  return std::nullopt;
}

const char* data_format_name(DataFormat format) { return format == DataFormat::Dl16 ? "SEN169_FP16" : "IEEE_FP32"; }

int word_bytes(DataFormat format) { return format == DataFormat::Dl16 ? 2 : 4; }

}  // namespace spyre
