#pragma once
// Semantic comparison of SuperDSC JSON: what the seed's abs example and the
// torch-spyre dumps say against what our codegen writes.

#include <set>
#include <string>
#include <vector>

#include "runtime/json_node.h"

namespace spyre::test {

// Canonical form: the "<n>_" index dropped from the top key, dims renamed
// d0, d1, ... in N_ order (the seed's c0/c1 are torch-spyre's mb/out), layout
// labels renamed L0, L1, ... in order of first use (the seed labels a
// pointwise layout INPUT, newer torch-spyre OUTPUT).
Json canonical_sdsc(const Json& sdsc);

// Every difference, as "path: reason": a field of `expected` missing from
// `got` or with another value, or a field only in `got` whose key is not in
// `allowed_extra`. Keys in `ignored` are not compared at all.
std::vector<std::string> sdsc_differences(const Json& expected, const Json& got,
                                          const std::set<std::string>& allowed_extra,
                                          const std::set<std::string>& ignored = {});

}  // namespace spyre::test
