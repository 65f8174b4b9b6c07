// What the compiler decided, per op (iteration space, splits, cores, unit,
// inserted copies) and per tensor (device layout, placement), as a table and
// as JSON.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "compiler/codegen/codegen_sdsc.h"
#include "compiler/codegen/program_writer.h"
#include "compiler/compiler.h"
#include "compiler/ir/iteration_space.h"
#include "compiler/split/hbm_traffic.h"
#include "runtime/text.h"

namespace spyre::compiler {

namespace {

std::string dims_text(const IterationSpace& s) {
  std::string out;
  for (const auto& d : s.dims) out += (out.empty() ? "" : " ") + d.label + "=" + std::to_string(d.size);
  return out;
}

// The work-division search's splits and times, fastest first (empty without one).
Json split_candidates_json(const Op& op) {
  Json out = Json::array();
  for (const auto& c : op.split_candidates) {
    Json row = {{"split", c.split},
                {c.lower_bound ? "kernel_us_at_least" : "kernel_us",
                 std::isfinite(c.kernel_us) ? Json(c.kernel_us) : Json(nullptr)}};
    if (!c.lower_bound && c.bound_us > 0) row["lower_bound_us"] = c.bound_us;
    out.push_back(std::move(row));
  }
  return out;
}

std::string splits_text(const Op& op, const IterationSpace& s) {
  std::string out;
  for (const auto& d : s.dims) {
    const int64_t n = op.splits.count(d.label) ? op.splits.at(d.label) : 1;
    if (n > 1) out += (out.empty() ? "" : " ") + d.label + "=" + std::to_string(n);
  }
  return out.empty() ? "-" : out;
}

std::string placement(const Graph& g, const Tensor& t) {
  const Tensor& root = g.tensors[static_cast<size_t>(g.storage_of(static_cast<int>(&t - g.tensors.data())))];
  if (root.in_lx) return "LX@" + std::to_string(root.lx_address);
  std::string out =
      g.buffers[static_cast<size_t>(root.buffer)].name + "+" + std::to_string(root.buffer_offset + t.view_offset);
  if (&root != &t) out += " (view of " + root.name + ")";
  return out;
}

std::string stick_text(const Tensor& t) { return "d" + std::to_string(t.layout.stick); }

struct Row {
  std::vector<std::string> cells;
};

std::string render(const std::vector<std::string>& header, const std::vector<Row>& rows) {
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& r : rows) {
    for (size_t c = 0; c < r.cells.size(); ++c) width[c] = std::max(width[c], r.cells[c].size());
  }
  std::ostringstream out;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (size_t c = 0; c < cells.size(); ++c) {
      text += cells[c];
      if (c + 1 < cells.size()) text += std::string(width[c] - cells[c].size() + 2, ' ');
    }
    out << "  " << text << "\n";
  };
  line(header);
  for (const auto& r : rows) line(r.cells);
  return out.str();
}

}  // namespace

