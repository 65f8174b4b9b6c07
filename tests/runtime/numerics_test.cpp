// DLFloat16 (SEN169_FP16) and IEEE half conversions.

#include <cmath>
#include <limits>

#include <cstring>

#include <gtest/gtest.h>

#include "runtime/data_format.h"
#include "runtime/numerics.h"

namespace spyre {
namespace {

TEST(Dl16, EncodesKnownValues) {
  EXPECT_EQ(float_to_dl16(1.0f), 0x3E00);  // e = 31, m = 0
  EXPECT_EQ(float_to_dl16(2.0f), 0x4000);
  EXPECT_EQ(float_to_dl16(-1.0f), 0xBE00);
  EXPECT_EQ(float_to_dl16(0.0f), 0x0000);
  EXPECT_EQ(float_to_dl16(1.5f), 0x3F00);  // m = 256
}

TEST(Dl16, DecodesMeanScalingFactorOfTorchSpyreExample) {
  // mean_keepdim's scaling_factor "10752" = 0x2A00 is 1/1024 in DLFloat16
  // (as IEEE half it would be 3/64): the format is bias 31, 9 fraction bits.
  EXPECT_FLOAT_EQ(dl16_to_float(10752), 1.0f / 1024.0f);
  EXPECT_FLOAT_EQ(half_to_float(10752), 0.046875f);  // as IEEE half it would be 3/64
}

TEST(Dl16, RoundsToNearestEven) {
  // Between 1 and 1 + 1/512 the spacing is 2^-9: 1 + 2^-10 is a tie.
  EXPECT_EQ(dl16_to_float(float_to_dl16(1.0f + std::ldexp(1.0f, -10))), 1.0f);  // tie -> even (m = 0)
  const float odd = 1.0f + std::ldexp(1.0f, -9);                                // m = 1
  EXPECT_EQ(dl16_to_float(float_to_dl16(odd + std::ldexp(1.0f, -10))), 1.0f + std::ldexp(1.0f, -8));  // tie -> m = 2
  EXPECT_EQ(dl16_to_float(float_to_dl16(1.0f + 0.6f * std::ldexp(1.0f, -9))), odd);
  EXPECT_EQ(dl16_to_float(float_to_dl16(1.0f + 0.4f * std::ldexp(1.0f, -9))), 1.0f);
}

TEST(Dl16, RangeLimits) {
  EXPECT_FLOAT_EQ(dl16_to_float(0x7FFE), kDl16Max);  // e = 63, m = 510
  EXPECT_EQ(float_to_dl16(kDl16Max), 0x7FFE);
  EXPECT_EQ(float_to_dl16(1e10f), kDl16Nan);  // overflow -> NaN/infinity code
  EXPECT_TRUE(std::isinf(dl16_to_float(float_to_dl16(1e10f))));
  EXPECT_TRUE(std::isinf(dl16_to_float(float_to_dl16(std::numeric_limits<float>::infinity()))));
  EXPECT_EQ(float_to_dl16(std::ldexp(1.0f, -40)), 0);  // below 2^-31 flushes to zero
  EXPECT_FLOAT_EQ(dl16_to_float(float_to_dl16(std::ldexp(1.0f, -30))), std::ldexp(1.0f, -30));
  // DLFloat16 reaches far beyond fp16's 65504.
  EXPECT_FLOAT_EQ(dl16_to_float(float_to_dl16(1e6f)), 1000448.0f);
}

TEST(Dl16, KeepsNineFractionBits) {
  for (float x : {0.1f, 3.14159f, -123.456f, 7e-5f, 65504.0f}) {
    const float r = round_dl16(x);
    EXPECT_LE(std::fabs(r - x), std::fabs(x) * std::ldexp(1.0f, -10) * 1.0001f) << x;
  }
}

// round_dl16's in-place rounding of in-range magnitudes is the encode-decode
// round trip, bit for bit: every float whose bits step by 97 (44 million of
// them, every exponent, sign and both sides of each range edge), and ties.
TEST(Dl16, RoundingInPlaceIsTheRoundTrip) {
  auto bits = [](float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
  };
  for (uint64_t u = 0; u <= 0xFFFFFFFFull; u += 97) {
    float x;
    const uint32_t b = static_cast<uint32_t>(u);
    std::memcpy(&x, &b, 4);
    const float slow = dl16_to_float(float_to_dl16(x)), fast = round_dl16(x);
    if (std::isnan(slow)) {
      ASSERT_TRUE(std::isnan(fast)) << std::hex << b;
    } else {
      ASSERT_EQ(bits(fast), bits(slow)) << std::hex << b;
    }
  }
  for (float tie : {1.0f + 1.0f / 1024, 1.0f + 3.0f / 1024, -(1.0f + 1.0f / 1024), 0x1p-30f * (1 + 1.0f / 1024),
                    0x1p31f * (2 - 1.0f / 1024), 0x1p31f * (2 - 3.0f / 1024)})
    EXPECT_EQ(bits(round_dl16(tie)), bits(dl16_to_float(float_to_dl16(tie)))) << tie;
}

TEST(Half, RoundTripsEveryFiniteValue) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const uint16_t h = static_cast<uint16_t>(b);
    const float f = half_to_float(h);
    if (std::isnan(f)) continue;
    EXPECT_EQ(float_to_half(f), h) << std::hex << b;
  }
  EXPECT_EQ(float_to_half(70000.0f), 0x7C00);  // overflow -> +inf
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));
}

