#include "compiler/codegen/codegen_sdsc.h"

#include <cstring>
#include <tuple>

#include "compiler/ir/iteration_space.h"
#include "runtime/error.h"
#include "runtime/numerics.h"
#include "runtime/op_registry.h"

namespace spyre::compiler {

namespace {

Json fold(int64_t factor, const std::string& label) { return {{"factor_", factor}, {"label_", label}}; }
Json affine(int64_t alpha) { return {{"Affine", {{"alpha_", alpha}, {"beta_", 0}}}}; }

std::string index_key(std::initializer_list<int64_t> index) {
  std::string key = "[";
  for (auto it = index.begin(); it != index.end(); ++it) key += (it == index.begin() ? "" : ", ") + std::to_string(*it);
  return key + "]";
}

uint32_t constant_bits(DataFormat format, float value) {
  if (format == DataFormat::Dl16) return float_to_dl16(value);
  uint32_t bits = 0;
  if (format == DataFormat::Int32) {
    const int32_t word = to_int32(value);
    std::memcpy(&bits, &word, 4);
    return bits;
  }
  std::memcpy(&bits, &value, 4);
  return bits;
}

// What codegen needs of one operand.
struct OperandInfo {
  const Tensor* tensor = nullptr;
  std::vector<std::string> layout;  // iteration labels, innermost first
  std::string stick;
  std::string stick_rows_of;     // a two-dim stick's row dim (QFP8WT), else empty
  std::vector<int> layout_dims;  // tensor dims in layout order
  std::string label;             // primaryDsInfo_ key
};

class SdscWriter {
 public:
  SdscWriter(const Graph& g, int op_index, int index, const CompileOptions& options)
      : g_(g),
        op_(g.ops[static_cast<size_t>(op_index)]),
        index_(index),
        options_(options),
        space_(iteration_space(g, op_)) {
    for (const auto& d : space_.dims) slices_.push_back(op_.splits.count(d.label) ? op_.splits.at(d.label) : 1);
    cores_ = 1;
    for (int64_t s : slices_) cores_ *= s;
    format_ = device_format(g.tensors[static_cast<size_t>(op_.outputs[0])].dtype);
    describe_operands();
  }

  Json write() {
    Json top = Json::object();
    top["sdscFoldProps_"] = Json::array({fold(1, "time")});
    top["sdscFolds_"] = {{"dim_prop_func", Json::array({affine(1)})},
                         {"dim_prop_attr", Json::array({fold(1, "time")})},
                         {"data_", {{"[0]", "0"}}}};
    top["coreFoldProp_"] = fold(cores_, "core");
    top["coreletFoldProp_"] = fold(1, "corelet");
    top["numCoresUsed_"] = cores_;
    Json to_dsc = Json::object(), slice_counts = Json::object(), core_slices = Json::object(),
         schedule = Json::object();
    for (int64_t c = 0; c < cores_; ++c) to_dsc[std::to_string(c)] = 0;
    for (size_t i = 0; i < space_.dims.size(); ++i) slice_counts[space_.dims[i].label] = slices_[i];
    for (int64_t c = 0; c < cores_; ++c) {
      Json slice = Json::object();
      const auto idx = slice_index(c);
      for (size_t i = 0; i < space_.dims.size(); ++i) slice[space_.dims[i].label] = idx[i];
      core_slices[std::to_string(c)] = slice;
      schedule[std::to_string(c)] = Json::array({Json::array({-1, 0, 0, 0})});
    }
    top["coreIdToDsc_"] = to_dsc;
    top["numWkSlicesPerDim_"] = slice_counts;
    top["coreIdToWkSlice_"] = core_slices;
    top["coreIdToDscSchedule"] = schedule;
    top["dscs_"] = Json::array({Json{{op_.type, dsc()}}});
    return Json{{std::to_string(index_) + "_" + op_.type, top}};
  }

