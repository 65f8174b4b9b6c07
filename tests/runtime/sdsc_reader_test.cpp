// The SuperDSC reader: real torch-spyre files parse; each class of bad input
// gets one error line naming the file, the JSON path and the reason.

#include <filesystem>
#include <functional>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "runtime/error.h"
#include "runtime/sdsc.h"
#include "test_support.h"

namespace spyre {
namespace {

using test::bundle_path;
using test::error_of;

Json seed_abs() { return read_json_file(bundle_path("seed-abs/sdsc_0.json")); }
Json& dsc(Json& doc) { return doc["abs"]["dscs_"][0]["abs"]; }

std::string parse_error(const Json& doc) {
  return error_of([&] { parse_sdsc(doc, "sdsc_0.json"); });
}

TEST(SdscReader, ParsesTheSeedAbsExample) {
  Sdsc s = read_sdsc(bundle_path("seed-abs/sdsc_0.json"));
  EXPECT_EQ(s.name, "abs");
  EXPECT_EQ(s.num_cores, 2);
  EXPECT_EQ(s.dims, (std::vector<std::string>{"c0", "c1"}));
  EXPECT_EQ(s.size.at("c0"), 4);
  EXPECT_EQ(s.per_core.at("c0"), 2);
  EXPECT_EQ(s.slices.at("c0"), 2);
  EXPECT_EQ(s.core_ids, (std::vector<int>{0, 1}));
  ASSERT_EQ(s.allocations.size(), 2u);
  EXPECT_EQ(s.allocations[1].start_address.at(1), 768);
  EXPECT_EQ(s.ops[0].info->name, "abs");
  EXPECT_EQ(s.ops[0].ex_unit, "pt");
  EXPECT_EQ(s.ops[0].inputs, std::vector<int>{0});
  EXPECT_EQ(s.ops[0].outputs, std::vector<int>{1});
}

TEST(SdscReader, ParsesEveryTorchSpyreExample) {
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(bundle_path("torch-spyre"))) {
    if (entry.path().extension() != ".json") continue;
    EXPECT_EQ(error_of([&] { read_sdsc(entry.path().string()); }), "") << entry.path();
    ++files;
  }
  EXPECT_EQ(files, 77);
}

TEST(SdscReader, ReadsBackGaps) {
  Sdsc s = read_sdsc(bundle_path("torch-spyre/granite_layer_prefill/sdpa/sdsc_1.json"));
  EXPECT_EQ(s.allocations[1].back_gap, (DimMap{{"x", 16}}));
  EXPECT_TRUE(s.allocations[0].back_gap.empty());
}

TEST(SdscReader, BadBackGapsAreRejected) {
  auto with_gap = [](const Json& gap) {
    Json doc = seed_abs();
    dsc(doc)["scheduleTree_"][0]["backGapCore_"] = gap;
    return parse_error(doc);
  };
  EXPECT_EQ(with_gap(Json::parse(R"({"c0": {"-1": "2"}})")), "");
  EXPECT_NE(with_gap(Json::parse(R"({"c1": {"-1": "10"}})")).find("not a whole number of 64-element sticks"),
            std::string::npos);
  EXPECT_NE(with_gap(Json::parse(R"({"zz": {"-1": "1"}})")).find("'zz' is not in this tensor's layoutDimOrder_"),
            std::string::npos);
  EXPECT_NE(with_gap(Json::parse(R"({"c0": {"0": "1", "1": "2"}})")).find("differ between cores (1 and 2)"),
            std::string::npos);
  EXPECT_NE(with_gap(Json::parse(R"({"c0": {"-1": "-3"}})")).find("cannot be negative"), std::string::npos);
}

TEST(SdscReader, PagedTensorsAreRefused) {
  Json doc = seed_abs();
  dsc(doc)["scheduleTree_"][0]["indirectAllocType_"] = "page_table";
  EXPECT_NE(parse_error(doc).find("scheduleTree_[0].indirectAllocType_: unknown indirect allocation 'page_table'"),
            std::string::npos)
      << parse_error(doc);
  doc = seed_abs();
  dsc(doc)["scheduleTree_"][0]["maxDimSizes_"] = {-1, 64};
  EXPECT_NE(parse_error(doc).find("maxDimSizes_: unsupported: a maximum size 64 for dim"), std::string::npos)
      << parse_error(doc);
  dsc(doc)["scheduleTree_"][0]["maxDimSizes_"] = {-1};
  EXPECT_NE(parse_error(doc).find("maxDimSizes_: 1 entries, but layoutDimOrder_ has 2"), std::string::npos)
      << parse_error(doc);
}

// Indirect access as torch-spyre emits it (codegen/compute_ops.py): a
// hand-written kernel, models/bundles/hand-written/gather_rows (no public
// dump has one): index Tensor0 (KERNEL_IDX, SENUINT32), table Tensor1, result
// Tensor2; the op lists the index in indirectAccessIndexLabeledDs.
Json gather_rows() { return read_json_file(bundle_path("hand-written/gather_rows/sdsc_0.json")); }
Json& gather_dsc(Json& doc) { return doc["0_identity"]["dscs_"][0]["identity"]; }

TEST(SdscReader, ReadsAGatherThroughAnIndexTensor) {
  const Sdsc s = parse_sdsc(gather_rows(), "sdsc_0.json");
  ASSERT_EQ(s.gathers.size(), 1u);
  EXPECT_EQ(s.gathers[0].index, 0);
  EXPECT_EQ(s.gathers[0].value, 1);
  EXPECT_EQ(s.gathers[0].dim, "mb");
  EXPECT_EQ(s.tensors[0].format, DataFormat::Int32);  // SENUINT32: the same 32-bit words
  EXPECT_EQ(s.allocations[0].indirection, Indirection::Index);
  EXPECT_EQ(s.allocations[1].related, 0);
  EXPECT_EQ(s.ops[0].inputs, std::vector<int>{1});
  EXPECT_EQ(s.ops[0].index_inputs, std::vector<int>{0});
}

// The scatter torch-spyre emits for out[idx] = src (its index_put): the
// value tensor is the op's output, written at the rows the index names
// (models/bundles/hand-written/scatter_rows, written by hand as gather_rows).
TEST(SdscReader, ReadsAScatterThroughAnIndexTensor) {
  const Sdsc s = parse_sdsc(read_json_file(bundle_path("hand-written/scatter_rows/sdsc_0.json")), "sdsc_0.json");
  ASSERT_EQ(s.gathers.size(), 1u);
  EXPECT_TRUE(s.gathers[0].scatter);
  EXPECT_EQ(s.gathers[0].index, 0);
  EXPECT_EQ(s.gathers[0].value, 2);
  EXPECT_EQ(s.gathers[0].dim, "mb");
  EXPECT_EQ(s.allocations[2].indirection, Indirection::Value);
  EXPECT_EQ(s.ops[0].inputs, std::vector<int>{1});
  EXPECT_EQ(s.ops[0].outputs, std::vector<int>{2});
  EXPECT_FALSE(parse_sdsc(gather_rows(), "sdsc_0.json").gathers[0].scatter);
}

TEST(SdscReader, BadGathersGetOneLine) {
  auto error = [](const std::function<void(Json&)>& change) {
    Json doc = gather_rows();
    change(gather_dsc(doc));
    return parse_error(doc);
  };
  auto has = [](const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; };
  std::string e = error([](Json& d) { d["scheduleTree_"][0]["indexTensorType_"] = "address"; });
  EXPECT_TRUE(has(e, "scheduleTree_[0].indexTensorType_: unsupported: index tensor type 'address'")) << e;
  e = error([](Json& d) { d["scheduleTree_"][1]["relatedIndirectAccessAlloc_"] = "allocate-Tensor7_hbm"; });
  EXPECT_TRUE(has(e, "scheduleTree_[1].relatedIndirectAccessAlloc_: names no allocate node ('allocate-Tensor7_hbm')"))
      << e;
  e = error([](Json& d) { d["scheduleTree_"][1]["relatedIndirectAccessAlloc_"] = "allocate-Tensor2_hbm"; });
  EXPECT_TRUE(has(e, "is not the index tensor a value tensor pairs with")) << e;
  e = error([](Json& d) { d["computeOp_"][0].erase("indirectAccessIndexLabeledDs"); });
  EXPECT_TRUE(has(e, "Tensor0 is an indirectly accessed tensor, but no computeOp_ names its index tensor")) << e;
  e = error([](Json& d) { d["scheduleTree_"][1]["maxDimSizes_"] = {-1, 4}; });  // torch-spyre marks it 1
  EXPECT_TRUE(has(e, "scheduleTree_[1].maxDimSizes_: the indexed dim 'mb' has maximum 4")) << e;
  e = error([](Json& d) { d["scheduleTree_"][2]["maxDimSizes_"] = {1, -1}; });  // the result is not indexed
  EXPECT_TRUE(has(e, "scheduleTree_[2].maxDimSizes_: unsupported: a maximum size 1 for dim 'mb'")) << e;
  e = error([](Json& d) {  // the table neither read nor written by the op
    d["computeOp_"][0]["inputLabeledDs"] = {"Tensor2-idx2"};
  });
  EXPECT_TRUE(has(e, "the value tensor Tensor1 is neither an input nor the output of identity")) << e;
  e = error([](Json& d) {
    d["labeledDs_"][0]["dataFormat_"] = "SEN169_FP16";
    d["labeledDs_"][0]["wordLength"] = 2;
    d["primaryDsInfo_"]["KERNEL_IDX"]["stickSize_"] = {64};
  });
  EXPECT_TRUE(has(e, "an index tensor holds 32-bit integers")) << e;
}

// torch-spyre pads a dim to whole sticks in N_ and masks the padding with a
// constant (coordinateMasking_ {dim: [[valid, padding]]}, maskingConstId_).
// torch-spyre's symbolic dims (dynamic shapes, phase 1) on seed abs: c0 (2
// per core on 2 cores) sized by symbol s0, at most 2 per core in steps of 1.
Json symbolic_abs() {
  Json doc = seed_abs();
  dsc(doc)["dimToSymbolMapping_"] = {{"c0", {-1}}};
  for (const char* level : {"ss_", "el_"})
    dsc(doc)["dataStageParam_"]["0"][level]["symbolicDimInfo_"] = {{"c0", {{"maxSize_", 2}, {"granularity_", 1}}}};
  doc["abs"]["inputSymbolsAndTags_"] = {{"-1", "s0"}};
  doc["abs"]["symbolDefinitions_"] = Json::object();
  return doc;
}

TEST(SdscReader, ReadsSymbolicDimsAtTheirMaximum) {
  const Sdsc s = parse_sdsc(symbolic_abs(), "sdsc_0.json");
  ASSERT_EQ(s.symbolic_dims.size(), 1u);
  EXPECT_EQ(s.symbolic_dims[0].dim, "c0");
  EXPECT_EQ(s.symbolic_dims[0].id, -1);
  EXPECT_EQ(s.symbolic_dims[0].symbol, "s0");
  EXPECT_EQ(s.symbolic_dims[0].max_per_core, 2);
  EXPECT_EQ(s.size.at("c0"), 4);  // N_ holds the maximum, and that is what runs
}

TEST(SdscReader, BadSymbolicDimsGetOneLine) {
  auto info = [](Json& d, const char* level) -> Json& {
    return dsc(d)["dataStageParam_"]["0"][level]["symbolicDimInfo_"]["c0"];
  };
  const std::vector<std::pair<std::function<void(Json&)>, std::string>> cases = {
      {[](Json& d) {
         d["abs"]["inputSymbolsAndTags_"] = {{"-3", "s0"}};
       },
       "$.abs.inputSymbolsAndTags_: symbol -1 of dimension 'c0' is not named in inputSymbolsAndTags_"},
      {[&](Json& d) { info(d, "ss_")["maxSize_"] = 4; }, "maxSize_: maximum 4 per core, but ss_ gives 'c0' 2"},
      {[&](Json& d) { info(d, "ss_")["granularity_"] = 3; },
       "granularity_: granularity 3 does not divide the maximum 2"},
      {[](Json& d) {
         dsc(d)["dimToSymbolMapping_"] = {{"c9", {-1}}};
       },
       "dimToSymbolMapping_.c9: dimension 'c9' is not in N_"},
      {[](Json& d) { dsc(d).erase("dimToSymbolMapping_"); },
       "symbolicDimInfo_: symbolic dimensions without a dimToSymbolMapping_"},
      {[&](Json& d) { info(d, "el_")["granularity_"] = 2; }, "el_: symbolicDimInfo_ differs from ss_'s"},
  };
  for (const auto& [edit, message] : cases) {
    Json doc = symbolic_abs();
    edit(doc);
    EXPECT_NE(parse_error(doc).find(message), std::string::npos) << message;
  }
}

TEST(SdscReader, CoordinateMasking) {
  Json mean = read_json_file(test::cli_bundle("mean_keepdim/sdsc_0.json"));
  Json& d = mean.begin().value()["dscs_"][0].begin().value();
  d["coordinateMasking_"] = {{"out", {{1000, 24}}}};
  d["maskingConstId_"] = 0;
  const Sdsc s = parse_sdsc(mean, "sdsc_0.json");
  EXPECT_EQ(s.masking.at("out"), (std::pair<int64_t, int64_t>{1000, 24}));
  EXPECT_FLOAT_EQ(s.mask_value, 1.0f / 1024.0f);  // constant "0", the scaling factor here
  auto error = [&](const Json& masking, int id) {
    Json doc = mean;
    Json& e = doc.begin().value()["dscs_"][0].begin().value();
    e["coordinateMasking_"] = masking;
    e["maskingConstId_"] = id;
    return error_of([&] { parse_sdsc(doc, "sdsc_0.json"); });
  };
  EXPECT_NE(error({{"out", {{1000, 20}}}}, 0)
                .find("coordinateMasking_.out[0]: 1000 valid + 20 padding elements must be "
                      "positive and make N_ out = 1024"),
            std::string::npos)
      << error({{"out", {{1000, 20}}}}, 0);
  EXPECT_NE(error({{"k", {{1, 1}}}}, 0).find("masks 'k', which is not a dimension of N_"), std::string::npos);
  EXPECT_NE(error({{"out", {{1000, 24}}}}, 7).find("maskingConstId_: names no constant"), std::string::npos);
}

TEST(SdscReader, ReadsReductionScalesAndConstants) {
  Sdsc s = read_sdsc(test::cli_bundle("mean_keepdim/sdsc_0.json"));
  EXPECT_EQ(s.tensors[1].scale.at("out"), DimScale::BroadcastStick);
  EXPECT_EQ(s.tensors[1].scale.at("mb"), DimScale::Normal);
  ASSERT_NE(s.find_constant("scaling_factor"), nullptr);
  EXPECT_FLOAT_EQ(s.find_constant("scaling_factor")->value, 1.0f / 1024.0f);
  // A reduction lists its output among its inputs.
  EXPECT_EQ(s.ops[0].inputs, (std::vector<int>{0, 1}));
}

TEST(SdscReader, IgnoresUnknownWellFormedFields) {
  Json doc = seed_abs();
  doc["abs"]["somethingNew_"] = {{"a", 1}};
  dsc(doc)["debug_handle_"] = "x";
  EXPECT_EQ(parse_error(doc), "");
}

TEST(SdscReader, MalformedJsonNamesFileAndPosition) {
  test::TempDir dir;
  test::write_text(dir.file("sdsc_0.json"), "{ \"abs\": { \"numCoresUsed_\": 2, }");
  const std::string e = error_of([&] { read_sdsc(dir.file("sdsc_0.json")); });
  EXPECT_NE(e.find(dir.file("sdsc_0.json") + ": malformed JSON"), std::string::npos) << e;
  EXPECT_NE(e.find("line 1"), std::string::npos) << e;
}

TEST(SdscReader, MissingFile) {
  EXPECT_NE(error_of([] { read_sdsc("/nonexistent/sdsc_0.json"); }).find("no such file"), std::string::npos);
}

TEST(SdscReader, MissingRequiredField) {
  Json doc = seed_abs();
  dsc(doc).erase("N_");
  EXPECT_EQ(parse_error(doc), "sdsc_0.json: $.abs.dscs_[0].abs: missing required field 'N_'");
  doc = seed_abs();
  doc["abs"].erase("coreIdToWkSlice_");
  EXPECT_EQ(parse_error(doc), "sdsc_0.json: $.abs: missing required field 'coreIdToWkSlice_'");
}

TEST(SdscReader, UnknownOpFuncName) {
  Json doc = seed_abs();
  dsc(doc)["computeOp_"][0]["opFuncName"] = "frobnicate";
  EXPECT_EQ(parse_error(doc),
            "sdsc_0.json: $.abs.dscs_[0].abs.computeOp_[0].opFuncName: unknown opFuncName 'frobnicate'");
}

TEST(SdscReader, UnknownExecutionUnit) {
  Json doc = seed_abs();
  dsc(doc)["computeOp_"][0]["exUnit"] = "gpu";
  EXPECT_NE(parse_error(doc).find("computeOp_[0].exUnit: unknown execution unit 'gpu'"), std::string::npos);
}

TEST(SdscReader, FoldsThatDoNotCoverN) {
  Json doc = seed_abs();
  dsc(doc)["N_"]["c0_"] = 8;
  EXPECT_EQ(parse_error(doc),
            "sdsc_0.json: $.abs.numWkSlicesPerDim_: folds do not cover N_: dimension 'c0' has 2 slices x 2 per core = "
            "4, but N_ is 8");
}

TEST(SdscReader, SlicesInconsistentWithCoreCount) {
  Json doc = seed_abs();
  doc["abs"]["numCoresUsed_"] = 4;
  EXPECT_EQ(parse_error(doc), "sdsc_0.json: $.abs.numWkSlicesPerDim_: slices multiply to 2 but numCoresUsed_ is 4");
}

TEST(SdscReader, WorkSliceCoveredTwice) {
  Json doc = seed_abs();
  doc["abs"]["coreIdToWkSlice_"]["1"]["c0"] = 0;
  EXPECT_NE(parse_error(doc).find("core 1 repeats another core's work slice"), std::string::npos);
}

TEST(SdscReader, WorkSliceOutOfRange) {
  Json doc = seed_abs();
  doc["abs"]["coreIdToWkSlice_"]["1"]["c0"] = 5;
  EXPECT_NE(parse_error(doc).find("core 1 has slice 5 of dimension 'c0', outside [0, 2)"), std::string::npos);
}

TEST(SdscReader, BadScales) {
  Json doc = seed_abs();
  dsc(doc)["labeledDs_"][0]["scale_"] = {1, -1};
  EXPECT_NE(parse_error(doc).find("labeledDs_[0].scale_[1]: scale -1 on the stick dimension 'c1'"), std::string::npos);
  doc = seed_abs();
  dsc(doc)["labeledDs_"][0]["scale_"] = {1};
  EXPECT_NE(parse_error(doc).find("has 1 entries but dsType INPUT has 2 dimensions"), std::string::npos);
  doc = seed_abs();
  dsc(doc)["labeledDs_"][0]["scale_"] = {1, 3};
  EXPECT_NE(parse_error(doc).find("scale must be 1, -1 or -2"), std::string::npos);
}

TEST(SdscReader, WrongArity) {
  Json doc = seed_abs();
  dsc(doc)["computeOp_"][0]["inputLabeledDs"] = {"Tensor0-idx0", "Tensor1-idx1"};
  EXPECT_EQ(parse_error(doc),
            "sdsc_0.json: $.abs.dscs_[0].abs.computeOp_[0].inputLabeledDs: abs takes 1 inputs, got 2");
}

TEST(SdscReader, UnknownTensorReference) {
  Json doc = seed_abs();
  dsc(doc)["computeOp_"][0]["outputLabeledDs"] = {"Tensor7-idx7"};
  EXPECT_NE(parse_error(doc).find("outputLabeledDs[0]: unknown tensor reference 'Tensor7-idx7'"), std::string::npos);
}

TEST(SdscReader, AllocationProblems) {
  Json doc = seed_abs();
  dsc(doc)["scheduleTree_"][1]["component_"] = "ddr";
  EXPECT_NE(parse_error(doc).find("scheduleTree_[1].component_: unknown component 'ddr'"), std::string::npos);
  doc = seed_abs();
  dsc(doc)["scheduleTree_"].erase(1);
  EXPECT_NE(parse_error(doc).find("no allocate node for Tensor1"), std::string::npos);
  doc = seed_abs();
  dsc(doc)["scheduleTree_"][1]["startAddressCoreCorelet_"]["data_"].erase("[1, 0, 0]");
  EXPECT_NE(parse_error(doc).find("no start address for core 1"), std::string::npos);
  doc = seed_abs();
  dsc(doc)["scheduleTree_"][1]["startAddressCoreCorelet_"]["data_"]["[1, 0, 0]"] = "-3";
  EXPECT_NE(parse_error(doc).find("negative start address -3 without isStartAddrSymbolic_"), std::string::npos);
  doc = seed_abs();
  dsc(doc)["scheduleTree_"][0]["layoutDimOrder_"] = {"c0", "c9"};
  EXPECT_NE(parse_error(doc).find("is not an ordering of the tensor's dimensions"), std::string::npos);
  doc = seed_abs();
  dsc(doc)["scheduleTree_"][0]["nodeType_"] = "loop";
  EXPECT_NE(parse_error(doc).find("unsupported schedule node type 'loop'"), std::string::npos);
}

TEST(SdscReader, DataFormatsAndSticks) {
  Json doc = seed_abs();
  dsc(doc)["labeledDs_"][0]["dataFormat_"] = "SEN_INT4";
  EXPECT_NE(parse_error(doc).find("labeledDs_[0].dataFormat_: unsupported data format 'SEN_INT4'"), std::string::npos);
  doc = seed_abs();
  dsc(doc)["primaryDsInfo_"]["INPUT"]["stickSize_"] = {32};
  EXPECT_NE(parse_error(doc).find("a stick of 32 x SEN169_FP16 is 64 bytes; the device stick is 128 bytes"),
            std::string::npos);
  doc = seed_abs();
  dsc(doc)["labeledDs_"][1]["wordLength"] = 4;
  EXPECT_NE(parse_error(doc).find("wordLength 4 does not match SEN169_FP16"), std::string::npos);
}

TEST(SdscReader, ConstantTheOpNeedsIsMissing) {
  Json doc = read_json_file(test::cli_bundle("mean_keepdim/sdsc_0.json"));
  doc["0_mean"]["dscs_"][0]["mean"]["constantInfo_"] = "{}";
  EXPECT_NE(error_of([&] { parse_sdsc(doc, "m.json"); }).find("mean needs constant 'scaling_factor' in constantInfo_"),
            std::string::npos);
}

TEST(SdscReader, IterationSpaceTooLargeToSimulate) {
  Json doc = seed_abs();
  dsc(doc)["N_"]["c0_"] = int64_t{1} << 40;
  dsc(doc)["N_"]["c1_"] = int64_t{1} << 10;
  EXPECT_EQ(parse_error(doc), "sdsc_0.json: $.abs.dscs_[0].abs.N_: iteration space larger than 2^48 elements");
}

TEST(SdscReader, MoreThanOneTopLevelKey) {
  Json doc = seed_abs();
  doc["other"] = doc["abs"];
  EXPECT_NE(parse_error(doc).find("expected exactly one top-level key"), std::string::npos);
}

}  // namespace
}  // namespace spyre
