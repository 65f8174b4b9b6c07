#include "runtime/tolerance.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "runtime/error.h"
#include "runtime/json_node.h"
#include "runtime/text.h"

namespace spyre {

namespace {

const ValueDtype kDlFloat16{"DLFloat16", 9};
const ValueDtype kBf16{"bf16", 7};
const ValueDtype kFp16{"fp16", 10};
const ValueDtype kFp32{"fp32", 23};
const ValueDtype kFp8E4m3{"fp8_e4m3", 3};

std::string lower_case(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string four_digits(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

}  // namespace

std::optional<ValueDtype> parse_value_dtype(const std::string& name) {
  const std::string n = lower_case(name);
  if (n == "dlfloat16" || n == "dl16") return kDlFloat16;
  if (n == "bf16" || n == "bfloat16") return kBf16;
  if (n == "fp16" || n == "float16" || n == "half") return kFp16;
  if (n == "fp32" || n == "float32" || n == "float") return kFp32;
  return std::nullopt;
}

ValueDtype output_value_dtype(DataFormat device_format, const std::string& npy_dtype) {
  const ValueDtype device = device_format == DataFormat::Dl16      ? kDlFloat16
                            : device_format == DataFormat::Fp8E4m3 ? kFp8E4m3
                                                                   : kFp32;
  if (npy_dtype == "f2" && kFp16.fraction_bits < device.fraction_bits) return kFp16;
  return device;
}

double max_finite_abs(const std::vector<float>& values) {
  double m = 0;
  for (float v : values) {
    if (std::isfinite(v)) m = std::max(m, static_cast<double>(std::fabs(v)));
  }
  return m;
}

Tolerance dtype_tolerance(const ValueDtype& dtype, double reference_max_abs) {
  Tolerance t;
  t.rtol = std::ldexp(1.0, -(dtype.fraction_bits - 2));
  if (reference_max_abs > 0) {
    // ulp(x) = 2^(floor(log2 x) - fraction bits)
    const int exponent = std::ilogb(reference_max_abs);
    t.atol = std::ldexp(2.0, exponent - dtype.fraction_bits);
  }
  t.basis = dtype.name + " (" + std::to_string(dtype.fraction_bits) + " fraction bits): rtol 4 ulp, atol 2 ulp of " +
            "max|reference| " + four_digits(reference_max_abs);
  return t;
}

std::map<std::string, Tolerance> read_tolerance_file(const std::string& path) {
  const Json json = read_json_file(path);
  const JsonNode root(json, path, "$");
  if (!root.is_object()) root.error("must be an object");
  if (root.at("format").as_int() != 1) root.at("format").error("unsupported format (this build reads 1)");
  std::map<std::string, Tolerance> out;
  for (const auto& [name, node] : root.at("outputs").members()) {
    Tolerance t;
    t.rtol = node.at("rtol").as_double();
    t.atol = node.at("atol").as_double();
    if (!(t.rtol >= 0) || !std::isfinite(t.rtol)) node.at("rtol").error("must be a finite number >= 0");
    if (!(t.atol >= 0) || !std::isfinite(t.atol)) node.at("atol").error("must be a finite number >= 0");
    t.basis = path;
    if (const auto basis = node.find("basis")) t.basis += ": " + basis->as_string();
    out[name] = t;
  }
  return out;
}

void write_tolerance_file(const std::string& path,
                          const std::map<std::string, std::pair<ValueDtype, Tolerance>>& tolerances) {
  Json outputs = Json::object();
  for (const auto& [name, entry] : tolerances) {
    outputs[name] = {{"dtype", entry.first.name},
                     {"rtol", entry.second.rtol},
                     {"atol", entry.second.atol},
                     {"basis", entry.second.basis}};
  }
  write_json_file(path, Json{{"format", 1}, {"outputs", outputs}});
}

}  // namespace spyre
