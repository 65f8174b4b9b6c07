// The host reference (`compile --emit-io`): matmuls in BLAS against a plain
// loop, inputs asked for lazily and dropped after their last use, only the
// kept tensors returned, and the emitted files staged then moved into place.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include "compiler/compile_job.h"
#include "compiler/ir/workloads.h"
#include "compiler/reference/emit_io.h"
#include "compiler/reference/host_evaluator.h"
#include "runtime/npy.h"
#include "test_support.h"

namespace spyre::compiler {
namespace {

std::vector<float> random_values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

// The reference before BLAS: a double accumulation in a plain loop.
std::vector<float> plain_matmul(const std::vector<float>& a, const std::vector<float>& b, int64_t batch, int64_t m,
                                int64_t k, int64_t n, bool b_transposed) {
  std::vector<float> c(static_cast<size_t>(batch * m * n));
  for (int64_t x = 0; x < batch; ++x) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p) {
          const float bv =
              b_transposed ? b[static_cast<size_t>((x * n + j) * k + p)] : b[static_cast<size_t>((x * k + p) * n + j)];
          acc += static_cast<double>(a[static_cast<size_t>((x * m + i) * k + p)]) * bv;
        }
        c[static_cast<size_t>((x * m + i) * n + j)] = static_cast<float>(acc);
      }
    }
  }
  return c;
}

// Both accumulate in double and round once: the results agree to within one
// unit in the last place of fp32 (summation order aside), on matmul, bmm and
// linear (whose weight is read transposed in place), in shapes that are not
// multiples of any block.
TEST(HostReference, MatmulsInBlasAgreeWithAPlainDoubleLoop) {
  struct Case {
    std::string workload;
    std::vector<int64_t> shape;  // the workload's --shape
  };
  for (const Case& c : {Case{"matmul", {37, 130, 51}}, Case{"bmm", {3, 17, 70, 29}}, Case{"linear", {9, 200, 333}}}) {
    WorkloadParams p;
    p.shape = c.shape;
    p.dtype = DType::F32;
    const Graph g = build_workload(c.workload, p);
    HostValues inputs;
    uint32_t seed = 1;
    for (const auto& t : g.tensors) {
      if (t.role == Role::Input || t.role == Role::Weight)
        inputs[t.name] = random_values(static_cast<size_t>(t.elements()), seed++);
    }
    const HostValues out = evaluate_graph(g, inputs);
    const bool batched = c.workload == "bmm";
    const int64_t batch = batched ? c.shape[0] : 1, m = c.shape[batched], k = c.shape[batched + 1],
                  n = c.shape[batched + 2];
    std::vector<float> expect = plain_matmul(inputs.at("a"), inputs.at(c.workload == "linear" ? "weight" : "b"), batch,
                                             m, k, n, c.workload == "linear");
    if (c.workload == "linear") {
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j)
          expect[static_cast<size_t>(i * n + j)] += inputs.at("bias")[static_cast<size_t>(j)];
      }
    }
    const auto& got = out.at("c");
    ASSERT_EQ(got.size(), expect.size());
    for (size_t i = 0; i < got.size(); ++i) {
      const float ulp = std::nextafter(std::fabs(expect[i]), INFINITY) - std::fabs(expect[i]);
      ASSERT_LE(std::fabs(got[i] - expect[i]), c.workload == "linear" ? 2 * ulp + 1e-7f : ulp)
          << c.workload << " " << i;
    }
  }
}

// A SwiGLU MLP's weights are asked for one at a time, as the op needs them,
// and each is released before the next is asked for (a source that hands out
// storage sees it come back); only the kept output is returned.
TEST(HostReference, InputsAreAskedForLazilyAndOnlyKeptTensorsReturned) {
  WorkloadParams p;
  p.shape = {4, 64, 96};
  const Graph g = build_workload("mlp", p);
  std::vector<std::string> asked;
  size_t reused = 0;
  const InputSource source = [&](const Tensor& t, std::vector<float>& values) {
    asked.push_back(t.name);
    reused += values.capacity() > 0;
    values = random_values(static_cast<size_t>(t.elements()), static_cast<uint32_t>(t.name.size()));
  };
  std::vector<float> scratch;
  const HostValues out = evaluate_graph(g, source, StoredPrecision::Fp32, {"y"}, &scratch);
  EXPECT_EQ(asked, (std::vector<std::string>{"x", "gate_proj.weight", "up_proj.weight", "down_proj.weight"}));
  EXPECT_EQ(reused, 2u);  // up and down took gate's and up's storage
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out.at("y").size(), 4u * 64);
  EXPECT_GE(scratch.capacity(), 96u * 64);  // left for the next evaluation
  // The same values as the map-taking evaluation, which keeps every tensor.
  HostValues inputs;
  asked.clear();
  for (const auto& t : g.tensors) {
    if (t.role != Role::Input && t.role != Role::Weight) continue;
    std::vector<float> v;
    source(t, v);
    inputs[t.name] = v;
  }
  const HostValues all = evaluate_graph(g, inputs);
  EXPECT_EQ(all.size(), 5u);  // the four inputs and y
  EXPECT_EQ(all.at("y"), out.at("y"));
}

// --emit-io stages its files beside the folder and moves them in; nothing of
// the staging is left. Inputs are DLFloat16 values written exactly as fp16,
// and the same seed gives the same files.
TEST(HostReference, EmittedFilesAreStagedThenMovedIntoPlace) {
  test::TempDir dir;
  CompileJob job;
  job.workload = "mlp";
  job.params.shape = {8, 64, 128};
  job.output_dir = dir.file("out");
  job.emit_io_dir = dir.file("io");
  run_compile_job(job);
  EXPECT_FALSE(std::filesystem::exists(dir.file("io.partial")));
  const NpyArray w = read_npy(dir.file("io/inputs/gate_proj.weight.npy"));
  EXPECT_EQ(w.dtype, "f2");
  EXPECT_EQ(w.shape, (std::vector<int64_t>{128, 64}));
  double mean = 0;
  for (float x : w.values) mean += x;
  mean /= static_cast<double>(w.values.size());
  EXPECT_LT(std::fabs(mean), 0.01);  // uniform around 0, scaled by 1/sqrt(64)
  EXPECT_LE(*std::max_element(w.values.begin(), w.values.end()), 0.125f);
  EXPECT_TRUE(std::filesystem::exists(dir.file("io/reference/y.npy")));
  EXPECT_TRUE(std::filesystem::exists(dir.file("io/reference/tolerance.json")));
  job.output_dir = dir.file("out2");
  job.emit_io_dir = dir.file("io2");
  run_compile_job(job);
  EXPECT_EQ(test::read_text(dir.file("io/inputs/gate_proj.weight.npy")),
            test::read_text(dir.file("io2/inputs/gate_proj.weight.npy")));
  EXPECT_EQ(test::read_text(dir.file("io/reference/y.npy")), test::read_text(dir.file("io2/reference/y.npy")));
}

}  // namespace
}  // namespace spyre::compiler
