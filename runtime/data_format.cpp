#include "runtime/data_format.h"

namespace spyre {

std::optional<DataFormat> parse_data_format(const std::string& name) {
  if (name == "SEN169_FP16") return DataFormat::Dl16;
  if (name == "IEEE_FP32") return DataFormat::Fp32;
  if (name == "IEEE_INT32") return DataFormat::Int32;
  // torch-spyre relabels index tensors so because its backend does not yet
  // take IEEE_INT32 in an SDSC (codegen/superdsc.py): the same 32-bit words.
  if (name == "SENUINT32") return DataFormat::Int32;
  if (name == "SEN143_FP8") return DataFormat::Fp8E4m3;
  return std::nullopt;
}

const char* data_format_name(DataFormat format) {
  switch (format) {
    case DataFormat::Dl16:
      return "SEN169_FP16";
    case DataFormat::Fp32:
      return "IEEE_FP32";
    case DataFormat::Int32:
      return "IEEE_INT32";
    case DataFormat::Fp8E4m3:
      return "SEN143_FP8";
  }
  return "?";
}

int word_bytes(DataFormat format) {
  switch (format) {
    case DataFormat::Dl16:
      return 2;
    case DataFormat::Fp8E4m3:
      return 1;
    case DataFormat::Fp32:
    case DataFormat::Int32:
      return 4;
  }
  return 4;
}

}  // namespace spyre
