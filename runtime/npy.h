#pragma once
// NumPy .npy files (format versions 1-3): the host side of every tensor the
// simulator reads or writes. Values travel as float: the device computes in
// DLFloat16 or fp32, so nothing wider is needed.

#include <cstdint>
#include <string>
#include <vector>

namespace spyre {

struct NpyArray {
  std::string dtype;  // numpy descr without byte order, e.g. "f2", "f4", "i8", "b1"
  std::vector<int64_t> shape;
  std::vector<float> values;  // C order
  int64_t size() const;
};

// Throws SpyreError naming the file for anything unreadable or unsupported.
NpyArray read_npy(const std::string& path);
// The same into `array`, whose values' storage is reused when large enough
// (a large weight read again costs no new pages).
void read_npy_into(const std::string& path, NpyArray& array);
// dtype "f2" (IEEE half) or "f4".
void write_npy(const std::string& path, const std::vector<int64_t>& shape, const std::vector<float>& values,
               const std::string& dtype);

std::string shape_text(const std::vector<int64_t>& shape);  // "(512, 1024)"

}  // namespace spyre
