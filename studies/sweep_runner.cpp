#include "studies/sweep_runner.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "compiler/compile_job.h"
#include "compiler/compiler.h"
#include "compiler/ir/workloads.h"
#include "runtime/arch_config.h"
#include "runtime/error.h"
#include "runtime/text.h"
#include "runtime/user_files.h"
#include "sim/run_bundle.h"
#include "studies/scratch_dir.h"
#include "studies/split_cost_sim.h"
#include "studies/worker_pool.h"

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
  job.options.work_division = "model";  // as spyre-sim compile
  if (const auto shape = node.find("shape")) job.params.shape = compiler::parse_shape(shape->as_string());
  if (const auto params = node.find("params")) {
    for (const auto& [key, value] : params->members()) {
      auto& p = job.params;
      if (key == "dtype") {
        if (!compiler::parse_dtype(value.as_string(), p.dtype)) value.error("unsupported dtype");
      } else if (key == "phase") {
        p.phase = value.as_string();
      } else {
        const std::map<std::string, int64_t*> fields = {{"dim", &p.dim},
                                                        {"batch", &p.batch},
                                                        {"seq", &p.seq},
                                                        {"hidden", &p.hidden},
                                                        {"heads", &p.heads},
                                                        {"kv_heads", &p.kv_heads},
                                                        {"intermediate", &p.intermediate},
                                                        {"layers", &p.layers},
                                                        {"vocab", &p.vocab},
                                                        {"context", &p.context},
                                                        {"cards", &p.cards}};
        const auto field = fields.find(key);
        if (field == fields.end())
          value.error(
              "unknown workload parameter (dtype, dim, batch, seq, hidden, heads, kv_heads, intermediate, layers, "
              "vocab, phase, context, cards)");
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
  if (const auto division = node.find("work_division")) job.options.work_division = division->as_string();
  for (const auto& [key, value] : point.values) {
    const std::string where = "point " + std::to_string(point.index) + " " + key;
    if (key == "compile.cores") job.options.cores = std::stoi(value);
    if (key == "compile.split") splits = {value};
    if (key == "compile.lx_planning") job.options.lx.enabled = value == "true" || value == "1";
    if (key == "compile.lx_stage") job.options.lx.stage = std::stoi(value);
    if (key == "compile.solver") job.options.lx.solver = value;
    if (key == "compile.work_division") job.options.work_division = value;
    if (key == "compile.cards") job.params.cards = std::stoi(value);
  }
  for (const auto& s : splits) compiler::parse_split_override(s, job.options);
  return job;
}

void fill_metrics(const sim::RunReport& r, SweepRow& row) {
  double kernel_us = 0, pt = 0, sfu = 0, dma_in = 0, dma_out = 0;
  int64_t lx_peak = 0;
  for (const auto& k : r.kernels) kernel_us += k.end_us - k.start_us;
  double collective_us = 0;
  for (const auto& c : r.collectives) collective_us += c.end_us - c.start_us;
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
                 {"cards", static_cast<double>(r.cards)},
                 {"collective_us", collective_us},
                 {"hazards", static_cast<double>(r.hazards.size())}};
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
    o.protocol = spec.protocol;
    o.sample_repeats = spec.sample_repeats;
    o.bundle = run.bundle;
    if (run.bundle.empty()) {
      const DeviceLimits device = load_arch(arch_path, overrides).limits();
      o.bundle = (fs::path(scratch_dir) / point.hash).string();
      compiler::CompileJob job = compile_job(run, point, spec.file, device, o.bundle);
      // work_division "model": the point's own card times the splits, one worker (the point is one already);
      // points share the times they simulate through the split-time store.
      SimulatedSplitCost split_cost(arch_path, overrides, 1, default_split_cache_dir());
      if (job.options.bmm_by_model()) job.options.split_cost = &split_cost;
      compiler::run_compile_job(job);
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

std::vector<SweepRow> run_sweep_points(const SweepSpec& spec, const std::vector<const SweepPoint*>& points,
                                       const std::string& journal_path, int workers, const std::string& arch_path,
                                       bool progress_bar, std::ostream& progress) {
  std::vector<SweepRow> finished_rows;
  if (points.empty()) return finished_rows;
  std::ofstream journal = open_sweep_journal(journal_path);
  const ScratchDir scratch("sweep");  // removed however the sweep ends

  const auto start = Clock::now();
  auto report_progress = [&](const SweepRow& row) {
    const size_t finished = finished_rows.size();
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    const double eta = elapsed / static_cast<double>(finished) * static_cast<double>(points.size() - finished);
    if (progress_bar) {
      const int width = 30, filled = static_cast<int>(width * finished / points.size());
      progress << "\r[" << std::string(static_cast<size_t>(filled), '#')
               << std::string(static_cast<size_t>(width - filled), '.') << "] " << finished << "/" << points.size()
               << "  elapsed " << duration_text(elapsed) << "  eta " << duration_text(eta) << std::flush;
      if (finished == points.size()) progress << "\n";
    } else {
      progress << "[" << finished << "/" << points.size() << "] " << describe_sweep_row(row) << " " << row.status
               << (row.error.empty() ? "" : ": " + row.error) << " ("
               << static_cast<int64_t>(std::llround(row.wall_s * 1000)) << " ms, eta " << duration_text(eta) << ")\n"
               << std::flush;
    }
  };
  WorkerPoolOptions pool;
  pool.workers = workers;
  run_in_worker_pool(
      points.size(), pool,
      [&](size_t i) { return sweep_row_line(run_sweep_point(spec, *points[i], arch_path, scratch.file(""))); },
      [&](size_t i, const std::string* line, const std::string& failure) {
        SweepRow row = sweep_row_of(spec, *points[i]);
        if (line != nullptr) {
          row = sweep_row_from_json(Json::parse(*line));
        } else {
          row.status = "error";
          row.error = failure;
        }
        append_sweep_row(journal, row, journal_path);
        finished_rows.push_back(row);
        report_progress(row);
      });
  return finished_rows;
}

std::string sweep_prefix(const SweepOptions& options, const SweepSpec& spec) {
  const std::string prefix = options.out_prefix.empty() ? spec.name : options.out_prefix;
  const fs::path folder = fs::path(prefix).parent_path();
  std::error_code made;
  if (!folder.empty() && !fs::exists(folder, made)) fs::create_directories(folder, made);  // as compile's -o
  for (const char* ext : {".jsonl", ".csv", ".json"}) {
    std::error_code ec;
    if (fs::equivalent(prefix + ext, options.spec, ec))
      fail(options.spec, "--output",
           "the results " + prefix + ext + " would overwrite the spec; give another --output");
    check_output_file(prefix + ext, "--output");
  }
  // The results under a prefix belong to one card: the arch each point ran on
  // is not part of its hash, so a re-run with another --arch must not count
  // the old points as done.
  const std::string arch = load_arch(options.arch_path, {}).to_json().dump(1);
  const std::string arch_file = prefix + ".arch.json";
  std::error_code ec;
  if (fs::exists(arch_file, ec)) {
    if (read_input_file(arch_file) != arch)
      fail(arch_file, "--arch",
           "the results under " + prefix +
               " were computed on another arch config; give another --output (or "
               "remove " +
               prefix + ".*)");
  } else {
    std::ofstream(arch_file) << arch;
  }
  return prefix;
}

namespace {

SweepOutcome write_outcome(const SweepSpec& spec, const std::string& prefix,
                           const std::map<std::string, SweepRow>& results) {
  SweepOutcome outcome;
  outcome.out_prefix = prefix;
  outcome.points = spec.points.size();
  outcome.rows = write_sweep_results(spec, results, prefix);
  for (const auto& row : outcome.rows) {
    if (row.status != "ok") outcome.failures.push_back(describe_sweep_row(row) + ": " + row.error);
  }
  return outcome;
}

}  // namespace

SweepOutcome run_sweep(const SweepOptions& options, std::ostream& progress) {
  const SweepSpec spec = read_sweep_spec(options.spec);
  const std::string prefix = sweep_prefix(options, spec);
  std::map<std::string, SweepRow> results = read_sweep_results(prefix);
  std::vector<const SweepPoint*> todo;
  for (const auto& p : spec.points) {
    const auto it = results.find(p.hash);
    if (it == results.end() || it->second.status != "ok") todo.push_back(&p);
  }
  const int workers =
      options.workers > 0 ? options.workers : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const auto rows =
      run_sweep_points(spec, todo, prefix + ".jsonl", workers, options.arch_path, options.progress_bar, progress);
  for (const auto& row : rows) results[row.hash] = row;
  SweepOutcome outcome = write_outcome(spec, prefix, results);
  outcome.ran = rows.size();
  outcome.skipped = spec.points.size() - todo.size();
  return outcome;
}

SweepOutcome collect_sweep(const SweepOptions& options) {
  const SweepSpec spec = read_sweep_spec(options.spec);
  const std::string prefix = sweep_prefix(options, spec);
  SweepOutcome outcome = write_outcome(spec, prefix, read_sweep_results(prefix));
  outcome.skipped = outcome.points;
  return outcome;
}

}  // namespace spyre::studies
