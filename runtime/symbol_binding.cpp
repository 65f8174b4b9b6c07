#include "runtime/symbol_binding.h"

#include <algorithm>
#include <memory>
#include <set>

#include "runtime/error.h"
#include "runtime/npy.h"
#include "runtime/tensor_layout.h"
#include "runtime/text.h"

namespace spyre {

std::pair<std::string, int64_t> parse_symbol_value(const std::string& text, const std::string& flag) {
  const size_t eq = text.find('=');
  const std::string name = eq == std::string::npos ? "" : text.substr(0, eq);
  const std::string value = eq == std::string::npos ? "" : text.substr(eq + 1);
  size_t used = 0;
  int64_t v = 0;
  try {
    v = std::stoll(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (name.empty() || value.empty() || used != value.size() || v < 1)
    fail("", flag, "'" + text + "' is not NAME=VALUE with a symbol and a positive whole number (e.g. s0=24)");
  return {name, v};
}

namespace {

// For each host tensor (in HBM) a kernel with symbolic dims reads or writes,
// each host dim a symbol sizes: (host tensor, host dim index, the dim). The
// kernel names its dims its own way (a manifest's host tensors d0, d1, ...):
// a host dim is the kernel's dim that steps the same memory units by the
// same bytes in the two layouts.
template <typename Visit>
void for_each_symbolic_host_dim(const Program& program, Visit&& visit) {
  for (const auto& k : program.kernels) {
    for (const auto& sym : k.sdsc->symbolic_dims) {
      for (const auto& b : k.tensors) {
        if (b.host_tensor < 0) continue;
        const HostTensor& t = program.host_tensors[static_cast<size_t>(b.host_tensor)];
        const LayoutDim* mine = b.layout.find(sym.dim);
        if (!mine || !t.visible_shape.empty()) continue;
        for (size_t d = 0; d < t.dims.size(); ++d) {
          const LayoutDim* host = t.layout.find(t.dims[d]);
          if (host && host->stride == mine->stride && host->count == mine->count && host->stick == mine->stick)
            visit(static_cast<size_t>(b.host_tensor), d, sym);
        }
      }
    }
  }
}

// A copy of `s` with each symbolic dim of a given symbol bound to its value.
std::shared_ptr<Sdsc> bound_copy(const Sdsc& s, const SymbolValues& values,
                                 const std::map<std::string, std::string>& bound_by) {
  auto bound = std::make_shared<Sdsc>(s);
  for (auto& sym : bound->symbolic_dims) {
    const auto it = values.find(sym.symbol);
    if (it == values.end()) continue;
    const auto by = bound_by.find(sym.symbol);
    sym.bound_by = by == bound_by.end() ? "--dim" : by->second;
    const int64_t v = it->second;
    const std::string where = "dimToSymbolMapping_." + sym.dim;
    if (s.slices.count(sym.dim) && s.slices.at(sym.dim) > 1)
      fail(s.file, where,
           "unsupported: binding " + sym.symbol + " sizes dim '" + sym.dim + "', which is split over " +
               std::to_string(s.slices.at(sym.dim)) +
               " work slices (their start addresses are written for the maximum; where a smaller slice starts is "
               "left open by torch-spyre's runtime)");
    if (s.masking.count(sym.dim))
      fail(s.file, where, "unsupported: binding dim '" + sym.dim + "', which is padded to whole sticks");
    if (v > sym.max_per_core || v % sym.granularity_per_core != 0)
      fail(s.file, where,
           sym.symbol + " = " + std::to_string(v) + ": dim '" + sym.dim + "' takes a multiple of " +
               std::to_string(sym.granularity_per_core) + " up to its maximum " + std::to_string(sym.max_per_core));
    sym.bound = v;
    bound->size[sym.dim] = v;
    bound->per_core[sym.dim] = v;
  }
  return bound;
}

}  // namespace

SymbolValues symbols_from_shapes(const Program& program, const std::map<std::string, std::vector<int64_t>>& shapes,
                                 const std::function<std::string(const std::string&)>& source,
                                 std::map<std::string, std::string>& bound_by) {
  SymbolValues values;
  std::map<std::string, std::string> given_by;  // symbol -> the input that gave it
  for_each_symbolic_host_dim(program, [&](size_t h, size_t dim, const SymbolicDim& sym) {
    const HostTensor& t = program.host_tensors[h];
    const auto shape = shapes.find(t.name);
    if (!t.is_input || shape == shapes.end() || shape->second.size() != t.shape.size()) return;
    const int64_t n = shape->second[dim];
    if (n >= t.shape[dim]) return;  // the maximum (or more: the shape check names it)
    const auto [it, fresh] = values.emplace(sym.symbol, n);
    if (!fresh && it->second != n)
      fail(source(t.name), "",
           "shape " + shape_text(shape->second) + " gives " + sym.symbol + " = " + std::to_string(n) + ", but " +
               given_by[sym.symbol] + " gave " + std::to_string(it->second));
    given_by.emplace(sym.symbol, source(t.name));
    bound_by.emplace(sym.symbol, source(t.name) + "'s shape");
  });
  return values;
}

void bind_symbols(Program& program, const SymbolValues& values, bool unknown_symbols_ok,
                  const std::map<std::string, std::string>& bound_by) {
  if (values.empty()) return;
  std::set<std::string> known;
  for (const auto& k : program.kernels) {
    for (const auto& sym : k.sdsc->symbolic_dims) known.insert(sym.symbol);
  }
  for (const auto& [name, value] : values) {
    if (!known.count(name) && !unknown_symbols_ok)
      fail(
          "", "--dim " + name,
          "no kernel has a dim sized by symbol '" + name + "' (the program's: " +
              (known.empty() ? std::string("none") : join(std::vector<std::string>(known.begin(), known.end()), ", ")) +
              ")");
  }
  // One bound copy per SDSC file, so kernels that shared it still do.
  std::map<const Sdsc*, std::shared_ptr<const Sdsc>> bound;
  for (auto& k : program.kernels) {
    bool named = false;
    for (const auto& sym : k.sdsc->symbolic_dims) named = named || values.count(sym.symbol) > 0;
    if (!named) continue;
    auto& copy = bound[k.sdsc.get()];
    if (!copy) copy = bound_copy(*k.sdsc, values, bound_by);
    k.sdsc = copy;
    // The buffers keep the maximum's layout; each core's part is the bound one.
    for (size_t lds = 0; lds < k.tensors.size(); ++lds) {
      TensorBinding& b = k.tensors[lds];
      for (int core : copy->core_ids) {
        if (b.relayout) {
          b.held.box[core] = core_box(*copy, static_cast<int>(lds), core);
          b.core_box[core] = compute_box(*copy, static_cast<int>(lds), core);
        } else {
          b.core_box[core] = core_box(*copy, static_cast<int>(lds), core);
        }
      }
    }
  }
  // The host sees the bound sizes; the buffers keep the maximum's layout.
  for_each_symbolic_host_dim(program, [&](size_t h, size_t dim, const SymbolicDim& sym) {
    if (sym.bound > 0) program.host_tensors[h].shape[dim] = std::min(program.host_tensors[h].shape[dim], sym.bound);
  });
}

}  // namespace spyre
