// Binding bundles: layouts, start addresses, host tensors, address-space
// errors and the hazards visible while binding.

#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "runtime/error.h"
#include "runtime/program.h"
#include "runtime/tensor_layout.h"
#include "test_support.h"

namespace spyre {
namespace {

using test::bundle_path;
using test::cli_bundle;
using test::error_of;

TEST(TensorLayout, DefaultTwoDimLayoutIsStickBlocksOutermost) {
  // (512, 1024) fp16 as [mb, out] with stick out: device [16][512][64].
  TensorLayout l({"mb", "out"}, {{"mb", 512}, {"out", 1024}}, {"out", 64}, 2);
  EXPECT_EQ(l.size_bytes(), 512 * 1024 * 2);
  EXPECT_EQ(l.offset({{"mb", 0}, {"out", 0}}), 0);
  EXPECT_EQ(l.offset({{"mb", 1}, {"out", 0}}), 128);
  EXPECT_EQ(l.offset({{"mb", 0}, {"out", 63}}), 126);
  EXPECT_EQ(l.offset({{"mb", 0}, {"out", 64}}), 512 * 128);
  EXPECT_EQ(l.describe(), "[out:16 sticks][mb:512][64 x 2B]");
  // A 256-row x 64-column box is 256 sticks.
  EXPECT_EQ(l.box_bytes({{"mb", 256}, {"out", 64}}, {{"mb", 256}, {"out", 64}}), 256 * 128);
}

TEST(TensorLayout, BoxRunsFollowTheStridedLayout) {
  TensorLayout l({"mb", "out"}, {{"mb", 512}, {"out", 1024}}, {"out", 64}, 2);
  // Rows 256-511 of every stick column: 16 runs of 256 sticks, one per column.
  const auto rows = l.box_runs({{"mb", 256}, {"out", 0}}, {{"mb", 256}, {"out", 1024}});
  ASSERT_EQ(rows.size(), 16u);
  EXPECT_EQ(rows[0], std::make_pair(int64_t{256 * 128}, int64_t{256 * 128}));
  EXPECT_EQ(rows[1].first, 512 * 128 + 256 * 128);
  // Stick columns 4-7, all rows: one contiguous run.
  const auto cols = l.box_runs({{"mb", 0}, {"out", 256}}, {{"mb", 512}, {"out", 256}});
  ASSERT_EQ(cols.size(), 1u);
  EXPECT_EQ(cols[0], std::make_pair(int64_t{4 * 512 * 128}, int64_t{4 * 512 * 128}));
  // Runs cover exactly the box's sticks; too many runs come back as one.
  int64_t total = 0;
  for (const auto& r : rows) total += r.second;
  EXPECT_EQ(total, l.box_bytes({{"mb", 256}, {"out", 0}}, {{"mb", 256}, {"out", 1024}}));
  EXPECT_EQ(l.box_runs({{"mb", 256}, {"out", 0}}, {{"mb", 256}, {"out", 1024}}, 8).size(), 1u);
}

TEST(TensorLayout, TwoDimSticksHoldRowsOfTheRowDim) {
  // An FP8 weight [in 6, out 128] in torch-spyre's QFP8WT sticks ([in, out]
  // with sizes [2, 64]): device [2 out-sticks][3 in-pairs][2][64 x 1B].
  const StickShape qfp8wt{"out", 64, "in", 2};
  TensorLayout w({"in", "out"}, {{"in", 6}, {"out", 128}}, qfp8wt, 1);
  EXPECT_EQ(w.size_bytes(), 6 * 128);
  EXPECT_EQ(w.offset({{"in", 0}, {"out", 1}}), 1);
  EXPECT_EQ(w.offset({{"in", 1}, {"out", 0}}), 64);   // the stick's second row
  EXPECT_EQ(w.offset({{"in", 2}, {"out", 0}}), 128);  // the next stick
  EXPECT_EQ(w.offset({{"in", 5}, {"out", 127}}), 3 * 128 + 2 * 128 + 64 + 63);
  EXPECT_EQ(w.describe(), "[out:2 sticks][in:3 row groups][2 rows][64 x 1B]");
  // Rows 1-2 touch two sticks (each row shares one with its pair); a row's
  // 64 columns are one run inside its stick, so the box moves whole sticks.
  EXPECT_EQ(w.box_bytes({{"in", 1}, {"out", 0}}, {{"in", 2}, {"out", 64}}), 2 * 128);
  const auto runs = w.box_runs({{"in", 0}, {"out", 64}}, {{"in", 6}, {"out", 64}});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0], std::make_pair(int64_t{3 * 128}, int64_t{3 * 128}));
  // Not the same bytes as one-dim FP8 sticks of 128 along out.
  TensorLayout standard({"in", "out"}, {{"in", 6}, {"out", 128}}, {"out", 128}, 1);
  EXPECT_EQ(standard.size_bytes(), w.size_bytes());
  EXPECT_FALSE(standard.same_bytes_as(w));
}

