// Every torch-spyre bundle runs; outputs match INDEX.md's all-ones values and
// an independent NumPy-style reference on random inputs.

#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "e2e_support.h"
#include "runtime/numerics.h"

namespace spyre::test {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> all_bundles() {
  std::vector<std::string> out = {bundle_path("seed-abs"), bundle_path("hand-written/gather_rows"),
                                  bundle_path("hand-written/scatter_rows")};
  for (const auto& root : {bundle_path("torch-spyre/spyre-cli"), bundle_path("torch-spyre/swiglu")}) {
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      if (entry.is_directory() && fs::exists(entry.path() / "sdsc_0.json")) out.push_back(entry.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Examples, EveryBundleRunsInTimingMode) {
  const auto bundles = all_bundles();
  EXPECT_EQ(bundles.size(), 26u);  // 17 CLI examples, 6 swiglu kernels, seed abs, the hand-written gather and scatter
  for (const auto& b : bundles) {
    sim::RunOptions o;
    o.bundle = b;
    sim::RunOutcome r;
    ASSERT_NO_THROW(r = sim::run_bundle(o)) << b;
    EXPECT_EQ(r.report.mode, "timing");
    EXPECT_GT(r.report.latency_us, 0) << b;
    EXPECT_FALSE(r.report.kernels.empty()) << b;
    EXPECT_GT(r.report.hbm_read_bytes, 0) << b;
    for (const auto& k : r.report.kernels) EXPECT_LT(k.start_us, k.end_us) << b;
    expect_invariants_hold(r.report, b);
  }
}

TEST(Examples, SeedAbsMovesExactly512BytesEachWay) {
  sim::RunOptions o;
  o.bundle = bundle_path("seed-abs");
  const auto r = sim::run_bundle(o);
  EXPECT_EQ(r.report.hbm_read_bytes, 512);
  EXPECT_EQ(r.report.hbm_write_bytes, 512);
  ASSERT_EQ(r.report.kernels.size(), 1u);
  EXPECT_EQ(r.report.kernels[0].unit, "pt");
  EXPECT_EQ(r.report.kernels[0].cores, 2);
}

struct OnesCase {
  std::string example, output;
  double expected;
};

// INDEX.md: "output expected with all-ones inputs".
TEST(Examples, AllOnesInputsGiveIndexValues) {
  const std::vector<OnesCase> cases = {
      {"add", "arg2", 2},          {"sub", "arg2", 0},
      {"mul", "arg2", 1},          {"div", "arg2", 1},
      {"relu", "arg1", 1},         {"exp", "arg1", M_E},
      {"sigmoid", "arg1", 0.7311}, {"gelu", "arg1", 0.8413},
      {"fma", "arg3", 2},          {"swiglu", "arg2", 0.7311},
      {"add_fp32", "arg2", 2},     {"mul_bf16", "arg2", 1},
      {"add_3d", "arg2", 2},       {"softmax", "arg1", 1.0 / 1024},
      {"mean_keepdim", "arg1", 1}, {"mm", "arg2", 1024},
      {"bmm", "arg2", 256},
  };
  for (const auto& c : cases) {
    sim::RunOptions o;
    o.bundle = cli_bundle(c.example);
    o.fill = 1.0f;
    const auto r = sim::run_bundle(o);
    ASSERT_TRUE(r.outputs.count(c.output)) << c.example;
    const auto& values = r.outputs.at(c.output);
    for (size_t i = 0; i < values.size(); ++i) {
      ASSERT_NEAR(values[i], c.expected, 2e-3 * std::fabs(c.expected) + 1e-6) << c.example << " element " << i;
    }
  }
}

// coordinateMasking_: mean_keepdim with its 1024 columns read as 1000 valid
// + 24 padding, masked with a constant 1.0 (DLFloat16 bits 0x3E00). The host
// tensor has 1000 columns; every element is 1, the padding reads 1, so each
// row's sum is 1024 and its mean (scaling factor 1/1024) exactly 1. Unmasked,
// the padding bytes (zeros: nothing uploads them) would give 1000/1024.
TEST(Examples, MaskedPaddingReadsTheMaskingConstant) {
  TempDir dir;
  const std::string bundle = dir.file("mean");
  copy_bundle(cli_bundle("mean_keepdim"), bundle);
  Json doc = read_json_file(bundle + "/sdsc_0.json");
  Json& dsc = doc.begin().value()["dscs_"][0].begin().value();
  Json mask = dsc["constantInfo_"]["0"];
  mask["name_"] = "samv-maskvalue";
  mask["data_"]["data_"]["[0, 0, 0]"] = {"15872"};
  dsc["constantInfo_"]["1"] = mask;
  dsc["coordinateMasking_"] = {{"out", {{1000, 24}}}};
  dsc["maskingConstId_"] = 1;
  write_json(bundle + "/sdsc_0.json", doc);
  const Program p = load_bundle(bundle);
  ASSERT_NE(p.find_host_tensor("arg0"), nullptr);
  EXPECT_EQ(p.find_host_tensor("arg0")->shape, (std::vector<int64_t>{512, 1000}));
  sim::RunOptions o;
  o.bundle = bundle;
  o.fill = 1.0f;
  const auto r = sim::run_bundle(o);
  for (float v : r.outputs.at("arg1")) ASSERT_EQ(v, 1.0f);
}

TEST(Examples, SwigluMlpKernelsOnOnes) {
  struct Case {
    std::string kernel, output;
    double expected;
  };
  // small: E=128, H=512. gate = up = 128; silu(128) * 128 = 16384; down: sum of 512 ones.
  // decode: E=4096, H=12800: 4096 * silu(4096) = 2^24; down: 12800.
  const std::vector<Case> cases = {
      {"small_bmm/sdsc_fused_bmm_mul_silu_0_ot_e7jgp", "arg0_262144", 16384},
      {"small_bmm/sdsc_fused_bmm_1_n673lgwk", "arg2", 512},
      {"decode_bmm/sdsc_fused_bmm_mul_silu_0_n1yl7_1_", "arg0_25600", 16777216},
      {"decode_bmm/sdsc_fused_bmm_1_obv__lbc", "arg2", 12800},
  };
  for (const auto& c : cases) {
    sim::RunOptions o;
    o.bundle = bundle_path("torch-spyre/swiglu/" + c.kernel);
    o.fill = 1.0f;
    const auto r = sim::run_bundle(o);
    for (float v : r.outputs.at(c.output)) ASSERT_FLOAT_EQ(v, c.expected) << c.kernel;
  }
}

// Random inputs against a plain host computation on the unrounded inputs. The
// device rounds each input to DLFloat16 (2^-10 relative) and each result, so
// atol covers the input rounding of a cancellation (|a| + |b|) * 2^-10.
struct RandomCase {
  std::string example;
  float lo, hi;
  double rtol, atol;
  std::function<std::vector<double>(const Arrays&)> reference;
  std::string output;
};

std::vector<double> elementwise(const Arrays& in, const std::vector<std::string>& names,
                                const std::function<double(const double*)>& f) {
  const size_t n = in.at(names[0]).size();
  std::vector<double> out(n);
  double args[3];
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < names.size(); ++j) args[j] = in.at(names[j])[i];
    out[i] = f(args);
  }
  return out;
}

std::vector<double> matmul(const std::vector<float>& a, const std::vector<float>& b, int batch, int m, int k, int n) {
  std::vector<double> c(static_cast<size_t>(batch) * m * n, 0.0);
  for (int x = 0; x < batch; ++x) {
    for (int i = 0; i < m; ++i) {
      for (int p = 0; p < k; ++p) {
        const double av = a[(static_cast<size_t>(x) * m + i) * k + p];
        for (int j = 0; j < n; ++j)
          c[(static_cast<size_t>(x) * m + i) * n + j] += av * b[(static_cast<size_t>(x) * k + p) * n + j];
      }
    }
  }
  return c;
}

TEST(Examples, RandomInputsMatchAnIndependentReference) {
  const std::vector<RandomCase> cases = {
      {"add", -2, 2, 4e-3, 4e-3,
       [](const Arrays& in) {
         return elementwise(in, {"arg0", "arg1"}, [](const double* v) { return v[0] + v[1]; });
       },
       "arg2"},
      {"sub", -2, 2, 4e-3, 4e-3,
       [](const Arrays& in) {
         return elementwise(in, {"arg0", "arg1"}, [](const double* v) { return v[0] - v[1]; });
       },
       "arg2"},
      {"mul", -2, 2, 4e-3, 1e-3,
       [](const Arrays& in) {
         return elementwise(in, {"arg0", "arg1"}, [](const double* v) { return v[0] * v[1]; });
       },
       "arg2"},
      {"div", 0.5, 2, 4e-3, 1e-3,
       [](const Arrays& in) {
         return elementwise(in, {"arg0", "arg1"}, [](const double* v) { return v[0] / v[1]; });
       },
       "arg2"},
      {"relu", -2, 2, 4e-3, 1e-3,
       [](const Arrays& in) { return elementwise(in, {"arg0"}, [](const double* v) { return std::max(v[0], 0.0); }); },
       "arg1"},
      {"exp", -3, 3, 4e-3, 1e-3,
       [](const Arrays& in) { return elementwise(in, {"arg0"}, [](const double* v) { return std::exp(v[0]); }); },
       "arg1"},
      {"sigmoid", -4, 4, 4e-3, 1e-3,
       [](const Arrays& in) { return elementwise(in, {"arg0"}, [](const double* v) { return sigmoid(v[0]); }); },
       "arg1"},
      {"gelu", -3, 3, 4e-3, 1e-3,
       [](const Arrays& in) {
         return elementwise(in, {"arg0"},
                            [](const double* v) { return 0.5 * v[0] * (1 + std::erf(v[0] / std::sqrt(2.0))); });
       },
       "arg1"},
      {"fma", -2, 2, 8e-3, 1e-2,
       [](const Arrays& in) {
         return elementwise(in, {"arg0", "arg1", "arg2"}, [](const double* v) { return v[0] * v[1] + v[2]; });
       },
       "arg3"},
      {"swiglu", -3, 3, 8e-3, 2e-3,
       [](const Arrays& in) {
         return elementwise(in, {"arg0", "arg1"}, [](const double* v) { return v[0] * sigmoid(v[0]) * v[1]; });
       },
       "arg2"},
      {"add_fp32", -2, 2, 1e-6, 1e-6,
       [](const Arrays& in) {
         return elementwise(in, {"arg0", "arg1"}, [](const double* v) { return double(float(v[0]) + float(v[1])); });
       },
       "arg2"},
      {"mul_bf16", -2, 2, 4e-3, 1e-3,
       [](const Arrays& in) {
         return elementwise(in, {"arg0", "arg1"}, [](const double* v) { return v[0] * v[1]; });
       },
       "arg2"},
      {"add_3d", -2, 2, 4e-3, 4e-3,
       [](const Arrays& in) {
         return elementwise(in, {"arg0", "arg1"}, [](const double* v) { return v[0] + v[1]; });
       },
       "arg2"},
      {"softmax", -4, 4, 1e-2, 1e-5,
       [](const Arrays& in) {
         const auto& x = in.at("arg0");
         std::vector<double> out(x.size());
         for (size_t r = 0; r < 512; ++r) {
           double mx = -INFINITY, sum = 0;
           for (size_t c = 0; c < 1024; ++c) mx = std::max(mx, double(x[r * 1024 + c]));
           for (size_t c = 0; c < 1024; ++c) sum += std::exp(x[r * 1024 + c] - mx);
           for (size_t c = 0; c < 1024; ++c) out[r * 1024 + c] = std::exp(x[r * 1024 + c] - mx) / sum;
         }
         return out;
       },
       "arg1"},
      {"mean_keepdim", -2, 2, 1e-2, 2e-3,
       [](const Arrays& in) {
         const auto& x = in.at("arg0");
         std::vector<double> out(512, 0.0);
         for (size_t r = 0; r < 512; ++r) {
           for (size_t c = 0; c < 1024; ++c) out[r] += x[r * 1024 + c];
           out[r] /= 1024;
         }
         return out;
       },
       "arg1"},
      {"mm", -1, 1, 1e-2, 0.05,
       [](const Arrays& in) { return matmul(in.at("arg0"), in.at("arg1"), 1, 512, 1024, 256); }, "arg2"},
      {"bmm", -1, 1, 1e-2, 0.03,
       [](const Arrays& in) { return matmul(in.at("arg0"), in.at("arg1"), 8, 128, 256, 128); }, "arg2"},
  };
  uint32_t seed = 1;
  for (const auto& c : cases) {
    const std::string bundle = cli_bundle(c.example);
    const Arrays inputs = random_inputs(load_bundle(bundle), c.lo, c.hi, seed += 10);
    const auto r = run_functional(bundle, inputs);
    const auto want = c.reference(inputs);
    ASSERT_EQ(r.outputs.at(c.output).size(), want.size()) << c.example;
    EXPECT_LE(worst_excess(r.outputs.at(c.output), want, c.rtol), c.atol) << c.example;
  }
}

// A hand-written torch-spyre indirect-access kernel moving 64 rows of 128
// fp16 through a descending index on one core (arg0 the index, arg1 the
// rows, arg2 the result): the rows come out reversed; timing reads the 64
// rows and the index once and writes 64 rows, each its own run; an index
// naming no row of the value tensor is one line naming it.
void expect_rows_reversed_through_the_index(const std::string& name, int bad_at, float bad_index,
                                            const std::string& error) {
  const std::string bundle = bundle_path("hand-written/" + name);
  sim::RunOptions timing;
  timing.bundle = bundle;
  const auto t = sim::run_bundle(timing);
  EXPECT_EQ(t.report.hbm_read_bytes, 64 * 128 * 2 + 64 * 4);
  EXPECT_EQ(t.report.hbm_write_bytes, 64 * 128 * 2);
  expect_invariants_hold(t.report, name);
  Arrays inputs;
  for (int i = 0; i < 64; ++i) inputs["arg0"].push_back(static_cast<float>(63 - i));
  for (int r = 0; r < 64; ++r) {
    for (int c = 0; c < 128; ++c) inputs["arg1"].push_back(static_cast<float>(r) - static_cast<float>(c) / 32.0f);
  }
  const auto r = run_functional(bundle, inputs);
  const std::vector<float>& y = r.outputs.at("arg2");
  ASSERT_EQ(y.size(), 64u * 128u);
  for (int row = 0; row < 64; ++row) {
    for (int c = 0; c < 128; ++c)
      ASSERT_EQ(y[static_cast<size_t>(row * 128 + c)],
                round_dl16(inputs["arg1"][static_cast<size_t>((63 - row) * 128 + c)]))
          << name << " " << row << "," << c;
  }
  inputs["arg0"][static_cast<size_t>(bad_at)] = bad_index;
  EXPECT_NE(error_of([&] { run_functional(bundle, inputs); }).find(error), std::string::npos) << name;
}

// gather_rows: row idx[i] of the table for each i, as torch-spyre's
// Tensor.flip decomposes (index_select with a descending arange).
TEST(Examples, HandWrittenGatherReadsTheRowsItsIndexNames) {
  expect_rows_reversed_through_the_index("gather_rows", 5, 64,
                                         "index 64 at mb = 5 names no row of Tensor1 (rows 0..63)");
}

// scatter_rows: out[idx[i]] = src[i], torch-spyre's index_put, whose value
// tensor, named by the index, is the output.
TEST(Examples, HandWrittenScatterWritesTheRowsItsIndexNames) {
  expect_rows_reversed_through_the_index("scatter_rows", 9, -1,
                                         "index -1 at mb = 9 names no row of Tensor2 (rows 0..63)");
}

TEST(Examples, SeedAbsOnRandomValues) {
  const std::string bundle = bundle_path("seed-abs");
  const Arrays inputs = random_inputs(load_bundle(bundle), -5, 5, 7);
  const auto r = run_functional(bundle, inputs);
  const auto want = elementwise(inputs, {"arg0"}, [](const double* v) { return std::fabs(v[0]); });
  EXPECT_LE(worst_excess(r.outputs.at("arg0_512"), want, 2e-3), 1e-6);
}

}  // namespace
}  // namespace spyre::test
