#include "studies/sweep_slurm.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "runtime/error.h"
#include "runtime/text.h"
#include "studies/subprocess.h"

namespace fs = std::filesystem;

namespace spyre::studies {

namespace {

// Slurm's default MaxArraySize is 1001: arrays stay within it.
constexpr size_t kMaxArrayTasks = 1000;

struct Submission {
  int number = 0;
  std::string file, job_id;
  std::vector<std::vector<std::string>> tasks;  // point hashes per array task
};

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string absolute(const std::string& path) { return path.empty() ? path : fs::absolute(path).string(); }

std::string submission_path(const std::string& dir, int number) {
  return (fs::path(dir) / ("submission-" + std::to_string(number) + ".json")).string();
}

std::string shard_path(const std::string& dir, int number, int task) {
  return (fs::path(dir) / ("shard-" + std::to_string(number) + "-" + std::to_string(task) + ".jsonl")).string();
}

std::string log_path(const std::string& dir, int number, int task) {
  return (fs::path(dir) / ("task-" + std::to_string(number) + "-" + std::to_string(task) + ".log")).string();
}

// Written whole or not at all: an array task may read it the moment sbatch returns.
void write_submission(const std::string& path, const Json& record) {
  write_json_file(path + ".tmp", record);
  std::error_code ec;
  fs::rename(path + ".tmp", path, ec);
  if (ec) fail(path, "", "cannot write the submission: " + ec.message());
}

// A job name sbatch takes as one word.
std::string job_name(const std::string& sweep) {
  std::string name = "spyre-sweep-";
  for (char c : sweep) name += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
  return name;
}

Submission read_submission(const std::string& path) {
  const Json doc = read_json_file(path);
  const JsonNode root(doc, path, "$");
  Submission s;
  s.file = path;
  s.number = static_cast<int>(root.at("number").as_int_in(1, 1000000));
  if (const auto job = root.find("job")) s.job_id = job->as_string();
  const JsonNode tasks = root.at("tasks");
  for (size_t t = 0; t < tasks.size(); ++t) s.tasks.push_back(tasks.element(t).as_string_list());
  return s;
}

std::vector<Submission> read_submissions(const std::string& dir) {
  std::vector<Submission> submissions;
  for (int n = 1; fs::exists(submission_path(dir, n)); ++n)
    submissions.push_back(read_submission(submission_path(dir, n)));
  return submissions;
}

// The array tasks Slurm still has (pending, running, completing), as "job_task".
std::set<std::string> live_tasks() {
  const auto r = run_command({"squeue", "--me", "--noheader", "--array", "--format=%F|%K|%T"});
  if (!r.started) fail("squeue", "", "not found on PATH: `sweep --slurm` runs where Slurm's commands do");
  if (r.exit_status != 0) fail("squeue", "", "failed: " + trim(r.err.empty() ? r.out : r.err));
  std::set<std::string> live;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    const auto fields = split(trim(line), '|');
    if (fields.size() == 3) live.insert(fields[0] + "_" + fields[1]);
  }
  return live;
}

// What accounting says of a job's tasks ("job_task" -> state); empty where
// the cluster keeps no accounting.
std::map<std::string, std::string> task_states(const std::string& job_id) {
  std::map<std::string, std::string> states;
  const auto r =
      run_command({"sacct", "--noheader", "--parsable2", "--allocations", "--jobs=" + job_id, "--format=JobID,State"});
  if (!r.started || r.exit_status != 0) return states;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    const auto fields = split(trim(line), '|');
    if (fields.size() == 2) states[fields[0]] = fields[1];
  }
  return states;
}

std::string last_line_of(const std::string& path) {
  std::ifstream in(path);
  std::string last;
  for (std::string line; std::getline(in, line);) {
    if (!trim(line).empty()) last = trim(line);
  }
  return last;
}

