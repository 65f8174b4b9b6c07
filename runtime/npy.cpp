#include "runtime/npy.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "runtime/data_format.h"
#include "runtime/error.h"
#include "runtime/numerics.h"
#include "runtime/user_files.h"

namespace spyre {

int64_t NpyArray::size() const {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) out += ",";
  return out + ")";
}

namespace {

template <typename T>
float read_as(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return static_cast<float>(v);
}

float decode(const std::string& dtype, const char* p) {
  if (dtype == "f2") {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return half_to_float(h);
  }
  if (dtype == "f4") return read_as<float>(p);
  if (dtype == "f8") return read_as<double>(p);
  if (dtype == "i1") return read_as<int8_t>(p);
  if (dtype == "i2") return read_as<int16_t>(p);
  if (dtype == "i4") return read_as<int32_t>(p);
  if (dtype == "i8") return read_as<int64_t>(p);
  if (dtype == "u1" || dtype == "b1") return read_as<uint8_t>(p);
  if (dtype == "u2") return read_as<uint16_t>(p);
  if (dtype == "u4") return read_as<uint32_t>(p);
  return read_as<uint64_t>(p);  // u8
}

int dtype_bytes(const std::string& dtype) { return std::stoi(dtype.substr(1)); }

// Every IEEE half's float, made once.
const std::vector<float>& half_table() {
  static const std::vector<float> table = [] {
    std::vector<float> t(65536);
    for (uint32_t h = 0; h < 65536; ++h) t[h] = half_to_float(static_cast<uint16_t>(h));
    return t;
  }();
  return table;
}

}  // namespace

NpyArray read_npy(const std::string& path) {
  NpyArray array;
  read_npy_into(path, array);
  return array;
}

