#include <nlohmann/json.hpp>

#include "sdsc_builder.h"

#include "runtime/numerics.h"

namespace spyre::test {

namespace {

// A value keyed by [core, corelet, time], as start addresses and constants
// are: `mapped` (0 core, 2 time) is the dim whose key selects the value, the
// others are Const.
Json core_corelet_time(int cores, int mapped, const Json& data) {
  Json funcs = Json::array();
  for (int i = 0; i < 3; ++i) funcs.push_back({{i == mapped ? "Map" : "Const", Json::object()}});
  return {{"dim_prop_func", funcs},
          {"dim_prop_attr",
           {{{"factor_", cores}, {"label_", "core"}},
            {{"factor_", 1}, {"label_", "corelet"}},
            {{"factor_", 1}, {"label_", "time"}}}},
          {"data_", data}};
}

}  // namespace

Json build_sdsc(const SdscSpec& s) {
  const int cores = static_cast<int>(s.core_slice.size());
  Json n = {{"name_", "n"}}, ss = {{"name_", "core"}};
  for (const auto& [d, size] : s.dims) {
    n[d + "_"] = size;
    const int slices = s.slices.count(d) ? s.slices.at(d) : 1;
    ss[d + "_"] = size / slices;
  }
  Json slice_map = Json::object();
  for (int c = 0; c < cores; ++c) slice_map[std::to_string(c)] = s.core_slice[static_cast<size_t>(c)];
  Json primary = Json::object(), labeled = Json::array(), tree = Json::array();
  for (size_t t = 0; t < s.tensors.size(); ++t) {
    const TensorSpec& spec = s.tensors[t];
    const std::string type = spec.ds_type + (t ? std::to_string(t) : "");
    primary[type] = {{"layoutDimOrder_", spec.layout}, {"stickDimOrder_", {spec.stick}}, {"stickSize_", {64}}};
    labeled.push_back({{"ldsIdx_", t},
                       {"dsName_", "Tensor" + std::to_string(t)},
                       {"dsType_", type},
                       {"scale_", spec.scale},
                       {"wordLength", 2},
                       {"dataFormat_", "SEN169_FP16"},
                       {"memOrg_", {{spec.component, {{"isPresent", 1}}}}}});
    Json data = Json::object();
    const bool symbolic = spec.addresses.empty();
    for (int c = 0; c < cores; ++c) {
      const int64_t base = spec.symbol ? spec.symbol : static_cast<int64_t>(t) * 1000 + 1;
      const int64_t value = symbolic ? -(base + c) : spec.addresses[static_cast<size_t>(c)];
      data["[" + std::to_string(c) + ", 0, 0]"] = std::to_string(value);
    }
    Json node = {{"nodeType_", "allocate"},
                 {"name_", "allocate-Tensor" + std::to_string(t) + "_" + spec.component},
                 {"ldsIdx_", t},
                 {"component_", spec.component},
                 {"layoutDimOrder_", spec.layout},
                 {"maxDimSizes_", std::vector<int>(spec.layout.size(), -1)},
                 {"startAddressCoreCorelet_", core_corelet_time(cores, /*mapped=*/0, data)}};
    if (symbolic) node["isStartAddrSymbolic_"] = 1;
    Json coords = {{"coordInfo", Json::object()}, {"coreIdToWkSlice_", Json::object()}};
    for (const auto& [core, slice] : spec.core_slices) coords["coreIdToWkSlice_"][std::to_string(core)] = slice;
    node["coordinates_"] = coords;
    tree.push_back(node);
  }
  auto refs = [](const std::vector<int>& idx) {
    std::vector<std::string> out;
    for (int i : idx) out.push_back("Tensor" + std::to_string(i) + "-idx" + std::to_string(i));
    return out;
  };
  Json constants = Json::object();
  for (size_t i = 0; i < s.constants.size(); ++i) {
    const std::string bits = std::to_string(float_to_dl16(s.constants[i].second));
    constants[std::to_string(i)] = {{"dataFormat_", "SEN169_FP16"},
                                    {"name_", s.constants[i].first},
                                    {"data_", core_corelet_time(cores, /*mapped=*/2, {{"[0, 0, 0]", {bits}}})}};
  }
  std::vector<int> ids;
  for (int c = 0; c < cores; ++c) ids.push_back(c);
  Json dsc = {{"numCoresUsed_", cores},
              {"coreIdsUsed_", ids},
              {"N_", n},
              {"dataStageParam_", {{"0", {{"ss_", ss}, {"el_", ss}}}}},
              {"primaryDsInfo_", primary},
              {"labeledDs_", labeled},
              {"scheduleTree_", tree},
              {"computeOp_",
               {{{"exUnit", s.unit},
                 {"opFuncName", s.op},
                 {"attributes_", {{"dataFormat_", "SEN169_FP16"}, {"fidelity_", "regular"}}},
                 {"location", "Inner"},
                 {"inputLabeledDs", refs(s.inputs)},
                 {"outputLabeledDs", refs(s.outputs)}}}},
              {"constantInfo_", s.constants.empty() ? Json("{}") : constants},
              {"coordinateMasking_", Json::object()}};
  Json top = {{"coreFoldProp_", {{"factor_", cores}, {"label_", "core"}}},
              {"coreletFoldProp_", {{"factor_", 1}, {"label_", "corelet"}}},
              {"numCoresUsed_", cores},
              {"numWkSlicesPerDim_", s.slices},
              {"coreIdToWkSlice_", slice_map},
              {"dscs_", {{{s.op, dsc}}}}};
  return {{s.name, top}};
}

}  // namespace spyre::test