std::string decisions_table(const Graph& g, const CompileOptions& options) {
  std::ostringstream out;
  int device_ops = 0, inserted = 0;
  for (const auto& op : g.ops) {
    if (is_view_op(op.type)) continue;
    ++device_ops;
    inserted += op.inserted ? 1 : 0;
  }
  out << "spyre-sim compile " << g.name << ": " << device_ops << " SDSCs in " << g.bundles.size() << " bundle"
      << (g.bundles.size() == 1 ? "" : "s") << ", up to " << options.cores << " cores, "
      << (options.placement == HbmPlacement::Packed ? "packed" : "argument") << " HBM placement"
      << (options.input_layouts == "default" ? ", inputs in the default layout (restickified on the device)" : "")
      << "\n\n";
  std::vector<Row> ops;
  for (size_t b = 0; b < g.bundles.size(); ++b) {
    for (size_t i = 0; i < g.bundles[b].ops.size(); ++i) {
      const Op& op = g.ops[static_cast<size_t>(g.bundles[b].ops[i])];
      const IterationSpace s = iteration_space(g, op);
      const Tensor& out_t = g.tensors[static_cast<size_t>(op.outputs[0])];
      ops.push_back({{std::to_string(b), "sdsc_" + std::to_string(i) + ".json", op.type, execution_unit(op.type),
                      out_t.name, dims_text(s), splits_text(op, s), std::to_string(op.cores),
                      op.inserted ? "inserted for " + op.origin : op.origin}});
    }
  }
  out << "Ops\n"
      << render({"bundle", "sdsc", "op", "unit", "output", "iteration (N_)", "splits", "cores", "from"}, ops);
  if (options.bmm_by_model()) {
    out << "\nWork division by the model (--work-division " << options.work_division
        << "; a batchmatmul's splits as b_m_n_k, another op's as slices per dim; kernel device time on the card "
           "model):\n";
    for (const Op& op : g.ops) {
      if (op.work_division.empty()) continue;
      out << "  " << g.tensors[static_cast<size_t>(op.outputs[0])].name << ": " << op.work_division << "\n    next:";
      for (size_t i = 1; i < std::min<size_t>(4, op.split_candidates.size()); ++i) {
        char text[64];
        const auto& c = op.split_candidates[i];
        std::snprintf(text, sizeof text, " %s %s%.1f us", c.split.c_str(), c.lower_bound ? ">= " : "", c.kernel_us);
        out << (i > 1 ? "," : "") << text;
      }
      out << " (--decisions lists every split scored)\n";
      if (!op.lx_chain.empty()) out << "    " << op.lx_chain << "\n";
    }
  } else if (options.work_division == "torch-spyre") {
    out << "\nWork division by torch-spyre's matmul planner (--work-division torch-spyre; splits as b_m_n_k, its "
           "cost model's estimate):\n";
    for (const Op& op : g.ops) {
      if (!op.work_division.empty())
        out << "  " << g.tensors[static_cast<size_t>(op.outputs[0])].name << ": " << op.work_division << "\n";
    }
  }
  std::vector<Row> tensors;
  for (int x : program_tensors(g)) {
    const Tensor& t = g.tensors[static_cast<size_t>(x)];
    tensors.push_back(
        {{t.name, role_name(t.role), "(" + join(t.host_shape.empty() ? t.shape : t.host_shape, ", ") + ")",
          dtype_name(t.dtype), "[" + join(device_size(t.shape, t.layout, stick_elems(t.dtype)), ", ") + "]",
          stick_text(t), placement(g, t)}});
  }
  out << "\nTensors (device_size outermost first; the stick dim is the logical dim whose elements fill each 128-byte "
         "stick)\n"
      << render({"tensor", "role", "shape", "dtype", "device_size", "stick", "buffer+offset"}, tensors);
  out << "\nCopies inserted (restickify, layout copies, LX clones): " << inserted;
  for (const auto& op : g.ops) {
    if (op.inserted)
      out << "\n  " << op.type << " " << g.tensors[static_cast<size_t>(op.inputs[0])].name << " -> "
          << g.tensors[static_cast<size_t>(op.outputs[0])].name << " (stick d"
          << g.tensors[static_cast<size_t>(op.outputs[0])].layout.stick << ") for " << op.origin;
  }
  if (g.lx.enabled) {
    out << "\nLX planning: stage " << g.lx.stage << ", solver " << g.lx.solver << ", " << g.lx.placed << " of "
        << g.lx.candidates << " candidate buffers in LX, peak " << g.lx.peak_bytes << " of " << g.lx.capacity
        << " usable bytes per core";
    if (options.timings) out << ", " << g.lx.solve_ms << " ms";
    if (!g.lx.note.empty()) out << " (" << g.lx.note << ")";
    for (const auto& e : g.lx.excluded) out << "\n  kept in HBM: " << e;
  } else {
    out << "\nLX planning: off (every tensor in HBM)";
  }
  out << "\nPredicted HBM traffic: " << predicted_hbm_bytes(g) << " bytes";
  out << "\nBundles:";
  for (size_t b = 0; b < g.bundles.size(); ++b) {
    out << "\n  " << b << ": " << g.bundles[b].ops.size() << " SDSCs, arguments";
    for (size_t a = 0; a < g.bundles[b].arguments.size(); ++a)
      out << " " << a << "=" << g.buffers[static_cast<size_t>(g.bundles[b].arguments[a])].name;
  }
  out << "\n";
  return out.str();
}

