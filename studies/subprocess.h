#pragma once
// Running another program (sbatch, squeue, sacct) and reading what it says:
// argv as given, no shell, so nothing in a path or option is interpreted.

#include <string>
#include <vector>

namespace spyre::studies {

struct CommandResult {
  bool started = false;  // false: the program was not found or could not run
  int exit_status = -1;
  std::string out, err;
};

CommandResult run_command(const std::vector<std::string>& argv);

}  // namespace spyre::studies
