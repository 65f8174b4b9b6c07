// --expect tolerances: what each dtype can be held to, and the file
// `compile --emit-io` records them in.

#include "runtime/tolerance.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace spyre::test {
namespace {

TEST(Tolerance, DlFloat16IsFourUlpRelativeAndTwoUlpOfTheLargestMagnitude) {
  const auto dl16 = parse_value_dtype("DLFloat16");
  ASSERT_TRUE(dl16);
  EXPECT_EQ(dl16->fraction_bits, 9);
  // max|ref| 4.067 lies in [4, 8): ulp 2^(2-9), so atol 2^-6.
  const Tolerance t = dtype_tolerance(*dl16, 4.067);
  EXPECT_DOUBLE_EQ(t.rtol, 0.0078125);
  EXPECT_DOUBLE_EQ(t.atol, 0.015625);
  EXPECT_NE(t.basis.find("DLFloat16 (9 fraction bits)"), std::string::npos) << t.basis;
}

TEST(Tolerance, EachDtypeByItsFractionBits) {
  EXPECT_DOUBLE_EQ(dtype_tolerance(*parse_value_dtype("bf16"), 1.0).rtol, 1.0 / 32);
  EXPECT_DOUBLE_EQ(dtype_tolerance(*parse_value_dtype("bf16"), 1.0).atol, 1.0 / 64);
  EXPECT_DOUBLE_EQ(dtype_tolerance(*parse_value_dtype("fp16"), 1.0).rtol, 1.0 / 256);
  EXPECT_DOUBLE_EQ(dtype_tolerance(*parse_value_dtype("float32"), 0.5).rtol, std::ldexp(1.0, -21));
  EXPECT_DOUBLE_EQ(dtype_tolerance(*parse_value_dtype("fp32"), 0.5).atol, std::ldexp(1.0, -23));
  // An all-zero reference leaves nothing to scale atol by: zeros must come out zeros.
  EXPECT_EQ(dtype_tolerance(*parse_value_dtype("fp16"), 0).atol, 0);
  EXPECT_FALSE(parse_value_dtype("int8"));
}

TEST(Tolerance, TheReferenceFileNarrowsTheDevicePrecision) {
  EXPECT_EQ(output_value_dtype(DataFormat::Dl16, "f4").name, "DLFloat16");
  EXPECT_EQ(output_value_dtype(DataFormat::Dl16, "f2").name, "DLFloat16");  // fp16 keeps more bits
  EXPECT_EQ(output_value_dtype(DataFormat::Fp32, "f2").name, "fp16");
  EXPECT_EQ(output_value_dtype(DataFormat::Fp32, "f4").name, "fp32");
}

TEST(Tolerance, LargestFiniteMagnitudeSkipsNanAndInfinity) {
  EXPECT_EQ(max_finite_abs({1.0f, -3.0f, NAN, INFINITY, -INFINITY}), 3.0);
  EXPECT_EQ(max_finite_abs({}), 0.0);
}

TEST(Tolerance, FileRoundTripsAndBadEntriesNameTheField) {
  TempDir dir;
  const std::string path = dir.file(kToleranceFile);
  write_tolerance_file(path, {{"y", {*parse_value_dtype("dl16"), Tolerance{0.0078125, 0.5, "why"}}}});
  const auto read = read_tolerance_file(path);
  ASSERT_EQ(read.count("y"), 1u);
  EXPECT_EQ(read.at("y").rtol, 0.0078125);
  EXPECT_EQ(read.at("y").atol, 0.5);
  EXPECT_EQ(read.at("y").basis, path + ": why");

  write_text(path, R"({"format": 1, "outputs": {"y": {"rtol": -1, "atol": 0}}})");
  EXPECT_EQ(error_of([&] { read_tolerance_file(path); }), path + ": $.outputs.y.rtol: must be a finite number >= 0");
  write_text(path, R"({"format": 2, "outputs": {}})");
  EXPECT_NE(error_of([&] { read_tolerance_file(path); }).find("$.format: unsupported format"), std::string::npos);
  write_text(path, R"({"format": 1, "outputs": {"y": {"rtol": 0.1}}})");
  EXPECT_NE(error_of([&] { read_tolerance_file(path); }).find("$.outputs.y"), std::string::npos);
}

}  // namespace
}  // namespace spyre::test