 private:
  // Slice index per iteration dim of a core. As torch-spyre numbers cores:
  // reduced (contracted) dims vary fastest, so the cores that sum one result
  // are neighbours on the reduce ring, then the other dims in space order.
  std::vector<int64_t> slice_index(int64_t core) const {
    std::vector<int64_t> idx(slices_.size(), 0);
    for (const bool reduced : {true, false}) {
      for (size_t i = 0; i < slices_.size(); ++i) {
        if (space_.dims[i].reduction != reduced) continue;
        idx[i] = core % slices_[i];
        core /= slices_[i];
      }
    }
    return idx;
  }

  void describe_operands() {
    static const std::vector<std::string> pointwise_labels = {"OUTPUT", "KERNEL", "INPUT", "KERNEL_IDX"};
    static const std::vector<std::string> matmul_labels = {"INPUT", "KERNEL", "OUTPUT"};
    const bool matmul = device_op_info(op_)->kind == OpKind::Matmul;
    for (const auto& o : space_.operands) {
      OperandInfo info;
      info.tensor = &g_.tensors[static_cast<size_t>(o.tensor)];
      for (int d : info.tensor->layout.order) {
        info.layout_dims.push_back(d);
        info.layout.push_back(space_.dims[static_cast<size_t>(o.iter_of[static_cast<size_t>(d)])].label);
      }
      info.stick = space_.dims[static_cast<size_t>(o.iter_of[static_cast<size_t>(info.tensor->layout.stick)])].label;
      if (const int row = info.tensor->layout.row_dim(); row >= 0)
        info.stick_rows_of = space_.dims[static_cast<size_t>(o.iter_of[static_cast<size_t>(row)])].label;
      operands_.push_back(info);
    }
    if (matmul) {
      for (size_t i = 0; i < operands_.size(); ++i) operands_[i].label = matmul_labels[i];
      return;
    }
    // One label per distinct layout, the output's first; a stick of another
    // width (an fp32 operand among fp16 ones: a dtype conversion) is another layout.
    std::vector<std::tuple<std::vector<std::string>, std::string, int64_t, int>> layouts;
    auto label_of = [&](OperandInfo& info) {
      const auto key =
          std::make_tuple(info.layout, info.stick, stick_elems(info.tensor->dtype), info.tensor->layout.stick_rows);
      size_t k = 0;
      while (k < layouts.size() && layouts[k] != key) ++k;
      if (k == layouts.size()) {
        if (k == pointwise_labels.size())
          fail("", g_.describe(op_), "internal: more than four distinct operand layouts");
        layouts.push_back(key);
      }
      info.label = pointwise_labels[k];
    };
    if (indirect()) {
      // As torch-spyre labels an indirect access: the table (or the rows
      // scattered) and the result OUTPUT, the index KERNEL_IDX (indirect_access.py).
      operands_[0].label = operands_[2].label = "OUTPUT";
      operands_[1].label = "KERNEL_IDX";
      return;
    }
    label_of(operands_.back());
    for (auto& info : operands_) label_of(info);
  }

  // An indirect access: a gather (decompose: embedding, index_select;
  // operands table, index, result) or a scatter (index_put; operands rows,
  // index, the result they are written into). Operand 1 is the index.
  bool indirect() const { return op_.attrs.contains("gather") || op_.attrs.contains("scatter"); }
  // The operand read or written through the index: the table, or the result.
  size_t value_operand() const { return op_.attrs.contains("gather") ? 0 : 2; }
  // Its dim the index runs along: `dim` (a gather's rows, 0, without one).
  int indexed_dim() const { return op_.attrs.value("dim", 0); }

  Json dims_with_sizes(const std::vector<int64_t>& sizes, const std::string& name) const {
    Json j = Json::object();
    j["name_"] = name;
    for (size_t i = 0; i < space_.dims.size(); ++i) j[space_.dims[i].label + "_"] = sizes[i];
    return j;
  }

