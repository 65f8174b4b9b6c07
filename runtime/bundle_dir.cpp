#include "runtime/bundle_dir.h"

#include <algorithm>
#include <regex>

#include "runtime/error.h"

namespace fs = std::filesystem;

namespace spyre {

namespace {

// "bundle_3.mlir" -> 3, "sdsc_12_add.json" -> 12; -1 when the name does not match.
long numbered(const std::string& name, const std::regex& pattern) {
  std::smatch m;
  return std::regex_match(name, m, pattern) ? std::stol(m[1]) : -1;
}

// Numbered files run in number order, so a dump must number them 0, 1, 2, ...:
// a gap is a file lost on the way, and running the rest would report a
// different program.
void check_numbering(const fs::path& dir, const std::vector<std::pair<long, std::string>>& files,
                     const std::string& prefix, const std::string& suffix) {
  for (size_t i = 0; i < files.size(); ++i) {
    const long want = static_cast<long>(i);
    if (files[i].first == want) continue;
    if (files[i].first < want)
      fail(dir.string(), files[i].second, "a second file numbered " + std::to_string(want - 1));
    fail(dir.string(), prefix + std::to_string(want) + suffix,
         "missing: the " + prefix + "N" + suffix + " files run from 0 to " + std::to_string(files.back().first) +
             " and must have no gaps");
  }
}

}  // namespace

BundleFiles list_bundle_files(const fs::path& dir) {
  BundleFiles files;
  std::error_code ec;
  // Anything named bundle.mlir decides: a link loop or a directory there is a
  // broken bundle, not one without a bundle.mlir.
  const fs::path bundle_mlir = dir / "bundle.mlir";
  if (fs::exists(fs::symlink_status(bundle_mlir, ec))) {
    std::error_code type_ec;
    if (!fs::is_regular_file(bundle_mlir, type_ec))
      fail(bundle_mlir.string(), "", type_ec ? "cannot be read: " + type_ec.message() : "not a regular file");
    files.mlir.push_back(bundle_mlir);
    return files;
  }
  static const std::regex mlir(R"(bundle_(\d{1,9})\.mlir)");
  static const std::regex sdsc(R"(sdsc_(\d{1,9})(_[^/]*)?\.json)");
  std::vector<std::pair<long, std::string>> irs, sdscs;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const long ir = numbered(name, mlir), kernel = numbered(name, sdsc);
    if (ir < 0 && kernel < 0) continue;
    // A directory, device or dangling link named like a bundle file is a
    // broken dump, not something to skip.
    std::error_code type_ec;
    if (!fs::is_regular_file(it->path(), type_ec)) fail(it->path().string(), "", "not a regular file");
    if (ir >= 0) irs.emplace_back(ir, name);
    if (kernel >= 0) sdscs.emplace_back(kernel, name);
  }
  if (ec) fail(dir.string(), "", "cannot list the directory: " + ec.message());
  std::sort(irs.begin(), irs.end());
  std::sort(sdscs.begin(), sdscs.end());
  check_numbering(dir, irs, "bundle_", ".mlir");
  for (const auto& [n, name] : irs) files.mlir.push_back(dir / name);
  if (files.mlir.empty()) {
    // torch-spyre numbers sdsc_N.json 0, 1, 2, ...; its forks' sdsc_N_<op>.json
    // carry a counter over the whole compile, so gaps there are normal.
    const bool plain = std::all_of(sdscs.begin(), sdscs.end(),
                                   [](const auto& f) { return f.second.find('_', 5) == std::string::npos; });
    if (plain) check_numbering(dir, sdscs, "sdsc_", ".json");
    for (const auto& [n, name] : sdscs) files.sdscs.push_back(name);
  }
  return files;
}

bool is_bundle_dir(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return false;
  const BundleFiles files = list_bundle_files(dir);
  return !files.mlir.empty() || !files.sdscs.empty();
}

std::vector<std::string> bundles_inside(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (is_bundle_dir(it->path())) out.push_back(it->path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace spyre
