#include "sim/run_bundle.h"

#include <cmath>
#include <filesystem>
#include <memory>

#include "runtime/error.h"
#include "runtime/host_io.h"
#include "runtime/symbol_binding.h"
#include "runtime/text.h"
#include "runtime/tolerance.h"
#include "runtime/user_files.h"
#include "sim/simulator.h"

namespace fs = std::filesystem;

namespace spyre::sim {

namespace {

// What an output is judged by: the tolerance its references' folder records,
// else its dtype's default; --rtol/--atol override either number.
Tolerance expect_tolerance(const RunOptions& o, const HostTensor& output, const NpyArray& reference,
                           const std::map<std::string, Tolerance>& recorded) {
  Tolerance t;
  if (auto it = recorded.find(output.name); it != recorded.end() && o.expect_dtype.empty()) {
    t = it->second;
  } else {
    const ValueDtype dtype = o.expect_dtype.empty() ? output_value_dtype(output.format, reference.dtype)
                                                    : *parse_value_dtype(o.expect_dtype);
    t = dtype_tolerance(dtype, max_finite_abs(reference.values));
  }
  if (o.rtol) t.rtol = *o.rtol;
  if (o.atol) t.atol = *o.atol;
  if (o.rtol || o.atol)
    t.basis = std::string(o.rtol ? "--rtol" : "") + (o.rtol && o.atol ? ", " : "") + (o.atol ? "--atol" : "") +
              " given; otherwise " + t.basis;
  return t;
}

// The symbols --dim gives and those the inputs' shapes give (an input with
// fewer elements along a symbolic dim than its maximum), bound; the two
// disagreeing is one line.
void bind_symbols_of_inputs(Program& program, const RunOptions& o, const std::map<std::string, NpyArray>& arrays) {
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const auto& [name, array] : arrays) shapes[name] = array.shape;
  std::map<std::string, std::string> bound_by, by_shape;
  for (const auto& [name, value] : o.symbols) bound_by[name] = "--dim";
  auto source = [&](const std::string& name) {
    return o.inputs_dir.empty() ? "inputs['" + name + "']" : (fs::path(o.inputs_dir) / (name + ".npy")).string();
  };
  SymbolValues symbols = o.symbols;
  for (const auto& [name, value] : symbols_from_shapes(program, shapes, source, by_shape)) {
    const auto given = symbols.emplace(name, value).first;
    if (given->second != value)
      fail("", "--dim " + name,
           name + " = " + std::to_string(given->second) + ", but " + by_shape.at(name) + " gives " +
               std::to_string(value));
    bound_by.emplace(name, by_shape.at(name));
  }
  bind_symbols(program, symbols, o.unknown_symbols_ok, bound_by);
}

}  // namespace