TEST(TensorLayout, PadsTheStickDimToWholeSticks) {
  TensorLayout l({"mb", "out"}, {{"mb", 4}, {"out", 100}}, {"out", 64}, 2);
  EXPECT_EQ(l.size_bytes(), 2 * 4 * 128);
  TensorLayout same_bytes({"r", "c", "x"}, {{"r", 4}, {"c", 100}, {"x", 1}}, {"c", 64}, 2);
  EXPECT_TRUE(l.same_bytes_as(same_bytes));
  TensorLayout transposed({"out", "mb"}, {{"mb", 4}, {"out", 100}}, {"out", 64}, 2);
  EXPECT_FALSE(l.same_bytes_as(transposed));
}

TEST(TensorLayout, BackGapsWidenTheNextStride) {
  // The query heads of a fused QKV output (512 rows of 48 heads x 2 sticks):
  // 32 heads, then a gap of 16 heads, make a row 96 sticks long.
  TensorLayout q({"out", "x", "mb", "i"}, {{"out", 2}, {"x", 32}, {"mb", 512}, {"i", 64}}, {"i", 64}, 2, {{"x", 16}});
  EXPECT_EQ(q.find("x")->stride, 2 * 128);
  EXPECT_EQ(q.find("mb")->stride, 96 * 128);
  EXPECT_EQ(q.offset({{"mb", 1}, {"x", 1}, {"out", 1}, {"i", 3}}), 96 * 128 + 2 * 128 + 128 + 3 * 2);
  EXPECT_EQ(q.size_bytes(), 512 * 96 * 128);
  EXPECT_EQ(q.data_bytes(), 512 * 64 * 128);  // only the view's own sticks
  EXPECT_TRUE(q.has_gaps());
  EXPECT_EQ(q.describe(), "[i:1 sticks][mb:512][x:32+16][out:2][64 x 2B]");
  // One run per row: the gap breaks the rows apart.
  const auto runs = q.runs();
  ASSERT_EQ(runs.size(), 512u);
  EXPECT_EQ(runs[1], std::make_pair(int64_t{96 * 128}, int64_t{64 * 128}));
  // A gap on the stick dim is in elements: 128 elements are two sticks.
  TensorLayout wide({"out", "mb"}, {{"out", 128}, {"mb", 4}}, {"out", 64}, 2, {{"out", 128}});
  EXPECT_EQ(wide.find("mb")->stride, 4 * 128);
}

// A tile of a coarse-tiling loop: rows [64 i, 64 i + 64) of a (256, 512)
// tensor in the default layout are 64 rows of each stick column, the rest of
// the rows a gap. It is a window of the whole tensor at row offsets only.
TEST(TensorLayout, ATileWithItsGapIsAWindowOfTheWholeTensor) {
  TensorLayout whole({"mb", "out"}, {{"mb", 256}, {"out", 512}}, {"out", 64}, 2);
  TensorLayout tile({"r", "c"}, {{"r", 64}, {"c", 512}}, {"c", 64}, 2, {{"r", 192}});
  EXPECT_EQ(tile.find("c")->stride, 256 * 128);
  EXPECT_EQ(tile.span_bytes(), 7 * 256 * 128 + 64 * 128);  // to the last stick of the last column
  EXPECT_LT(tile.span_bytes(), tile.size_bytes());
  EXPECT_TRUE(tile.window_of(whole, 0));
  EXPECT_TRUE(tile.window_of(whole, 192 * 128));   // the last tile
  EXPECT_FALSE(tile.window_of(whole, 193 * 128));  // would run past the rows
  EXPECT_FALSE(tile.window_of(whole, 64));         // not at a stick
  TensorLayout dense({"r", "c"}, {{"r", 64}, {"c", 512}}, {"c", 64}, 2);
  EXPECT_FALSE(dense.window_of(whole, 0));  // other strides
  EXPECT_EQ(whole.span_bytes(), whole.size_bytes());
}

