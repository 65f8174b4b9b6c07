#pragma once
// Binding .npy files to a program's host tensors (by argument name), and
// checking outputs against reference arrays.

#include <map>
#include <string>
#include <vector>

#include "runtime/npy.h"
#include "runtime/program.h"
#include "runtime/tolerance.h"

namespace spyre {

// DIR/<name>.npy of every input tensor of the program that has one (constants
// of a compiled program excepted: they carry their value), by name.
std::map<std::string, NpyArray> read_input_files(const Program& program, const std::string& dir);
// Those files bound to the program's inputs: a missing file or a shape that
// does not match (size-1 dims aside) is an error naming it.
std::map<std::string, std::vector<float>> read_host_inputs(const Program& program, const std::string& dir,
                                                           const std::map<std::string, NpyArray>& files);

// The same for arrays given in memory by name (the Python module): each must
// be an input of the program; `where` names the caller in errors ("inputs").
std::map<std::string, std::vector<float>> bind_host_inputs(const Program& program,
                                                           const std::map<std::string, NpyArray>& arrays,
                                                           const std::string& where);

// A tensor-parallel program (Program::cards > 1) takes each input whole, as
// the model has it: a sharded tensor's (HostTensor::shard_dim) whole shape is
// its shape with that dim `cards` times longer.
std::vector<int64_t> whole_shape(const HostTensor& tensor, int cards);
// Card `card`'s part of a sharded tensor's whole values (C order), in its
// host C order; the values unchanged for a tensor every card holds whole.
std::vector<float> card_part(const HostTensor& tensor, const std::vector<float>& whole, int cards, int card);

// True when two shapes hold the same elements in the same order, ignoring size-1 dims.
bool shapes_compatible(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

struct Comparison {
  std::string name;
  int64_t elements = 0;
  int64_t mismatches = 0;
  int64_t worst_index = -1;  // flat C-order index of the largest excess error
  std::string worst_coords;  // "(3, 17)"
  float got = 0, expected = 0;
  double abs_error = 0;
  Tolerance tolerance;  // what the values were judged by
  bool passed = true;
};

// numpy.allclose semantics element by element: |got - expected| <= atol + rtol * |expected|;
// NaNs match NaNs and infinities match infinities of the same sign.
Comparison compare_values(const HostTensor& tensor, const std::vector<float>& got, const NpyArray& expected,
                          const Tolerance& tolerance);

}  // namespace spyre
