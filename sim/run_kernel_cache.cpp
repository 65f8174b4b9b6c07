#include "sim/run_kernel_cache.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "runtime/bundle_dir.h"
#include "runtime/error.h"
#include "runtime/user_files.h"

namespace fs = std::filesystem;

namespace spyre::sim {

bool is_kernel_cache(const std::string& dir) {
  return fs::is_directory(dir) && !is_bundle_dir(dir) && !fs::exists(fs::path(dir) / "program.json") &&
         !bundles_inside(dir).empty();
}

namespace {

// The kernel directory a wrapper's kernel name stands for: NAME itself or
// NAME_<suffix> (torch-spyre appends a temporary suffix), the longest match.
std::string directory_of(const std::string& kernel, const std::vector<std::string>& dirs) {
  for (const auto& d : dirs) {
    if (d == kernel) return d;
  }
  std::string best;
  for (const auto& d : dirs) {
    if (d.size() > kernel.size() && d.compare(0, kernel.size(), kernel) == 0 && d[kernel.size()] == '_' &&
        (best.empty() || d.size() < best.size()))
      best = d;
  }
  return best;
}

// NAME.run( calls of torch-spyre's wrapper, in order, for names that are kernels of the cache.
std::vector<std::string> wrapper_calls(const std::string& path, const std::vector<std::string>& dirs) {
  static const std::regex call(R"(\b([A-Za-z_][A-Za-z0-9_]*)\.run\()");
  std::vector<std::string> order;
  const std::string text = read_input_file(path);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), call); it != std::sregex_iterator(); ++it) {
    const std::string dir = directory_of((*it)[1].str(), dirs);
    if (!dir.empty()) order.push_back(dir);
  }
  return order;
}

std::vector<std::string> listed(const std::string& path, const std::vector<std::string>& dirs) {
  std::istringstream lines(read_input_file(path));
  std::vector<std::string> order;
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    line.erase(0, line.find_first_not_of(" \t\r"));
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (line.empty()) continue;
    const std::string dir = directory_of(line, dirs);
    if (dir.empty()) fail(path, "line " + std::to_string(number), "'" + line + "' is no kernel directory of the cache");
    order.push_back(dir);
  }
  if (order.empty()) fail(path, "", "lists no kernel");
  return order;
}

std::string with_kernel(const std::string& path, const std::string& kernel) {
  if (path.empty()) return path;
  const fs::path p(path);
  return (p.parent_path() / (p.stem().string() + "." + kernel + p.extension().string())).string();
}

std::string kernel_subdir(const std::string& dir, const std::string& kernel) {
  return dir.empty() ? dir : (fs::path(dir) / kernel).string();
}

}  // namespace

KernelOrder kernel_order(const std::string& cache_dir, const std::string& order_file) {
  const std::vector<std::string> dirs = bundles_inside(cache_dir);
  if (dirs.empty()) fail(cache_dir, "", "holds no kernel directories (bundle.mlir or sdsc_N.json)");
  KernelOrder order;
  if (!order_file.empty()) {
    order.source = fs::path(order_file).filename().string();
    order.kernels =
        fs::path(order_file).extension() == ".py" ? wrapper_calls(order_file, dirs) : listed(order_file, dirs);
    if (order.kernels.empty()) fail(order_file, "", "calls none of the cache's kernels (NAME.run(...))");
    return order;
  }
  std::vector<std::string> wrappers;
  for (const auto& entry : fs::directory_iterator(cache_dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".py") wrappers.push_back(entry.path().string());
  }
  std::sort(wrappers.begin(), wrappers.end());
  for (const auto& w : wrappers) {
    order.kernels = wrapper_calls(w, dirs);
    if (!order.kernels.empty()) {
      order.source = fs::path(w).filename().string();
      return order;
    }
  }
  // torch-spyre names a kernel's directory sdsc_<ops>_<N>_<8 random
  // characters>, N counting the wrapper's kernels: their run order.
  static const std::regex numbered(R"(sdsc_.*_(\d+)_.{8})");
  std::vector<std::pair<long, std::string>> by_number;
  for (const auto& d : dirs) {
    std::smatch m;
    if (std::regex_match(d, m, numbered)) by_number.emplace_back(std::stol(m[1]), d);
  }
  if (by_number.size() == dirs.size()) {
    std::stable_sort(by_number.begin(), by_number.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [n, d] : by_number) order.kernels.push_back(d);
    order.source = "kernel numbers";
    return order;
  }
  order.kernels = dirs;
  order.source = "name order";
  return order;
}

