#include "sim/checks/hazards.h"

#include "sim/checks/lx_hazards.h"
#include "sim/checks/program_checks.h"

namespace spyre::sim {

std::vector<Hazard> find_hazards(const Program& program, const ArchConfig& arch,
                                 const std::vector<double>& kernel_start_us, bool vf) {
  std::vector<Hazard> hazards = program.hazards;
  for (auto& h : check_program(program, arch.limits())) hazards.push_back(h);
  for (auto& h : find_lx_hazards(program, arch.lx.size_bytes, kernel_start_us, vf)) hazards.push_back(h);
  return hazards;
}

}  // namespace spyre::sim
