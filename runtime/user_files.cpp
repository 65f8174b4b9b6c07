#include "runtime/user_files.h"

#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "runtime/error.h"

namespace spyre {

void require_regular_file(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found) fail(path, "", "no such file");
  if (ec) fail(path, "", "cannot open: " + ec.message());
  if (status.type() == std::filesystem::file_type::directory) fail(path, "", "is a directory, not a file");
  if (status.type() != std::filesystem::file_type::regular)
    fail(path, "", "not a regular file (a device, pipe or socket is never read)");
}

std::ifstream open_input_file(const std::string& path) {
  require_regular_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "", "cannot open file");
  return in;
}

std::string read_input_file(const std::string& path) {
  std::ifstream in = open_input_file(path);
  std::ostringstream all;
  all << in.rdbuf();
  if (in.bad()) fail(path, "", "cannot read the file");
  return all.str();
}

int64_t input_file_size(const std::string& path) {
  require_regular_file(path);
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) fail(path, "", "cannot read the file size: " + ec.message());
  return static_cast<int64_t>(size);
}

namespace {

// The nearest existing ancestor of `path` (itself when it exists) must be a
// directory this process can write into.
void check_writable_parent(const std::filesystem::path& path, const std::string& option) {
  std::filesystem::path at = path.parent_path();
  if (at.empty()) at = ".";
  std::error_code ec;
  while (!std::filesystem::exists(at, ec) && at.has_parent_path() && at != at.parent_path()) at = at.parent_path();
  if (!std::filesystem::is_directory(at, ec))
    fail(path.string(), option, "cannot be created: " + at.string() + " is not a directory");
  if (::access(at.c_str(), W_OK | X_OK) != 0)
    fail(path.string(), option, "cannot be created: no permission to write in " + at.string());
}

}  // namespace

std::string without_trailing_slash(const std::string& path) {
  std::string out = path;
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

void check_output_dir(const std::string& dir, const std::string& option) {
  const std::filesystem::path path(without_trailing_slash(dir));
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::directory) {
    if (::access(path.c_str(), W_OK | X_OK) != 0) fail(dir, option, "no permission to write in this directory");
    return;
  }
  if (status.type() != std::filesystem::file_type::not_found) fail(dir, option, "exists and is not a directory");
  check_writable_parent(path, option);
}

void check_output_file(const std::string& file, const std::string& option) {
  const std::filesystem::path path(file);
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::directory) fail(file, option, "is a directory, not a file");
  if (status.type() == std::filesystem::file_type::regular) {
    if (::access(path.c_str(), W_OK) != 0) fail(file, option, "no permission to overwrite this file");
    return;
  }
  if (status.type() == std::filesystem::file_type::character) return;  // /dev/null, /dev/stdout
  if (status.type() != std::filesystem::file_type::not_found)
    fail(file, option, "not a regular file (output goes to regular files only)");
  // A file goes into an existing directory (directories are made only for
  // output directories).
  const std::filesystem::path parent = path.parent_path().empty() ? "." : path.parent_path();
  if (!std::filesystem::is_directory(parent, ec))
    fail(file, option, "cannot be written: directory " + parent.string() + " does not exist");
  check_writable_parent(path, option);
}

int64_t checked_product(int64_t a, int64_t b) {
  int64_t out = 0;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &out)) return -1;
  return out;
}

}  // namespace spyre
