#pragma once
// Jobs run in forked worker processes, `workers` at a time. A worker lives
// for many jobs (a fresh process per job spent most of a small job in page
// faults: on a 2-core VM two such workers ran at 1.2x one, two long-lived
// ones near 2x), takes them one at a time over a pipe and answers each with
// one line. A job that crashes its worker takes only that job down: it is
// reported failed and a new worker takes the rest. A worker is replaced
// after `jobs_per_worker` jobs, so whatever a job leaks stays bounded.

#include <cstddef>
#include <functional>
#include <string>

#include "runtime/json_fwd.h"

namespace spyre::studies {

struct WorkerPoolOptions {
  int workers = 1;
  size_t jobs_per_worker = 64;
};

// `work` runs in a worker and returns the job's result as one line (no '\n').
// `done` runs in this process as each job ends, in the order they end:
// `line` is the result, or null when the worker died (then `failure` says how).
void run_in_worker_pool(
    size_t jobs, const WorkerPoolOptions& options, const std::function<std::string(size_t)>& work,
    const std::function<void(size_t job, const std::string* line, const std::string& failure)>& done);

// A job's answer as one line: the JSON `body` returns, or {"error": message}
// when it throws; the job's scratch folder `dir` is removed either way.
std::string json_job_line(const std::string& dir, const std::function<Json()>& body);

}  // namespace spyre::studies
