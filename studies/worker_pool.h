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
#include <vector>

#include "runtime/json_fwd.h"

namespace spyre::studies {

struct WorkerPoolOptions {
  int workers = 1;
  size_t jobs_per_worker = 64;
};

// What a caller hears of each job, in the order jobs end: `line` is the
// result, or null when the worker died (then `failure` says how).
using JobDone = std::function<void(size_t job, const std::string* line, const std::string& failure)>;

// Workers that outlive one batch of jobs: forked on the first run() (with
// this process as it is then: `handler` and what it uses), kept between runs
// and stopped with the pool. A search that asks a few jobs at a time (the
// compiler's split search, a round per worker) then forks its workers once,
// not per round: a fork of a large process costs tens of milliseconds of
// page-table copies and copy-on-write faults. Each job is a request string,
// which the worker's `handler` answers with one line (no '\n').
class WorkerPool {
 public:
  using Handler = std::function<std::string(const std::string& request)>;
  WorkerPool(WorkerPoolOptions options, Handler handler);
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  ~WorkerPool();
  // Runs every request; returns when each has ended. Throws SpyreError when
  // stopped by Ctrl-C or SIGTERM (the workers are stopped then).
  void run(const std::vector<std::string>& requests, const JobDone& done);
  // Worker processes started so far (replacements included).
  size_t started() const { return started_; }

  struct Worker;  // a worker's process and pipes (worker_pool.cpp)

 private:
  void stop_all(bool kill);
  WorkerPoolOptions options_;
  Handler handler_;
  std::vector<Worker> workers_;
  size_t started_ = 0;
};

// `work` runs in a worker and returns the job's result as one line (no '\n');
// the workers live for this call only.
void run_in_worker_pool(size_t jobs, const WorkerPoolOptions& options, const std::function<std::string(size_t)>& work,
                        const JobDone& done);

// A job's answer as one line: the JSON `body` returns, or {"error": message}
// when it throws; the job's scratch folder `dir` is removed either way.
std::string json_job_line(const std::string& dir, const std::function<Json()>& body);

}  // namespace spyre::studies