TEST(Program, ViewsIntoOneFusedQkvBufferInterleave) {
  // sdpa reads q, k and v as three views of the QKV projection's output: each
  // start address is the buffer plus the view's head offset, each layout has
  // a back gap (x: 16 for q, x: 40 for k, mb: 40 for v) so rows are 96 sticks.
  Program p = load_program(bundle_path("torch-spyre/granite_layer_prefill/sdpa"), DeviceLimits{});
  const TensorLayout& q = p.kernels[1].tensors[1].layout;
  EXPECT_EQ(q.find("mb")->stride, 96 * 128);
  EXPECT_EQ(q.find("x")->gap, 16);
  const int64_t qkv = 2 * DeviceLimits{}.segment_bytes;
  EXPECT_EQ(p.kernels[1].tensors[1].hbm_base, qkv);
  EXPECT_EQ(p.kernels[4].tensors[1].hbm_base, qkv + 32 * 2 * 128);         // k: after 32 query heads
  EXPECT_EQ(p.kernels[17].tensors[0].hbm_base, qkv + (32 + 8) * 2 * 128);  // v: after 8 key heads
  for (const char* name : {"arg2", "arg2_8192", "arg2_10240"}) EXPECT_NE(p.find_host_tensor(name), nullptr) << name;
  // Their ranges overlap, their sticks do not: no hbm_overlap.
  for (const auto& h : p.hazards) EXPECT_NE(h.kind, "hbm_overlap") << h.detail;
}

// An LX input is where its writer left it: sdpa's RoPE muls (sdsc_1, sdsc_4)
// read, on 32 cores, the table sdsc_0 copied into core 0's LX; the K
// batchmatmul (sdsc_10) reads K where the restickify (sdsc_9) left each head,
// though its allocation's coreIdToWkSlice_ says otherwise.
TEST(Program, LxInputsAreWhereTheirWriterLeftThem) {
  Program p = load_program(bundle_path("torch-spyre/granite_layer_prefill/sdpa"), DeviceLimits{});
  const TensorBinding& table = p.kernels[1].tensors[0];
  ASSERT_TRUE(table.relayout);
  EXPECT_EQ(table.held.writer, "sdsc_0.json Tensor1");
  ASSERT_EQ(table.held.box.size(), 1u);  // core 0 holds all 512 positions
  EXPECT_EQ(table.held.address.at(0), 0);
  EXPECT_EQ(table.held.layout.size_bytes(), 512 * 4 * 128);
  EXPECT_EQ(table.core_box.at(5).origin.at("mb"), 5 * 16);  // what core 5 computes on
  const TensorBinding& k = p.kernels[10].tensors[1];
  ASSERT_TRUE(k.relayout);
  EXPECT_EQ(k.held.writer, "sdsc_9.json Tensor1");
  EXPECT_EQ(k.held.box.at(3).origin.at("mb"), 3);  // head 3, as sdsc_9 computed it
  // Inputs where their writer computed them move nothing (the softmax pieces).
  for (size_t kernel = 11; kernel <= 16; ++kernel) {
    for (const auto& b : p.kernels[kernel].tensors) EXPECT_FALSE(b.relayout) << kernel;
  }
  // The attention output is what the kernel leaves in LX.
  ASSERT_EQ(p.lx_results.size(), 1u);
  EXPECT_EQ(p.lx_results[0].tensor.name, "sdsc_19.Tensor1");
  EXPECT_EQ(p.lx_results[0].tensor.shape, (std::vector<int64_t>{32, 512, 128}));
  EXPECT_TRUE(
      load_program(bundle_path("torch-spyre/granite_layer_prefill/rms_norm_qkv"), DeviceLimits{}).lx_results.empty());
}

TEST(TensorLayout, ByteRunSetsIntersectAndSubtract) {
  const ByteRuns a = merge_runs({{100, 50}, {0, 10}, {5, 10}});  // overlapping runs merge
  EXPECT_EQ(a, (ByteRuns{{0, 15}, {100, 50}}));
  const ByteRuns b{{10, 100}};
  EXPECT_EQ(total_bytes(a), 65);
  EXPECT_EQ(overlap_bytes(a, b), 5 + 10);
  EXPECT_EQ(subtract_runs(a, b), (ByteRuns{{0, 10}, {110, 40}}));
  EXPECT_EQ(subtract_runs(b, a), (ByteRuns{{15, 85}}));
  EXPECT_EQ(overlap_bytes(a, {}), 0);
}

