#include "runtime/program_manifest.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "runtime/error.h"
#include "runtime/json_node.h"

namespace spyre {

int ProgramManifest::find_buffer(const std::string& wanted) const {
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].name == wanted) return static_cast<int>(i);
  }
  return -1;
}

ProgramManifest read_program_manifest(const std::string& path) {
  const Json doc = read_json_file(path);
  JsonNode root(doc, path, "$");
  if (!root.is_object()) root.error("expected a JSON object");
  ProgramManifest m;
  m.file = path;
  if (root.at("format").as_string() != "spyre-sim program") root.at("format").error("expected \"spyre-sim program\"");
  if (root.at("version").as_int() != 1) root.at("version").error("unsupported version (this build reads version 1)");
  m.name = root.at("name").as_string();
  m.segment_bytes = root.at("segment_bytes").as_int();
  JsonNode buffers = root.at("buffers");
  for (size_t i = 0; i < buffers.size(); ++i) {
    JsonNode b = buffers.element(i);
    ManifestBuffer buffer{b.at("name").as_string(), b.at("bytes").as_int()};
    if (m.find_buffer(buffer.name) >= 0) b.at("name").error("buffer '" + buffer.name + "' listed twice");
    if (buffer.bytes < 0 || buffer.bytes > m.segment_bytes) b.at("bytes").error("must be 0 to segment_bytes");
    m.buffers.push_back(buffer);
  }
  JsonNode bundles = root.at("bundles");
  if (bundles.size() == 0) bundles.error("a program has at least one bundle");
  for (size_t i = 0; i < bundles.size(); ++i) {
    JsonNode b = bundles.element(i);
    ManifestBundle bundle;
    bundle.dir = b.at("dir").as_string();
    if (bundle.dir.find("..") != std::string::npos || (!bundle.dir.empty() && bundle.dir[0] == '/'))
      b.at("dir").error("must be a path inside the program directory");
    JsonNode args = b.at("arguments");
    for (size_t a = 0; a < args.size(); ++a) {
      if (args.element(a).raw().is_null()) {
        bundle.arguments.emplace_back();  // a segment bound to nothing (the program's)
        continue;
      }
      const std::string name = args.element(a).as_string();
      if (m.find_buffer(name) < 0) args.element(a).error("no buffer named '" + name + "'");
      bundle.arguments.push_back(name);
    }
    m.bundles.push_back(bundle);
  }
  JsonNode tensors = root.at("tensors");
  std::set<std::string> names;
  for (size_t i = 0; i < tensors.size(); ++i) {
    JsonNode t = tensors.element(i);
    ManifestTensor tensor;
    tensor.name = t.at("name").as_string();
    if (!names.insert(tensor.name).second) t.at("name").error("tensor '" + tensor.name + "' listed twice");
    tensor.role = t.at("role").as_string();
    static const std::set<std::string> roles = {"input", "weight", "output", "constant", "intermediate"};
    if (!roles.count(tensor.role)) t.at("role").error("unknown role '" + tensor.role + "'");
    const auto format = parse_data_format(t.at("device_format").as_string());
    if (!format) t.at("device_format").error("unknown device format");
    tensor.format = *format;
    tensor.shape = t.at("shape").as_int_list();
    if (auto hs = t.find("host_shape")) tensor.host_shape = hs->as_int_list();
    tensor.storage = t.at("storage").as_string();
    tensor.buffer = m.find_buffer(t.at("buffer").as_string());
    if (tensor.buffer < 0) t.at("buffer").error("no buffer named '" + t.at("buffer").as_string() + "'");
    tensor.offset = t.at("offset").as_int();
    JsonNode layout = t.at("layout");
    const auto rank = static_cast<int64_t>(tensor.shape.size());
    JsonNode order = layout.at("order");
    for (size_t d = 0; d < order.size(); ++d)
      tensor.order.push_back(static_cast<int>(order.element(d).as_int_in(0, rank - 1)));
    tensor.stick = static_cast<int>(layout.at("stick").as_int_in(0, rank - 1));
    std::vector<int> sorted = tensor.order;
    std::sort(sorted.begin(), sorted.end());
    for (size_t d = 0; d < sorted.size(); ++d) {
      if (sorted[d] != static_cast<int>(d) || sorted.size() != tensor.shape.size())
        layout.at("order").error("must list each of the " + std::to_string(tensor.shape.size()) + " dims once");
    }
    if (tensor.stick < 0 || tensor.stick >= static_cast<int>(tensor.shape.size()))
      layout.at("stick").error("not a dim of the tensor");
    if (auto rows = layout.find("stick_rows")) {
      tensor.stick_rows = static_cast<int>(rows->as_int_in(1, 2));
      if (tensor.stick_rows > 1 && tensor.order.size() < 2) rows->error("a two-dim stick needs a second dim");
    }
    if (auto v = t.find("value")) tensor.value = static_cast<float>(v->as_double());
    if (tensor.role == "constant" && !tensor.value) t.error("a constant needs a value");
    if (auto shard = t.find("shard")) tensor.shard_dim = static_cast<int>(shard->at("dim").as_int_in(0, rank - 1));
    m.tensors.push_back(tensor);
  }
  for (size_t i = 0; i < m.tensors.size(); ++i) {
    if (!names.count(m.tensors[i].storage))
      tensors.element(i).at("storage").error("no tensor named '" + m.tensors[i].storage + "'");
    if (m.tensors[i].shard_dim >= 0 && !root.find("cards"))
      tensors.element(i).at("shard").error("a shard needs the program's 'cards'");
  }
  if (auto cards = root.find("cards")) m.cards = static_cast<int>(cards->as_int_in(1, 1024));
  if (auto collectives = root.find("collectives")) {
    for (size_t i = 0; i < collectives->size(); ++i) {
      JsonNode c = collectives->element(i);
      ManifestCollective collective;
      collective.op = c.at("op").as_string();
      if (collective.op != "all_reduce") c.at("op").error("unknown collective '" + collective.op + "' (all_reduce)");
      collective.tensor = c.at("tensor").as_string();
      if (!names.count(collective.tensor)) c.at("tensor").error("no tensor named '" + collective.tensor + "'");
      collective.after_bundle =
          static_cast<int>(c.at("after_bundle").as_int_in(0, static_cast<int64_t>(m.bundles.size()) - 1));
      if (m.cards < 2) c.error("a collective needs 'cards' of 2 or more");
      m.collectives.push_back(collective);
    }
  }
  return m;
}

}  // namespace spyre
