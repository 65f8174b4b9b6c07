// The kernels torch-spyre emitted for one Granite-3.3-8B decoder layer
// (models/bundles/torch-spyre/granite_layer_prefill) on random inputs, against
// independent host computations of what each kernel means.

#include <cmath>

#include <gtest/gtest.h>

#include "e2e_support.h"

namespace spyre::test {
namespace {

constexpr int kTokens = 512, kHidden = 4096, kQkv = 6144;

// RMSNorm of a (512, 4096) activation, then the fused QKV projection to 6144
// columns: y = x / sqrt(mean(x^2) + eps) * gamma, out = y W^T.
TEST(GraniteLayer, RmsNormQkvMatchesTheHostReference) {
  const std::string bundle = bundle_path("torch-spyre/granite_layer_prefill/rms_norm_qkv");
  Arrays given;
  given["arg2"] = std::vector<float>(64, 1e-5f);  // eps, broadcast into one stick as torch-spyre passes it
  const Arrays in = random_inputs(load_bundle(bundle), -1, 1, 23, given);
  const auto& x = in.at("arg1");
  const auto& gamma = in.at("arg3");
  const auto& w = in.at("arg4");  // (6144, 4096): the Linear weight, out x in
  std::vector<double> y(static_cast<size_t>(kTokens) * kHidden);
  for (int r = 0; r < kTokens; ++r) {
    double squares = 0;
    for (int k = 0; k < kHidden; ++k) squares += double(x[r * kHidden + k]) * x[r * kHidden + k];
    const double scale = 1.0 / std::sqrt(squares / kHidden + 1e-5);
    for (int k = 0; k < kHidden; ++k) y[r * kHidden + k] = x[r * kHidden + k] * scale * gamma[k];
  }
  const auto run = run_functional(bundle, in);
  // The normalized activation is the pool's first buffer (arg0), the QKV projection arg5.
  EXPECT_LE(worst_excess(run.outputs.at("arg0"), y, 1e-2), 1e-2);
  const auto& qkv = run.outputs.at("arg5");
  ASSERT_EQ(qkv.size(), static_cast<size_t>(kTokens) * kQkv);
  // Rows at the edges of the 4 row slices (the projection splits rows 4 x
  // columns 8). The device rounds y to DLFloat16 (2^-10 relative) before the
  // projection, so a sum carries an error of about 2^-10 sqrt(sum (y w)^2):
  // allowed six times that, plus the rounding of the result.
  for (int r : {0, 1, 127, 128, 255, 256, 383, 384, 511}) {
    int worse = 0;
    for (int n = 0; n < kQkv; ++n) {
      double want = 0, spread = 0;
      for (int k = 0; k < kHidden; ++k) {
        const double term = y[r * kHidden + k] * w[static_cast<size_t>(n) * kHidden + k];
        want += term;
        spread += term * term;
      }
      const double got = qkv[static_cast<size_t>(r) * kQkv + n];
      if (std::fabs(got - want) > 6 * std::ldexp(std::sqrt(spread), -10) + std::ldexp(std::fabs(want), -9)) ++worse;
    }
    EXPECT_EQ(worse, 0) << "row " << r;
  }
}

// The attention core, as FMS writes it for Granite: rotary embedding of q and
// k (x_rot = R x per pair (x[e], x[64 + e]), R = [[cos, -sin], [sin, cos]] from
// a table of 512 positions), both scaled by s = 128^-1/4, QK^T per head with
// 4 heads per KV head, a causal mask added, softmax, then @ V. The kernel
// writes the rotated K (arg5) and the raw scores (arg0_4194304) to HBM and
// leaves the attention output in LX (sdsc_19.Tensor1, [head, position, 128]).
// It exercises 5-dimensional RoPE layouts, views of the fused QKV buffer with
// back gaps and the LX relayouts between differently divided SDSCs.
TEST(GraniteLayer, SdpaMatchesTheHostReference) {
  constexpr int kHeads = 32, kKvHeads = 8, kDim = 128, kHalf = 64;
  const std::string bundle = bundle_path("torch-spyre/granite_layer_prefill/sdpa");
  const double s = std::pow(double(kDim), -0.25);
  Arrays given;
  auto& table = given["arg1"];  // [position][output half][input half][e]
  table.resize(static_cast<size_t>(kTokens) * 4 * kHalf);
  std::vector<double> cosine(static_cast<size_t>(kTokens) * kHalf), sine(cosine.size());
  for (int p = 0; p < kTokens; ++p) {
    for (int e = 0; e < kHalf; ++e) {
      const double angle = p * std::pow(10000.0, -double(e) / kHalf);
      const size_t pe = static_cast<size_t>(p) * kHalf + e;
      cosine[pe] = std::cos(angle);
      sine[pe] = std::sin(angle);
      const size_t base = static_cast<size_t>(p) * 4 * kHalf + e;
      table[base] = float(cosine[pe]);
      table[base + kHalf] = float(-sine[pe]);
      table[base + 2 * kHalf] = float(sine[pe]);
      table[base + 3 * kHalf] = float(cosine[pe]);
    }
  }
  given["arg3"] = {float(s)};
  auto& mask = given["arg4"];  // [query][key], causal
  mask.resize(static_cast<size_t>(kTokens) * kTokens);
  for (int i = 0; i < kTokens; ++i) {
    for (int j = 0; j < kTokens; ++j) mask[static_cast<size_t>(i) * kTokens + j] = j <= i ? 0.0f : -1e4f;
  }
  const Arrays in = random_inputs(load_bundle(bundle), -1, 1, 5, given);
  const auto& q = in.at("arg2");        // [position][head][1][half][e]: q's view of the fused QKV buffer
  const auto& k = in.at("arg2_8192");   // [position][kv head][1][half][e]
  const auto& v = in.at("arg2_10240");  // [kv head][1][position][128]

  // Rotary embedding, rows of 128 per (position, head).
  auto rotate = [&](const std::vector<float>& x, int heads) {
    std::vector<double> out(x.size());
    for (int p = 0; p < kTokens; ++p) {
      for (int h = 0; h < heads; ++h) {
        const size_t row = (static_cast<size_t>(p) * heads + h) * kDim;
        for (int e = 0; e < kHalf; ++e) {
          const size_t pe = static_cast<size_t>(p) * kHalf + e;
          const double x0 = x[row + e], x1 = x[row + kHalf + e];
          out[row + e] = x0 * cosine[pe] - x1 * sine[pe];
          out[row + kHalf + e] = x0 * sine[pe] + x1 * cosine[pe];
        }
      }
    }
    return out;
  };
  const std::vector<double> qr = rotate(q, kHeads), kr = rotate(k, kKvHeads);

  const auto run = run_functional(bundle, in);
  EXPECT_EQ(run.report.kernels.size(), 20u);
  // Rotated K, [position][kv head][half][e] = kr's rows: two products and a sum, each rounded.
  EXPECT_LE(worst_excess(run.outputs.at("arg5"), kr, 1e-2), 1e-2);

  const auto& scores = run.outputs.at("arg0_4194304");        // [query][head][key]
  const auto& attention = run.outputs.at("sdsc_19.Tensor1");  // [head][query][128]
  ASSERT_EQ(scores.size(), static_cast<size_t>(kTokens) * kHeads * kTokens);
  ASSERT_EQ(attention.size(), static_cast<size_t>(kHeads) * kTokens * kDim);
  // Queries at the edges of the 32 position slices.
  for (int i : {0, 1, 15, 16, 255, 256, 496, 511}) {
    int worse_scores = 0, worse_out = 0;
    for (int h = 0; h < kHeads; ++h) {
      const int g = h / (kHeads / kKvHeads);
      std::vector<double> probability(kTokens);
      double top = -INFINITY;
      for (int j = 0; j < kTokens; ++j) {
        double want = 0, spread = 0;
        for (int d = 0; d < kDim; ++d) {
          const double term = s * qr[(static_cast<size_t>(i) * kHeads + h) * kDim + d] * s *
                              kr[(static_cast<size_t>(j) * kKvHeads + g) * kDim + d];
          want += term;
          spread += term * term;
        }
        const double got = scores[(static_cast<size_t>(i) * kHeads + h) * kTokens + j];
        // q and k are rotated and scaled in DLFloat16 (2^-10 relative) before the product.
        if (std::fabs(got - want) > 8 * std::ldexp(std::sqrt(spread), -10) + std::ldexp(std::fabs(want), -9))
          ++worse_scores;
        probability[j] = want + mask[static_cast<size_t>(i) * kTokens + j];
        top = std::max(top, probability[j]);
      }
      double total = 0;
      for (double& pj : probability) total += (pj = std::exp(pj - top));
      for (int d = 0; d < kDim; ++d) {
        double want = 0;
        for (int j = 0; j < kTokens; ++j)
          want += probability[j] / total * v[(static_cast<size_t>(g) * kTokens + j) * kDim + d];
        const double got = attention[(static_cast<size_t>(h) * kTokens + i) * kDim + d];
        if (std::fabs(got - want) > 1e-2 + std::ldexp(std::fabs(want), -7)) ++worse_out;
      }
    }
    EXPECT_EQ(worse_scores, 0) << "query " << i;
    EXPECT_EQ(worse_out, 0) << "query " << i;
  }
}

}  // namespace
}  // namespace spyre::test
