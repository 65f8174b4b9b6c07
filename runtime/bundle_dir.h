#pragma once
// The files of a bundle directory, as torch-spyre writes them: the bundle IR
// (bundle.mlir; some dumps name it bundle_0.mlir, bundle_1.mlir, ... run in
// that order) naming its SDSC files, or, in a dump without IR, the SDSC files
// themselves: sdsc_N.json, or sdsc_N_<op>.json as torch-spyre forks name them,
// run by N.

#include <filesystem>
#include <string>
#include <vector>

namespace spyre {

struct BundleFiles {
  std::vector<std::filesystem::path> mlir;  // in launch order; empty: a dump without IR
  std::vector<std::string> sdscs;           // without IR: SDSC file names in launch order
};

BundleFiles list_bundle_files(const std::filesystem::path& dir);

// A directory that holds a bundle (IR or SDSC files), as opposed to a folder
// of bundles such as torch-spyre's inductor cache.
bool is_bundle_dir(const std::filesystem::path& dir);

// The bundle directories directly inside dir, in name order.
std::vector<std::string> bundles_inside(const std::filesystem::path& dir);

}  // namespace spyre
