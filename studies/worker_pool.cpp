#include "studies/worker_pool.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/error.h"

namespace spyre::studies {

namespace {

constexpr size_t kNoJob = SIZE_MAX;

}  // namespace

struct WorkerPool::Worker {
  pid_t pid = -1;
  int to_worker = -1, from_worker = -1;
  size_t job = kNoJob;  // the job it is running
  size_t jobs_done = 0;
  std::string pending;  // what it said of its job so far
};

namespace {

using Worker = WorkerPool::Worker;

// Moves all `size` bytes with read(2) or write(2), resuming after signals
// and short transfers; false at end of file or on an error.
template <typename Byte, typename Io>
bool transfer_all(int fd, Byte* data, size_t size, Io io) {
  while (size > 0) {
    const ssize_t n = io(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool write_all(int fd, const void* data, size_t size) {
  return transfer_all(fd, static_cast<const char*>(data), size, ::write);
}

bool read_all(int fd, void* data, size_t size) { return transfer_all(fd, static_cast<char*>(data), size, ::read); }

constexpr int kWorkerFailed = 70;  // a job threw: the parent reports the job failed

// A request on the pipe: its length, then its bytes.
bool send_request(int fd, const std::string& request) {
  const uint64_t size = request.size();
  return write_all(fd, &size, sizeof size) && write_all(fd, request.data(), request.size());
}

[[noreturn]] void worker_main(int from_parent, int to_parent, const WorkerPool::Handler& handler) {
  // Whatever happens, this process never returns into the parent's code
  // (its stack is a copy of the parent's): it leaves by _exit, without the
  // parent's exit handlers or destructors.
  try {
    std::string request;
    for (uint64_t size = 0; read_all(from_parent, &size, sizeof size);) {
      request.resize(size);
      if (!read_all(from_parent, request.data(), size)) break;
      const std::string line = handler(request) + "\n";
      if (!write_all(to_parent, line.data(), line.size())) break;
    }
  } catch (...) {
    ::_exit(kWorkerFailed);
  }
  ::_exit(0);
}

Worker start_worker(const std::vector<Worker>& others, const WorkerPool::Handler& handler) {
  int down[2], up[2];
  if (::pipe(down) != 0) fail("", "sweep", "cannot create a pipe to a worker process");
  if (::pipe(up) != 0) {
    ::close(down[0]);
    ::close(down[1]);
    fail("", "sweep", "cannot create a pipe to a worker process");
  }
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {down[0], down[1], up[0], up[1]}) ::close(fd);
    fail("", "sweep", "cannot start a worker process");
  }
  if (pid == 0) {
    // Signals as a fresh process has them: Ctrl-C ends a worker even where
    // the parent only notes it (Python), and a broken pipe ends it too.
    for (int sig : {SIGPIPE, SIGINT, SIGTERM}) ::signal(sig, SIG_DFL);
    ::close(down[1]);
    ::close(up[0]);
    for (const auto& w : others) {  // the other workers' pipes are not this one's
      if (w.pid > 0) {
        ::close(w.to_worker);
        ::close(w.from_worker);
      }
    }
    worker_main(down[0], up[1], handler);
  }
  ::close(down[0]);
  ::close(up[1]);
  Worker w;
  w.pid = pid;
  w.to_worker = down[1];
  w.from_worker = up[0];
  return w;
}

// Closes its pipes and reaps it; returns how it ended, for a failed job.
std::string stop_worker(Worker& w, int* signal = nullptr) {
  ::close(w.to_worker);
  ::close(w.from_worker);
  int status = 0;
  while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
  }
  w.pid = -1;
  if (signal != nullptr) *signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  if (WIFSIGNALED(status)) return "internal error: the worker died of signal " + std::to_string(WTERMSIG(status));
  if (WEXITSTATUS(status) == kWorkerFailed) return "internal error: the worker's job threw an exception";
  return "internal error: the worker exited with status " + std::to_string(WEXITSTATUS(status));
}

// The signal dispositions of a run, put back however it ends: a worker that
// dies makes writing to its pipe fail instead of ending this process, and
// Ctrl-C or SIGTERM to this process stops handing out jobs and unwinds (the
// caller's folders are removed on the way out) instead of dying here.
volatile std::sig_atomic_t g_stop_requested = 0;

extern "C" void note_stop_request(int) { g_stop_requested = 1; }

class SignalGuard {
 public:
  SignalGuard() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &ignore, &previous_pipe_);
    g_stop_requested = 0;
    struct sigaction note {};
    note.sa_handler = note_stop_request;
    ::sigaction(SIGINT, &note, &previous_int_);
    ::sigaction(SIGTERM, &note, &previous_term_);
  }
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;
  ~SignalGuard() {
    ::sigaction(SIGPIPE, &previous_pipe_, nullptr);
    ::sigaction(SIGINT, &previous_int_, nullptr);
    ::sigaction(SIGTERM, &previous_term_, nullptr);
  }

