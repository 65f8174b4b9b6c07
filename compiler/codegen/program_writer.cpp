#include "compiler/codegen/program_writer.h"

#include <filesystem>
#include <fstream>
#include <set>

#include "compiler/codegen/codegen_sdsc.h"
#include "compiler/ir/iteration_space.h"
#include "runtime/error.h"
#include "runtime/user_files.h"

namespace fs = std::filesystem;

namespace spyre::compiler {

namespace {

std::string bundle_dir(const Graph& g, size_t b) {
  return g.bundles.size() == 1 ? "" : "bundle_" + std::to_string(b) + "/";
}

// The bundle's SDSCs in order; the ops of one coarse-tiling loop
// (Op::loop_group, loop_trips) run inside an scf.for whose iteration variable advances
// their tiled tensors' start addresses (torch-spyre's LoopSpec codegen).
std::string bundle_mlir(const Graph& g, const std::vector<int>& ops,
                        const std::vector<std::vector<LoopAddress>>& addresses) {
  std::string text = "module {\n\tfunc.func @sdsc_bundle() {\n";
  bool constants = false;
  int loops = 0;
  for (size_t i = 0; i < ops.size();) {
    const Op& first = g.ops[static_cast<size_t>(ops[i])];
    const int64_t trips = first.loop_group >= 0 ? first.loop_trips : 0;
    size_t end = i + 1;
    while (trips > 1 && end < ops.size() && g.ops[static_cast<size_t>(ops[end])].loop_group == first.loop_group) ++end;
    std::string indent = "\t\t";
    const std::string iv = "%i" + std::to_string(loops);
    if (trips > 1) {
      if (!constants) text += "\t\t%c0 = arith.constant 0 : index\n\t\t%c1 = arith.constant 1 : index\n";
      constants = true;
      const std::string bound = "%trips" + std::to_string(loops);
      text += "\t\t" + bound + " = arith.constant " + std::to_string(trips) + " : index\n";
      text += "\t\tscf.for " + iv + " = %c0 to " + bound + " step %c1 {\n";
      indent += "\t";
      ++loops;
    }
    for (; i < end; ++i) {
      std::string operands, ids;
      for (const LoopAddress& a : addresses[i]) {
        const std::string value = "%a" + std::to_string(i) + "_" + std::to_string(-a.symbol);
        text += indent + value + " = affine.apply affine_map<(d0) -> (d0 * " + std::to_string(a.advance) + " + " +
                std::to_string(a.start) + ")>(" + iv + ")\n";
        operands += (operands.empty() ? "" : ", ") + value;
        ids += (ids.empty() ? "" : ", ") + std::to_string(a.symbol);
      }
      text += indent + "sdscbundle.sdsc_execute (" + operands + ") {sdsc_filename=\"sdsc_" + std::to_string(i) +
              ".json\"" + (ids.empty() ? "" : ", symbol_ids=[" + ids + "]") + "}\n";
    }
    if (trips > 1) text += "\t\t}\n";
  }
  return text + "\t\treturn\n\t}\n}\n";
}

Json tensor_entry(const Graph& g, int t) {
  const Tensor& tensor = g.tensors[static_cast<size_t>(t)];
  const Tensor& root = g.tensors[static_cast<size_t>(g.storage_of(t))];
  const int64_t se = stick_elems(tensor.dtype);
  Json e = Json::object();
  e["name"] = tensor.name;
  e["role"] = role_name(tensor.role);
  e["dtype"] = dtype_name(tensor.dtype);
  e["device_format"] = data_format_name(device_format(tensor.dtype));
  // A tiled tensor's buffer holds the whole tensor; the loop's SDSCs address its tiles.
  const Shape shape = tensor.full_shape();
  e["shape"] = shape;
  if (!tensor.host_shape.empty()) e["host_shape"] = tensor.host_shape;
  e["storage"] = root.name;
  e["buffer"] = g.buffers[static_cast<size_t>(root.buffer)].name;
  e["offset"] = root.buffer_offset + tensor.view_offset;
  e["layout"] = {{"order", tensor.layout.order}, {"stick", tensor.layout.stick}};
  if (tensor.layout.stick_rows > 1) e["layout"]["stick_rows"] = tensor.layout.stick_rows;
  e["device_size"] = device_size(shape, tensor.layout, se);
  e["bytes"] = layout_geometry(shape, tensor.layout, se, kStickBytes / se).bytes;
  if (tensor.role == Role::Constant) e["value"] = tensor.value;
  if (tensor.shard_dim >= 0) e["shard"] = {{"dim", tensor.shard_dim}};
  return e;
}

std::string dump(const Json& j) { return j.dump(2) + "\n"; }

}  // namespace

std::vector<int> program_tensors(const Graph& g) {
  // Every tensor an SDSC reads or writes and the storage it lives in, then
  // host tensors the device only sees through views (an output that is a
  // reshape of what an op wrote).
  std::vector<int> out;
  std::set<int> listed;
  auto list = [&](int t) {
    if (listed.insert(t).second) out.push_back(t);
  };
  for (const auto& op : g.ops) {
    if (is_view_op(op.type)) continue;
    for (const auto* ts : {&op.inputs, &op.outputs}) {
      for (int t : *ts) {
        list(g.storage_of(t));
        list(t);
      }
    }
  }
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    if (g.tensors[t].is_host_visible() && g.tensors[static_cast<size_t>(g.storage_of(static_cast<int>(t)))].buffer >= 0)
      list(static_cast<int>(t));
  }
  return out;
}

