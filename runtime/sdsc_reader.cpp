// Reads sdsc_N.json into Sdsc and checks every structural rule execution
// relies on, so the simulator never runs on a half-understood kernel.

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "runtime/error.h"
#include "runtime/sdsc.h"
#include "runtime/text.h"

namespace spyre {

const char* component_name(MemComponent component) { return component == MemComponent::Hbm ? "hbm" : "lx"; }

const SdscConstant* Sdsc::find_constant(const std::string& wanted) const {
  for (const auto& c : constants) {
    if (c.name == wanted) return &c;
  }
  return nullptr;
}

std::string Sdsc::op_summary() const {
  std::vector<std::string> names;
  for (const auto& op : ops) names.push_back(op.info->name);
  return join(names, "+");
}

std::string Sdsc::unit_summary() const {
  std::set<std::string> units;
  for (const auto& op : ops) units.insert(op.ex_unit);
  return join(std::vector<std::string>(units.begin(), units.end()), "+");
}

const WindowedDim* Sdsc::window_of(int lds_index, const std::string& dim) const {
  auto it = windowed.find(lds_index);
  if (it == windowed.end()) return nullptr;
  for (const auto& w : windows) {
    if ((w.dim == dim || w.window_dim == dim) && std::count(it->second.begin(), it->second.end(), w.dim)) return &w;
  }
  return nullptr;
}

bool Sdsc::reads_dim(int lds_index, const std::string& dim) const {
  const auto& scale = tensors.at(lds_index).scale;
  auto it = scale.find(dim);
  if (it != scale.end() && it->second == DimScale::Normal) return true;
  const WindowedDim* w = window_of(lds_index, dim);
  return w && w->window_dim == dim;
}

namespace {

// N_ keys carry a trailing underscore ("mb_"); numWkSlicesPerDim_ keys do not.
std::string dim_key(const std::string& key) {
  if (!key.empty() && key.back() == '_') return key.substr(0, key.size() - 1);
  return key;
}

// Reads a DataStructDims object (N_, ss_): integer members are dimensions;
// name_ and the nested bookkeeping objects are skipped.
DimMap read_dims(const JsonNode& node, std::vector<std::string>* order) {
  if (!node.is_object()) node.error("expected an object of dimension sizes");
  DimMap dims;
  for (const auto& [key, value] : node.members()) {
    if (key == "name_" || !value.raw().is_number_integer()) continue;
    const int64_t size = value.as_int();
    if (size < 0) continue;  // negative: dimension not used
    if (size == 0) value.error("dimension size must be positive");
    const std::string name = dim_key(key);
    dims[name] = size;
    if (order) order->push_back(name);
  }
  return dims;
}

// "[3, 0, 0]" -> {3, 0, 0}
std::vector<int64_t> parse_index_key(const std::string& key, const JsonNode& where) {
  std::vector<int64_t> out;
  std::string body = key;
  if (body.size() < 2 || body.front() != '[' || body.back() != ']') {
    where.error("expected a key like \"[core, corelet, time]\", got \"" + key + "\"");
  }
  std::stringstream ss(body.substr(1, body.size() - 2));
  std::string part;
  while (std::getline(ss, part, ',')) {
    try {
      out.push_back(std::stoll(part));
    } catch (...) {
      where.error("bad index key \"" + key + "\"");
    }
  }
  return out;
}

int parse_core_id(const std::string& key, const JsonNode& where) {
  try {
    size_t used = 0;
    int id = std::stoi(key, &used);
    if (used != key.size() || id < 0) throw 0;
    return id;
  } catch (...) {
    where.error("core id \"" + key + "\" is not a non-negative integer");
  }
}

std::map<int, DimMap> read_core_slices(const JsonNode& node) {
  std::map<int, DimMap> out;
  if (!node.is_object()) node.error("expected an object keyed by core id");
  for (const auto& [core_key, slice] : node.members()) {
    const int core = parse_core_id(core_key, node);
    DimMap dims;
    for (const auto& [dim, index] : slice.members()) dims[dim_key(dim)] = index.as_int();
    out[core] = dims;
  }
  return out;
}

DataFormat read_format(const JsonNode& node) {
  const std::string name = node.as_string();
  auto format = parse_data_format(name);
  if (!format)
    node.error("unsupported data format '" + name +
               "' (supported: SEN169_FP16, IEEE_FP32, IEEE_INT32, SENUINT32, SEN143_FP8)");
  return *format;
}

// "Tensor2-idx2" -> 2; falls back to matching dsName_.
int resolve_tensor_ref(const JsonNode& ref, const std::vector<LabeledDs>& tensors) {
  const std::string text = ref.as_string();
  const auto pos = text.rfind("-idx");
  if (pos != std::string::npos) {
    try {
      size_t used = 0;
      const int idx = std::stoi(text.substr(pos + 4), &used);
      if (used == text.size() - pos - 4 && idx >= 0 && idx < static_cast<int>(tensors.size())) return idx;
    } catch (...) {
    }
  }
  for (const auto& t : tensors) {
    if (t.name == text) return t.index;
  }
  ref.error("unknown tensor reference '" + text + "'");
}

class SdscParser {
 public:
  SdscParser(const Json& document, std::string file) : doc_(document), file_(std::move(file)) {}

  Sdsc parse() {
    JsonNode root(doc_, file_, "$");
    if (!root.is_object()) root.error("expected a JSON object");
    if (root.size() != 1)
      root.error("expected exactly one top-level key (the SDSC name), found " + std::to_string(root.size()));
    auto [name, top] = root.members().front();
    sdsc_.file = file_;
    sdsc_.name = name;

    top.at("coreFoldProp_");
    sdsc_.num_cores = static_cast<int>(top.at("numCoresUsed_").as_int_in(1, 1 << 20));

    JsonNode dscs = top.at("dscs_");
    if (!dscs.is_array() || dscs.size() == 0) dscs.error("expected a non-empty array");
    if (dscs.size() > 1)
      dscs.error("unsupported: " + std::to_string(dscs.size()) +
                 " dscs_ entries (only balanced work division, one entry, is supported)");
    JsonNode entry = dscs.element(0);
    if (!entry.is_object() || entry.size() != 1) entry.error("expected an object with one key (the DSC name)");
    auto [dsc_name, dsc] = entry.members().front();
    sdsc_.dsc_name = dsc_name;

    read_iteration_space(top, dsc);
    read_work_division(top, dsc);
    read_primary(dsc);
    read_tensors(dsc);
    read_schedule_tree(dsc);
    read_constants(dsc);
    read_compute_ops(dsc);
    read_masking(dsc);
    read_windows(dsc);
    return std::move(sdsc_);
  }

