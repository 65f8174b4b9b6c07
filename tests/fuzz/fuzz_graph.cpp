// The model graph reader: JSON, tensors, ops, attributes, shape inference.

#include "compiler/ir/graph.h"
#include "fuzz_support.h"
#include "runtime/json_node.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace spyre;
  fuzz::expect_clean_outcome(
      [&] { compiler::parse_graph(parse_json_text(fuzz::as_text(data, size), "graph.json"), "graph.json"); });
  return 0;
}
