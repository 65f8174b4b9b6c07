#include "runtime/device_memory.h"

#include <algorithm>
#include <cstring>

#include "runtime/error.h"

namespace spyre {

DeviceMemory::DeviceMemory(const Program& program, const DeviceLimits& limits) : limits_(limits) {
  // One dense region per segment, spanning the tensors the program places there.
  std::map<int, std::pair<int64_t, int64_t>> spans;
  for (const auto& t : program.host_tensors) {
    const int64_t end = t.address + t.layout.size_bytes();
    auto it = spans.find(t.segment);
    if (it == spans.end()) {
      spans[t.segment] = {t.address, end};
    } else {
      it->second.first = std::min(it->second.first, t.address);
      it->second.second = std::max(it->second.second, end);
    }
  }
  // Functional runs hold every tensor in host memory; refuse rather than exhaust it.
  constexpr int64_t kMaxBytes = int64_t{32} << 30;
  int64_t total = 0;
  for (const auto& [segment, span] : spans) total += span.second - span.first;
  if (total > kMaxBytes) {
    fail("", "functional mode",
         "the program's tensors need " + std::to_string(total >> 20) + " MiB of device memory, more than the " +
             std::to_string(kMaxBytes >> 30) + " GiB a functional run may hold; run without inputs for timing only");
  }
  for (const auto& [segment, span] : spans) {
    Region region;
    region.begin = span.first;
    region.bytes.assign(static_cast<size_t>(span.second - span.first), 0);
    segments_[segment] = std::move(region);
  }
  lx_.resize(static_cast<size_t>(limits.cores));
}

uint8_t* DeviceMemory::hbm(int64_t address, int64_t bytes) {
  const int segment = static_cast<int>(address / limits_.segment_bytes);
  auto it = segments_.find(segment);
  if (it == segments_.end() || address < it->second.begin ||
      address + bytes > it->second.begin + static_cast<int64_t>(it->second.bytes.size())) {
    fail("", "device memory",
         "access to HBM [" + std::to_string(address) + ", " + std::to_string(address + bytes) +
             ") outside every tensor of the program");
  }
  return it->second.bytes.data() + (address - it->second.begin);
}

uint8_t* DeviceMemory::lx(int core, int64_t address, int64_t bytes) {
  if (core < 0 || core >= static_cast<int>(lx_.size())) fail("", "device memory", "no core " + std::to_string(core));
  if (address < 0 || address + bytes > limits_.lx_bytes) {
    fail("", "device memory",
         "LX access [" + std::to_string(address) + ", " + std::to_string(address + bytes) + ") outside core " +
             std::to_string(core) + "'s LX");
  }
  auto& lx = lx_[static_cast<size_t>(core)];
  if (lx.empty()) lx.assign(static_cast<size_t>(limits_.lx_bytes), 0);
  return lx.data() + address;
}

uint8_t* DeviceMemory::relayout_buffer(int core, const void* binding, int64_t bytes) {
  auto& buffer = relayout_[{core, binding}];
  buffer.resize(static_cast<size_t>(bytes));
  return buffer.data();
}

void DeviceMemory::wipe_lx() {
  for (auto& lx : lx_) std::fill(lx.begin(), lx.end(), 0);
}

void DeviceMemory::upload(const HostTensor& tensor, const std::vector<float>& values) {
  if (static_cast<int64_t>(values.size()) != tensor.element_count()) {
    fail("", tensor.name,
         "upload of " + std::to_string(values.size()) + " values into a tensor of " +
             std::to_string(tensor.element_count()));
  }
  uint8_t* base = hbm(tensor.address, tensor.layout.size_bytes());
  const float* next = values.data();
  const DataFormat format = tensor.format;
  for_each_host_row(tensor, [&](const std::vector<int64_t>& offsets) {
    for (int64_t offset : offsets) store_element(format, base + offset, *next++);
  });
}

std::vector<float> DeviceMemory::download(const HostTensor& tensor) {
  std::vector<float> values(static_cast<size_t>(tensor.element_count()));
  float* next = values.data();
  const uint8_t* base = hbm(tensor.address, tensor.layout.size_bytes());
  const DataFormat format = tensor.format;
  for_each_host_row(tensor, [&](const std::vector<int64_t>& offsets) {
    for (int64_t offset : offsets) *next++ = load_element(format, base + offset);
  });
  return values;
}

std::vector<float> DeviceMemory::download(const Program& program, const LxResult& result) {
  const HostTensor& tensor = result.tensor;
  const TensorBinding& b = program.kernels.at(result.kernel).tensors.at(result.lds);
  const size_t elem = static_cast<size_t>(word_bytes(tensor.format));
  std::vector<uint8_t> whole(static_cast<size_t>(tensor.layout.size_bytes()));
  for (const auto& [core, address] : b.lx_address) {
    const uint8_t* part = lx(core, address, b.layout.size_bytes());
    for_each_element(tensor.layout, b.layout, b.core_box.at(core),
                     [&](int64_t w, int64_t o) { std::memcpy(whole.data() + w, part + o, elem); });
  }
  std::vector<float> values(static_cast<size_t>(tensor.element_count()));
  float* next = values.data();
  for_each_host_row(tensor, [&](const std::vector<int64_t>& offsets) {
    for (int64_t offset : offsets) *next++ = load_element(tensor.format, whole.data() + offset);
  });
  return values;
}

}  // namespace spyre