  Json dsc() {
    Json d = Json::object();
    d["numCoresUsed_"] = cores_;
    d["numCoreletsUsed_"] = 1;
    Json ids = Json::array();
    for (int64_t c = 0; c < cores_; ++c) ids.push_back(c);
    d["coreIdsUsed_"] = ids;
    std::vector<int64_t> full, per_core;
    for (size_t i = 0; i < space_.dims.size(); ++i) {
      full.push_back(space_.dims[i].size);
      per_core.push_back(space_.dims[i].size / slices_[i]);
    }
    d["N_"] = dims_with_sizes(full, "n");
    if (!space_.windows.empty()) d["N_"]["paddingSizes_"] = padding_sizes();
    d["coordinateMasking_"] = Json::object();
    d["maskingConstId_"] = -1;
    Json stage = dims_with_sizes(per_core, "core");
    for (const char* key : {"symbolicDimInfo_", "maxSymbolicVolume_", "coreletSplit_", "rowSplit_", "peSfpSplit_"})
      stage[key] = Json::object();
    // A core's windows: totalSize_ the span its outputs read (as torch-spyre writes a depthwise conv's).
    stage["paddingSizes_"] = space_.windows.empty() ? Json::object() : padding_sizes(true);
    d["dataStageParam_"] = {{"0", {{"ss_", stage}, {"el_", stage}}}};
    Json primary = Json::object();
    for (const auto& info : operands_) {
      if (primary.contains(info.label)) continue;
      // A two-dim stick as torch-spyre writes QFP8WT: [row dim, stick dim], [rows, elements a row].
      const int rows = info.tensor->layout.stick_rows;
      const int64_t se = stick_elems(info.tensor->dtype);
      primary[info.label] = {
          {"layoutDimOrder_", info.layout},
          {"stickDimOrder_", rows > 1 ? Json::array({info.stick_rows_of, info.stick}) : Json::array({info.stick})},
          {"stickSize_", rows > 1 ? Json::array({rows, se / rows}) : Json::array({se})}};
    }
    d["primaryDsInfo_"] = primary;
    Json tree = Json::array(), labeled = Json::array();
    for (size_t i = 0; i < operands_.size(); ++i) {
      tree.push_back(allocate_node(i));
      labeled.push_back(labeled_ds(i));
    }
    d["scheduleTree_"] = tree;
    d["labeledDs_"] = labeled;
    d["constantInfo_"] = constants();
    d["computeOp_"] = Json::array({compute_op()});
    return d;
  }

  // torch-spyre's window fields (superdsc.py, _avgpool_sdsc_fields): per
  // output-spatial dim its window dim, stride, dilation and the input's
  // extent along it (totalSize_); padding is a separate op (decompose).
  Json padding_sizes(bool per_core = false) const {
    Json sizes = Json::object();
    const Operand& input = space_.operands[0];
    for (const auto& w : space_.windows) {
      int64_t total = 0;
      for (size_t j = 0; j < input.iter_of.size(); ++j) {
        if (input.iter_of[j] == w.dim) total = operands_[0].tensor->shape[j];
      }
      const size_t dim = static_cast<size_t>(w.dim);
      if (per_core && slices_[dim] > 1)
        total = w.span(space_.dims[dim].size / slices_[dim], space_.dims[static_cast<size_t>(w.window_dim)].size);
      sizes[space_.dims[static_cast<size_t>(w.dim)].label] = {
          {"padFront_", 0},          {"padBack_", 0},
          {"totalSize_", total},     {"stride_", w.stride},
          {"dilation_", w.dilation}, {"windowDim_", space_.dims[static_cast<size_t>(w.window_dim)].label}};
    }
    return sizes;
  }

  std::string tensor_ref(size_t i) const { return "Tensor" + std::to_string(i) + "-idx" + std::to_string(i); }