 private:
  void read_iteration_space(const JsonNode& top, const JsonNode& dsc) {
    JsonNode n = dsc.at("N_");
    sdsc_.size = read_dims(n, &sdsc_.dims);
    if (sdsc_.dims.empty()) n.error("no dimensions");
    // Keeps every byte count below 2^63: no layout of a bounded space can wrap.
    constexpr int64_t kMaxElements = int64_t{1} << 48;
    int64_t elements = 1;
    for (const auto& d : sdsc_.dims) {
      if (sdsc_.size[d] > kMaxElements / elements) n.error("iteration space larger than 2^48 elements");
      elements *= sdsc_.size[d];
    }
    JsonNode stage = dsc.at("dataStageParam_");
    JsonNode ss = stage.at("0").at("ss_");
    sdsc_.per_core = read_dims(ss, nullptr);
    for (const auto& d : sdsc_.dims) {
      if (!sdsc_.per_core.count(d)) ss.error("missing per-core size of dimension '" + d + "'");
    }
    for (const auto& [d, v] : sdsc_.per_core) {
      if (!sdsc_.size.count(d)) ss.error("dimension '" + d + "' is not in N_");
    }
    read_symbolic_dims(top, dsc, ss, stage.at("0").find("el_"));
  }

  // Each dim of dimToSymbolMapping_: its symbol named in the top level's
  // inputSymbolsAndTags_, each core's maximum (the ss_ size: N_ holds the
  // maximum) and granularity in ss_ (and el_) symbolicDimInfo_.
  void read_symbolic_dims(const JsonNode& top, const JsonNode& dsc, const JsonNode& ss,
                          const std::optional<JsonNode>& el) {
    const auto mapping = dsc.find("dimToSymbolMapping_");
    const auto info = ss.find("symbolicDimInfo_");
    if (!mapping) {
      if (info && info->size() > 0) info->error("symbolic dimensions without a dimToSymbolMapping_");
      return;
    }
    const auto names = top.find("inputSymbolsAndTags_");
    for (const auto& [key, ids] : mapping->members()) {
      SymbolicDim sym;
      sym.dim = dim_key(key);
      if (!sdsc_.size.count(sym.dim)) ids.error("dimension '" + sym.dim + "' is not in N_");
      if (!ids.is_array() || ids.size() != 1) ids.error("expected a list of one symbol id");
      sym.id = ids.element(0).as_int();
      if (sym.id >= 0) ids.element(0).error("a symbol id is negative");
      const std::string id_text = std::to_string(sym.id);
      if (!names || !names->find(id_text)) {
        (names ? *names : top)
            .error("symbol " + id_text + " of dimension '" + sym.dim + "' is not named in inputSymbolsAndTags_");
      }
      sym.symbol = names->at(id_text).as_string();
      if (!info) ss.error("no symbolicDimInfo_ for the symbolic dimension '" + sym.dim + "'");
      std::optional<JsonNode> entry;
      for (const auto& [dim, value] : info->members())
        if (dim_key(dim) == sym.dim) entry = value;
      if (!entry) info->error("no entry for the symbolic dimension '" + sym.dim + "'");
      sym.max_per_core = entry->at("maxSize_").as_int();
      sym.granularity_per_core = entry->at("granularity_").as_int();
      if (sym.max_per_core != sdsc_.per_core.at(sym.dim))
        entry->at("maxSize_")
            .error("maximum " + std::to_string(sym.max_per_core) + " per core, but ss_ gives '" + sym.dim + "' " +
                   std::to_string(sdsc_.per_core.at(sym.dim)));
      if (sym.granularity_per_core < 1 || sym.max_per_core % sym.granularity_per_core != 0)
        entry->at("granularity_")
            .error("granularity " + std::to_string(sym.granularity_per_core) + " does not divide the maximum " +
                   std::to_string(sym.max_per_core));
      if (el) {
        const auto el_info = el->find("symbolicDimInfo_");
        if (!el_info || el_info->raw() != info->raw()) el->error("symbolicDimInfo_ differs from ss_'s");
      }
      sdsc_.symbolic_dims.push_back(sym);
    }
    for (const auto& [dim, value] : info ? info->members() : std::vector<std::pair<std::string, JsonNode>>{}) {
      const std::string d = dim_key(dim);
      if (std::none_of(sdsc_.symbolic_dims.begin(), sdsc_.symbolic_dims.end(),
                       [&](const SymbolicDim& s) { return s.dim == d; }))
        value.error("dimension '" + d + "' has no symbol in dimToSymbolMapping_");
    }
  }