// IEEE_INT32 (torch-spyre's int32, and int64 narrowed): stored truncated
// toward zero as PyTorch's casts to an integer dtype truncate, saturated at
// the int32 range, read back exactly.
TEST(Int32Format, StoresTruncatedSaturatedAndReadsBackExactly) {
  ASSERT_EQ(parse_data_format("IEEE_INT32"), DataFormat::Int32);
  EXPECT_STREQ(data_format_name(DataFormat::Int32), "IEEE_INT32");
  EXPECT_EQ(word_bytes(DataFormat::Int32), 4);
  uint8_t word[4];
  const std::pair<float, int32_t> cases[] = {{2.9f, 2},         {-2.9f, -2},        {16777216.0f, 16777216},
                                             {3e9f, INT32_MAX}, {-3e9f, INT32_MIN}, {std::nanf(""), 0},
                                             {-0.5f, 0}};
  for (const auto& [value, stored] : cases) {
    store_element(DataFormat::Int32, word, value);
    int32_t bits;
    std::memcpy(&bits, word, 4);
    EXPECT_EQ(bits, stored) << value;
    EXPECT_EQ(load_element(DataFormat::Int32, word), static_cast<float>(stored)) << value;
    EXPECT_EQ(round_to_format(DataFormat::Int32, value), static_cast<float>(stored)) << value;
  }
}

// FP8 E4M3 (SEN143_FP8, float8_e4m3fn): values worked out by hand from the
// format (bias 7, 3 fraction bits, subnormals in steps of 2^-9, no infinity).
TEST(Fp8E4m3, EncodesKnownValues) {
  EXPECT_EQ(float_to_fp8e4m3(1.0f), 0x38);  // exponent field 7
  EXPECT_EQ(float_to_fp8e4m3(-2.0f), 0xC0);
  EXPECT_EQ(float_to_fp8e4m3(448.0f), 0x7E);        // the largest value
  EXPECT_EQ(float_to_fp8e4m3(0.015625f), 0x08);     // 2^-6, the smallest normal
  EXPECT_EQ(float_to_fp8e4m3(0.001953125f), 0x01);  // 2^-9, the smallest subnormal
  EXPECT_EQ(float_to_fp8e4m3(0.1f), 0x1D);          // 1.625 x 2^-4 = 0.1015625
  EXPECT_FLOAT_EQ(fp8e4m3_to_float(0x1D), 0.1015625f);
  EXPECT_FLOAT_EQ(fp8e4m3_to_float(0x7E), 448.0f);
  EXPECT_FLOAT_EQ(fp8e4m3_to_float(0x01), 0.001953125f);
  EXPECT_FLOAT_EQ(fp8e4m3_to_float(0x80), -0.0f);
  EXPECT_TRUE(std::isnan(fp8e4m3_to_float(0x7F)));
  EXPECT_TRUE(std::isnan(fp8e4m3_to_float(0xFF)));
}

TEST(Fp8E4m3, RoundsToNearestEvenAndOverflowsToNan) {
  EXPECT_EQ(float_to_fp8e4m3(1.0625f), 0x38);        // halfway 1 and 1.125: to 1 (even)
  EXPECT_EQ(float_to_fp8e4m3(1.1875f), 0x3A);        // halfway 1.125 and 1.25: to 1.25
  EXPECT_EQ(float_to_fp8e4m3(0.0009765625f), 0x00);  // 2^-10, halfway 0 and 2^-9: to 0
  EXPECT_EQ(float_to_fp8e4m3(0.0029296875f), 0x02);  // 1.5 x 2^-9: to 2 x 2^-9 (even)
  EXPECT_EQ(float_to_fp8e4m3(0.0146484375f), 0x08);  // 7.5 x 2^-9: up to 2^-6, a normal
  EXPECT_EQ(float_to_fp8e4m3(15.5f), 0x58);          // halfway 15 and 16: up to 16, a new binade
  EXPECT_EQ(float_to_fp8e4m3(464.0f), 0x7E);         // halfway 448 and 480: 448
  EXPECT_EQ(float_to_fp8e4m3(465.0f), 0x7F);         // rounds past 448: NaN
  EXPECT_EQ(float_to_fp8e4m3(-1e6f), 0xFF);
  EXPECT_EQ(float_to_fp8e4m3(std::numeric_limits<float>::infinity()), 0x7F);
  EXPECT_EQ(float_to_fp8e4m3(std::numeric_limits<float>::quiet_NaN()) & 0x7F, 0x7F);
}

// Every code but NaN decodes to a value that encodes back to it, and the
// format's one byte per element gives 128 per stick.
TEST(Fp8E4m3, EveryCodeRoundTripsAndPacks128PerStick) {
  for (int code = 0; code < 256; ++code) {
    if ((code & 0x7F) == 0x7F) continue;
    const float v = fp8e4m3_to_float(static_cast<uint8_t>(code));
    EXPECT_EQ(float_to_fp8e4m3(v), code) << code;
    EXPECT_EQ(round_to_format(DataFormat::Fp8E4m3, v), v) << code;
  }
  EXPECT_EQ(parse_data_format("SEN143_FP8"), DataFormat::Fp8E4m3);
  EXPECT_EQ(kStickBytes / word_bytes(DataFormat::Fp8E4m3), 128);
  uint8_t byte = 0;
  store_element(DataFormat::Fp8E4m3, &byte, 3.3f);  // 3.25 (steps of 0.25 in [2, 4))
  EXPECT_EQ(load_element(DataFormat::Fp8E4m3, &byte), 3.25f);
}

TEST(Bf16, RoundsToNearestEven) {
  EXPECT_EQ(float_to_bf16(1.0f), 0x3F80);
  EXPECT_FLOAT_EQ(bf16_to_float(float_to_bf16(3.14159f)), 3.140625f);
}

}  // namespace
}  // namespace spyre