  Json labeled_ds(size_t i) const {
    const OperandInfo& info = operands_[i];
    const Operand& o = space_.operands[i];
    Json scale = Json::array();
    for (int d : info.layout_dims) scale.push_back(static_cast<int>(operand_scale(g_, space_, o, d)));
    const DataFormat format = device_format(info.tensor->dtype);
    // torch-spyre relabels an index tensor SENUINT32 (its backend does not
    // yet take IEEE_INT32 in an SDSC): the same 32-bit words.
    const std::string format_name = indirect() && i == 1 ? "SENUINT32" : data_format_name(format);
    return {{"ldsIdx_", i},
            {"dsName_", "Tensor" + std::to_string(i)},
            {"dsType_", info.label},
            {"scale_", scale},
            {"wordLength", word_bytes(format)},
            {"dataFormat_", format_name},
            {"memOrg_", info.tensor->in_lx     ? Json{{"lx", {{"isPresent", 1}}}}
                        : indirect() && i == 1 ? Json{{"hbm", {{"isPresent", 1}}}}  // an index: HBM only
                                               : Json{{"hbm", {{"isPresent", 1}}}, {"lx", {{"isPresent", 1}}}}}};
  }

  Json coord_info(size_t i, int d) const {
    const OperandInfo& info = operands_[i];
    const Operand& o = space_.operands[i];
    const size_t it = static_cast<size_t>(o.iter_of[static_cast<size_t>(d)]);
    const int64_t se = stick_elems(info.tensor->dtype);
    const bool stick = d == info.tensor->layout.stick;
    const DimScaleKind scale = operand_scale(g_, space_, o, d);
    Json funcs = Json::array(), attrs = Json::array();
    auto add = [&](int64_t alpha, int64_t factor, const char* label) {
      funcs.push_back(affine(alpha));
      attrs.push_back(fold(factor, label));
    };
    if (scale == DimScaleKind::BroadcastStick) {
      add(se, 1, "core_fold");
    } else if (scale == DimScaleKind::Broadcast) {
      add(1, 1, "core_fold");
    } else {
      add(space_.dims[it].size / slices_[it], slices_[it], "core_fold");
    }
    add(0, 1, "corelet_fold");
    add(0, 1, "row_fold");
    // Read through a window: the span of input a core's outputs read.
    const int w = o.window_of(static_cast<size_t>(d));
    const bool windowed = w >= 0;
    const int64_t extent =
        windowed ? space_.windows[static_cast<size_t>(w)].span(
                       space_.dims[it].size / slices_[it],
                       space_.dims[static_cast<size_t>(space_.windows[static_cast<size_t>(w)].window_dim)].size)
        : scale == DimScaleKind::Normal ? space_.dims[it].size / slices_[it]
                                        : 1;
    if (scale == DimScaleKind::BroadcastStick) {
      add(se, 1, "elem_arr_1");
      add(0, se, "elem_arr_0");
    } else if (const int64_t per = info.tensor->layout.per_unit(d, se); per > 1 || stick) {
      add(per, (extent + per - 1) / per, "elem_arr_1");  // a stick's elements or a two-dim stick's rows
      add(1, per, "elem_arr_0");
    } else {
      add(1, extent, "elem_arr_0");
    }
    return {{"spatial", 3},
            {"temporal", 0},
            {"elemArr", stick || info.tensor->layout.per_unit(d, se) > 1 ? 2 : 1},
            {"padding", windowed ? "padded_fullspan_wunneeded" : "nopad"},
            {"folds", {{"dim_prop_func", funcs}, {"dim_prop_attr", attrs}}}};
  }