  void read_work_division(const JsonNode& top, const JsonNode& dsc) {
    JsonNode slices = top.at("numWkSlicesPerDim_");
    for (const auto& d : sdsc_.dims) sdsc_.slices[d] = 1;
    for (const auto& [key, value] : slices.members()) {
      const std::string d = dim_key(key);
      if (!sdsc_.size.count(d)) value.error("dimension '" + d + "' is not in N_");
      sdsc_.slices[d] = value.as_int();
      if (sdsc_.slices[d] < 1) value.error("slice count must be at least 1");
    }
    int64_t product = 1;
    for (const auto& d : sdsc_.dims) {
      const int64_t covered = sdsc_.slices[d] * sdsc_.per_core[d];
      if (covered != sdsc_.size[d]) {
        slices.error("folds do not cover N_: dimension '" + d + "' has " + std::to_string(sdsc_.slices[d]) +
                     " slices x " + std::to_string(sdsc_.per_core[d]) + " per core = " + std::to_string(covered) +
                     ", but N_ is " + std::to_string(sdsc_.size[d]));
      }
      product *= sdsc_.slices[d];
    }
    if (product != sdsc_.num_cores) {
      slices.error("slices multiply to " + std::to_string(product) + " but numCoresUsed_ is " +
                   std::to_string(sdsc_.num_cores));
    }

    JsonNode mapping = top.at("coreIdToWkSlice_");
    sdsc_.core_slice = read_core_slices(mapping);
    if (static_cast<int>(sdsc_.core_slice.size()) != sdsc_.num_cores) {
      mapping.error("maps " + std::to_string(sdsc_.core_slice.size()) + " cores but numCoresUsed_ is " +
                    std::to_string(sdsc_.num_cores));
    }
    std::set<std::vector<int64_t>> seen;
    for (auto& [core, slice] : sdsc_.core_slice) {
      std::vector<int64_t> key;
      for (const auto& d : sdsc_.dims) {
        const int64_t index = slice.count(d) ? slice[d] : 0;
        if (index < 0 || index >= sdsc_.slices[d]) {
          mapping.error("core " + std::to_string(core) + " has slice " + std::to_string(index) + " of dimension '" + d +
                        "', outside [0, " + std::to_string(sdsc_.slices[d]) + ")");
        }
        slice[d] = index;
        key.push_back(index);
      }
      if (!seen.insert(key).second) {
        mapping.error("core " + std::to_string(core) +
                      " repeats another core's work slice (part of N_ is covered twice)");
      }
      sdsc_.core_ids.push_back(core);
    }
    if (auto used = dsc.find("coreIdsUsed_")) {
      auto ids = used->as_int_list();
      std::vector<int> listed(ids.begin(), ids.end());
      std::sort(listed.begin(), listed.end());
      if (listed != sdsc_.core_ids) used->error("does not match the cores of coreIdToWkSlice_");
    }
  }

  // stickDimOrder_ and stickSize_: one dim, or two (torch-spyre's QFP8WT FP8
  // weights: [row dim, dim] with sizes [2, 64], each stick two rows of 64).
  StickShape read_stick(const JsonNode& info, const std::vector<std::string>& layout_dims) const {
    JsonNode order = info.at("stickDimOrder_"), size = info.at("stickSize_");
    auto sticks = order.as_string_list();
    auto sizes = size.as_double_list();
    if (sticks.empty() || sticks.size() > 2)
      order.error("unsupported: sticks made of " + std::to_string(sticks.size()) + " dimensions (one or two)");
    if (sizes.size() != sticks.size())
      size.error("has " + std::to_string(sizes.size()) + " entries for " + std::to_string(sticks.size()) +
                 " stick dimensions");
    for (size_t i = 0; i < sticks.size(); ++i) {
      sticks[i] = dim_key(sticks[i]);
      if (std::find(layout_dims.begin(), layout_dims.end(), sticks[i]) == layout_dims.end())
        order.element(i).error("stick dimension '" + sticks[i] + "' is not in layoutDimOrder_");
      if (sizes[i] < 1 || sizes[i] != static_cast<double>(static_cast<int64_t>(sizes[i])) || sizes[i] > kStickBytes)
        size.element(i).error("must be a positive integer of at most " + std::to_string(kStickBytes));
    }
    StickShape stick;
    stick.dim = sticks.back();
    stick.elems = static_cast<int64_t>(sizes.back());
    if (sticks.size() == 2) {
      if (sticks[0] == sticks[1]) order.error("names '" + sticks[0] + "' twice");
      stick.row_dim = sticks[0];
      stick.rows = static_cast<int64_t>(sizes[0]);
    }
    return stick;
  }

  void read_primary(const JsonNode& dsc) {
    JsonNode primary = dsc.at("primaryDsInfo_");
    for (const auto& [type, info] : primary.members()) {
      PrimaryDsInfo p;
      p.layout_dims = info.at("layoutDimOrder_").as_string_list();
      for (auto& d : p.layout_dims) {
        d = dim_key(d);
        if (!sdsc_.size.count(d)) info.at("layoutDimOrder_").error("dimension '" + d + "' is not in N_");
      }
      p.stick = read_stick(info, p.layout_dims);
      sdsc_.primary[type] = p;
    }
  }

  void read_tensors(const JsonNode& dsc) {
    JsonNode list = dsc.at("labeledDs_");
    if (!list.is_array() || list.size() == 0) list.error("expected a non-empty array");
    std::vector<LabeledDs> tensors(list.size());
    std::vector<bool> filled(list.size(), false);
    for (size_t i = 0; i < list.size(); ++i) {
      JsonNode node = list.element(i);
      LabeledDs t;
      t.index = static_cast<int>(node.at("ldsIdx_").as_int_in(0, static_cast<int64_t>(list.size()) - 1));
      if (filled[t.index]) node.at("ldsIdx_").error("duplicate ldsIdx_ " + std::to_string(t.index));
      t.name = node.at("dsName_").as_string();
      t.ds_type = node.at("dsType_").as_string();
      t.path = node.path();
      auto p = sdsc_.primary.find(t.ds_type);
      if (p == sdsc_.primary.end()) node.at("dsType_").error("'" + t.ds_type + "' is not in primaryDsInfo_");
      t.format = read_format(node.at("dataFormat_"));
      if (auto wl = node.find("wordLength")) {
        if (wl->as_int() != word_bytes(t.format))
          wl->error("wordLength " + std::to_string(wl->as_int()) + " does not match " + data_format_name(t.format));
      }
      const StickShape& stick = p->second.stick;
      const int64_t stick_bytes = stick.elements() * word_bytes(t.format);
      if (stick_bytes != kStickBytes) {
        node.at("dataFormat_")
            .error("a stick of " + (stick.rows > 1 ? std::to_string(stick.rows) + " x " : std::string()) +
                   std::to_string(stick.elems) + " x " + data_format_name(t.format) + " is " +
                   std::to_string(stick_bytes) + " bytes; the device stick is 128 bytes");
      }
      JsonNode scale = node.at("scale_");
      auto values = scale.as_double_list();
      if (values.size() != p->second.layout_dims.size()) {
        scale.error("has " + std::to_string(values.size()) + " entries but dsType " + t.ds_type + " has " +
                    std::to_string(p->second.layout_dims.size()) + " dimensions");
      }
      for (size_t k = 0; k < values.size(); ++k) {
        const std::string& d = p->second.layout_dims[k];
        const bool stick = d == p->second.stick.dim;
        if (values[k] == 1) {
          t.scale[d] = DimScale::Normal;
        } else if (d == p->second.stick.row_dim) {
          scale.element(k).error("unsupported: scale " + std::to_string(static_cast<int>(values[k])) +
                                 " on the stick's row dimension '" + d + "' (a two-dim stick is read whole)");
        } else if (values[k] == -1 && !stick) {
          t.scale[d] = DimScale::Broadcast;
        } else if (values[k] == -2 && stick) {
          t.scale[d] = DimScale::BroadcastStick;
        } else if (values[k] == -1 || values[k] == -2) {
          scale.element(k).error("scale " + std::to_string(static_cast<int>(values[k])) + " on " +
                                 (stick ? "the stick dimension" : "a non-stick dimension") + " '" + d +
                                 "' (use -2 for the stick dimension, -1 otherwise)");
        } else {
          scale.element(k).error("scale must be 1, -1 or -2");
        }
      }
      tensors[t.index] = t;
      filled[t.index] = true;
    }
    sdsc_.tensors = std::move(tensors);
  }

