#pragma once
// The split search's simulated kernel times kept on disk between compiles,
// as an autotuner keeps its tuning log: a compile that meets a shape and
// split it timed before, on the same card model and the same simulator,
// reads the time instead of simulating it again (a seq-2048 decoder layer's
// attention candidates take minutes to simulate; a whole model meets the
// same shapes in every compile). One file per simulator build and card:
// `split-times-<hash>.jsonl` in the store's folder, the hash over the
// simulator's own binary and the resolved arch config, so a rebuilt
// simulator or another card never reads another's times. A line per time,
// appended as each is simulated (atomic appends: concurrent compiles share
// the file); unreadable lines are skipped.

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "runtime/arch_config.h"

namespace spyre::studies {

class SplitTimeStore {
 public:
  // `dir` empty: no store (nothing found, nothing kept). A folder that cannot
  // be created leaves the store off too: the search simulates as without it.
  SplitTimeStore(const std::string& dir, const ArchConfig& arch);
  // The time of `split` of the op or shape `key`, if one was kept.
  std::optional<double> find(const std::string& key, const std::string& split) const;
  // Keeps a time (finite ones only: a failed run is not a property of the split).
  void add(const std::string& key, const std::string& split, double kernel_us);
  const std::string& path() const { return path_; }  // empty: off

 private:
  std::string path_;
  std::map<std::pair<std::string, std::string>, double> times_;
};

// Where compiles keep split times unless told (--split-cache): the folder
// $SPYRE_SIM_CACHE_DIR names ("none": no store), else
// $XDG_CACHE_HOME/spyre-sim, else ~/.cache/spyre-sim; empty when none of
// them is set.
std::string default_split_cache_dir();

// 16 hex digits over the bytes of the binary this code runs in (the CLI, or
// the Python module's shared library): what changes whenever the simulator
// or compiler is rebuilt differently.
const std::string& simulator_build_hash();

}  // namespace spyre::studies