TEST(Program, SymbolicBundleArgumentsAreSegments) {
  Program p = load_program(cli_bundle("softmax"), DeviceLimits{});
  ASSERT_EQ(p.kernels.size(), 6u);
  ASSERT_EQ(p.host_tensors.size(), 2u);
  const HostTensor* in = p.find_host_tensor("arg0");
  const HostTensor* out = p.find_host_tensor("arg1");
  ASSERT_TRUE(in && out);
  EXPECT_TRUE(in->is_input);
  EXPECT_FALSE(in->is_output);
  EXPECT_TRUE(out->is_output);
  EXPECT_EQ(in->shape, (std::vector<int64_t>{512, 1024}));
  EXPECT_EQ(out->address, int64_t{1} << 34);
  EXPECT_TRUE(p.hazards.empty());
  // LX tensors: the max (sdsc_1) writes the row maxima at LX 0 on every core.
  const TensorBinding& row_max = p.kernels[1].tensors[1];
  EXPECT_EQ(row_max.component, MemComponent::Lx);
  EXPECT_EQ(row_max.lx_address.at(31), 0);
  EXPECT_EQ(row_max.layout.size_bytes(), 16 * 128);
}

TEST(Program, DumpWithoutBundleMlirMakesOneArgumentPerTensor) {
  Program p = load_program(cli_bundle("mm"), DeviceLimits{});
  ASSERT_EQ(p.host_tensors.size(), 3u);
  EXPECT_EQ(p.host_tensors[0].name, "arg0");
  EXPECT_EQ(p.host_tensors[1].shape, (std::vector<int64_t>{1024, 256}));  // B as (K, N): stick dim last
  EXPECT_EQ(p.host_tensors[2].dims, (std::vector<std::string>{"mb", "out"}));
  Program add = load_program(cli_bundle("add"), DeviceLimits{});
  EXPECT_EQ(add.host_tensors[2].name, "arg2");
  EXPECT_TRUE(add.host_tensors[2].is_output);
}

TEST(Program, LiteralAddressesShareASegmentByOffset) {
  Program p = load_program(bundle_path("seed-abs"), DeviceLimits{});
  ASSERT_EQ(p.host_tensors.size(), 2u);
  EXPECT_EQ(p.host_tensors[0].name, "arg0");
  EXPECT_EQ(p.host_tensors[1].name, "arg0_512");
  EXPECT_EQ(p.host_tensors[1].shape, (std::vector<int64_t>{4, 64}));
}

// torch-spyre's fused SwiGLU: the batchmatmuls write [x][out sticks][mb] and
// the elementwise SiLU and product read and write the same bytes as
// [mb][out sticks]: each sees a permutation, but all operands are permuted
// alike, so every output byte means what the batchmatmul's layout says and the
// down projection (which reads [x][in sticks][mb]) gets the right values.
TEST(Program, ElementwiseOpsCarryALayoutPermutation) {
  Program p =
      load_program(bundle_path("torch-spyre/swiglu/small_bmm/sdsc_fused_bmm_mul_silu_0_ot_e7jgp"), DeviceLimits{});
  EXPECT_TRUE(p.hazards.empty()) << p.hazards[0].detail;
  // The scratch buffer neg writes first holds bmm-ordered values: the host reads it so.
  const HostTensor* scratch = p.find_host_tensor("arg0_524288");
  ASSERT_NE(scratch, nullptr);
  EXPECT_EQ(scratch->layout.describe(), "[x:1][out:8 sticks][mb:256][64 x 2B]");
}

