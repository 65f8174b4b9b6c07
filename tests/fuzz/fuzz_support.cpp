#include "fuzz_support.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "runtime/error.h"

namespace fs = std::filesystem;

namespace spyre::fuzz {

namespace {

fs::path scratch_root() {
  static const fs::path root = [] {
    const char* tmp = std::getenv("TMPDIR");
    fs::path p = fs::path(tmp && *tmp ? tmp : "/tmp") / ("spyre-fuzz-" + std::to_string(getpid()));
    fs::create_directories(p);
    return p;
  }();
  return root;
}

}  // namespace

std::string as_text(const uint8_t* data, size_t size) { return std::string(reinterpret_cast<const char*>(data), size); }

std::string scratch_file(const uint8_t* data, size_t size, const std::string& suffix) {
  const fs::path path = scratch_root() / ("input" + suffix);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) finding("cannot write the scratch file " + path.string());
  return path.string();
}

std::string scratch_dir() {
  const fs::path dir = scratch_root() / "dir";
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

void expect_clean_outcome(const std::function<void()>& read) {
  try {
    read();
  } catch (const SpyreError&) {
    // bad input, reported as such
  }
}

void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz finding: %s\n", what.c_str());
  std::abort();
}

}  // namespace spyre::fuzz
