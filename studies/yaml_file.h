#pragma once
// Sweep specs may be YAML (.yaml, .yml) as well as JSON: the YAML is read
// into the same JSON value, so one reader checks both and its errors name
// the same $.paths. Unquoted scalars become what they look like (null,
// true/false, integers, numbers), quoted ones stay strings.

#include <string>

#include "runtime/json_node.h"

namespace spyre::studies {

bool is_yaml_file(const std::string& path);

// Throws SpyreError naming the file, the line and column, and the reason.
Json read_yaml_file(const std::string& path);

}  // namespace spyre::studies
