// .npy reading and writing, and the host I/O checks built on it.

#include <fstream>

#include <gtest/gtest.h>

#include <filesystem>

#include "runtime/error.h"
#include "runtime/host_io.h"
#include "runtime/npy.h"
#include "runtime/numerics.h"
#include "test_support.h"

namespace spyre {
namespace {

using test::error_of;

// Writes a raw .npy with an arbitrary header, as numpy would.
void write_raw_npy(const std::string& path, const std::string& header_dict, const std::string& data) {
  std::string header = header_dict;
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const char len[2] = {static_cast<char>(header.size() & 0xFF), static_cast<char>(header.size() >> 8)};
  out.write(len, 2);
  out << header << data;
}

TEST(Npy, RoundTripsFp32AndFp16) {
  test::TempDir dir;
  const std::vector<float> values = {1.0f, -2.5f, 0.1f, 65504.0f, 3.0f, 4.0f};
  write_npy(dir.file("a.npy"), {2, 3}, values, "f4");
  NpyArray a = read_npy(dir.file("a.npy"));
  EXPECT_EQ(a.dtype, "f4");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.values, values);
  write_npy(dir.file("h.npy"), {6}, values, "f2");
  NpyArray h = read_npy(dir.file("h.npy"));
  EXPECT_EQ(h.dtype, "f2");
  EXPECT_FLOAT_EQ(h.values[2], half_to_float(float_to_half(0.1f)));
  EXPECT_EQ(shape_text(h.shape), "(6,)");
}

TEST(Npy, WritesInt32Arrays) {
  test::TempDir dir;
  write_npy(dir.file("i.npy"), {4}, {1.0f, -7.9f, 123456.0f, 0.0f}, "i4");
  NpyArray a = read_npy(dir.file("i.npy"));
  EXPECT_EQ(a.dtype, "i4");
  EXPECT_EQ(a.values, (std::vector<float>{1.0f, -7.0f, 123456.0f, 0.0f}));
  EXPECT_THROW(write_npy(dir.file("d.npy"), {1}, {1.0f}, "f8"), SpyreError);
}

TEST(Npy, ReadsIntegerAndFortranOrderedArrays) {
  test::TempDir dir;
  const int32_t ints[6] = {1, 2, 3, 4, 5, 6};
  write_raw_npy(dir.file("f.npy"), "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }",
                std::string(reinterpret_cast<const char*>(ints), sizeof ints));
  NpyArray f = read_npy(dir.file("f.npy"));
  // Column-major [[1,3,5],[2,4,6]] read back in C order.
  EXPECT_EQ(f.values, (std::vector<float>{1, 3, 5, 2, 4, 6}));
}

TEST(Npy, Errors) {
  test::TempDir dir;
  test::write_text(dir.file("bad.npy"), "not numpy");
  EXPECT_EQ(error_of([&] { read_npy(dir.file("bad.npy")); }), dir.file("bad.npy") + ": not a .npy file (bad magic)");
  write_raw_npy(dir.file("short.npy"), "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", "abcd");
  EXPECT_NE(error_of([&] { read_npy(dir.file("short.npy")); }).find("holds 4 bytes of data, fewer than the 4 elements"),
            std::string::npos);
  write_raw_npy(dir.file("c.npy"), "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", "abcdefgh");
  EXPECT_NE(error_of([&] { read_npy(dir.file("c.npy")); }).find("unsupported dtype 'c8'"), std::string::npos);
  // Shapes are checked against the file before anything is allocated.
  write_raw_npy(dir.file("huge.npy"), "{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000), }", "abcd");
  EXPECT_NE(error_of([&] { read_npy(dir.file("huge.npy")); }).find("fewer than the 10000000000 elements"),
            std::string::npos);
  write_raw_npy(dir.file("neg.npy"), "{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 4), }", "abcd");
  EXPECT_NE(error_of([&] { read_npy(dir.file("neg.npy")); }).find("dimension '-1' is not a non-negative integer"),
            std::string::npos);
  write_raw_npy(dir.file("wide.npy"), "{'descr': '<f4', 'fortran_order': False, 'shape': (3037000500, 3037000500), }",
                "abcd");
  EXPECT_NE(error_of([&] { read_npy(dir.file("wide.npy")); }).find("more elements than fit in 64 bits"),
            std::string::npos);
  std::filesystem::create_directory(dir.file("dir.npy"));
  EXPECT_NE(error_of([&] { read_npy(dir.file("dir.npy")); }).find("is a directory"), std::string::npos);
}

TEST(HostIo, ShapesMatchIgnoringUnitDims) {
  EXPECT_TRUE(shapes_compatible({512, 1}, {512}));
  EXPECT_TRUE(shapes_compatible({1, 256, 128}, {256, 128}));
  EXPECT_FALSE(shapes_compatible({128, 256}, {256, 128}));
}

}  // namespace
}  // namespace spyre
