#include "studies/split_time_store.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "studies/content_hash.h"

namespace fs = std::filesystem;

namespace spyre::studies {

const std::string& simulator_build_hash() {
  static const std::string hash = [] {
    // The file holding this function: the executable, or the shared library
    // (the Python module) it was linked into.
    std::string path = "/proc/self/exe";
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&simulator_build_hash), &info) != 0 && info.dli_fname != nullptr &&
        info.dli_fname[0] == '/')
      path = info.dli_fname;
    ContentHash h;
    std::ifstream in(path, std::ios::binary);
    std::vector<char> buffer(1 << 20);
    while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0)
      h.add({buffer.data(), static_cast<size_t>(in.gcount())});
    return h.hex();
  }();
  return hash;
}

std::string default_split_cache_dir() {
  if (const char* dir = std::getenv("SPYRE_SIM_CACHE_DIR"); dir != nullptr && *dir != '\0')
    return std::string(dir) == "none" ? "" : dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0')
    return (fs::path(xdg) / "spyre-sim").string();
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    return (fs::path(home) / ".cache" / "spyre-sim").string();
  return "";
}

SplitTimeStore::SplitTimeStore(const std::string& dir, const ArchConfig& arch) {
  if (dir.empty()) return;
  std::error_code error;
  fs::create_directories(dir, error);
  if (error || !fs::is_directory(dir)) return;
  const std::string name =
      "split-times-" + ContentHash().add(simulator_build_hash()).add(arch.to_json().dump()).hex() + ".jsonl";
  path_ = (fs::path(dir) / name).string();
  std::ifstream in(path_);
  for (std::string line; std::getline(in, line);) {
    try {
      const Json r = Json::parse(line);
      times_[{r.at("key").get<std::string>(), r.at("split").get<std::string>()}] = r.at("kernel_us").get<double>();
    } catch (const std::exception&) {  // a line cut short by a compile that was killed while appending
    }
  }
}

std::optional<double> SplitTimeStore::find(const std::string& key, const std::string& split) const {
  const auto it = times_.find({key, split});
  if (it == times_.end()) return std::nullopt;
  return it->second;
}

void SplitTimeStore::add(const std::string& key, const std::string& split, double kernel_us) {
  if (path_.empty() || !std::isfinite(kernel_us)) return;
  times_[{key, split}] = kernel_us;
  const std::string line = Json{{"key", key}, {"split", split}, {"kernel_us", kernel_us}}.dump() + "\n";
  // One write(2) with O_APPEND: lines of concurrent compiles do not interleave.
  const int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  const ssize_t written = ::write(fd, line.data(), line.size());
  static_cast<void>(written);  // a store that cannot be written only costs a later compile a simulation
  ::close(fd);
}

}  // namespace spyre::studies
