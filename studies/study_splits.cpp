#include "studies/study_splits.h"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "runtime/arch_config.h"
#include "runtime/error.h"
#include "sim/run_bundle.h"
#include "sim/schedule/kernel_plan.h"
#include "studies/scratch_dir.h"
#include "studies/worker_pool.h"

namespace spyre::studies {

std::string run_matmul_split(const SplitStudyOptions& o, const MatmulSplit* split, const DeviceLimits& device,
                             const std::string& dir) {
  return json_job_line(dir, [&]() -> Json {
    const MatmulSplit used = compile_matmul(o.shape, split, o.max_cores, device, dir);
    sim::RunOptions run;
    run.bundle = dir;
    run.arch_path = o.arch_path;
    run.arch_overrides = o.arch_overrides;
    run.protocol.warmup = o.warmup;
    const sim::RunReport r = sim::run_bundle(run).report;
    double kernel_us = 0, pt = 0;
    int64_t lx_peak = 0, busy_cores = 0;
    for (const auto& k : r.kernels) kernel_us += k.end_us - k.start_us;
    for (const auto& c : r.cores) {
      lx_peak = std::max(lx_peak, c.lx_high_water_bytes);
      if (c.pt_busy_pct + c.sfu_busy_pct + c.dma_in_busy_pct + c.dma_out_busy_pct > 0) {
        pt += c.pt_busy_pct;
        ++busy_cores;
      }
    }
    return {{"split", {used.b, used.m, used.n, used.k}},
            {"kernel_us", kernel_us},
            {"hbm_read_bytes", r.hbm_read_bytes},
            {"hbm_write_bytes", r.hbm_write_bytes},
            {"dram_read_bytes", r.dram_read_bytes},
            {"lx_peak_bytes", lx_peak},
            {"pt_busy_pct", busy_cores > 0 ? pt / static_cast<double>(busy_cores) : 0.0}};
  });
}

namespace {

// Each job (a split, or null: the compiler's own) compiled and run in a worker.
std::vector<Json> run_jobs(const SplitStudyOptions& options, const DeviceLimits& device,
                           const std::vector<const MatmulSplit*>& jobs) {
  ScratchDir scratch("study-splits");
  WorkerPoolOptions pool;
  pool.workers = options.workers > 0 ? options.workers : static_cast<int>(std::thread::hardware_concurrency());
  std::vector<Json> results(jobs.size());
  run_in_worker_pool(
      jobs.size(), pool,
      [&](size_t i) { return run_matmul_split(options, jobs[i], device, scratch.file("split" + std::to_string(i))); },
      [&](size_t i, const std::string* line, const std::string& failure) {
        results[i] = line != nullptr ? Json::parse(*line) : Json{{"error", failure}};
      });
  return results;
}

}  // namespace

SplitStudyRow split_study_row(const MatmulSplit& split, const Json& r) {
  SplitStudyRow row;
  row.split = split;
  if (r.contains("error")) {
    row.error = r.at("error").get<std::string>();
    return row;
  }
  row.kernel_us = r.at("kernel_us").get<double>();
  row.hbm_read_bytes = r.at("hbm_read_bytes").get<double>();
  row.hbm_write_bytes = r.at("hbm_write_bytes").get<double>();
  row.dram_read_bytes = r.at("dram_read_bytes").get<double>();
  row.lx_peak_bytes = r.at("lx_peak_bytes").get<double>();
  row.pt_busy_pct = r.at("pt_busy_pct").get<double>();
  return row;
}

namespace {

// Any size: N splits over its padded sticks, a K that ends in a partial stick
// stays whole (matmul_split_candidates).
void check_shape(const MatmulShape& s) {
  if (s.b < 1 || s.m < 1 || s.k < 1 || s.n < 1) fail("--shape", "", "every dim must be at least 1");
}

std::string mb(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", bytes / 1e6);
  return text;
}

}  // namespace

SplitStudy run_split_study(const SplitStudyOptions& options) {
  SplitStudy study;
  study.options = options;
  const MatmulShape& s = options.shape;
  check_shape(s);
  const DeviceLimits device = load_arch(options.arch_path, options.arch_overrides).limits();
  if (options.max_cores < 1 || options.max_cores > device.cores)
    fail("--cores", "", "must be 1.." + std::to_string(device.cores) + " (the card's cores)");
  const std::vector<MatmulSplit> candidates = matmul_split_candidates(s, options.max_cores);

  // The candidates, then the compiler's own pick (job candidates.size()).
  std::vector<const MatmulSplit*> jobs;
  for (const auto& c : candidates) jobs.push_back(&c);
  jobs.push_back(nullptr);
  const std::vector<Json> results = run_jobs(options, device, jobs);

  const Json& pick = results.back();
  if (pick.contains("error"))
    fail("study splits", "", "the compiler's own work division fails: " + pick.at("error").get<std::string>());
  const auto parts = pick.at("split");
  study.compiler_pick = {parts[0].get<int64_t>(), parts[1].get<int64_t>(), parts[2].get<int64_t>(),
                         parts[3].get<int64_t>()};
  bool pick_listed = false;
  for (size_t i = 0; i <= candidates.size(); ++i) {
    if (i == candidates.size() && pick_listed) break;  // the pick is already a candidate row
    SplitStudyRow row = split_study_row(i < candidates.size() ? candidates[i] : study.compiler_pick, results[i]);
    row.compiler_pick = row.split == study.compiler_pick;
    pick_listed = pick_listed || row.compiler_pick;
    study.rows.push_back(row);
  }
  std::stable_sort(study.rows.begin(), study.rows.end(), [](const SplitStudyRow& a, const SplitStudyRow& b) {
    if (a.error.empty() != b.error.empty()) return a.error.empty();
    return a.kernel_us < b.kernel_us;
  });
  return study;
}

double matmul_split_lower_bound_us(const MatmulShape& shape, const MatmulSplit& split, const ArchConfig& arch) {
  const double macs_per_core =
      static_cast<double>(shape.b * shape.m * shape.k * shape.n) / static_cast<double>(split.cores());
  const int64_t m = shape.m / split.m, n = shape.n / split.n, k = shape.k / split.k;
  // The PT array at the rate the card model gives this block.
  const double macs_per_us =
      sim::matmul_macs_per_cycle(arch, shape.batched(), split.k > 1, m, n) * arch.clock_ghz * 1e3;
  const double operand_bytes = 2.0 * static_cast<double>(shape.b * shape.m * shape.k + shape.b * shape.k * shape.n);
  const double from_dram = std::max(0.0, operand_bytes - static_cast<double>(arch.cache.bytes));
  // A K split's cores finish their tiles, then reduce their partial outputs
  // over the reduce ring (gathered, then broadcast: two passes of a core's
  // output box) and only then store the result (card.cpp, core.cpp): every
  // core's own bound is followed by that tail. The stores pass the cache's
  // shared delivery, and what the cache cannot hold reaches LPDDR5.
  double tail_us = 0;
  if (split.k > 1) {
    const double out_bytes = 2.0 * static_cast<double>(shape.b * shape.m * shape.n);
    const double core_out_bytes = out_bytes / static_cast<double>(split.b * split.m * split.n);
    tail_us = 2 * core_out_bytes / (arch.reduce_ring.bytes_per_cycle * arch.clock_ghz * 1e3);
    double store_us = out_bytes / (arch.lpddr5.peak_gbps * 1e3);
    if (arch.cache.bytes > 0) {
      store_us =
          std::max(out_bytes / (arch.cache.gbps * 1e3),
                   std::max(0.0, out_bytes - static_cast<double>(arch.cache.bytes)) / (arch.lpddr5.peak_gbps * 1e3));
    }
    tail_us += store_us;
  }
  double bound = std::max(macs_per_core / macs_per_us + tail_us, from_dram / (arch.lpddr5.peak_gbps * 1e3));
  if (arch.cache.bytes > 0) {
    // Every core reads its own A and W slices at least once, and all core
    // reads pass the memory-side cache's shared delivery (cache.gbps).
    const double core_bytes =
        2.0 * static_cast<double>((shape.b / split.b) * (shape.k / split.k) * (shape.m / split.m + shape.n / split.n));
    bound = std::max(bound, core_bytes * static_cast<double>(split.cores()) / (arch.cache.gbps * 1e3));
  }
  if (shape.batched()) {
    // Each core drains its output sticks one after another, and a tile's
    // drain waits for its PT pass (kernel_plan.cpp, core.cpp): the core's PT
    // and SFU times add.
    const int64_t b = shape.b / split.b;
    const double sticks = static_cast<double>(b * m * ((n + 63) / 64));
    bound =
        std::max(bound, macs_per_core / macs_per_us +
                            sticks * sim::output_stick_cycles(arch, n, k, split.k) * arch.cycle_ns() / 1e3 + tail_us);
    // And loads its tiles on one DMA engine, one transfer per operand per
    // tile, which starts a run at most every dma.run_ns (dma_engine.cpp).
    // In the bmm layouts the batch dim sits next to the stick, so a tile of
    // bt < B batch elements reads a run per (row, K stick) of A and per
    // (K row, N stick) of B; a tile of the whole batch may read one run.
    const int64_t g = arch.pt.pe_rows;
    const int64_t per_batch = k * n * 2 + g * k * 2 + g * n * 4;
    const int64_t bt = std::clamp<int64_t>(arch.staging_bytes() / std::max<int64_t>(1, per_batch), 1, b);
    const int64_t blocks = (b + bt - 1) / bt, passes = (m + g - 1) / g;
    const int64_t transfers = 2 * blocks * passes;
    const int64_t runs = bt == shape.b ? transfers : blocks * (m * ((k + 63) / 64) + passes * k * ((n + 63) / 64));
    const double load_ns =
        static_cast<double>(transfers) * arch.dma.setup_ns + static_cast<double>(runs - transfers) * arch.dma.run_ns;
    bound = std::max(bound, load_ns / 1e3 + tail_us);
  }
  return bound;
}

std::string split_study_table(const SplitStudy& study) {
  std::ostringstream out;
  const auto& o = study.options;
  out << "study splits: " << (o.shape.batched() ? "bmm " : "matmul ") << o.shape.text()
      << " (B x M x N x K, fp16), splits b_m_n_k on at most " << o.max_cores << " cores\n";
  const SplitStudyRow* fastest =
      study.rows.empty() || !study.rows.front().error.empty() ? nullptr : &study.rows.front();
  char line[256];
  std::snprintf(line, sizeof line, "  %-10s %5s %11s %8s %12s %12s %12s %10s %6s\n", "split", "cores", "kernel_us",
                "vs best", "hbm_read_MB", "hbm_write_MB", "dram_read_MB", "lx_peak_KB", "pt%");
  out << line;
  for (const auto& r : study.rows) {
    const std::string name = r.split.text() + (r.compiler_pick ? " *" : "");
    if (!r.error.empty()) {
      out << "  " << name << "  failed: " << r.error << "\n";
      continue;
    }
    std::snprintf(line, sizeof line, "  %-10s %5lld %11.1f %+7.1f%% %12s %12s %12s %10.0f %6.1f\n", name.c_str(),
                  static_cast<long long>(r.split.cores()), r.kernel_us,
                  fastest != nullptr ? 100.0 * (r.kernel_us / fastest->kernel_us - 1) : 0.0,
                  mb(r.hbm_read_bytes).c_str(), mb(r.hbm_write_bytes).c_str(), mb(r.dram_read_bytes).c_str(),
                  r.lx_peak_bytes / 1024, r.pt_busy_pct);
    out << line;
  }
  const auto pick = std::find_if(study.rows.begin(), study.rows.end(), [](const auto& r) { return r.compiler_pick; });
  if (fastest != nullptr && pick != study.rows.end() && pick->error.empty()) {
    std::snprintf(line, sizeof line, "* the compiler's pick: %s, %.1f us: %+.1f%% over the model's fastest, %s\n",
                  pick->split.text().c_str(), pick->kernel_us, 100.0 * (pick->kernel_us / fastest->kernel_us - 1),
                  fastest->split.text().c_str());
    out << line;
  }
  out << study.rows.size() << " splits, simulated on the card model (kernel device time, warm-up " << o.warmup
      << "); docs/calibration.md says how well it ranks splits against the card\n";
  return out.str();
}

std::string split_study_csv(const SplitStudy& study) {
  std::ostringstream out;
  out << "split,split_b,split_m,split_n,split_k,cores,compiler_pick,kernel_us,hbm_read_bytes,hbm_write_bytes,"
         "dram_read_bytes,lx_peak_bytes,pt_busy_pct,error\n";
  for (const auto& r : study.rows) {
    out << r.split.text() << "," << r.split.b << "," << r.split.m << "," << r.split.n << "," << r.split.k << ","
        << r.split.cores() << "," << (r.compiler_pick ? 1 : 0) << ",";
    if (r.error.empty()) {
      char numbers[256];
      std::snprintf(numbers, sizeof numbers, "%.4f,%.0f,%.0f,%.0f,%.0f,%.2f,", r.kernel_us, r.hbm_read_bytes,
                    r.hbm_write_bytes, r.dram_read_bytes, r.lx_peak_bytes, r.pt_busy_pct);
      out << numbers << "\n";
    } else {
      std::string quoted = "\"";
      for (char c : r.error) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
      out << ",,,,,," << quoted << "\"\n";
    }
  }
  return out.str();
}

}  // namespace spyre::studies