Json decisions_json(const Graph& g, const CompileOptions& options) {
  Json j = Json::object();
  j["name"] = g.name;
  j["cores"] = options.cores;
  j["work_division"] = options.work_division;
  j["placement"] = options.placement == HbmPlacement::Packed ? "packed" : "arguments";
  Json ops = Json::array();
  for (size_t b = 0; b < g.bundles.size(); ++b) {
    for (size_t i = 0; i < g.bundles[b].ops.size(); ++i) {
      const Op& op = g.ops[static_cast<size_t>(g.bundles[b].ops[i])];
      const IterationSpace s = iteration_space(g, op);
      Json dims = Json::object(), splits = Json::object(), span = Json::object();
      for (const auto& d : s.dims) {
        dims[d.label] = d.size;
        splits[d.label] = op.splits.count(d.label) ? op.splits.at(d.label) : 1;
      }
      for (const auto& [label, n] : op.span_splits) span[label] = n;
      Json operands = Json::array();
      for (const auto& o : s.operands) operands.push_back(g.tensors[static_cast<size_t>(o.tensor)].name);
      ops.push_back({{"bundle", b},
                     {"sdsc", "sdsc_" + std::to_string(i) + ".json"},
                     {"op", op.type},
                     {"unit", execution_unit(op.type)},
                     {"operands", operands},
                     {"iteration", dims},
                     {"splits", splits},
                     {"span_splits", span},
                     {"cores", op.cores},
                     {"work_division", op.work_division},
                     {"split_candidates", split_candidates_json(op)},
                     {"lx_chain", op.lx_chain},
                     {"inserted", op.inserted},
                     {"from", op.origin},
                     {"predicted_hbm_bytes", predicted_hbm_bytes(g, op)}});
    }
  }
  j["ops"] = ops;
  Json tensors = Json::array();
  for (int x : program_tensors(g)) {
    const Tensor& tensor = g.tensors[static_cast<size_t>(x)];
    const Tensor& root = g.tensors[static_cast<size_t>(g.storage_of(x))];
    tensors.push_back({{"name", tensor.name},
                       {"role", role_name(tensor.role)},
                       {"shape", tensor.shape},
                       {"dtype", dtype_name(tensor.dtype)},
                       {"device_size", device_size(tensor.shape, tensor.layout, stick_elems(tensor.dtype))},
                       {"stick_dim", tensor.layout.stick},
                       {"layout_order", tensor.layout.order},
                       {"storage", root.name}});
    if (root.in_lx) {
      tensors.back()["lx_address"] = root.lx_address;
    } else {
      tensors.back()["buffer"] = g.buffers[static_cast<size_t>(root.buffer)].name;
      tensors.back()["offset"] = root.buffer_offset + tensor.view_offset;
    }
  }
  j["tensors"] = tensors;
  Json lx = {{"enabled", g.lx.enabled}};
  if (g.lx.enabled) {
    lx.update({{"stage", g.lx.stage},
               {"solver", g.lx.solver},
               {"capacity", g.lx.capacity},
               {"candidates", g.lx.candidates},
               {"placed", g.lx.placed},
               {"peak_bytes", g.lx.peak_bytes},
               {"note", g.lx.note},
               {"excluded", g.lx.excluded}});
  }
  if (g.lx.enabled && options.timings) lx["solve_ms"] = g.lx.solve_ms;
  j["lx"] = lx;
  j["predicted_hbm_bytes"] = predicted_hbm_bytes(g);
  return j;
}

}  // namespace spyre::compiler