Json program_manifest(const Graph& g, const CompileOptions& options) {
  Json m = Json::object();
  m["format"] = "spyre-sim program";
  m["version"] = 1;
  m["name"] = g.name;
  m["segment_bytes"] = options.device.segment_bytes;
  Json bundles = Json::array();
  for (size_t b = 0; b < g.bundles.size(); ++b) {
    // The buffer bound to each segment; null for the program's segment.
    Json args = Json::array(), sdscs = Json::array();
    const auto segments = options.device.argument_segments();
    for (size_t a = 0; a < g.bundles[b].arguments.size(); ++a) {
      while (static_cast<int>(args.size()) < segments[a]) args.push_back(nullptr);
      args.push_back(g.buffers[static_cast<size_t>(g.bundles[b].arguments[a])].name);
    }
    for (size_t i = 0; i < g.bundles[b].ops.size(); ++i) sdscs.push_back("sdsc_" + std::to_string(i) + ".json");
    const std::string dir = bundle_dir(g, b);
    bundles.push_back(
        {{"dir", dir.empty() ? "." : dir.substr(0, dir.size() - 1)}, {"arguments", args}, {"sdscs", sdscs}});
  }
  m["bundles"] = bundles;
  Json buffers = Json::array();
  for (const auto& b : g.buffers) buffers.push_back({{"name", b.name}, {"bytes", b.bytes}, {"pool", b.pool}});
  m["buffers"] = buffers;
  Json tensors = Json::array();
  for (int t : program_tensors(g)) {
    // LX-resident intermediates have no HBM bytes for the host to bind.
    if (!g.tensors[static_cast<size_t>(g.storage_of(t))].in_lx) tensors.push_back(tensor_entry(g, t));
  }
  m["tensors"] = tensors;
  if (g.cards > 1) {
    m["cards"] = g.cards;
    Json collectives = Json::array();
    for (const auto& op : g.ops) {
      if (!op.attrs.contains("collective")) continue;
      const Tensor& t = g.tensors[static_cast<size_t>(g.storage_of(op.inputs[0]))];
      if (t.in_lx) fail("", g.describe(op), "the tensor of a collective must be in HBM, not LX");
      collectives.push_back({{"op", op.attrs["collective"]}, {"tensor", t.name}, {"after_bundle", op.bundle}});
    }
    m["collectives"] = collectives;
  }
  return m;
}

std::map<std::string, std::string> program_files(const Graph& g, const CompileOptions& options) {
  std::map<std::string, std::string> files;
  for (size_t b = 0; b < g.bundles.size(); ++b) {
    const std::string dir = bundle_dir(g, b);
    const auto& ops = g.bundles[b].ops;
    std::vector<std::vector<LoopAddress>> addresses(ops.size());
    for (size_t i = 0; i < ops.size(); ++i) {
      files[dir + "sdsc_" + std::to_string(i) + ".json"] =
          dump(sdsc_json(g, ops[i], static_cast<int>(i), options, &addresses[i]));
    }
    files[dir + "bundle.mlir"] = bundle_mlir(g, ops, addresses);
  }
  files["program.json"] = dump(program_manifest(g, options));
  return files;
}

void write_program_dir(const std::string& dir, const std::map<std::string, std::string>& files) {
  const fs::path target(without_trailing_slash(dir));  // "out/" names the directory out
  if (fs::exists(target)) {
    if (!fs::is_directory(target)) fail(dir, "", "exists and is not a directory");
    if (!fs::is_empty(target) && !fs::exists(target / "program.json")) {
      fail(dir, "", "exists and is not an earlier spyre-sim compile output (no program.json); refusing to replace it");
    }
  }
  const fs::path staging = target.string() + ".partial";
  std::error_code ec;
  fs::remove_all(staging, ec);
  fs::create_directories(staging, ec);
  if (ec) fail(staging.string(), "", "cannot create directory: " + ec.message());
  for (const auto& [name, text] : files) {
    const fs::path path = staging / name;
    fs::create_directories(path.parent_path(), ec);
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) {
      fs::remove_all(staging, ec);
      fail(path.string(), "", "write failed");
    }
  }
  fs::remove_all(target, ec);
  fs::rename(staging, target, ec);
  if (ec) fail(dir, "", "cannot move the compiled program into place: " + ec.message());
}

}  // namespace spyre::compiler