  void read_schedule_tree(const JsonNode& dsc) {
    JsonNode tree = dsc.at("scheduleTree_");
    if (!tree.is_array()) tree.error("expected an array");
    std::vector<Allocation> allocations(sdsc_.tensors.size());
    std::vector<bool> filled(sdsc_.tensors.size(), false);
    std::map<int, std::string> related;  // lds -> relatedIndirectAccessAlloc_
    std::map<std::string, int> named;    // allocate node name_ -> lds
    for (size_t i = 0; i < tree.size(); ++i) {
      JsonNode node = tree.element(i);
      const std::string type = node.at("nodeType_").as_string();
      if (type != "allocate")
        node.at("nodeType_")
            .error("unsupported schedule node type '" + type + "' (only allocate nodes are filled by the frontend)");
      Allocation a;
      a.path = node.path();
      a.lds_index = static_cast<int>(node.at("ldsIdx_").as_int_in(0, static_cast<int64_t>(sdsc_.tensors.size()) - 1));
      if (filled[a.lds_index])
        node.at("ldsIdx_").error("tensor " + std::to_string(a.lds_index) + " has two allocate nodes");
      const std::string component = node.at("component_").as_string();
      if (component == "hbm") {
        a.component = MemComponent::Hbm;
      } else if (component == "lx") {
        a.component = MemComponent::Lx;
      } else {
        node.at("component_").error("unknown component '" + component + "' (expected hbm or lx)");
      }
      a.layout_dims = node.at("layoutDimOrder_").as_string_list();
      for (auto& d : a.layout_dims) d = dim_key(d);
      const auto& expected = sdsc_.primary_of(a.lds_index).layout_dims;
      std::vector<std::string> got = a.layout_dims, want = expected;
      std::sort(got.begin(), got.end());
      std::sort(want.begin(), want.end());
      if (got != want) {
        node.at("layoutDimOrder_")
            .error("[" + join(a.layout_dims, ", ") + "] is not an ordering of the tensor's dimensions [" +
                   join(expected, ", ") + "]");
      }
      if (auto sym = node.find("isStartAddrSymbolic_")) a.symbolic = sym->as_int() != 0;
      JsonNode data = node.at("startAddressCoreCorelet_").at("data_");
      for (const auto& [key, value] : data.members()) {
        auto index = parse_index_key(key, data);
        if (index.empty()) data.error("empty index key");
        if (index.size() > 1 && index[1] != 0) data.error("unsupported: per-corelet start address in \"" + key + "\"");
        if (index.size() > 2 && index[2] != 0)
          data.error("unsupported: per-time-step start address in \"" + key + "\"");
        const int64_t address = value.as_int();
        if (a.symbolic && address >= 0)
          value.error("isStartAddrSymbolic_ is set but the value is not a (negative) symbol id");
        if (!a.symbolic && address < 0)
          value.error("negative start address " + std::to_string(address) + " without isStartAddrSymbolic_");
        a.start_address[static_cast<int>(index[0])] = address;
      }
      if (a.component == MemComponent::Lx && a.symbolic)
        node.at("isStartAddrSymbolic_").error("LX start addresses cannot be symbolic");
      for (int core : sdsc_.core_ids) {
        if (!a.start_address.count(core)) data.error("no start address for core " + std::to_string(core));
      }
      if (auto gaps = node.find("backGapCore_")) a.back_gap = read_back_gaps(*gaps, a);
      // Indirect access (torch-spyre's gathers): an index tensor and the
      // value tensor whose rows it names, each pointing at the other.
      if (auto indirect = node.find("indirectAllocType_")) {
        const std::string kind = indirect->as_string();
        if (kind == "index_tensor") {
          a.indirection = Indirection::Index;
          const std::string type = node.at("indexTensorType_").as_string();
          if (type != "index")
            node.at("indexTensorType_").error("unsupported: index tensor type '" + type + "' (only \"index\")");
        } else if (kind == "value_tensor") {
          a.indirection = Indirection::Value;
        } else if (kind != "no_indirection") {
          indirect->error("unknown indirect allocation '" + kind +
                          "' (expected no_indirection, index_tensor or value_tensor)");
        }
        if (a.indirection != Indirection::None) {
          related[a.lds_index] = node.at("relatedIndirectAccessAlloc_").as_string();
          if (a.component != MemComponent::Hbm)
            node.at("component_")
                .error("an indirectly accessed tensor lives in HBM (torch-spyre never puts one in LX)");
        }
      }
      if (auto max_sizes = node.find("maxDimSizes_")) {
        // In layoutDimOrder_'s order; -1 but on an indirect access's indexed
        // dim (checked once the ops name it, check_max_dim_sizes).
        const auto sizes = max_sizes->as_int_list();
        if (sizes.size() != a.layout_dims.size())
          max_sizes->error(std::to_string(sizes.size()) + " entries, but layoutDimOrder_ has " +
                           std::to_string(a.layout_dims.size()));
        for (size_t i = 0; i < sizes.size(); ++i) {
          if (sizes[i] != -1) a.max_dim_sizes[a.layout_dims[i]] = sizes[i];
        }
      }
      if (auto coords = node.find("coordinates_")) {
        if (auto slices = coords->find("coreIdToWkSlice_")) a.core_slices = read_core_slices(*slices);
      }
      if (auto padding = node.find("padding_")) {  // a window's input: checked once the windows are read
        if (!padding->is_object()) padding->error("expected an object of dim -> padding");
        auto& marks =
            padding_marks_.emplace(a.lds_index, std::make_pair(*padding, std::map<std::string, std::string>{}))
                .first->second.second;
        for (const auto& [dim, mark] : padding->members()) marks[dim_key(dim)] = mark.as_string();
      }
      if (auto name = node.find("name_")) named[name->as_string()] = a.lds_index;
      allocations[a.lds_index] = a;
      filled[a.lds_index] = true;
    }
    for (size_t t = 0; t < filled.size(); ++t) {
      if (!filled[t])
        tree.error("no allocate node for " + sdsc_.tensors[t].name + " (ldsIdx_ " + std::to_string(t) + ")");
    }
    for (const auto& [lds, partner] : related) {
      Allocation& a = allocations[static_cast<size_t>(lds)];
      JsonNode where = tree.element(0);
      for (size_t i = 0; i < tree.size(); ++i) {
        if (tree.element(i).at("ldsIdx_").as_int() == lds) where = tree.element(i);
      }
      auto it = named.find(partner);
      if (it == named.end())
        where.at("relatedIndirectAccessAlloc_").error("names no allocate node ('" + partner + "')");
      a.related = it->second;
      const Indirection want = a.indirection == Indirection::Index ? Indirection::Value : Indirection::Index;
      if (allocations[static_cast<size_t>(a.related)].indirection != want)
        where.at("relatedIndirectAccessAlloc_")
            .error("'" + partner + "' is not the " +
                   (want == Indirection::Value ? "value tensor an index" : "index tensor a value") +
                   " tensor pairs with");
    }
    sdsc_.allocations = std::move(allocations);
  }

