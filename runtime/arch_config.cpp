#include "runtime/arch_config.h"

#include <cmath>
#include <functional>
#include <sstream>

#include "runtime/error.h"

namespace spyre {

extern const char* const kBuiltinArchJson;  // models/arch/spyre.json, embedded at build time

namespace {

struct Param {
  const char* path;
  std::function<void(ArchConfig&, double)> set;
  std::function<double(const ArchConfig&)> get;
  double min, max;
  bool integer;
};

#define SPYRE_PARAM(path, field, lo, hi, integer)                                                       \
  Param {                                                                                              \
    path, [](ArchConfig& a, double v) { a.field = static_cast<decltype(a.field)>(v); },                \
        [](const ArchConfig& a) { return static_cast<double>(a.field); }, lo, hi, integer              \
  }

const std::vector<Param>& params() {
  static const std::vector<Param> list = {
      SPYRE_PARAM("cores", cores, 1, 1024, true),
      SPYRE_PARAM("clock_ghz", clock_ghz, 0.01, 100, false),
      SPYRE_PARAM("corelets_per_core", corelets_per_core, 1, 64, true),
      SPYRE_PARAM("pt.pe_rows", pt.pe_rows, 1, 1024, true),
      SPYRE_PARAM("pt.pe_cols", pt.pe_cols, 1, 1024, true),
      SPYRE_PARAM("pt.simd_lanes", pt.simd_lanes, 1, 1024, true),
      SPYRE_PARAM("pt.efficiency", pt.efficiency, 1e-4, 1, false),
      SPYRE_PARAM("pt.strided_efficiency", pt.strided_efficiency, 1e-4, 1, false),
      SPYRE_PARAM("pt.elementwise_elems_per_cycle", pt.elementwise_elems_per_cycle, 1, 1 << 20, true),
      SPYRE_PARAM("sfu.lanes", sfu.lanes, 1, 1 << 20, true),
      SPYRE_PARAM("sfu.cycles_simple", sfu.cycles_simple, 0.01, 1e6, false),
      SPYRE_PARAM("sfu.cycles_divide", sfu.cycles_divide, 0.01, 1e6, false),
      SPYRE_PARAM("sfu.cycles_transcendental", sfu.cycles_transcendental, 0.01, 1e6, false),
      SPYRE_PARAM("sfu.cycles_reduce", sfu.cycles_reduce, 0.01, 1e6, false),
      SPYRE_PARAM("sfu.cycles_reduce_stick", sfu.cycles_reduce_stick, 0.01, 1e6, false),
      SPYRE_PARAM("lx.size_bytes", lx.size_bytes, 4096, 1e12, true),
      SPYRE_PARAM("lx.alignment_bytes", lx.alignment_bytes, 1, 1 << 20, true),
      SPYRE_PARAM("lx.backend_reserved_fraction", lx.backend_reserved_fraction, 0.001, 0.999, false),
      SPYRE_PARAM("lx.ports", lx.ports, 1, 64, true),
      SPYRE_PARAM("lx.port_bytes_per_cycle", lx.port_bytes_per_cycle, 1, 1 << 20, true),
      SPYRE_PARAM("dma.port_gbps", dma.port_gbps, 0.001, 1e6, false),
      SPYRE_PARAM("dma.request_bytes", dma.request_bytes, 128, 1 << 30, true),
      SPYRE_PARAM("dma.max_outstanding", dma.max_outstanding, 1, 1 << 20, true),
      SPYRE_PARAM("dma.setup_ns", dma.setup_ns, 0, 1e9, false),
      SPYRE_PARAM("dma.write_fence_ns", dma.write_fence_ns, 0, 1e9, false),
      SPYRE_PARAM("cache.bytes", cache.bytes, 0, 1e12, true),
      SPYRE_PARAM("cache.line_bytes", cache.line_bytes, 128, 1 << 30, true),
      SPYRE_PARAM("cache.gbps", cache.gbps, 0.001, 1e7, false),
      SPYRE_PARAM("cache.hit_latency_ns", cache.hit_latency_ns, 0, 1e6, false),
      SPYRE_PARAM("lpddr5.channels", lpddr5.channels, 1, 1024, true),
      SPYRE_PARAM("lpddr5.peak_gbps", lpddr5.peak_gbps, 0.001, 1e6, false),
      SPYRE_PARAM("lpddr5.read_gbps", lpddr5.read_gbps, 0.001, 1e6, false),
      SPYRE_PARAM("lpddr5.write_gbps", lpddr5.write_gbps, 0.001, 1e6, false),
      SPYRE_PARAM("lpddr5.turnaround_ns", lpddr5.turnaround_ns, 0, 1e6, false),
      SPYRE_PARAM("lpddr5.latency_ns", lpddr5.latency_ns, 0, 1e6, false),
      SPYRE_PARAM("lpddr5.write_ack_ns", lpddr5.write_ack_ns, -1, 1e6, false),
      SPYRE_PARAM("lpddr5.interleave_bytes", lpddr5.interleave_bytes, 32, 1 << 30, true),
      SPYRE_PARAM("lpddr5.write_batch_bytes", lpddr5.write_batch_bytes, 32, 1 << 30, true),
      SPYRE_PARAM("lpddr5.queue_depth_chunks", lpddr5.queue_depth_chunks, 1, 1 << 20, true),
      SPYRE_PARAM("data_ring.bytes_per_cycle", data_ring.bytes_per_cycle, 1, 1 << 20, true),
      SPYRE_PARAM("data_ring.hop_latency_cycles", data_ring.hop_latency_cycles, 0, 1e6, false),
      SPYRE_PARAM("reduce_ring.bytes_per_cycle", reduce_ring.bytes_per_cycle, 1, 1 << 20, true),
      SPYRE_PARAM("reduce_ring.hop_latency_cycles", reduce_ring.hop_latency_cycles, 0, 1e6, false),
      SPYRE_PARAM("host_link.gbps", host_link.gbps, 0.001, 1e6, false),
      SPYRE_PARAM("host_link.latency_us", host_link.latency_us, 0, 1e6, false),
      SPYRE_PARAM("launch.bundle_overhead_us", launch.bundle_overhead_us, 0, 1e9, false),
      SPYRE_PARAM("launch.sdsc_overhead_ns", launch.sdsc_overhead_ns, 0, 1e12, false),
      SPYRE_PARAM("launch.barrier_ns_per_level", launch.barrier_ns_per_level, 0, 1e12, false),
      SPYRE_PARAM("address.segment_bytes", address.segment_bytes, 4096, 9e18, true),
      SPYRE_PARAM("address.segments", address.segments, 1, 64, true),
      SPYRE_PARAM("address.program_segment", address.program_segment, 0, 63, true),
      SPYRE_PARAM("address.span_limit_bytes", address.span_limit_bytes, 4096, 9e18, true),
  };
  return list;
}

#undef SPYRE_PARAM

const Param* find_param(const std::string& path) {
  for (const auto& p : params()) {
    if (path == p.path) return &p;
  }
  return nullptr;
}

std::string known_paths() {
  std::string out;
  for (const auto& p : params()) out += (out.empty() ? "" : ", ") + std::string(p.path);
  return out;
}

// Walks "a.b.c" inside the document; nullptr when absent.
Json* locate(Json& doc, const std::string& path) {
  Json* node = &doc;
  std::stringstream ss(path);
  std::string part;
  while (std::getline(ss, part, '.')) {
    if (!node->is_object() || !node->contains(part)) return nullptr;
    node = &(*node)[part];
  }
  return node;
}

bool is_leaf(const Json& node) { return node.is_object() && node.contains("value"); }

// Every leaf of the document must be a known parameter.
void check_known(const Json& node, const std::string& prefix, const std::string& file) {
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (prefix.empty() && (it.key() == "name" || it.key() == "description")) continue;
    if (is_leaf(it.value())) {
      if (!find_param(path)) fail(file, path, "unknown arch parameter (known: " + known_paths() + ")");
    } else if (it.value().is_object()) {
      check_known(it.value(), path, file);
    } else {
      fail(file, path, "expected {\"value\": ..., \"_source\": ...} or a group of parameters");
    }
  }
}

Json load_document(const std::string& path, std::string& label) {
  if (path.empty()) {
    label = "built-in spyre.json";
    try {
      return Json::parse(kBuiltinArchJson);
    } catch (const std::exception& e) {
      fail(label, "", std::string("malformed JSON: ") + e.what());
    }
  }
  label = path;
  return read_json_file(path);
}

void apply_override(Json& doc, const std::string& assignment, const std::string& label) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) fail("--set", assignment, "expected path=value, e.g. lpddr5.read_gbps=300");
  const std::string path = assignment.substr(0, eq);
  const std::string text = assignment.substr(eq + 1);
  if (!find_param(path)) fail("--set", path, "unknown arch parameter (known: " + known_paths() + ")");
  Json* node = locate(doc, path);
  if (!node || !is_leaf(*node)) fail(label, path, "parameter missing from the arch file");
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') fail("--set", path, "value '" + text + "' is not a number");
  (*node)["value"] = value;
  (*node)["_source"] = "command line --set " + assignment;
}

