#pragma once
// The card's memory contents for functional runs: HBM (the LPDDR5 device
// memory; "hbm" is SuperDSC's legacy name) as dense regions per argument
// segment, and each core's LX scratchpad. Host tensors move in and out the way
// torch-spyre's to()/cpu() do: converted to the device format and scattered
// into the tiled layout, padding left zero.

#include <cstdint>
#include <map>
#include <vector>

#include "runtime/npy.h"
#include "runtime/program.h"

namespace spyre {

class DeviceMemory {
 public:
  DeviceMemory(const Program& program, const DeviceLimits& limits);

  // Pointer to `bytes` bytes of HBM at an absolute address; throws if the
  // range is outside what the program's tensors occupy.
  uint8_t* hbm(int64_t address, int64_t bytes);
  // Pointer into one core's LX (allocated on first use).
  uint8_t* lx(int core, int64_t address, int64_t bytes);
  // Every core's LX back to zeros (a multi-tenant runtime's context switch).
  void wipe_lx();
  // The buffer the backend relayouts an LX input into on one core (its own
  // allocation: the SDSC does not give its address), keyed by the binding.
  uint8_t* relayout_buffer(int core, const void* binding, int64_t bytes);

  // Host -> device: values in host C order (host shape) into the tensor's layout.
  void upload(const HostTensor& tensor, const std::vector<float>& values);
  // Device -> host: the tensor's values in host C order.
  std::vector<float> download(const HostTensor& tensor);
  // A tensor left in LX, gathered from its cores' parts, in host C order.
  std::vector<float> download(const Program& program, const LxResult& result);

 private:
  struct Region {
    int64_t begin = 0;
    std::vector<uint8_t> bytes;
  };
  std::map<int, Region> segments_;
  std::vector<std::vector<uint8_t>> lx_;
  std::map<std::pair<int, const void*>, std::vector<uint8_t>> relayout_;
  DeviceLimits limits_;
};

// Visits every host row of a tensor (the innermost host dim, in C order),
// passing the byte offset of each of its elements in the device layout.
template <typename VisitRow>
void for_each_host_row(const HostTensor& tensor, VisitRow&& visit) {
  const size_t rank = tensor.dims.size();
  std::vector<std::vector<int64_t>> along(rank);  // per host dim: offset of each coordinate
  for (size_t d = 0; d < rank; ++d) {
    const LayoutDim* dim = tensor.layout.find(tensor.dims[d]);
    along[d].resize(static_cast<size_t>(tensor.shape[d]));
    for (int64_t i = 0; i < tensor.shape[d]; ++i) along[d][i] = dim ? tensor.layout.offset_along(*dim, i) : 0;
  }
  if (tensor.element_count() == 0) return;
  const size_t inner = rank - 1;
  std::vector<int64_t> index(rank, 0);
  std::vector<int64_t> row(along[inner].size());
  for (int64_t done = 0; done < tensor.element_count(); done += tensor.shape[inner]) {
    int64_t base = 0;
    for (size_t d = 0; d < inner; ++d) base += along[d][index[d]];
    for (size_t i = 0; i < row.size(); ++i) row[i] = base + along[inner][i];
    visit(row);
    for (size_t d = inner; d-- > 0;) {
      if (++index[d] < tensor.shape[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace spyre