  Json allocate_node(size_t i) {
    const OperandInfo& info = operands_[i];
    const Operand& o = space_.operands[i];
    const Tensor& t = *info.tensor;
    const int64_t se = stick_elems(t.dtype);
    // A tiled tensor's tile sits in its whole buffer: offsets step by the
    // whole tensor's strides, and the start advances one tile per iteration.
    const LayoutGeometry geo = layout_geometry(t.full_shape(), t.layout, se, kStickBytes / se);
    const bool lx = t.in_lx;
    const bool tiled = !lx && t.tiles > 1;
    if (tiled && t.tile_dim == t.layout.stick)
      fail("", g_.describe(op_), "coarse tiling along '" + t.name + "''s stick dim is not supported");
    const int64_t advance =
        tiled ? t.shape[static_cast<size_t>(t.tile_dim)] * geo.stride[static_cast<size_t>(t.tile_dim)] : 0;
    const int64_t base = lx ? t.lx_address : tensor_address(g_, o.tensor, op_.bundle, options_);
    Json data = Json::object();
    for (int64_t c = 0; c < cores_; ++c) {
      if (lx) {  // each core's LX holds its own slice at the planned address
        data[index_key({c, 0, 0})] = std::to_string(base);
        continue;
      }
      const auto idx = slice_index(c);
      int64_t offset = 0;
      for (size_t j = 0; j < t.shape.size(); ++j) {
        if (operand_scale(g_, space_, o, static_cast<int>(j)) != DimScaleKind::Normal) continue;
        const size_t it = static_cast<size_t>(o.iter_of[j]);
        // Through a window a core's outputs start `stride` input elements apart each.
        const int w = o.window_of(j);
        const int64_t origin = idx[it] * per_core_elems(space_.dims[it], slices_[it]) *
                               (w < 0 ? 1 : space_.windows[static_cast<size_t>(w)].stride);
        offset += origin / t.layout.per_unit(static_cast<int>(j), se) * geo.stride[j];
      }
      if (tiled) {
        const int64_t symbol = -static_cast<int64_t>(loop_addresses_.size()) - 1;
        loop_addresses_.push_back({symbol, base + offset, advance});
        data[index_key({c, 0, 0})] = std::to_string(symbol);
      } else {
        data[index_key({c, 0, 0})] = std::to_string(base + offset);
      }
    }
    Json coords = Json::object();
    for (size_t k = 0; k < info.layout_dims.size(); ++k) coords[info.layout[k]] = coord_info(i, info.layout_dims[k]);
    Json node = Json::object();
    node["nodeType_"] = "allocate";
    node["name_"] = "allocate-Tensor" + std::to_string(i) + (lx ? "_lx" : "_hbm");
    node["prev_"] = "";
    node["ldsIdx_"] = i;
    node["component_"] = lx ? "lx" : "hbm";
    node["layoutDimOrder_"] = info.layout;
    // torch-spyre's compute_indirect_max_dim_sizes: 1 on the value tensor's
    // indexed dim, -1 elsewhere.
    std::vector<int> max_sizes(info.layout.size(), -1);
    for (size_t k = 0; k < info.layout_dims.size(); ++k) {
      if (indirect() && i == value_operand() && info.layout_dims[k] == indexed_dim()) max_sizes[k] = 1;
    }
    node["maxDimSizes_"] = max_sizes;
    node["indirectAllocType_"] = "no_indirection";
    if (indirect() && (i == 1 || i == value_operand())) {  // the value tensor and its index name each other
      node["indirectAllocType_"] = i == 1 ? "index_tensor" : "value_tensor";
      node["relatedIndirectAccessAlloc_"] = "allocate-Tensor" + std::to_string(i == 1 ? value_operand() : 1) + "_hbm";
      if (i == 1) node["indexTensorType_"] = "index";
    }
    node["startAddressCoreCorelet_"] = {
        {"dim_prop_func", Json::array({Json{{"Map", Json::object()}}, Json{{"Const", Json::object()}},
                                       Json{{"Const", Json::object()}}})},
        {"dim_prop_attr", Json::array({fold(cores_, "core"), fold(1, "corelet"), fold(1, "time")})},
        {"data_", data}};
    if (tiled) {
      node["isStartAddrSymbolic_"] = 1;
      // The rest of the whole tensor along the tiled dim, so the other dims'
      // strides are the whole buffer's.
      for (size_t k = 0; k < info.layout_dims.size(); ++k) {
        if (info.layout_dims[k] != t.tile_dim) continue;
        const int64_t gap = t.full_shape()[static_cast<size_t>(t.tile_dim)] - t.shape[static_cast<size_t>(t.tile_dim)];
        node["backGapCore_"] = {{info.layout[k], {{"-1", gap}}}};
      }
    }
    node["coordinates_"] = {{"coordInfo", coords}, {"coreIdToWkSlice_", Json::object()}};
    // The input a window reads, marked as torch-spyre marks it (its allocate node's padding_).
    for (const auto& w : space_.windows) {
      if (i == 0) node["padding_"][space_.dims[static_cast<size_t>(w.dim)].label] = "padded_fullspan_wunneeded";
    }
    return node;
  }