CacheRun run_kernel_cache(const RunOptions& options, const std::string& order_file) {
  CacheRun run;
  run.cache_dir = options.bundle;
  const KernelOrder order = kernel_order(options.bundle, order_file);
  run.order_source = order.source;
  for (const auto& kernel : order.kernels) {
    RunOptions o = options;
    o.bundle = (fs::path(options.bundle) / kernel).string();
    o.inputs_dir = kernel_subdir(options.inputs_dir, kernel);
    o.outputs_dir = kernel_subdir(options.outputs_dir, kernel);
    o.expect_dir = kernel_subdir(options.expect_dir, kernel);
    if (!o.expect_dir.empty() && !fs::is_directory(o.expect_dir)) o.expect_dir.clear();  // no references for it
    o.report_path = with_kernel(options.report_path, kernel);
    o.trace_path = with_kernel(options.trace_path, kernel);
    o.unknown_symbols_ok = true;  // checked over the whole cache below
    CacheKernelRun k{kernel, run_bundle(o)};
    run.total_latency_us += k.outcome.report.latency_us;
    run.total_hbm_read_bytes += k.outcome.report.hbm_read_bytes;
    run.total_hbm_write_bytes += k.outcome.report.hbm_write_bytes;
    run.total_hazards += k.outcome.report.hazards.size();
    run.kernels.push_back(std::move(k));
  }
  for (const auto& [name, value] : options.symbols) {
    bool bound = false;
    for (const auto& k : run.kernels) {
      for (const auto& kr : k.outcome.report.kernels) {
        for (const auto& d : kr.symbolic_dims) bound = bound || (d.symbol == name && d.bound > 0);
      }
    }
    if (!bound)
      fail("", "--dim " + name, "no kernel of " + options.bundle + " has a dim sized by symbol '" + name + "'");
  }
  if (!options.report_path.empty()) write_json_file(options.report_path, cache_report_to_json(run));
  return run;
}

Json cache_report_to_json(const CacheRun& run) {
  Json j;
  j["cache"] = run.cache_dir;
  j["order"] = run.order_source;
  j["kernels"] = Json::array();
  for (const auto& k : run.kernels) {
    const RunReport& r = k.outcome.report;
    j["kernels"].push_back({{"name", k.name},
                            {"sdscs", r.kernels.size()},
                            {"latency_us", rounded(r.latency_us, 4)},
                            {"hbm_read_bytes", r.hbm_read_bytes},
                            {"hbm_write_bytes", r.hbm_write_bytes},
                            {"hazards", r.hazards.size()}});
  }
  j["total"] = {{"kernels", run.kernels.size()},
                {"latency_us", rounded(run.total_latency_us, 4)},
                {"hbm_read_bytes", run.total_hbm_read_bytes},
                {"hbm_write_bytes", run.total_hbm_write_bytes},
                {"hazards", run.total_hazards}};
  return j;
}

std::string cache_report_table(const CacheRun& run) {
  std::ostringstream out;
  char line[256];
  out << "spyre-sim run " << run.cache_dir << " (" << run.kernels.size() << " kernels, " << run.order_source << ")\n\n";
  std::snprintf(line, sizeof line, "%-40s %6s %12s %14s %14s %8s\n", "kernel", "sdscs", "latency_us", "hbm_read_B",
                "hbm_write_B", "hazards");
  out << line;
  for (const auto& k : run.kernels) {
    const RunReport& r = k.outcome.report;
    std::snprintf(line, sizeof line, "%-40s %6zu %12.3f %14lld %14lld %8zu\n", k.name.c_str(), r.kernels.size(),
                  r.latency_us, static_cast<long long>(r.hbm_read_bytes), static_cast<long long>(r.hbm_write_bytes),
                  r.hazards.size());
    out << line;
  }
  std::snprintf(line, sizeof line, "%-40s %6s %12.3f %14lld %14lld %8zu\n", "total", "", run.total_latency_us,
                static_cast<long long>(run.total_hbm_read_bytes), static_cast<long long>(run.total_hbm_write_bytes),
                run.total_hazards);
  out << line;
  return out.str();
}

}  // namespace spyre::sim
