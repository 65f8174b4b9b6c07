#include "studies/sweep_runner.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "compiler/compile_job.h"
#include "compiler/compiler.h"
#include "compiler/workloads.h"
#include "runtime/arch_config.h"
#include "runtime/error.h"
#include "runtime/text.h"
#include "runtime/user_files.h"
#include "sim/run_bundle.h"

namespace fs = std::filesystem;

namespace spyre::studies {

namespace {

using Clock = std::chrono::steady_clock;

// The run's compile options, then the point's compile.* values over them.
compiler::CompileJob compile_job(const SweepRun& run, const SweepPoint& point, const std::string& spec_file,
                                 const DeviceLimits& device, const std::string& output) {
  const JsonNode node(run.definition, spec_file, "$.runs[" + std::to_string(point.run) + "]");
  compiler::CompileJob job;
  job.graph_path = run.graph;
  job.workload = run.workload;
  job.output_dir = output;
  job.options.device = device;
  if (const auto shape = node.find("shape")) job.params.shape = compiler::parse_shape(shape->as_string());
  if (const auto params = node.find("params")) {
    for (const auto& [key, value] : params->members()) {
      auto& p = job.params;
      if (key == "dtype") {
        if (!compiler::parse_dtype(value.as_string(), p.dtype)) value.error("unsupported dtype");
      } else {
        const std::map<std::string, int64_t*> fields = {{"dim", &p.dim},
                                                        {"batch", &p.batch},
                                                        {"seq", &p.seq},
                                                        {"hidden", &p.hidden},
                                                        {"heads", &p.heads},
                                                        {"kv_heads", &p.kv_heads},
                                                        {"intermediate", &p.intermediate}};
        const auto field = fields.find(key);
        if (field == fields.end())
          value.error("unknown workload parameter (dtype, dim, batch, seq, hidden, heads, kv_heads, intermediate)");
        *field->second = value.as_int();
      }
    }
  }
  std::vector<std::string> splits;
  if (const auto cores = node.find("cores")) job.options.cores = static_cast<int>(cores->as_int_in(0, 1024));
  if (const auto split = node.find("split")) splits = split->as_string_list();
  if (const auto lx = node.find("lx_planning")) job.options.lx.enabled = lx->raw().get<bool>();
  if (const auto stage = node.find("lx_stage")) job.options.lx.stage = static_cast<int>(stage->as_int_in(2, 4));
  if (const auto solver = node.find("solver")) job.options.lx.solver = solver->as_string();
  for (const auto& [key, value] : point.values) {
    const std::string where = "point " + std::to_string(point.index) + " " + key;
    if (key == "compile.cores") job.options.cores = std::stoi(value);
    if (key == "compile.split") splits = {value};
    if (key == "compile.lx_planning") job.options.lx.enabled = value == "true" || value == "1";
    if (key == "compile.lx_stage") job.options.lx.stage = std::stoi(value);
    if (key == "compile.solver") job.options.lx.solver = value;
  }
  for (const auto& s : splits) compiler::parse_split_override(s, job.options);
  return job;
}

void fill_metrics(const sim::RunReport& r, SweepRow& row) {
  double kernel_us = 0, pt = 0, sfu = 0, dma_in = 0, dma_out = 0;
  int64_t lx_peak = 0;
  for (const auto& k : r.kernels) kernel_us += k.end_us - k.start_us;
  for (const auto& c : r.cores) {
    pt += c.pt_busy_pct;
    sfu += c.sfu_busy_pct;
    dma_in += c.dma_in_busy_pct;
    dma_out += c.dma_out_busy_pct;
    lx_peak = std::max(lx_peak, c.lx_high_water_bytes);
  }
  const double cores = std::max<double>(1, static_cast<double>(r.cores.size()));
  row.metrics = {{"latency_us", r.latency_us},
                 {"kernel_us", kernel_us},
                 {"kernels", static_cast<double>(r.kernels.size())},
                 {"hbm_read_bytes", static_cast<double>(r.hbm_read_bytes)},
                 {"hbm_write_bytes", static_cast<double>(r.hbm_write_bytes)},
                 {"dram_read_bytes", static_cast<double>(r.dram_read_bytes)},
                 {"dram_write_bytes", static_cast<double>(r.dram_write_bytes)},
                 {"lx_peak_bytes", static_cast<double>(lx_peak)},
                 {"pt_busy_pct", pt / cores},
                 {"sfu_busy_pct", sfu / cores},
                 {"dma_in_busy_pct", dma_in / cores},
                 {"dma_out_busy_pct", dma_out / cores},
                 {"data_ring_bytes", static_cast<double>(r.data_ring_bytes)},
                 {"reduce_ring_bytes", static_cast<double>(r.reduce_ring_bytes)},
                 {"hazards", static_cast<double>(r.hazards.size())}};
}

Json row_to_json(const SweepRow& row) {
  Json values = Json::object(), metrics = Json::object();
  for (const auto& [key, value] : row.values) values[key] = value;
  for (const auto& [key, value] : row.metrics) metrics[key] = value;
  return {{"point", row.point},   {"hash", row.hash},   {"run", row.run},     {"values", values},
          {"status", row.status}, {"error", row.error}, {"metrics", metrics}, {"wall_s", row.wall_s}};
}

SweepRow row_from_json(const Json& j) {
  SweepRow row;
  row.point = j.at("point").get<size_t>();
  row.hash = j.at("hash").get<std::string>();
  row.run = j.at("run").get<std::string>();
  for (auto it = j.at("values").begin(); it != j.at("values").end(); ++it)
    row.values.emplace_back(it.key(), it.value().get<std::string>());
  row.status = j.at("status").get<std::string>();
  row.error = j.at("error").get<std::string>();
  for (auto it = j.at("metrics").begin(); it != j.at("metrics").end(); ++it)
    row.metrics[it.key()] = it.value().get<double>();
  row.wall_s = j.at("wall_s").get<double>();
  return row;
}

// Finished rows of earlier runs, by hash (a line cut short by a kill is skipped).
std::map<std::string, SweepRow> read_journal(const std::string& path) {
  std::map<std::string, SweepRow> rows;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    try {
      SweepRow row = row_from_json(Json::parse(line));
      rows[row.hash] = std::move(row);
    } catch (const std::exception&) {
      // an incomplete last line: that point runs again
    }
  }
  return rows;
}

std::string describe_point(const SweepRow& row) {
  std::string text = "point " + std::to_string(row.point) + " (" + row.run;
  for (const auto& [key, value] : row.values) text += ", " + key + "=" + value;
  return text + ")";
}

// A number as CSV shows it: integers without a decimal point.
std::string number_text(double v) {
  char text[32];
  if (v == std::floor(v) && std::fabs(v) < 1e15)
    std::snprintf(text, sizeof text, "%.0f", v);
  else
    std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

std::string csv_cell(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void write_results(const SweepSpec& spec, const std::vector<SweepRow>& rows, const std::string& prefix) {
  const std::vector<std::string>& metrics = spec.keep.empty() ? sweep_metric_names() : spec.keep;
  std::ostringstream csv;
  csv << "point,run";
  for (const auto& key : spec.axis_keys) csv << "," << csv_cell(key);
  csv << ",status";
  for (const auto& m : metrics) csv << "," << m;
  csv << ",error\n";
  Json json_rows = Json::array();
  for (const auto& row : rows) {
    csv << row.point << "," << csv_cell(row.run);
    for (const auto& [key, value] : row.values) csv << "," << csv_cell(value);
    csv << "," << row.status;
    for (const auto& m : metrics) csv << "," << (row.metrics.count(m) ? number_text(row.metrics.at(m)) : "");
    csv << "," << csv_cell(row.error) << "\n";
    Json j = row_to_json(row);
    Json kept = Json::object();
    for (const auto& m : metrics) {
      if (row.metrics.count(m)) kept[m] = row.metrics.at(m);
    }
    j["metrics"] = kept;
    json_rows.push_back(j);
  }
  std::ofstream(prefix + ".csv") << csv.str();
  write_json_file(prefix + ".json",
                  Json{{"sweep", spec.name}, {"spec", spec.file}, {"axes", spec.axis_keys}, {"rows", json_rows}});
}

std::string duration_text(double seconds) {
  const auto s = static_cast<int64_t>(seconds + 0.5);
  char text[32];
  std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", static_cast<long long>(s / 3600),
                static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  return text;
}

}  // namespace

SweepRow run_sweep_point(const SweepSpec& spec, const SweepPoint& point, const std::string& arch_path,
                         const std::string& scratch_dir) {
  const auto start = Clock::now();
  SweepRow row;
  row.point = point.index;
  row.hash = point.hash;
  row.run = spec.runs[point.run].name;
  row.values = point.values;
  try {
    std::vector<std::string> overrides;
    for (const auto& [key, value] : point.values) {
      if (key.rfind("compile.", 0) != 0) overrides.push_back(key + "=" + value);
    }
    const SweepRun& run = spec.runs[point.run];
    sim::RunOptions o;
    o.arch_path = arch_path;
    o.arch_overrides = overrides;
    o.warmup = spec.warmup;
    o.bundle = run.bundle;
    if (run.bundle.empty()) {
      const DeviceLimits device = load_arch(arch_path, overrides).limits();
      o.bundle = (fs::path(scratch_dir) / point.hash).string();
      compiler::run_compile_job(compile_job(run, point, spec.file, device, o.bundle));
    }
    fill_metrics(sim::run_bundle(o).report, row);
  } catch (const SpyreError& e) {
    row.status = "error";
    row.error = e.what();
  } catch (const std::exception& e) {
    row.status = "error";
    row.error = std::string("internal error: ") + e.what();
  }
  std::error_code ignored;
  fs::remove_all(fs::path(scratch_dir) / point.hash, ignored);
  row.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  return row;
}

SweepOutcome run_sweep(const SweepOptions& options, std::ostream& progress) {
  const SweepSpec spec = read_sweep_spec(options.spec);
  SweepOutcome outcome;
  outcome.out_prefix = options.out_prefix.empty() ? spec.name : options.out_prefix;
  for (const char* ext : {".jsonl", ".csv", ".json"}) check_output_file(outcome.out_prefix + ext, "--output");
  outcome.points = spec.points.size();
  const int workers =
      options.workers > 0 ? options.workers : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));