RunOutcome run_bundle(const RunOptions& o) {
  if (!o.outputs_dir.empty()) check_output_dir(o.outputs_dir, "--outputs");
  if (!o.report_path.empty()) check_output_file(o.report_path, "--report");
  const ArchConfig arch = load_arch(o.arch_path, o.arch_overrides);
  Program program = load_program(o.bundle, arch.limits());
  const bool functional = !o.inputs_dir.empty() || o.fill.has_value() || !o.input_arrays.empty();
  if (!o.inputs_dir.empty() && !o.input_arrays.empty())
    fail("", "inputs", "give inputs as a directory or as arrays, not both");
  const std::map<std::string, NpyArray> files =
      o.inputs_dir.empty() ? std::map<std::string, NpyArray>{} : read_input_files(program, o.inputs_dir);
  bind_symbols_of_inputs(program, o, o.inputs_dir.empty() ? o.input_arrays : files);
  if (!functional && (!o.outputs_dir.empty() || !o.expect_dir.empty())) {
    fail("", "--outputs/--expect",
         "need values: give --inputs DIR or --fill VALUE (without them the run is timing only)");
  }
  if (o.output_dtype != "f4" && o.output_dtype != "f2") fail("", "--output-dtype", "must be fp32 or fp16");
  if (!o.expect_dtype.empty() && !parse_value_dtype(o.expect_dtype))
    fail("", "--expect-dtype", "'" + o.expect_dtype + "' is not one of DLFloat16, bf16, fp16, fp32");
  for (const auto& [flag, value] : {std::pair{"--rtol", o.rtol}, std::pair{"--atol", o.atol}}) {
    if (value && !(*value >= 0 && std::isfinite(*value))) fail("", flag, "must be a finite number >= 0");
  }

  // One device memory per card of the ensemble (program.json `cards`): card 0
  // is timed, every card computes values on its part.
  std::vector<std::unique_ptr<DeviceMemory>> memories;
  if (functional) {
    std::map<std::string, std::vector<float>> inputs;
    if (!o.inputs_dir.empty()) inputs = read_host_inputs(program, o.inputs_dir, files);
    if (!o.input_arrays.empty()) inputs = bind_host_inputs(program, o.input_arrays, "inputs");
    for (int card = 0; card < program.cards; ++card) {
      memories.push_back(std::make_unique<DeviceMemory>(program, arch.limits()));
      for (const auto& t : program.host_tensors) {
        if (!t.is_input) continue;
        if (t.constant) inputs[t.name].assign(static_cast<size_t>(t.element_count()), *t.constant);
        if (o.fill && !inputs.count(t.name))
          inputs[t.name].assign(static_cast<size_t>(t.element_count() * (t.shard_dim >= 0 ? program.cards : 1)),
                                *o.fill);
        memories.back()->upload(t, card_part(t, inputs.at(t.name), program.cards, card));
      }
    }
  }
  DeviceMemory* memory = functional ? memories.front().get() : nullptr;
  SimulateOptions simulate_options{!o.trace_path.empty(), o.vf, o.protocol};
  simulate_options.sample_repeats = o.sample_repeats;
  for (size_t card = 1; card < memories.size(); ++card) simulate_options.other_cards.push_back(memories[card].get());
  SimulationResult sim = simulate(program, arch, memory, simulate_options);
  RunOutcome outcome;
  outcome.report = std::move(sim.report);
  // Outputs: the host tensors the program writes, then the tensors it leaves in LX.
  std::vector<const HostTensor*> outputs;
  for (const auto& t : program.host_tensors) {
    if (t.is_output) outputs.push_back(&t);
  }
  for (const auto& r : program.lx_results) outputs.push_back(&r.tensor);
  for (const HostTensor* t : outputs) outcome.output_shapes[t->name] = t->host_shape();
  if (functional) {
    for (const auto& t : program.host_tensors) {
      if (t.is_output) outcome.outputs[t.name] = memory->download(t);
    }
    for (const auto& r : program.lx_results) outcome.outputs[r.tensor.name] = memory->download(program, r);
  }
  if (!o.outputs_dir.empty()) {
    fs::create_directories(o.outputs_dir);
    for (const HostTensor* t : outputs) {
      write_npy((fs::path(o.outputs_dir) / (t->name + ".npy")).string(), t->host_shape(), outcome.outputs.at(t->name),
                t->format == DataFormat::Int32 ? "i4" : o.output_dtype);
    }
  }
  if (!o.expect_dir.empty()) {
    if (!fs::is_directory(o.expect_dir)) fail(o.expect_dir, "", "reference directory does not exist");
    const fs::path recorded = fs::path(o.expect_dir) / kToleranceFile;
    const auto recorded_tolerances =
        fs::exists(recorded) ? read_tolerance_file(recorded.string()) : std::map<std::string, Tolerance>{};
    for (const HostTensor* t : outputs) {
      const fs::path ref = fs::path(o.expect_dir) / (t->name + ".npy");
      if (!fs::exists(ref)) continue;
      const NpyArray reference = read_npy(ref.string());
      Comparison c = compare_values(*t, outcome.outputs.at(t->name), reference,
                                    expect_tolerance(o, *t, reference, recorded_tolerances));
      outcome.expect_failed |= !c.passed;
      outcome.report.comparisons.push_back(c);
    }
    if (outcome.report.comparisons.empty()) {
      std::vector<std::string> names;
      for (const HostTensor* t : outputs) names.push_back(t->name + ".npy");
      fail(o.expect_dir, "", "holds none of the output references (" + join(names, ", ") + ")");
    }
  }
  if (!o.report_path.empty()) write_json_file(o.report_path, report_to_json(outcome.report));
  if (!o.trace_path.empty()) write_json_file(o.trace_path, sim.trace);
  return outcome;
}

}  // namespace spyre::sim
