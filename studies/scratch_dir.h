#pragma once
// A private temporary directory for the programs a study compiles and runs,
// removed with everything in it when the study ends (or fails).

#include <filesystem>
#include <string>

#include <unistd.h>

namespace spyre::studies {

class ScratchDir {
 public:
  explicit ScratchDir(const std::string& purpose) {
    path_ = std::filesystem::temp_directory_path() / ("spyre-" + purpose + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace spyre::studies