  const std::string journal_path = outcome.out_prefix + ".jsonl";
  std::map<std::string, SweepRow> done = read_journal(journal_path);
  std::vector<const SweepPoint*> todo;
  for (const auto& p : spec.points) {
    const auto it = done.find(p.hash);
    if (it != done.end() && it->second.status == "ok") {
      ++outcome.skipped;
    } else {
      todo.push_back(&p);
    }
  }
  const fs::path scratch = fs::temp_directory_path() / ("spyre-sweep-" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  std::ofstream journal(journal_path, std::ios::app);
  if (!journal) fail(journal_path, "", "cannot append to the sweep's journal");

  const auto start = Clock::now();
  size_t next = 0, finished = 0;
  std::map<pid_t, const SweepPoint*> running;
  auto report_progress = [&](const SweepRow& row) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    const double eta =
        finished == 0 ? 0 : elapsed / static_cast<double>(finished) * static_cast<double>(todo.size() - finished);
    if (options.progress_bar) {
      const int width = 30, filled = static_cast<int>(width * finished / std::max<size_t>(1, todo.size()));
      progress << "\r[" << std::string(static_cast<size_t>(filled), '#')
               << std::string(static_cast<size_t>(width - filled), '.') << "] " << finished << "/" << todo.size()
               << "  elapsed " << duration_text(elapsed) << "  eta " << duration_text(eta) << std::flush;
      if (finished == todo.size()) progress << "\n";
    } else {
      progress << "[" << finished << "/" << todo.size() << "] " << describe_point(row) << " " << row.status
               << (row.error.empty() ? "" : ": " + row.error) << " (" << number_text(row.wall_s * 1000) << " ms, eta "
               << duration_text(eta) << ")\n";
    }
  };
  while (next < todo.size() || !running.empty()) {
    while (running.size() < static_cast<size_t>(workers) && next < todo.size()) {
      const SweepPoint* point = todo[next++];
      std::cout.flush();
      progress.flush();
      const pid_t pid = ::fork();
      if (pid < 0) fail("", "sweep", "cannot start a worker process");
      if (pid == 0) {
        // The worker: one point, its row in a file, and out without the parent's exit handlers.
        const SweepRow row = run_sweep_point(spec, *point, options.arch_path, scratch.string());
        const fs::path file = scratch / (point->hash + ".row");
        std::ofstream(file.string() + ".tmp") << row_to_json(row).dump() << "\n";
        fs::rename(file.string() + ".tmp", file);
        ::_exit(0);
      }
      running[pid] = point;
    }
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) break;
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const SweepPoint* point = it->second;
    running.erase(it);
    SweepRow row;
    const fs::path file = scratch / (point->hash + ".row");
    std::ifstream in(file);
    std::string line;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && std::getline(in, line)) {
      row = row_from_json(Json::parse(line));
    } else {
      row.point = point->index;
      row.hash = point->hash;
      row.run = spec.runs[point->run].name;
      row.values = point->values;
      row.status = "error";
      row.error = WIFSIGNALED(status)
                      ? "internal error: the worker died of signal " + std::to_string(WTERMSIG(status))
                      : "internal error: the worker exited with status " + std::to_string(WEXITSTATUS(status));
    }
    fs::remove(file);
    journal << row_to_json(row).dump() << "\n" << std::flush;
    done[row.hash] = row;
    ++finished;
    ++outcome.ran;
    report_progress(row);
  }
  std::error_code ignored;
  fs::remove_all(scratch, ignored);

  for (const auto& p : spec.points) {
    SweepRow row = done.at(p.hash);
    row.point = p.index;  // the point's place in this spec, whatever it was when it ran
    if (row.status != "ok") outcome.failures.push_back(describe_point(row) + ": " + row.error);
    outcome.rows.push_back(std::move(row));
  }
  write_results(spec, outcome.rows, outcome.out_prefix);
  return outcome;
}

}  // namespace spyre::studies
