#include "runtime/bundle_dir.h"

#include <algorithm>
#include <regex>

namespace fs = std::filesystem;

namespace spyre {

namespace {

// "bundle_3.mlir" -> 3, "sdsc_12_add.json" -> 12; -1 when the name does not match.
long numbered(const std::string& name, const std::regex& pattern) {
  std::smatch m;
  return std::regex_match(name, m, pattern) ? std::stol(m[1]) : -1;
}

}  // namespace

BundleFiles list_bundle_files(const fs::path& dir) {
  BundleFiles files;
  if (fs::exists(dir / "bundle.mlir")) {
    files.mlir.push_back(dir / "bundle.mlir");
    return files;
  }
  static const std::regex mlir(R"(bundle_(\d+)\.mlir)");
  static const std::regex sdsc(R"(sdsc_(\d+)(_[^/]*)?\.json)");
  std::vector<std::pair<long, std::string>> irs, sdscs;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    if (const long n = numbered(name, mlir); n >= 0) irs.emplace_back(n, name);
    if (const long n = numbered(name, sdsc); n >= 0) sdscs.emplace_back(n, name);
  }
  std::sort(irs.begin(), irs.end());
  std::sort(sdscs.begin(), sdscs.end());
  for (const auto& [n, name] : irs) files.mlir.push_back(dir / name);
  if (files.mlir.empty()) {
    for (const auto& [n, name] : sdscs) files.sdscs.push_back(name);
  }
  return files;
}

bool is_bundle_dir(const fs::path& dir) {
  if (!fs::is_directory(dir)) return false;
  const BundleFiles files = list_bundle_files(dir);
  return !files.mlir.empty() || !files.sdscs.empty();
}

std::vector<std::string> bundles_inside(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_directory() && is_bundle_dir(entry.path())) out.push_back(entry.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace spyre