  Json constants() const {
    if (!op_.attrs.contains("constants")) return Json::object();
    Json out = Json::object();
    int k = 0;
    for (auto it = op_.attrs["constants"].begin(); it != op_.attrs["constants"].end(); ++it) {
      const uint32_t bits = constant_bits(format_, it.value().get<float>());
      out[std::to_string(k++)] = {
          {"dataFormat_", data_format_name(format_)},
          {"name_", it.key()},
          {"data_",
           {{"dim_prop_func", Json::array({Json{{"Const", Json::object()}}, Json{{"Const", Json::object()}},
                                           Json{{"Map", Json::object()}}})},
            {"dim_prop_attr", Json::array({fold(cores_, "core"), fold(1, "corelet"), fold(1, "time")})},
            {"data_", {{index_key({0, 0, 0}), Json::array({std::to_string(bits)})}}}}}};
    }
    return out;
  }

  Json compute_op() const {
    Json inputs = Json::array(), outputs = Json::array();
    const size_t out = operands_.size() - 1;
    const bool reduction = device_op_info(op_)->kind == OpKind::Reduction;
    for (size_t i = 0; i < out; ++i) {
      if (!(indirect() && i == 1)) inputs.push_back(tensor_ref(i));
    }
    if (reduction) inputs.push_back(tensor_ref(out));
    outputs.push_back(tensor_ref(out));
    Json op = {{"exUnit", execution_unit(op_.type)},
               {"opFuncName", op_.type},
               {"attributes_", {{"dataFormat_", data_format_name(format_)}, {"fidelity_", "regular"}}},
               {"location", "Inner"},
               {"inputLabeledDs", inputs},
               {"outputLabeledDs", outputs}};
    if (indirect()) op["indirectAccessIndexLabeledDs"] = Json::array({tensor_ref(1)});
    return op;
  }

  const Graph& g_;
  const Op& op_;
  int index_;
  const CompileOptions& options_;
  IterationSpace space_;
  std::vector<int64_t> slices_;
  int64_t cores_ = 1;
  DataFormat format_ = DataFormat::Dl16;
  std::vector<OperandInfo> operands_;

 public:
  std::vector<LoopAddress> loop_addresses_;  // filled by write()
};

}  // namespace

const char* execution_unit(const std::string& op_func_name) {
  const OpInfo* op = find_op(op_func_name);
  return exec_unit_name(op ? op->unit : ExecUnit::SFU);
}

int64_t tensor_address(const Graph& g, int tensor, int bundle, const CompileOptions& options) {
  const Tensor& t = g.tensors[static_cast<size_t>(tensor)];
  const Tensor& root = g.tensors[static_cast<size_t>(g.storage_of(tensor))];
  const auto& args = g.bundles[static_cast<size_t>(bundle)].arguments;
  size_t argument = 0;
  while (argument < args.size() && args[argument] != root.buffer) ++argument;
  if (argument == args.size())
    fail("", "tensor '" + t.name + "'", "internal: its buffer is not an argument of bundle " + std::to_string(bundle));
  const int64_t segment = options.device.argument_segments().at(argument);
  return segment * options.device.segment_bytes + root.buffer_offset + t.view_offset;
}

Json sdsc_json(const Graph& graph, int op_index, int index, const CompileOptions& options,
               std::vector<LoopAddress>* loop_addresses) {
  SdscWriter writer(graph, op_index, index, options);
  Json sdsc = writer.write();
  if (loop_addresses) *loop_addresses = std::move(writer.loop_addresses_);
  return sdsc;
}

}  // namespace spyre::compiler
