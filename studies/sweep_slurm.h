#pragma once
// A sweep on a Slurm cluster, with Slurm as it is (sbatch, squeue, sacct):
// `--slurm` submits the points that have no result as a job array, a chunk
// of points per array task; each task runs its points (`--slurm-task`) and
// appends their rows to its own shard, PREFIX.slurm/shard-N-T.jsonl;
// `--collect` merges the shards into PREFIX.csv and PREFIX.json, the same
// files a local run writes. A later `--slurm` finds tasks that left the
// queue with points unfinished (killed, timed out, node failure) and submits
// those points again; points still queued or running are left alone.
//
// PREFIX.slurm/ holds, per submission N: submission-N.json (the spec, the
// points of each task, the job id), job-N.sh (the batch script) and the
// tasks' logs task-N-T.log. It must be on a filesystem the nodes share.

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "studies/sweep_runner.h"

namespace spyre::studies {

struct SlurmOptions {
  std::string executable;  // the spyre-sim the tasks run (absolute)
  std::string partition, time, account;
  int points_per_task = 8;
  int cpus_per_task = 1;                 // workers per task
  std::vector<std::string> sbatch_args;  // passed to sbatch as they are, e.g. --qos=normal
};

struct SlurmSubmission {
  std::string out_prefix;
  size_t points = 0, done = 0, in_flight = 0, submitted = 0, tasks = 0;
  std::string job_id, script;     // empty when there was nothing to submit
  std::vector<std::string> dead;  // tasks found dead, with what Slurm and their logs say
};

// Throws SpyreError for a bad spec or output path, when squeue cannot be
// asked, or when sbatch refuses the job (its message).
SlurmSubmission submit_sweep_to_slurm(const SweepOptions& options, const SlurmOptions& slurm);

// Runs array task `task` of a submission: its points, rows into its shard.
// Returns the rows it ran. Throws SpyreError for a bad submission file.
std::vector<SweepRow> run_sweep_slurm_task(const SweepOptions& options, const std::string& submission_file, int task,
                                           std::ostream& progress);

}  // namespace spyre::studies