void read_npy_into(const std::string& path, NpyArray& array) {
  array.shape.clear();
  const int64_t file_bytes = input_file_size(path);
  std::ifstream in = open_input_file(path);
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) fail(path, "", "not a .npy file (bad magic)");
  const int major = static_cast<unsigned char>(magic[6]);
  uint32_t header_len = 0;
  if (major == 1) {
    unsigned char len[2];
    in.read(reinterpret_cast<char*>(len), 2);
    header_len = len[0] | (len[1] << 8);
  } else if (major == 2 || major == 3) {
    unsigned char len[4];
    in.read(reinterpret_cast<char*>(len), 4);
    header_len = len[0] | (len[1] << 8) | (len[2] << 16) | (static_cast<uint32_t>(len[3]) << 24);
  } else {
    fail(path, "", "unsupported .npy version " + std::to_string(major));
  }
  const int64_t preamble = major == 1 ? 10 : 12;
  if (preamble + static_cast<int64_t>(header_len) > file_bytes) {
    fail(path, "",
         "header length " + std::to_string(header_len) + " runs past the end of the " + std::to_string(file_bytes) +
             "-byte file");
  }
  std::string header(header_len, '\0');
  if (!in.read(header.data(), header_len)) fail(path, "", "truncated header");

  std::smatch m;
  static const std::regex descr_re(R"('descr'\s*:\s*'([<>|=])([a-z])(\d+)')");
  static const std::regex order_re(R"('fortran_order'\s*:\s*(True|False))");
  static const std::regex shape_re(R"('shape'\s*:\s*\(([^)]*)\))");
  if (!std::regex_search(header, m, descr_re))
    fail(path, "", "header has no simple 'descr' (structured dtypes are not supported)");
  const std::string order = m[1];
  array.dtype = std::string(m[2]) + std::string(m[3]);
  static const std::vector<std::string> supported = {"f2", "f4", "f8", "i1", "i2", "i4",
                                                     "i8", "u1", "u2", "u4", "u8", "b1"};
  if (std::find(supported.begin(), supported.end(), array.dtype) == supported.end())
    fail(path, "", "unsupported dtype '" + array.dtype + "'");
  if (order == ">" && dtype_bytes(array.dtype) > 1) fail(path, "", "big-endian arrays are not supported");
  if (!std::regex_search(header, m, order_re)) fail(path, "", "header has no 'fortran_order'");
  const bool fortran = m[1] == "True";
  if (!std::regex_search(header, m, shape_re)) fail(path, "", "header has no 'shape'");
  const std::string dims = m[1];
  // Dimensions: non-negative integers separated by commas ("(512, 1024)", "(5,)", "()").
  std::stringstream list(dims);
  int64_t count = 1;
  for (std::string dim; std::getline(list, dim, ',');) {
    dim.erase(0, dim.find_first_not_of(" \t"));
    dim.erase(dim.find_last_not_of(" \t") + 1);
    if (dim.empty() && list.eof()) break;  // the trailing comma of "(5,)"
    static const std::regex digits(R"(\d{1,18})");
    if (!std::regex_match(dim, digits))
      fail(path, "shape", "dimension '" + dim + "' is not a non-negative integer that fits in 64 bits");
    array.shape.push_back(std::stoll(dim));
    count = checked_product(count, array.shape.back());
    if (count < 0) fail(path, "shape", "(" + dims + ") has more elements than fit in 64 bits");
  }
  const int width = dtype_bytes(array.dtype);
  // Check the shape against the file before allocating for it.
  const int64_t data_bytes = file_bytes - static_cast<int64_t>(in.tellg());
  const int64_t needed = checked_product(count, width);
  if (needed < 0 || needed > data_bytes) {
    fail(path, "",
         "holds " + std::to_string(data_bytes) + " bytes of data, fewer than the " + std::to_string(count) +
             " elements of its shape " + shape_text(array.shape) + " need");
  }
  array.values.resize(static_cast<size_t>(count));
  if (!fortran) {
    // In chunks: a large weight costs its floats, not its bytes besides.
    constexpr int64_t kChunkElements = int64_t{1} << 18;
    std::vector<char> chunk(static_cast<size_t>(std::min(count, kChunkElements) * width));
    const bool half = array.dtype == "f2", single = array.dtype == "f4";
    for (int64_t first = 0; first < count; first += kChunkElements) {
      const int64_t n = std::min(kChunkElements, count - first);
      if (!in.read(chunk.data(), static_cast<std::streamsize>(n * width))) fail(path, "", "cannot read the data");
      float* out = array.values.data() + first;
      if (half) {  // the common cases without a per-element dispatch
        const auto& table = half_table();
        for (int64_t i = 0; i < n; ++i) {
          uint16_t h;
          std::memcpy(&h, chunk.data() + i * 2, 2);
          out[i] = table[h];
        }
      } else if (single) {
        std::memcpy(out, chunk.data(), static_cast<size_t>(n) * 4);
      } else {
        for (int64_t i = 0; i < n; ++i) out[i] = decode(array.dtype, chunk.data() + i * width);
      }
    }
    return;
  }
  std::vector<char> raw(static_cast<size_t>(needed));
  if (!in.read(raw.data(), static_cast<std::streamsize>(raw.size()))) fail(path, "", "cannot read the data");
  // Fortran order: the first index varies fastest; rewrite into C order.
  const size_t rank = array.shape.size();
  std::vector<int64_t> index(rank, 0);
  for (int64_t c = 0; c < count; ++c) {
    int64_t f = 0, stride = 1;
    for (size_t d = 0; d < rank; ++d) {
      f += index[d] * stride;
      stride *= array.shape[d];
    }
    array.values[c] = decode(array.dtype, raw.data() + f * width);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < array.shape[d]) break;
      index[d] = 0;
    }
  }
}

void write_npy(const std::string& path, const std::vector<int64_t>& shape, const std::vector<float>& values,
               const std::string& dtype) {
  if (dtype != "f2" && dtype != "f4" && dtype != "i4") fail(path, "", "can only write f2, f4 or i4 arrays");
  std::string header = "{'descr': '<" + dtype + "', 'fortran_order': False, 'shape': " + shape_text(shape) + ", }";
  // Pad so the data starts on a 64-byte boundary (magic 6 + version 2 + length 2).
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) fail(path, "", "cannot create file");
  out.write("\x93NUMPY\x01\x00", 8);
  const uint16_t len = static_cast<uint16_t>(header.size());
  const char len_bytes[2] = {static_cast<char>(len & 0xFF), static_cast<char>(len >> 8)};
  out.write(len_bytes, 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  if (dtype == "f2") {
    constexpr size_t kChunk = size_t{1} << 18;  // halves converted at a time
    std::vector<uint16_t> data(std::min(values.size(), kChunk));
    for (size_t first = 0; first < values.size(); first += kChunk) {
      const size_t n = std::min(kChunk, values.size() - first);
      for (size_t i = 0; i < n; ++i) data[i] = float_to_half(values[first + i]);
      out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(n * 2));
    }
  } else if (dtype == "i4") {
    std::vector<int32_t> data(values.size());
    for (size_t i = 0; i < values.size(); ++i) data[i] = to_int32(values[i]);
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size() * 4));
  } else {
    out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * 4));
  }
  if (!out) fail(path, "", "write failed");
}

}  // namespace spyre