std::string batch_script(const SweepSpec& spec, const SweepOptions& options, const SlurmOptions& slurm,
                         const std::string& dir, int number, size_t points, size_t tasks, const std::string& prefix) {
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# spyre-sim sweep " << spec.name << ": submission " << number << ", " << points << " points in " << tasks
    << " array tasks (written by `spyre-sim sweep --slurm`)\n"
    << "#SBATCH --job-name=" << job_name(spec.name) << "\n"
    << "#SBATCH --array=0-" << tasks - 1 << "\n"
    << "#SBATCH --output=" << (fs::path(dir) / ("task-" + std::to_string(number) + "-%a.log")).string() << "\n"
    << "#SBATCH --cpus-per-task=" << slurm.cpus_per_task << "\n";
  if (!slurm.partition.empty()) s << "#SBATCH --partition=" << slurm.partition << "\n";
  if (!slurm.time.empty()) s << "#SBATCH --time=" << slurm.time << "\n";
  if (!slurm.account.empty()) s << "#SBATCH --account=" << slurm.account << "\n";
  for (const auto& arg : slurm.sbatch_args) s << "#SBATCH " << arg << "\n";
  s << "exec " << shell_quote(slurm.executable) << " sweep " << shell_quote(absolute(options.spec)) << " --output "
    << shell_quote(absolute(prefix)) << " --slurm-task " << shell_quote(submission_path(dir, number));
  if (!options.arch_path.empty()) s << " --arch " << shell_quote(absolute(options.arch_path));
  s << "\n";
  return s.str();
}

}  // namespace

