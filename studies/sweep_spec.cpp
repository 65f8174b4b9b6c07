#include "studies/sweep_spec.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "compiler/compile_options.h"
#include "runtime/arch_config.h"
#include "runtime/error.h"
#include "runtime/text.h"
#include "studies/content_hash.h"
#include "studies/yaml_file.h"

namespace fs = std::filesystem;

namespace spyre::studies {

namespace {

const std::vector<std::string> kCompileKeys = {"compile.cores",    "compile.split",  "compile.lx_planning",
                                               "compile.lx_stage", "compile.solver", "compile.work_division",
                                               "compile.cards"};
constexpr size_t kMaxPoints = 1000000;

// A value as a column shows it: numbers in shortest form, strings as they are.
std::string value_text(const JsonNode& value) {
  const Json& v = value.raw();
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number_float()) {
    char text[32];
    std::snprintf(text, sizeof text, "%.15g", v.get<double>());
    return text;
  }
  value.error("must be a number, a string or a boolean");
}

// One axis: its key and the values it steps through.
struct Axis {
  std::string key;
  std::vector<std::string> values;
};

Axis read_axis(const JsonNode& node, const std::vector<SweepRun>& runs) {
  Axis axis;
  axis.key = node.at("key").as_string();
  const bool compile_key = std::find(kCompileKeys.begin(), kCompileKeys.end(), axis.key) != kCompileKeys.end();
  if (!compile_key && !find_arch_param(axis.key)) {
    node.at("key").error("unknown key '" + axis.key + "' (an arch parameter, see `spyre-sim arch`, or one of " +
                         join(kCompileKeys, ", ") + ")");
  }
  if (compile_key) {
    for (const auto& run : runs) {
      if (!run.bundle.empty())
        node.at("key").error(axis.key + " changes how a program is compiled; run '" + run.name + "' is a bundle");
    }
  }
  if (node.has("values") == node.has("range")) node.error("give either \"values\" or \"range\"");
  if (const auto values = node.find("values")) {
    for (size_t i = 0; i < values->size(); ++i) {
      const JsonNode v = values->element(i);
      if (axis.key == "compile.cores") v.as_int_in(1, 1024);
      if (axis.key == "compile.lx_stage") v.as_int_in(2, 4);
      if (axis.key == "compile.cards") v.as_int_in(1, 64);
      if (axis.key == "compile.lx_planning" && !v.raw().is_boolean()) v.error("must be true or false");
      if (axis.key == "compile.work_division" && !compiler::is_work_division(v.as_string()))
        v.error("must be " + compiler::work_division_choices());
      axis.values.push_back(value_text(v));
    }
  } else {
    const JsonNode range = node.at("range");
    const double from = range.at("from").as_double(), to = range.at("to").as_double(),
                 step = range.at("step").as_double();
    if (!(step > 0) || !std::isfinite(step)) range.at("step").error("must be a positive number");
    if (!std::isfinite(from) || !std::isfinite(to) || to < from) range.error("needs finite \"from\" <= \"to\"");
    const double count = std::floor((to - from) / step * (1 + 1e-12)) + 1;
    if (count > static_cast<double>(kMaxPoints)) range.error("more than 1000000 values");
    for (int64_t i = 0; i < static_cast<int64_t>(count); ++i) {
      char text[32];
      std::snprintf(text, sizeof text, "%.15g", from + static_cast<double>(i) * step);
      axis.values.push_back(text);
    }
  }
  if (axis.values.empty()) node.error("has no values");
  return axis;
}

SweepRun read_run(const JsonNode& node, const fs::path& base) {
  SweepRun run;
  run.definition = node.raw();
  int kinds = 0;
  for (const char* kind : {"bundle", "graph", "workload"}) kinds += node.has(kind) ? 1 : 0;
  if (kinds != 1) node.error("give exactly one of \"bundle\", \"graph\", \"workload\"");
  auto resolve = [&](const std::string& key) {
    const fs::path p = node.at(key).as_string();
    return (p.is_absolute() ? p : base / p).lexically_normal().string();
  };
  if (node.has("bundle")) run.bundle = resolve("bundle");
  if (node.has("graph")) run.graph = resolve("graph");
  if (node.has("workload")) run.workload = node.at("workload").as_string();
  static const std::set<std::string> known = {"name",  "bundle", "graph",       "workload", "shape",  "params",
                                              "cores", "split",  "lx_planning", "lx_stage", "solver", "work_division"};
  for (const auto& [key, value] : node.members()) {
    if (!known.count(key))
      value.error("unknown field (runs take " + join(std::vector<std::string>(known.begin(), known.end()), ", ") + ")");
    if (!run.bundle.empty() && key != "name" && key != "bundle")
      value.error("a bundle runs as it is: compile options apply to graphs and workloads");
  }
  // Compile options are checked here, before anything runs, as compile would check them.
  if (const auto v = node.find("cores")) v->as_int_in(1, 1024);
  if (const auto v = node.find("lx_planning"); v && !v->raw().is_boolean()) v->error("must be true or false");
  if (const auto v = node.find("lx_stage")) v->as_int_in(2, 4);
  if (const auto v = node.find("solver")) v->as_string();
  if (const auto v = node.find("split")) v->is_string() ? void(v->as_string()) : void(v->as_string_list());
  if (const auto v = node.find("work_division"); v && !compiler::is_work_division(v->as_string()))
    v->error("must be " + compiler::work_division_choices());
  if (const auto v = node.find("shape")) v->as_string();
  if (const auto params = node.find("params")) {
    for (const auto& [key, value] : params->members())
      key == "dtype" || key == "phase" ? void(value.as_string()) : void(value.as_int());
  }
  run.name = node.has("name")        ? node.at("name").as_string()
             : !run.workload.empty() ? run.workload
                                     : fs::path(run.bundle.empty() ? run.graph : run.bundle).stem().string();
  return run;
}

std::string hash_text(const std::string& text) { return ContentHash().add(text).hex(); }

}  // namespace

