#pragma once
// Paths users hand in. Only regular files are read: a device (/dev/zero), a
// pipe or a directory would hang the reader or mislead it, and a symlink loop
// must be a clear error, not a filesystem exception. Output paths are checked
// before any work starts, so a bad one leaves nothing half written. Each
// failure is one line naming the path.

#include <cstdint>
#include <fstream>
#include <string>

namespace spyre {

// Throws SpyreError unless `path` names a regular file (symlinks followed).
void require_regular_file(const std::string& path);
// A binary stream over a regular file.
std::ifstream open_input_file(const std::string& path);
// The whole content of a regular file.
std::string read_input_file(const std::string& path);
// The size in bytes of a regular file.
int64_t input_file_size(const std::string& path);

// An output directory (created if missing) or file to be written later:
// throws SpyreError naming the path and `option` unless it can be, i.e. it is
// not an existing file of the other kind and its nearest existing ancestor is
// a writable directory.
void check_output_dir(const std::string& dir, const std::string& option);
void check_output_file(const std::string& path, const std::string& option);
// The path without trailing separators ("out/" -> "out").
std::string without_trailing_slash(const std::string& path);

// a * b when it fits in int64 and both are non-negative, else -1.
int64_t checked_product(int64_t a, int64_t b);

}  // namespace spyre
