#pragma once
// Helpers shared by the test suites: paths into the source tree, scratch
// directories, error capture, random data and running the CLI binary.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "runtime/arch_config.h"
#include "runtime/json_node.h"

namespace spyre::test {

inline std::string source_path(const std::string& relative) { return std::string(SPYRE_SOURCE_DIR) + "/" + relative; }
inline std::string bundle_path(const std::string& relative) { return source_path("models/bundles/" + relative); }
inline std::string cli_bundle(const std::string& name) { return bundle_path("torch-spyre/spyre-cli/" + name); }

// A fresh directory under the system temp dir, removed on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// The SpyreError message a call throws, or "" when it does not throw.
std::string error_of(const std::function<void()>& call);

void write_text(const std::string& path, const std::string& text);
std::string read_text(const std::string& path);
void write_json(const std::string& path, const Json& json);
// Copies a bundle directory so a test can edit it.
void copy_bundle(const std::string& from, const std::string& to);

std::vector<float> random_values(size_t count, uint32_t seed, float lo, float hi);

// The arch the hand-derived module timing tests work their numbers out
// with: every calibrated parameter at its value before calibration (the
// parameter table, runtime/arch_params.cpp: no memory-side cache, a 67 GB/s
// core port, 64 SFU lanes, ...), so those tests check the mechanisms, not the
// calibration (docs/calibration.md has that).
inline std::vector<std::string> hand_derived_arch() { return uncalibrated_overrides(); }

struct CliResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};
CliResult run_cli(const std::string& arguments);
// A shell command line, its stdout and stderr together.
CliResult run_shell(const std::string& command_line);

}  // namespace spyre::test