ArchConfig build(Json& doc, const std::string& label, const std::vector<std::string>& overrides) {
  for (const auto& o : overrides) apply_override(doc, o, label);
  if (!doc.is_object()) fail(label, "", "expected a JSON object");
  check_known(doc, "", label);
  ArchConfig arch;
  arch.source_file = label;
  arch.overrides = overrides;
  arch.name = doc.contains("name") && doc["name"].is_string() ? doc["name"].get<std::string>() : "unnamed";
  for (const auto& p : params()) {
    Json* node = locate(doc, p.path);
    if (!node || !is_leaf(*node)) fail(label, p.path, "missing parameter");
    const Json& value = (*node)["value"];
    if (!value.is_number()) fail(label, std::string(p.path) + ".value", "expected a number");
    if (!node->contains("_source") || !(*node)["_source"].is_string() || (*node)["_source"].get<std::string>().empty()) {
      fail(label, p.path, "every parameter needs a _source saying where its value comes from");
    }
    const double v = value.get<double>();
    if (!(v >= p.min && v <= p.max)) {
      std::ostringstream range;
      range << "value " << v << " is outside [" << p.min << ", " << p.max << "]";
      fail(label, p.path, range.str());
    }
    if (p.integer && v != std::floor(v)) fail(label, p.path, "expected an integer");
    p.set(arch, v);
  }
  if (arch.address.program_segment >= arch.address.segments) fail(label, "address.program_segment", "must be below address.segments");
  if (arch.lx.size_bytes % arch.lx.alignment_bytes != 0) fail(label, "lx.size_bytes", "must be a multiple of lx.alignment_bytes");
  return arch;
}

}  // namespace