 private:
  struct sigaction previous_pipe_ {
  }, previous_int_{}, previous_term_{};
};

}  // namespace

WorkerPool::WorkerPool(WorkerPoolOptions options, Handler handler)
    : options_(options), handler_(std::move(handler)), workers_(static_cast<size_t>(std::max(1, options.workers))) {}

WorkerPool::~WorkerPool() { stop_all(false); }

void WorkerPool::stop_all(bool kill) {
  // Idle workers end when their pipe closes; a busy one (only on the way out
  // of an exception) is killed.
  for (auto& w : workers_) {
    if (w.pid <= 0) continue;
    if (kill || w.job != kNoJob) ::kill(w.pid, SIGKILL);
    stop_worker(w);
    w.job = kNoJob;
  }
}

void WorkerPool::run(const std::vector<std::string>& requests, const JobDone& done) {
  const SignalGuard signals;
  const size_t jobs = requests.size();
  size_t next = 0, running = 0;
  bool interrupted = false;  // a worker died of Ctrl-C (SIGINT) or SIGTERM: stop, as the user asked
  // Gives the worker its next job, starting or replacing it as needed; an
  // idle worker stays for the next run.
  auto assign = [&](Worker& w) {
    if (w.pid > 0 && (interrupted || w.jobs_done >= options_.jobs_per_worker)) stop_worker(w);
    while (!interrupted && next < jobs) {
      if (w.pid <= 0) {
        w = start_worker(workers_, handler_);
        ++started_;
      }
      const size_t job = next++;
      w.pending.clear();
      if (send_request(w.to_worker, requests[job])) {
        w.job = job;
        ++running;
        return;
      }
      done(job, nullptr, stop_worker(w));  // it died before it could take the job
    }
  };
  try {
    for (auto& w : workers_) assign(w);
    while (running > 0) {
      std::vector<pollfd> fds;
      std::vector<Worker*> owners;
      for (auto& w : workers_) {
        if (w.pid > 0 && w.job != kNoJob) {
          fds.push_back({w.from_worker, POLLIN, 0});
          owners.push_back(&w);
        }
      }
      if (::poll(fds.data(), fds.size(), -1) < 0) {
        if (errno != EINTR) fail("", "sweep", "cannot wait for the worker processes");
        if (g_stop_requested != 0 && !interrupted) {
          interrupted = true;  // the running jobs finish (or die of the same Ctrl-C); no new ones start
          for (auto& w : workers_) {
            if (w.pid > 0 && w.job == kNoJob) stop_worker(w);
          }
        }
        continue;
      }
      for (size_t i = 0; i < fds.size(); ++i) {
        if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
        Worker& w = *owners[i];
        char buffer[4096];
        const ssize_t n = ::read(w.from_worker, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n > 0) {
          w.pending.append(buffer, static_cast<size_t>(n));
          const auto end = w.pending.find('\n');
          if (end == std::string::npos) continue;
          const std::string line = w.pending.substr(0, end);
          const size_t job = w.job;
          w.job = kNoJob;
          ++w.jobs_done;
          --running;
          done(job, &line, "");
          assign(w);
        } else {
          const size_t job = w.job;
          int signal = 0;
          const std::string failure = stop_worker(w, &signal);
          w.job = kNoJob;
          --running;
          if (signal == SIGINT || signal == SIGTERM) {
            interrupted = true;  // not the job's fault: it is left without a result, to run again
          } else {
            done(job, nullptr, failure);
          }
          assign(w);
        }
      }
    }
  } catch (...) {
    stop_all(true);  // a failed fork or a throwing callback: no worker is left behind
    throw;
  }
  if (interrupted || g_stop_requested != 0) {
    stop_all(true);
    fail("", "interrupted", "stopped by a signal; the points that finished are kept");
  }
}

void run_in_worker_pool(size_t jobs, const WorkerPoolOptions& options, const std::function<std::string(size_t)>& work,
                        const JobDone& done) {
  WorkerPool pool(options, [&](const std::string& request) { return work(std::stoull(request)); });
  std::vector<std::string> requests;
  requests.reserve(jobs);
  for (size_t i = 0; i < jobs; ++i) requests.push_back(std::to_string(i));
  pool.run(requests, done);
}

std::string json_job_line(const std::string& dir, const std::function<Json()>& body) {
  Json out;
  try {
    out = body();
  } catch (const SpyreError& e) {
    out = {{"error", e.what()}};
  } catch (const std::exception& e) {
    out = {{"error", std::string("internal error: ") + e.what()}};
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  return out.dump(-1, ' ', false, Json::error_handler_t::replace);  // messages may quote non-UTF-8 input bytes
}

}  // namespace spyre::studies