  // {"x": {"-1": "16"}}: key -1 is every core (HBM); LX tensors may list one
  // value per core, which must agree (one layout per tensor).
  DimMap read_back_gaps(const JsonNode& node, const Allocation& a) const {
    DimMap gaps;
    if (!node.is_object()) node.error("expected an object of dimension -> {core: gap}");
    const PrimaryDsInfo& primary = sdsc_.primary_of(a.lds_index);
    for (const auto& [key, per_core] : node.members()) {
      const std::string d = dim_key(key);
      if (std::find(a.layout_dims.begin(), a.layout_dims.end(), d) == a.layout_dims.end())
        per_core.error("dimension '" + d + "' is not in this tensor's layoutDimOrder_");
      if (!per_core.is_object() || per_core.size() == 0) per_core.error("expected an object of core id -> gap");
      std::optional<int64_t> gap;
      for (const auto& [core, value] : per_core.members()) {
        const int64_t g = value.as_int();
        if (g < 0) value.error("a back gap cannot be negative");
        if (gap && *gap != g)
          value.error("unsupported: back gaps of dimension '" + d + "' that differ between cores (" +
                      std::to_string(*gap) + " and " + std::to_string(g) + ")");
        gap = g;
      }
      if (d == primary.stick.dim && *gap % primary.stick.elems != 0) {
        per_core.error("a back gap of " + std::to_string(*gap) + " elements on the stick dimension '" + d +
                       "' is not a whole number of " + std::to_string(primary.stick.elems) + "-element sticks");
      }
      if (d == primary.stick.row_dim && *gap % primary.stick.rows != 0) {
        per_core.error("a back gap of " + std::to_string(*gap) + " elements on the stick's row dimension '" + d +
                       "' is not a whole number of " + std::to_string(primary.stick.rows) + "-row groups");
      }
      if (*gap > 0) gaps[d] = *gap;
    }
    return gaps;
  }

  void read_constants(const JsonNode& dsc) {
    auto node = dsc.find("constantInfo_");
    if (!node) return;
    if (node->is_string()) {
      const std::string text = node->as_string();
      if (text == "{}" || text.empty()) return;
      node->error("expected \"{}\" or an object of constants");
    }
    for (const auto& [key, entry] : node->members()) {
      SdscConstant c;
      c.id = key;
      c.name = entry.at("name_").as_string();
      c.format = read_format(entry.at("dataFormat_"));
      JsonNode data = entry.at("data_").at("data_");
      if (data.size() == 0) data.error("no constant value");
      JsonNode first = data.members().front().second;
      JsonNode word = first.is_array() ? first.element(0) : first;
      const int64_t bits = word.as_int();
      if (bits < 0 || bits > 0xFFFFFFFFll) word.error("constant bits out of range");
      c.bits = static_cast<uint32_t>(bits);
      if (c.format == DataFormat::Dl16) {
        if (c.bits > 0xFFFF) word.error("a SEN169_FP16 constant must fit in 16 bits");
        c.value = dl16_to_float(static_cast<uint16_t>(c.bits));
      } else if (c.format == DataFormat::Int32) {
        int32_t word = 0;
        std::memcpy(&word, &c.bits, 4);
        c.value = static_cast<float>(word);
      } else if (c.format == DataFormat::Fp8E4m3) {
        if (c.bits > 0xFF) word.error("a SEN143_FP8 constant must fit in 8 bits");
        c.value = fp8e4m3_to_float(static_cast<uint8_t>(c.bits));
      } else {
        std::memcpy(&c.value, &c.bits, 4);
      }
      sdsc_.constants.push_back(c);
    }
  }