const std::vector<std::string>& sweep_metric_names() {
  static const std::vector<std::string> names = {
      "latency_us",       "kernel_us",         "kernels",     "hbm_read_bytes", "hbm_write_bytes", "dram_read_bytes",
      "dram_write_bytes", "lx_peak_bytes",     "pt_busy_pct", "sfu_busy_pct",   "dma_in_busy_pct", "dma_out_busy_pct",
      "data_ring_bytes",  "reduce_ring_bytes", "cards",       "collective_us",  "hazards"};
  return names;
}

SweepSpec read_sweep_spec(const std::string& path) {
  const Json json = is_yaml_file(path) ? read_yaml_file(path) : read_json_file(path);
  const JsonNode root(json, path, "$");
  if (!root.is_object()) root.error("a sweep spec is a JSON object");
  SweepSpec spec;
  spec.file = path;
  spec.name = root.has("name") ? root.at("name").as_string() : fs::path(path).stem().string();
  const fs::path base = fs::path(path).parent_path();
  const JsonNode runs = root.at("runs");
  if (runs.size() == 0) runs.error("names nothing to run");
  std::set<std::string> names;
  for (size_t i = 0; i < runs.size(); ++i) {
    spec.runs.push_back(read_run(runs.element(i), base));
    if (!names.insert(spec.runs.back().name).second)
      runs.element(i).error("a second run named '" + spec.runs.back().name + "' (give each a \"name\")");
  }
  // Axes: a plain axis is a group of one; a zip group steps its axes together.
  std::vector<std::vector<Axis>> groups;
  if (const auto axes = root.find("axes")) {
    for (size_t i = 0; i < axes->size(); ++i) {
      const JsonNode entry = axes->element(i);
      std::vector<Axis> group;
      if (entry.has("zip")) {
        const JsonNode zip = entry.at("zip");
        for (size_t z = 0; z < zip.size(); ++z) group.push_back(read_axis(zip.element(z), spec.runs));
        if (group.empty()) zip.error("zips no axes");
        for (const Axis& a : group) {
          if (a.values.size() != group.front().values.size())
            zip.error("zipped axes need as many values each ('" + group.front().key + "' has " +
                      std::to_string(group.front().values.size()) + ", '" + a.key + "' " +
                      std::to_string(a.values.size()) + ")");
        }
      } else {
        group.push_back(read_axis(entry, spec.runs));
      }
      for (const Axis& a : group) {
        if (std::find(spec.axis_keys.begin(), spec.axis_keys.end(), a.key) != spec.axis_keys.end())
          entry.error("key '" + a.key + "' is swept twice");
        spec.axis_keys.push_back(a.key);
      }
      groups.push_back(std::move(group));
    }
  }
  if (const auto keep = root.find("keep")) {
    spec.keep = keep->as_string_list();
    for (size_t i = 0; i < spec.keep.size(); ++i) {
      const auto& all = sweep_metric_names();
      if (std::find(all.begin(), all.end(), spec.keep[i]) == all.end())
        keep->element(i).error("unknown metric (one of " + join(all, ", ") + ")");
    }
  }
  if (const auto warmup = root.find("warmup")) spec.protocol.warmup = static_cast<int>(warmup->as_int_in(0, 1000));
  if (const auto between = root.find("between_runs")) {
    const auto parsed = sim::parse_between_runs(between->as_string());
    if (!parsed) between->error("must be \"back-to-back\" or \"device-work\"");
    spec.protocol.between_runs = *parsed;
  }
  if (const auto repeats = root.find("sample_repeats"))
    spec.sample_repeats = static_cast<int>(repeats->as_int_in(0, 1000));

  // Points: runs x the groups crossed, the last group stepping fastest.
  double total = static_cast<double>(spec.runs.size());
  for (const auto& g : groups) total *= static_cast<double>(g.front().values.size());
  if (total > static_cast<double>(kMaxPoints)) root.error("the grid has more than 1000000 points");
  std::vector<size_t> at(groups.size(), 0);
  std::map<std::string, size_t> seen;  // point hash -> index
  for (size_t r = 0; r < spec.runs.size(); ++r) {
    std::fill(at.begin(), at.end(), 0);
    for (bool more = true; more;) {
      SweepPoint p;
      p.index = spec.points.size();
      p.run = r;
      std::string canonical = spec.runs[r].definition.dump();
      for (size_t g = 0; g < groups.size(); ++g) {
        for (const Axis& a : groups[g]) {
          p.values.emplace_back(a.key, a.values[at[g]]);
          canonical += "\n" + a.key + "=" + a.values[at[g]];
        }
      }
      canonical += "\nwarmup=" + std::to_string(spec.protocol.warmup);
      // Only when set: the points of specs written before it keep their hashes.
      if (spec.protocol.between_runs != sim::BetweenRuns::kBackToBack)
        canonical += "\nbetween_runs=" + sim::to_string(spec.protocol.between_runs);
      if (spec.sample_repeats > 0) canonical += "\nsample_repeats=" + std::to_string(spec.sample_repeats);
      p.hash = hash_text(canonical);
      if (const auto [it, fresh] = seen.emplace(p.hash, p.index); !fresh)
        root.at("axes").error("points " + std::to_string(it->second) + " and " + std::to_string(p.index) +
                              " are the same run with the same values: an axis repeats a value");
      spec.points.push_back(std::move(p));
      more = false;
      for (size_t g = groups.size(); g-- > 0;) {
        if (++at[g] < groups[g].front().values.size()) {
          more = true;
          break;
        }
        at[g] = 0;
      }
    }
  }
  return spec;
}

}  // namespace spyre::studies
