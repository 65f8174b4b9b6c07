#include "sim/hw/hardware_block.h"

namespace spyre::sim {

namespace {

void collect(const sc_core::sc_object& object, std::vector<const HardwareBlock*>& out) {
  if (const auto* block = dynamic_cast<const HardwareBlock*>(&object)) out.push_back(block);
  for (const sc_core::sc_object* child : object.get_child_objects()) collect(*child, out);
}

}  // namespace

std::vector<const HardwareBlock*> blocks_under(const sc_core::sc_object& top) {
  std::vector<const HardwareBlock*> out;
  collect(top, out);
  return out;
}

std::string block_name(const HardwareBlock& block) {
  const auto* object = dynamic_cast<const sc_core::sc_object*>(&block);
  return object ? object->name() : "";
}

}  // namespace spyre::sim