  // N_.paddingSizes_: the windows of torch-spyre's conv2d, depthwise conv and
  // avgpool (superdsc.py's _avgpool_sdsc_fields / _conv2d_sdsc_fields), the
  // per-core copies in ss_ / el_, and the allocate nodes' padding_ marks.
  void read_windows(const JsonNode& dsc) {
    const JsonNode n = dsc.at("N_");
    const auto sizes = n.find("paddingSizes_");
    if (sizes) {
      if (!sizes->is_object()) sizes->error("expected an object of dim -> window");
      for (const auto& [key, node] : sizes->members()) sdsc_.windows.push_back(read_window(dim_key(key), node));
    }
    const JsonNode stage = dsc.at("dataStageParam_").at("0");
    for (const char* level : {"ss_", "el_"}) {
      const auto part = stage.find(level);
      const auto per_core = part ? part->find("paddingSizes_") : std::nullopt;
      if (per_core) check_per_core_windows(*per_core);
    }
    const bool windowed_op =
        std::any_of(sdsc_.ops.begin(), sdsc_.ops.end(), [](const ComputeOp& op) { return op.info->windowed; });
    if (!sdsc_.windows.empty() && !windowed_op)
      sizes->error("windows, but no op reads through them (conv2d, depthwiseconv2dnative, avgpoolfwd)");
    for (const auto& w : sdsc_.windows) {
      bool read_through = false;
      for (const auto& op : sdsc_.ops) {
        for (int lds : op.inputs) {
          if (std::count(op.outputs.begin(), op.outputs.end(), lds)) continue;  // a reduction's accumulator
          const auto& scale = sdsc_.tensors[lds].scale;
          auto normal = [&](const std::string& d) { return scale.count(d) && scale.at(d) == DimScale::Normal; };
          if (!normal(w.dim) || normal(w.window_dim)) continue;
          if (sdsc_.primary_of(lds).stick.holds(w.dim))
            sizes->at(w.dim).error("'" + w.dim + "' is " + sdsc_.tensors[lds].name +
                                   "'s stick dim (a window slides over a non-stick dim)");
          auto& dims = sdsc_.windowed[lds];
          if (!std::count(dims.begin(), dims.end(), w.dim)) dims.push_back(w.dim);
          read_through = true;
        }
      }
      if (!read_through)
        sizes->at(w.dim).error("no input is read through the window of '" + w.dim + "' (one with '" + w.dim +
                               "' and without '" + w.window_dim + "')");
    }
    for (const auto& [lds, dims] : sdsc_.windowed) {  // an input read through windows stays within 2^48 elements
      double elements = 1;
      for (const auto& [d, scale] : sdsc_.tensors[static_cast<size_t>(lds)].scale) {
        const WindowedDim* w = sdsc_.window_of(lds, d);
        if (scale == DimScale::Normal) elements *= static_cast<double>(w ? w->total_size : sdsc_.size.at(d));
      }
      if (elements > static_cast<double>(int64_t{1} << 48))
        sizes->error(sdsc_.tensors[static_cast<size_t>(lds)].name +
                     " read through these windows is larger than 2^48 elements");
    }
    for (const auto& [lds, marks] : padding_marks_) {
      for (const auto& [dim, mark] : marks.second) {
        const WindowedDim* w = sdsc_.window_of(lds, dim);
        if (!w || w->dim != dim)
          marks.first.at(dim).error("'" + dim + "' is not a dim " + sdsc_.tensors[lds].name +
                                    " is read through a window");
        if (mark != "padded_fullspan_wunneeded" && mark != "padded_nozeropad")
          marks.first.at(dim).error("unknown padding '" + mark +
                                    "' (expected padded_fullspan_wunneeded or padded_nozeropad)");
      }
    }
  }

  WindowedDim read_window(const std::string& dim, const JsonNode& node) const {
    if (!node.is_object()) node.error("expected an object (windowDim_, stride_, totalSize_, ...)");
    if (!sdsc_.size.count(dim)) node.error("dimension '" + dim + "' is not in N_");
    WindowedDim w = read_window_fields(dim, node);
    if (!sdsc_.size.count(w.window_dim) || w.window_dim == dim)
      node.at("windowDim_").error("'" + w.window_dim + "' is not another dimension of N_");
    constexpr int64_t kMaxStep = int64_t{1} << 20;
    if (w.stride < 1 || w.stride > kMaxStep) node.at("stride_").error("a stride is 1 to 2^20");
    if (w.dilation < 1 || w.dilation > kMaxStep) node.at("dilation_").error("a dilation is 1 to 2^20");
    for (const char* key : {"padFront_", "padBack_"}) {
      const auto pad = node.find(key);
      const int64_t value = pad ? pad->as_int() : 0;
      if (value != 0)
        pad->error("unsupported: padding " + std::to_string(value) +
                   " inside a window (torch-spyre's windowed ops refuse padding > 0 too)");
    }
    const int64_t window = sdsc_.size.at(w.window_dim);
    const double reach = static_cast<double>(sdsc_.size.at(dim) - 1) * static_cast<double>(w.stride) +
                         static_cast<double>(window - 1) * static_cast<double>(w.dilation);
    if (reach > static_cast<double>(int64_t{1} << 48))
      node.error("the windows of '" + dim + "' reach past 2^48 input elements");
    const int64_t read = w.span(sdsc_.size.at(dim), window);
    if (w.total_size < read)
      node.at("totalSize_")
          .error(std::to_string(w.total_size) + " input elements, but " + std::to_string(sdsc_.size.at(dim)) +
                 " outputs at stride " + std::to_string(w.stride) + " with a window of " + std::to_string(window) +
                 " read " + std::to_string(read));
    // Past the last window fewer elements than a stride (a ragged input):
    // more would be input no output reads, and bounds the input's size.
    if (w.total_size >= read + w.stride)
      node.at("totalSize_")
          .error(std::to_string(w.total_size) + " input elements, but its " + std::to_string(sdsc_.size.at(dim)) +
                 " windows end at " + std::to_string(read) + ": a whole stride or more no window reads");
    if (auto unneeded = node.find("unneededPad_")) {
      if (unneeded->as_int() != w.total_size - read)
        unneeded->error(std::to_string(unneeded->as_int()) + ", but the window reads " + std::to_string(read) +
                        " of the " + std::to_string(w.total_size) + " input elements");
    }
    if (sdsc_.slices.at(w.window_dim) != 1)
      node.at("windowDim_").error("unsupported: the window dim '" + w.window_dim + "' split over cores");
    return w;
  }

