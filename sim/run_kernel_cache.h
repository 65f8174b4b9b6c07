#pragma once
// `spyre-sim run DIR` on a folder of kernel directories: torch-spyre's
// inductor-spyre cache, one directory per compiled kernel. The cache does not
// record which buffers the generated wrapper binds to each kernel's
// arguments, so each kernel runs as its own program (its own arguments, LX
// starting empty); the report lists each and the total, in the order the
// kernels run.

#include <string>
#include <vector>

#include "sim/run_bundle.h"

namespace spyre::sim {

// Kernel order: from a list file (one directory name per line, # comments)
// or torch-spyre's generated wrapper code (NAME.run(...) calls, each kernel
// directory being NAME_<suffix>); else a *.py wrapper inside the folder;
// else the kernel numbers torch-spyre puts in directory names
// (sdsc_<ops>_<N>_<suffix>); else directory name order.
// A folder of kernel directories without a program.json: torch-spyre's kernel cache.
bool is_kernel_cache(const std::string& dir);

struct KernelOrder {
  std::vector<std::string> kernels;  // directory names, in run order (a kernel may run twice)
  std::string source;                // "name order", "order.txt", "output_code.py"
};
KernelOrder kernel_order(const std::string& cache_dir, const std::string& order_file);

struct CacheKernelRun {
  std::string name;  // directory name
  RunOutcome outcome;
};

struct CacheRun {
  std::string cache_dir;
  std::string order_source;
  std::vector<CacheKernelRun> kernels;
  double total_latency_us = 0;  // the kernels one after another
  int64_t total_hbm_read_bytes = 0, total_hbm_write_bytes = 0;
  size_t total_hazards = 0;
};

// options.bundle is the cache folder. Per kernel, --inputs/--outputs/--expect
// use DIR/<kernel>/ and --report/--trace files get the kernel's name before
// their extension (report.json -> report.<kernel>.json); the cache report is
// written to options.report_path itself.
CacheRun run_kernel_cache(const RunOptions& options, const std::string& order_file);

Json cache_report_to_json(const CacheRun& run);
std::string cache_report_table(const CacheRun& run);

}  // namespace spyre::sim
