#include "compiler/compiler.h"

#include <algorithm>

#include "runtime/error.h"

namespace spyre::compiler {

const std::vector<std::string>& work_division_names() {
  static const std::vector<std::string> names{"default", "model", "model-all", "torch-spyre"};
  return names;
}

bool is_work_division(const std::string& name) {
  const auto& names = work_division_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string work_division_choices() {
  const auto& names = work_division_names();
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return text;
}

CompileOptions resolve_options(CompileOptions options) {
  if (options.cores == 0) options.cores = options.device.cores;
  if (options.cores < 1 || options.cores > options.device.cores) {
    fail("", "--cores",
         "must be 1 to " + std::to_string(options.device.cores) + " (SENCORES; the card's cores), got " +
             std::to_string(options.cores));
  }
  if (options.device.argument_segments().empty()) fail("", "arch", "no argument segments (address.segments)");
  if (options.input_layouts != "consumers" && options.input_layouts != "default")
    fail("", "--input-layouts", "must be consumers or default, got '" + options.input_layouts + "'");
  if (!is_work_division(options.work_division))
    fail("", "--work-division", "must be " + work_division_choices() + ", got '" + options.work_division + "'");
  if (options.bmm_by_model() && options.split_cost == nullptr)
    fail("", "--work-division",
         options.work_division + " needs a card model to score splits (spyre-sim compile gives it one)");
  return options;
}

Graph compile(const Graph& model, const CompileOptions& requested, const PipelineHooks& hooks) {
  const CompileOptions options = resolve_options(requested);
  Graph g = model;
  try {
    const CompilerPass* last = run_pipeline(g, options, hooks);
    if (last != &compiler_passes().back()) return g;  // stopped early: nothing to check yet
  } catch (const SpyreError& e) {
    // Pass errors name the op; say which graph it is in.
    const std::string message = e.what();
    if (model.source.empty() || message.rfind(model.source, 0) == 0 || message.rfind("--", 0) == 0) throw;
    throw SpyreError(model.source + ": " + message);
  }
  if (g.bundles.empty())
    fail(model.source, g.name, "the graph computes nothing on the device (no op reaches an output)");
  return g;
}

void parse_split_override(const std::string& text, CompileOptions& options) {
  const std::string where = "--split " + text;
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    fail("", where, "expected OP=DIM:N[,DIM:N...] with OP the name of the op's output tensor");
  auto& dims = options.split_overrides[text.substr(0, eq)];
  size_t pos = eq + 1;
  while (pos <= text.size()) {
    const size_t end = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, end - pos);
    const auto colon = item.find(':');
    if (colon == std::string::npos || colon == 0) fail("", where, "'" + item + "' is not DIM:N");
    try {
      size_t used = 0;
      const long long n = std::stoll(item.substr(colon + 1), &used);
      if (used != item.size() - colon - 1 || n < 1) throw std::invalid_argument("");
      dims[item.substr(0, colon)] = n;
    } catch (const std::exception&) {
      fail("", where, "'" + item.substr(colon + 1) + "' is not a positive slice count");
    }
    pos = end + 1;
  }
}

}  // namespace spyre::compiler