int64_t ArchConfig::staging_bytes() const {
  const auto reserved = static_cast<int64_t>(static_cast<double>(lx.size_bytes) * lx.backend_reserved_fraction);
  return reserved / lx.alignment_bytes * lx.alignment_bytes;
}

DeviceLimits ArchConfig::limits() const {
  DeviceLimits l;
  l.cores = cores;
  l.lx_bytes = lx.size_bytes;
  l.lx_alignment = lx.alignment_bytes;
  l.lx_backend_reserved_fraction = lx.backend_reserved_fraction;
  l.segment_bytes = address.segment_bytes;
  l.segments = address.segments;
  l.program_segment = address.program_segment;
  l.span_limit_bytes = address.span_limit_bytes;
  return l;
}

Json ArchConfig::to_json() const {
  Json out;
  out["name"] = name;
  out["file"] = source_file;
  out["overrides"] = overrides;
  for (const auto& p : params()) out["values"][p.path] = p.get(*this);
  return out;
}

ArchConfig load_arch(const std::string& path, const std::vector<std::string>& overrides) {
  std::string label;
  Json doc = load_document(path, label);
  return build(doc, label, overrides);
}

std::vector<std::string> describe_arch(const std::string& path, const std::vector<std::string>& overrides) {
  std::string label;
  Json doc = load_document(path, label);
  const ArchConfig arch = build(doc, label, overrides);
  std::vector<std::string> lines;
  for (const auto& p : params()) {
    const Json& leaf = *locate(doc, p.path);
    std::ostringstream line;
    const double v = p.get(arch);
    line << p.path << " = ";
    if (p.integer) {
      line << static_cast<int64_t>(v);
    } else {
      line << v;
    }
    if (leaf.contains("unit")) line << " " << leaf["unit"].get<std::string>();
    line << "  (" << leaf["_source"].get<std::string>() << ")";
    lines.push_back(line.str());
  }
  return lines;
}

}  // namespace spyre