// The same kernel with the product's operands no longer permuted alike: the
// up-projection side read as the bmm wrote it, the gate side permuted.
TEST(Program, ElementwiseOpOverUnalikeOperandsIsALayoutMismatch) {
  test::TempDir dir;
  test::copy_bundle(bundle_path("torch-spyre/swiglu/small_bmm/sdsc_fused_bmm_mul_silu_0_ot_e7jgp"), dir.path());
  const std::string file = dir.path() + "/sdsc_6.json";
  Json doc = read_json_file(file);
  for (auto& node : doc["6_mul"]["dscs_"][0]["mul"]["scheduleTree_"]) {
    if (node["ldsIdx_"] != 1) continue;
    node["layoutDimOrder_"] = {"mb", "out"};  // rows of 128 bytes: core c's 8 rows start 1024 c in
    for (int core = 0; core < 32; ++core) {
      node["startAddressCoreCorelet_"]["data_"]["[" + std::to_string(core) + ", 0, 0]"] =
          std::to_string(524288 + 1024 * core);
    }
  }
  test::write_json(file, doc);
  Program p = load_program(dir.path(), DeviceLimits{});
  ASSERT_EQ(p.hazards.size(), 1u);
  EXPECT_EQ(p.hazards[0].kind, "layout_mismatch");
  EXPECT_EQ(p.hazards[0].file, "sdsc_6.json");
  EXPECT_EQ(p.hazards[0].tensor, "Tensor0");
  EXPECT_EQ(p.hazards[0].detail,
            "reads HBM 0 as [mb:256][out:8 sticks][64 x 2B] SEN169_FP16 but sdsc_0.json Tensor2 wrote it as "
            "[x:1][out:8 sticks][mb:256][64 x 2B] SEN169_FP16; its operands are not permuted alike, so it combines "
            "elements of different positions");
}

// torch-spyre forks write sdsc_<N>_<op>.json and some dumps bundle_0.mlir:
// the same kernels, run in the same order.
TEST(Program, SdscAndBundleFilesNamedOtherwise) {
  const std::string softmax = cli_bundle("softmax");
  const Program reference = load_program(softmax, DeviceLimits{});
  test::TempDir renamed;
  test::copy_bundle(softmax, renamed.path());
  std::filesystem::rename(renamed.file("bundle.mlir"), renamed.file("bundle_0.mlir"));
  const Program p = load_program(renamed.path(), DeviceLimits{});
  ASSERT_EQ(p.kernels.size(), reference.kernels.size());
  EXPECT_TRUE(p.bundles[0].has_mlir);

  test::TempDir fork;
  const std::vector<std::string> names = {"sdsc_0_identity.json", "sdsc_1_max.json", "sdsc_2_sub.json",
                                          "sdsc_3_exp.json",      "sdsc_4_sum.json", "sdsc_10_realdiv.json"};
  for (size_t i = 0; i < 5; ++i)
    std::filesystem::copy_file(test::bundle_path("torch-spyre/spyre-cli/softmax/sdsc_" + std::to_string(i) + ".json"),
                               fork.file(names[i]));
  std::filesystem::copy_file(test::bundle_path("torch-spyre/spyre-cli/softmax/sdsc_5.json"), fork.file(names[5]));
  const Program q = load_program(fork.path(), DeviceLimits{});
  ASSERT_EQ(q.kernels.size(), 6u);
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(q.kernels[i].label, names[i]);  // by number: 10 after 4
}

TEST(Program, DirectoryErrors) {
  EXPECT_EQ(error_of([] { load_program("/nonexistent-bundle", DeviceLimits{}); }),
            "/nonexistent-bundle: no such directory");
  const std::string parent = bundle_path("torch-spyre/swiglu/small_bmm");
  EXPECT_NE(error_of([&] { load_program(parent, DeviceLimits{}); }).find("not a bundle itself; it holds the bundles"),
            std::string::npos);
  test::TempDir empty;
  EXPECT_NE(error_of([&] { load_program(empty.path(), DeviceLimits{}); }).find("no bundle.mlir and no sdsc_N.json"),
            std::string::npos);
}

TEST(Program, MoreCoresThanTheCardHas) {
  DeviceLimits limits;
  limits.cores = 16;
  EXPECT_EQ(error_of([&] { load_program(cli_bundle("add"), limits); }),
            cli_bundle("add") +
                "/sdsc_0.json: $.0_add.coreIdToWkSlice_: uses core 16 but the card has 16 cores (arch 'cores')");
}

// The seed abs bundle with one field changed, written to a scratch directory.
std::string edited_abs(const test::TempDir& dir, const std::function<void(Json&)>& edit) {
  Json doc = read_json_file(bundle_path("seed-abs/sdsc_0.json"));
  edit(doc["abs"]["dscs_"][0]["abs"]);
  test::write_json(dir.file("sdsc_0.json"), doc);
  test::write_text(dir.file("bundle.mlir"),
                   "module {\n  func.func @b() {\n    sdscbundle.sdsc_execute () {sdsc_filename=\"sdsc_0.json\"}\n    "
                   "return\n  }\n}\n");
  return dir.path();
}