  // A per-core window is the whole one, or its totalSize_ is what one core's
  // part reads (depthwise conv writes the latter).
  void check_per_core_windows(const JsonNode& node) const {
    if (!node.is_object()) node.error("expected an object of dim -> window");
    for (const auto& [key, entry] : node.members()) {
      const std::string dim = dim_key(key);
      auto it =
          std::find_if(sdsc_.windows.begin(), sdsc_.windows.end(), [&](const WindowedDim& w) { return w.dim == dim; });
      if (it == sdsc_.windows.end()) entry.error("'" + dim + "' has no window in N_'s paddingSizes_");
      const WindowedDim mine = read_window_fields(dim, entry);
      const int64_t own = it->span(sdsc_.per_core.at(dim), sdsc_.size.at(it->window_dim));
      if (mine.window_dim != it->window_dim || mine.stride != it->stride || mine.dilation != it->dilation ||
          (mine.total_size != it->total_size && mine.total_size != own))
        entry.error("differs from N_'s window of '" + dim + "' (totalSize_ " + std::to_string(mine.total_size) +
                    ": expected " + std::to_string(it->total_size) + " or one core's " + std::to_string(own) + ")");
    }
  }

  static WindowedDim read_window_fields(const std::string& dim, const JsonNode& node) {
    WindowedDim w;
    w.dim = dim;
    w.window_dim = dim_key(node.at("windowDim_").as_string());
    w.stride = node.at("stride_").as_int();
    if (auto d = node.find("dilation_")) w.dilation = d->as_int();
    w.total_size = node.at("totalSize_").as_int();
    return w;
  }

  // coordinateMasking_: {dim: [[valid, padding]]}, padding up to N_.
  void read_masking(const JsonNode& dsc) {
    auto masking = dsc.find("coordinateMasking_");
    if (!masking || (masking->is_object() && masking->size() == 0)) return;
    if (!masking->is_object()) masking->error("expected an object of dim -> [[valid, padding]]");
    for (const auto& [dim, ranges] : masking->members()) {
      if (!sdsc_.size.count(dim)) ranges.error("masks '" + dim + "', which is not a dimension of N_");
      if (!ranges.is_array() || ranges.size() != 1) ranges.error("expected one [valid, padding] range");
      JsonNode range = ranges.element(0);
      if (!range.is_array() || range.size() != 2) range.error("expected [valid, padding]");
      const int64_t valid = range.element(0).as_int(), padding = range.element(1).as_int();
      if (valid <= 0 || padding <= 0 || valid + padding != sdsc_.size.at(dim)) {
        range.error(std::to_string(valid) + " valid + " + std::to_string(padding) + " padding elements must be " +
                    "positive and make N_ " + dim + " = " + std::to_string(sdsc_.size.at(dim)));
      }
      sdsc_.masking[dim] = {valid, padding};
    }
    JsonNode id = dsc.at("maskingConstId_");
    const std::string key = std::to_string(id.as_int());
    for (const auto& c : sdsc_.constants) {
      if (c.id == key) {
        sdsc_.mask_value = c.value;
        return;
      }
    }
    id.error("names no constant of constantInfo_ (the masked coordinates' value)");
  }

  void read_compute_ops(const JsonNode& dsc) {
    JsonNode list = dsc.at("computeOp_");
    if (!list.is_array() || list.size() == 0) list.error("expected a non-empty array");
    for (size_t i = 0; i < list.size(); ++i) {
      JsonNode node = list.element(i);
      ComputeOp op;
      op.path = node.path();
      const std::string name = node.at("opFuncName").as_string();
      op.info = find_op(name);
      if (!op.info) node.at("opFuncName").error("unknown opFuncName '" + name + "'");
      op.ex_unit = node.at("exUnit").as_string();
      if (op.ex_unit != "pt" && op.ex_unit != "sfp")
        node.at("exUnit").error("unknown execution unit '" + op.ex_unit + "' (expected pt or sfp)");
      if (op.info->kind == OpKind::Matmul && op.ex_unit != "pt")
        node.at("exUnit").error(name + " runs on the PT array (exUnit \"pt\")");
      op.format = read_format(node.at("attributes_").at("dataFormat_"));
      JsonNode inputs = node.at("inputLabeledDs");
      for (size_t k = 0; k < inputs.size(); ++k)
        op.inputs.push_back(resolve_tensor_ref(inputs.element(k), sdsc_.tensors));
      JsonNode outputs = node.at("outputLabeledDs");
      for (size_t k = 0; k < outputs.size(); ++k)
        op.outputs.push_back(resolve_tensor_ref(outputs.element(k), sdsc_.tensors));
      const int n_in = static_cast<int>(op.inputs.size());
      if (n_in < op.info->min_inputs || n_in > op.info->max_inputs) {
        inputs.error(name + " takes " + std::to_string(op.info->min_inputs) +
                     (op.info->max_inputs != op.info->min_inputs ? "-" + std::to_string(op.info->max_inputs) : "") +
                     " inputs, got " + std::to_string(n_in));
      }
      if (static_cast<int>(op.outputs.size()) != op.info->outputs) {
        outputs.error(name + " produces " + std::to_string(op.info->outputs) + " output(s), got " +
                      std::to_string(op.outputs.size()));
      }
      if (op.info->kind == OpKind::Reduction &&
          std::find(op.inputs.begin(), op.inputs.end(), op.outputs[0]) == op.inputs.end()) {
        inputs.error("a reduction lists its output among its inputs");
      }
      if (op.info->kind == OpKind::TopK) read_topk_dims(node, op);
      if (auto index = node.find("indirectAccessIndexLabeledDs")) read_gather(*index, op);
      for (const auto& c : op.info->constants) {
        // mean's scaling_factor, clip's bounds... without them the value is undefined.
        if (c.required && !sdsc_.find_constant(c.sdsc_name))
          node.error(name + " needs constant '" + c.sdsc_name + "' in constantInfo_");
      }
      sdsc_.ops.push_back(op);
    }
    for (const auto& a : sdsc_.allocations) {
      if (a.indirection == Indirection::None) continue;
      const bool used = std::any_of(sdsc_.gathers.begin(), sdsc_.gathers.end(),
                                    [&](const Gather& g) { return g.index == a.lds_index || g.value == a.lds_index; });
      if (!used)
        fail(file_, a.path,
             sdsc_.tensors[a.lds_index].name +
                 " is an indirectly accessed tensor, but no computeOp_ names its index tensor in "
                 "indirectAccessIndexLabeledDs");
    }
    check_max_dim_sizes();
  }