SlurmSubmission submit_sweep_to_slurm(const SweepOptions& options, const SlurmOptions& slurm) {
  const SweepSpec spec = read_sweep_spec(options.spec);
  SlurmSubmission outcome;
  outcome.out_prefix = sweep_prefix(options, spec);
  outcome.points = spec.points.size();
  const std::string dir = absolute(sweep_slurm_dir(outcome.out_prefix));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) fail(dir, "--output", "cannot create the Slurm folder: " + ec.message());

  const auto results = read_sweep_results(outcome.out_prefix);
  auto has_result = [&](const std::string& hash) {
    const auto it = results.find(hash);
    return it != results.end() && it->second.status == "ok";
  };
  // A point that ran and failed is finished as far as its task goes: the task
  // did not die (the point runs again, as a local re-run would run it).
  auto ran = [&](const std::string& hash) { return results.count(hash) > 0; };
  const std::vector<Submission> submissions = read_submissions(dir);
  const std::set<std::string> live = submissions.empty() ? std::set<std::string>{} : live_tasks();
  std::set<std::string> in_flight;
  for (const auto& sub : submissions) {
    std::map<std::string, std::string> states;
    bool asked = false;
    for (size_t t = 0; t < sub.tasks.size(); ++t) {
      const std::string key = sub.job_id + "_" + std::to_string(t);
      size_t unfinished = 0;
      for (const auto& hash : sub.tasks[t]) {
        if (has_result(hash)) continue;
        if (live.count(key)) in_flight.insert(hash);
        if (!ran(hash)) ++unfinished;
      }
      if (unfinished == 0 || live.count(key)) continue;
      if (!asked) states = task_states(sub.job_id), asked = true;
      const auto state = states.find(key);
      const std::string log = log_path(dir, sub.number, static_cast<int>(t));
      const std::string said = last_line_of(log);
      const std::string log_says = !fs::exists(log) ? "it wrote no log (it never started)"
                                   : said.empty()   ? "its log " + log + " is empty"
                                                    : "its log " + log + " ends: " + said;
      if (sub.job_id.empty()) {
        outcome.dead.push_back("submission " + std::to_string(sub.number) +
                               " has no job id (was `--slurm` stopped while sbatch ran?); if its job runs, its "
                               "points may run twice");
        break;
      }
      outcome.dead.push_back("task " + std::to_string(t) + " of job " + sub.job_id + " (submission " +
                             std::to_string(sub.number) + ") left the queue" +
                             (state == states.end() ? "" : " " + state->second) + " with " +
                             std::to_string(unfinished) + " of its " + std::to_string(sub.tasks[t].size()) +
                             " points unfinished; " + log_says);
    }
  }

  std::vector<std::string> todo;
  for (const auto& p : spec.points) {
    if (has_result(p.hash)) {
      ++outcome.done;
    } else if (in_flight.count(p.hash)) {
      ++outcome.in_flight;
    } else {
      todo.push_back(p.hash);
    }
  }
  if (todo.empty()) return outcome;

  const size_t per_task = std::max<size_t>(static_cast<size_t>(std::max(1, slurm.points_per_task)),
                                           (todo.size() + kMaxArrayTasks - 1) / kMaxArrayTasks);
  Submission sub;
  sub.number = static_cast<int>(submissions.size()) + 1;
  sub.file = submission_path(dir, sub.number);
  for (size_t i = 0; i < todo.size(); i += per_task)
    sub.tasks.emplace_back(todo.begin() + static_cast<std::ptrdiff_t>(i),
                           todo.begin() + static_cast<std::ptrdiff_t>(std::min(todo.size(), i + per_task)));
  Json record = {{"number", sub.number}, {"spec", absolute(options.spec)}, {"tasks", sub.tasks}};
  write_submission(sub.file, record);
  outcome.script = (fs::path(dir) / ("job-" + std::to_string(sub.number) + ".sh")).string();
  std::ofstream(outcome.script) << batch_script(spec, options, slurm, dir, sub.number, todo.size(), sub.tasks.size(),
                                                outcome.out_prefix);

  const auto r = run_command({"sbatch", "--parsable", outcome.script});
  if (!r.started || r.exit_status != 0) {
    fs::remove(sub.file, ec);  // not submitted: nothing left behind, the next --slurm numbers its submission the same
    fs::remove(outcome.script, ec);
    if (!r.started) fail("sbatch", "", "not found on PATH: `sweep --slurm` runs where Slurm's commands do");
    fail(outcome.script, "sbatch", "refused the job: " + trim(r.err.empty() ? r.out : r.err));
  }
  // --parsable prints "job_id" or "job_id;cluster".
  outcome.job_id = split(trim(r.out), ';').front();
  record["job"] = outcome.job_id;
  write_submission(sub.file, record);
  outcome.submitted = todo.size();
  outcome.tasks = sub.tasks.size();
  return outcome;
}

std::vector<SweepRow> run_sweep_slurm_task(const SweepOptions& options, const std::string& submission_file, int task,
                                           std::ostream& progress) {
  const SweepSpec spec = read_sweep_spec(options.spec);
  const Submission sub = read_submission(submission_file);
  if (task < 0 || static_cast<size_t>(task) >= sub.tasks.size())
    fail(submission_file, "tasks",
         "has no array task " + std::to_string(task) + " (it has " + std::to_string(sub.tasks.size()) + ")");
  std::map<std::string, const SweepPoint*> by_hash;
  for (const auto& p : spec.points) by_hash[p.hash] = &p;
  std::vector<const SweepPoint*> points;
  for (const auto& hash : sub.tasks[static_cast<size_t>(task)]) {
    const auto it = by_hash.find(hash);
    if (it == by_hash.end())
      fail(options.spec, "",
           "has no point " + hash + " any more: the spec changed after submission " + std::to_string(sub.number) +
               "; run `sweep --slurm` again");
    points.push_back(it->second);
  }
  int workers = 1;
  if (const char* cpus = std::getenv("SLURM_CPUS_PER_TASK")) workers = std::max(1, std::atoi(cpus));
  const std::string dir = fs::path(submission_file).parent_path().string();
  return run_sweep_points(spec, points, shard_path(dir, sub.number, task), workers, options.arch_path, false, progress);
}

}  // namespace spyre::studies
