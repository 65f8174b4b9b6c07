#include "sim/hw/systemc_context.h"

#include <cstdlib>
#include <stdexcept>

#include <systemc>

namespace spyre::sim {

void begin_systemc_context() {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  // The previous context is left alive on purpose: its modules may still be
  // referenced until their owners go away, and it is small.
  sc_core::sc_curr_simcontext = new sc_core::sc_simcontext();
  sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DO_NOTHING);
  // busy_log.h converts times as integer picoseconds.
  if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS))
    throw std::logic_error("SystemC time resolution is not 1 ps");
}

}  // namespace spyre::sim