  // maxDimSizes_: torch-spyre marks the dim an index tensor names on its
  // value tensor with 1 (compute_indirect_max_dim_sizes: that dim's extent is
  // one row per index, reached through the index); every other entry is -1.
  // A maximum anywhere else would be a paged tensor, which is not modeled.
  void check_max_dim_sizes() const {
    for (const auto& a : sdsc_.allocations) {
      for (const auto& [dim, size] : a.max_dim_sizes) {
        const std::string& named = dim;  // a lambda may not capture a structured binding before clang 16
        const bool indexed = std::any_of(sdsc_.gathers.begin(), sdsc_.gathers.end(),
                                         [&](const Gather& g) { return g.value == a.lds_index && g.dim == named; });
        if (indexed && size == 1) continue;
        fail(file_, a.path + ".maxDimSizes_",
             indexed ? "the indexed dim '" + dim + "' has maximum " + std::to_string(size) +
                           " (torch-spyre marks it 1: one row per index)"
                     : "unsupported: a maximum size " + std::to_string(size) + " for dim '" + dim +
                           "' (paged tensors; only a value tensor's indexed dim is marked, with 1)");
      }
    }
  }

  // A topk's two dims: the one its input has and its output lacks (searched),
  // the one its output has and its input lacks (its k results; torch-spyre
  // adds a dim of one when k's would otherwise be missing, superdsc.py). The
  // searched dim is not split: each core searches all of it for its share of
  // the k (torch-spyre pins it, work_division_constraints.py).
  void read_topk_dims(const JsonNode& node, ComputeOp& op) {
    auto normal = [&](int lds, const std::string& d) {
      auto it = sdsc_.tensors[lds].scale.find(d);
      return it != sdsc_.tensors[lds].scale.end() && it->second == DimScale::Normal;
    };
    const int in = op.inputs[0], out = op.outputs[0];
    std::vector<std::string> searched, kept;
    for (const auto& d : sdsc_.dims) {
      if (normal(in, d) && !normal(out, d)) searched.push_back(d);
      if (normal(out, d) && !normal(in, d)) kept.push_back(d);
    }
    auto names = [&](const std::vector<std::string>& ds) { return ds.empty() ? "none" : join(ds, ", "); };
    if (searched.size() != 1)
      node.error(op.info->name + " searches one dim (its input's, not its output's), found " + names(searched));
    if (kept.size() != 1)
      node.error(op.info->name + " writes its k results along one dim (its output's, not its input's), found " +
                 names(kept));
    op.search_dim = searched[0];
    op.k_dim = kept[0];
    const auto split = sdsc_.slices.find(op.search_dim);
    if (split != sdsc_.slices.end() && split->second != 1)
      node.error(op.info->name + " searches dim " + op.search_dim + " split over " + std::to_string(split->second) +
                 " work slices; each core must search all of it (split its k results instead)");
  }

  // indirectAccessIndexLabeledDs: the op gathers rows of one value input
  // (what torch-spyre's embedding and x[idx] emit), or scatters its results
  // into rows of its value output (out[idx] = src, its index_put), through
  // one index tensor of one dim; that dim is the index tensor's.
  void read_gather(const JsonNode& list, ComputeOp& op) {
    if (list.size() == 0) return;
    if (list.size() != 1 || !sdsc_.gathers.empty())
      list.error("unsupported: more than one index tensor in an SDSC (torch-spyre's backend refuses them too)");
    if (op.info->kind != OpKind::Elementwise && op.info->kind != OpKind::Copy)
      list.error("unsupported: a gather fused into a " + op.info->name + " (gathers run copies and pointwise ops)");
    const int index = resolve_tensor_ref(list.element(0), sdsc_.tensors);
    const Allocation& ia = sdsc_.allocations[static_cast<size_t>(index)];
    if (ia.indirection != Indirection::Index)
      list.element(0).error(sdsc_.tensors[index].name + " is not an index tensor (indirectAllocType_)");
    if (sdsc_.tensors[index].format != DataFormat::Int32)
      list.element(0).error("an index tensor holds 32-bit integers (SENUINT32 or IEEE_INT32)");
    // The dim it indexes: one with scale_ 1 (dims it broadcasts along do not
    // count), not the value tensor's stick dim, and of more than one element
    // where several remain (a table of one-element rows is [M, 1]).
    std::vector<std::string> spans;
    for (const auto& [dim, scale] : sdsc_.tensors[index].scale) {
      if (scale == DimScale::Normal && dim != sdsc_.primary_of(ia.related).stick.dim) spans.push_back(dim);
    }
    if (spans.size() > 1) std::erase_if(spans, [&](const std::string& d) { return sdsc_.size.at(d) == 1; });
    if (spans.size() != 1)
      list.element(0).error("unsupported: an index tensor spanning " + std::to_string(spans.size()) +
                            " dims (a gather through a one-dim index is modeled)");
    Gather g;
    g.index = index;
    g.value = ia.related;
    g.dim = spans[0];
    const bool read = std::find(op.inputs.begin(), op.inputs.end(), g.value) != op.inputs.end();
    g.scatter = std::find(op.outputs.begin(), op.outputs.end(), g.value) != op.outputs.end();
    // A scatter (torch-spyre's index_put: out[idx] = src) writes the value
    // tensor's rows through the index; a gather reads them.
    if (read == g.scatter)
      list.error("the value tensor " + sdsc_.tensors[g.value].name +
                 (read ? " is both read and written through the index"
                       : " is neither an input nor the output of " + op.info->name));
    if (sdsc_.primary_of(g.value).stick.holds(g.dim))
      list.error("the value tensor " + sdsc_.tensors[g.value].name + (g.scatter ? " scatters" : " gathers") +
                 " along its stick dim '" + g.dim + "'");
    op.index_inputs.push_back(index);
    sdsc_.gathers.push_back(g);
  }

  const Json& doc_;
  std::string file_;
  Sdsc sdsc_;
  // Allocate nodes' padding_ (the node, and dim -> mark), checked against the windows.
  std::map<int, std::pair<JsonNode, std::map<std::string, std::string>>> padding_marks_;
};

}  // namespace

Sdsc parse_sdsc(const Json& document, const std::string& file) { return SdscParser(document, file).parse(); }

Sdsc read_sdsc(const std::string& path) {
  Json document = read_json_file(path);
  return parse_sdsc(document, path);
}

}  // namespace spyre
