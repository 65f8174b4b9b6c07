#pragma once
// The JSON value type, declared without nlohmann's 25k-line header: headers
// that only pass Json around include this; files that build or read JSON
// include <nlohmann/json.hpp> themselves (keeps the build fast on 2 cores).

#include <nlohmann/json_fwd.hpp>

namespace spyre {

using Json = nlohmann::ordered_json;  // ordered: N_ key order defines host dim order

}  // namespace spyre
