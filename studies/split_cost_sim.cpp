#include "studies/split_cost_sim.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <thread>
#include <utility>

#include <nlohmann/json.hpp>

#include "compiler/codegen/program_writer.h"
#include "runtime/op_registry.h"
#include "sim/run_bundle.h"
#include "sim/schedule/kernel_plan.h"
#include "studies/scratch_dir.h"
#include "studies/worker_pool.h"

namespace spyre::studies {

SimulatedSplitCost::SimulatedSplitCost(std::string arch_path, std::vector<std::string> arch_overrides, int workers)
    : arch_path_(std::move(arch_path)), arch_overrides_(std::move(arch_overrides)), workers_(workers) {}

double SimulatedSplitCost::hbm_gbps() const {
  const ArchConfig arch = load_arch(arch_path_, arch_overrides_);
  return std::min(arch.lpddr5.read_gbps, arch.lpddr5.write_gbps);
}

std::vector<compiler::SplitTime> SimulatedSplitCost::search(
    const std::vector<std::string>& names, const std::vector<double>& bound, std::map<std::string, double>& known,
    const std::function<std::vector<double>(const std::vector<size_t>&)>& simulate) {
  std::vector<compiler::SplitTime> out(names.size());
  // Branch and bound: simulate in order of the lower bound, a batch per
  // worker round; a candidate whose bound is not below the best time so far
  // (plus the tie tolerance) cannot win or tie and is not simulated.
  std::vector<size_t> order(names.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return bound[a] < bound[b]; });
  const size_t batch =
      static_cast<size_t>(std::max(1, workers_ > 0 ? workers_ : static_cast<int>(std::thread::hardware_concurrency())));
  double best = std::numeric_limits<double>::infinity();
  size_t next = 0;
  auto could_tie = [&](size_t i) { return bound[i] < best * (1 + compiler::kSplitTimeTolerance); };
  while (next < order.size() && could_tie(order[next])) {
    std::vector<size_t> round, to_run;
    for (; next < order.size() && round.size() < batch && could_tie(order[next]); ++next) {
      const size_t i = order[next];
      round.push_back(i);
      if (!known.count(names[i])) to_run.push_back(i);
    }
    if (!to_run.empty()) {
      const std::vector<double> times = simulate(to_run);
      for (size_t j = 0; j < to_run.size(); ++j) known[names[to_run[j]]] = times[j];
      simulated_ += to_run.size();
    }
    for (size_t i : round) {
      out[i] = {known.at(names[i]), false, bound[i]};
      best = std::min(best, out[i].kernel_us);
    }
  }
  for (; next < order.size(); ++next) out[order[next]] = {bound[order[next]], true, bound[order[next]]};
  return out;
}

std::vector<compiler::SplitTime> SimulatedSplitCost::matmul_kernel_us(
    const compiler::MatmulShape& shape, const std::vector<compiler::MatmulSplit>& splits) {
  const ArchConfig arch = load_arch(arch_path_, arch_overrides_);
  std::vector<std::string> names;
  std::vector<double> bound;
  for (const auto& s : splits) {
    names.push_back(s.text());
    bound.push_back(matmul_split_lower_bound_us(shape, s, arch));
  }
  return search(names, bound, times_[shape.text()], [&](const std::vector<size_t>& which) {
    SplitStudyOptions o;
    o.shape = shape;
    o.arch_path = arch_path_;
    o.arch_overrides = arch_overrides_;
    o.workers = workers_;
    std::vector<compiler::MatmulSplit> to_run;
    for (size_t i : which) to_run.push_back(splits[i]);
    std::vector<double> times;
    for (const auto& row : run_matmul_splits(o, to_run))
      times.push_back(row.error.empty() ? row.kernel_us : std::numeric_limits<double>::infinity());
    return times;
  });
}