TEST(Program, StartAddressesThatContradictTheLayout) {
  test::TempDir dir;
  const std::string bundle = edited_abs(
      dir, [](Json& d) { d["scheduleTree_"][1]["startAddressCoreCorelet_"]["data_"]["[1, 0, 0]"] = "1024"; });
  EXPECT_NE(
      error_of([&] {
        load_program(bundle, DeviceLimits{});
      }).find("start addresses disagree with the layout [c0, c1]: core 0 implies tensor base 512, core 1 implies 768"),
      std::string::npos);
}

TEST(Program, AddressOutsideItsSegment) {
  test::TempDir dir;
  const std::string bundle = edited_abs(dir, [](Json& d) {
    d["scheduleTree_"][1]["startAddressCoreCorelet_"]["data_"]["[0, 0, 0]"] = std::to_string((int64_t{1} << 34) - 256);
    d["scheduleTree_"][1]["startAddressCoreCorelet_"]["data_"]["[1, 0, 0]"] = std::to_string(int64_t{1} << 34);
  });
  EXPECT_NE(error_of([&] { load_program(bundle, DeviceLimits{}); }).find("outside its segment 0"), std::string::npos);
  test::TempDir dir7;
  const std::string program_segment = edited_abs(dir7, [](Json& d) {
    d["scheduleTree_"][1]["startAddressCoreCorelet_"]["data_"]["[0, 0, 0]"] = std::to_string(int64_t{7} << 34);
    d["scheduleTree_"][1]["startAddressCoreCorelet_"]["data_"]["[1, 0, 0]"] = std::to_string((int64_t{7} << 34) + 256);
  });
  EXPECT_NE(error_of([&] { load_program(program_segment, DeviceLimits{}); }).find("which holds the program"),
            std::string::npos);
}

TEST(Program, LxTensorBeyondTheScratchpad) {
  test::TempDir dir;
  const std::string bundle = edited_abs(dir, [](Json& d) {
    d["scheduleTree_"][1]["component_"] = "lx";
    d["scheduleTree_"][1]["startAddressCoreCorelet_"]["data_"]["[0, 0, 0]"] = "2097024";
    d["scheduleTree_"][1]["startAddressCoreCorelet_"]["data_"]["[1, 0, 0]"] = "2097024";
  });
  EXPECT_NE(error_of([&] {
              load_program(bundle, DeviceLimits{});
            }).find("LX tensor Tensor1 on core 0 occupies [2097024, 2097280), beyond the 2097152-byte LX"),
            std::string::npos);
}

TEST(Program, LxTensorInTheBackendReservationIsAHazard) {
  test::TempDir dir;
  const std::string bundle = edited_abs(dir, [](Json& d) {
    d["scheduleTree_"][1]["component_"] = "lx";
    d["scheduleTree_"][1]["startAddressCoreCorelet_"]["data_"]["[0, 0, 0]"] = "1677696";
    d["scheduleTree_"][1]["startAddressCoreCorelet_"]["data_"]["[1, 0, 0]"] = "1677696";
  });
  Program p = load_program(bundle, DeviceLimits{});
  ASSERT_EQ(p.hazards.size(), 1u);
  EXPECT_EQ(p.hazards[0].kind, "lx_reserved_region");
  EXPECT_EQ(p.hazards[0].cores, (std::vector<int>{0, 1}));
  EXPECT_EQ(p.hazards[0].detail, "LX bytes up to 1677952 reach into the backend's reserved region above 1677696");
}

TEST(Program, SymbolWithoutValueInBundleMlir) {
  test::TempDir dir;
  test::copy_bundle(cli_bundle("fma"), dir.path());
  test::write_text(dir.file("bundle.mlir"),
                   "module {\n  func.func @b() {\n    sdscbundle.sdsc_execute () {sdsc_filename=\"sdsc_0.json\"}\n    "
                   "return\n  }\n}\n");
  EXPECT_NE(error_of([&] {
              load_program(dir.path(), DeviceLimits{});
            }).find("symbol -1 (core 0) gets no value from bundle.mlir line 3"),
            std::string::npos);
}

}  // namespace
}  // namespace spyre
