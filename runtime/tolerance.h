#pragma once
// How close an output must come to its reference for `run --expect`: tolerances
// that follow from the precision the values were computed and stored in, not
// one pair of numbers for every format. A 16-bit float with 9 fraction bits
// cannot meet an absolute tolerance of 1e-5 on results near zero that come
// from cancelling O(1) terms; what it can meet is an error of a few units in
// the last place of the output's own scale.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/data_format.h"

namespace spyre {

// A value format as tolerances see it: its name and the fraction bits it keeps.
struct ValueDtype {
  std::string name;  // "DLFloat16", "bf16", "fp16", "fp32"
  int fraction_bits = 0;
};

// "dlfloat16"/"DLFloat16", "bf16", "fp16", "fp32" (case-insensitive); nullopt otherwise.
std::optional<ValueDtype> parse_value_dtype(const std::string& name);

// The precision an output deserves to be judged at: the device format it is
// computed in, narrowed by the reference file's dtype ("f2" is IEEE half).
ValueDtype output_value_dtype(DataFormat device_format, const std::string& npy_dtype);

struct Tolerance {
  double rtol = 0, atol = 0;
  std::string basis;  // why these numbers, for messages and reports
};

// The default for a dtype: rtol of 4 units in the last place (2^-(bits-2)),
// atol of 2 units in the last place of the reference's largest finite
// magnitude (normwise: a result near zero is as exact as the terms that
// cancelled to give it, and those are of the output's scale).
Tolerance dtype_tolerance(const ValueDtype& dtype, double reference_max_abs);

// Largest finite |value| (0 when there is none).
double max_finite_abs(const std::vector<float>& values);

// DIR/tolerance.json, written by `compile --emit-io` next to the references:
// {"format": 1, "outputs": {"<name>": {"dtype", "rtol", "atol", "basis"}}}.
constexpr const char* kToleranceFile = "tolerance.json";
std::map<std::string, Tolerance> read_tolerance_file(const std::string& path);
void write_tolerance_file(const std::string& path, const std::map<std::string, std::pair<ValueDtype, Tolerance>>& t);

}  // namespace spyre