std::vector<compiler::SplitTime> SimulatedSplitCost::op_kernel_us(const compiler::OpSplitQuery& query) {
  const ArchConfig arch = load_arch(arch_path_, arch_overrides_);
  std::vector<double> bound;
  for (const auto& load : query.loads) bound.push_back(op_split_lower_bound_us(query.op, query.unit, load, arch));
  return search(query.splits, bound, times_[query.key], [&](const std::vector<size_t>& which) {
    ScratchDir scratch("op-splits");
    WorkerPoolOptions pool;
    pool.workers = workers_ > 0 ? workers_ : static_cast<int>(std::thread::hardware_concurrency());
    std::vector<double> times(which.size(), std::numeric_limits<double>::infinity());
    run_in_worker_pool(
        which.size(), pool,
        [&](size_t j) {
          const std::string dir = scratch.file("division" + std::to_string(j));
          Json out;
          try {
            compiler::write_program_dir(dir, query.program(which[j]));
            sim::RunOptions run;
            run.bundle = dir;
            run.arch_path = arch_path_;
            run.arch_overrides = arch_overrides_;
            run.protocol.warmup = 1;  // as validate and study splits: profilers time repeated runs
            double kernel_us = 0;
            for (const auto& k : sim::run_bundle(run).report.kernels) kernel_us += k.end_us - k.start_us;
            out = {{"kernel_us", kernel_us}};
          } catch (const std::exception& e) {
            out = {{"error", e.what()}};
          }
          std::error_code ignored;
          std::filesystem::remove_all(dir, ignored);
          return out.dump(-1, ' ', false, Json::error_handler_t::replace);
        },
        [&](size_t j, const std::string* line, const std::string&) {
          if (line == nullptr) return;  // the worker died: the division cannot run, it stays +infinity
          const Json r = Json::parse(*line);
          if (r.contains("kernel_us")) times[j] = r.at("kernel_us").get<double>();
        });
    return times;
  });
}

double op_split_lower_bound_us(const std::string& op, const std::string& unit, const compiler::OpSplitLoad& load,
                               const ArchConfig& arch) {
  auto us = [](double bytes, double gbps) { return bytes / gbps * 1e-3; };  // bytes at GB/s take bytes/gbps ns
  const double in_flight = static_cast<double>(arch.dma.max_outstanding * arch.dma.request_bytes);
  double memory_us = 0;
  if (arch.cache.bytes > 0) {
    const double from_dram = std::max(0.0, load.distinct_read_bytes - static_cast<double>(arch.cache.bytes));
    const double core_gbps = std::min(arch.dma.port_gbps, in_flight / arch.cache.hit_latency_ns);
    memory_us = std::max({us(from_dram, arch.lpddr5.peak_gbps), us(load.read_bytes, arch.cache.gbps),
                          us(load.max_core_read_bytes, core_gbps)});
  } else {
    const double core_gbps = std::min(arch.dma.port_gbps, in_flight / arch.lpddr5.latency_ns);
    memory_us = std::max(us(load.distinct_read_bytes, arch.lpddr5.peak_gbps), us(load.max_core_read_bytes, core_gbps));
  }
  // The busiest core's compute on its unit, both corelets (kernel_plan.cpp).
  const double elems_per_cycle = (unit == "pt" ? static_cast<double>(arch.pt.elementwise_elems_per_cycle)
                                               : arch.sfu.lanes / sim::sfu_cycles_per_vector(arch, find_op(op)->cost)) *
                                 arch.corelets_per_core;
  const double compute_us = load.max_core_elements / elems_per_cycle * arch.cycle_ns() * 1e-3;
  memory_us = std::max(memory_us, compute_us);
  double tail_ns = 0;
  if (load.write_bytes > 0 && load.every_core_writes) tail_ns += arch.dma.write_fence_ns;
  if (load.cores > 1) tail_ns += arch.launch.barrier_ns;
  return memory_us + tail_ns * 1e-3;
}

}  // namespace spyre::studies
