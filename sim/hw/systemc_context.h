#pragma once
// SystemC can elaborate one design per kernel context. Each simulation (and
// each module test) starts a fresh context so one process can run many.

namespace spyre::sim {

// Makes a new current SystemC context with the banner and info/warning
// reports silenced. Modules created afterwards belong to it.
void begin_systemc_context();

}  // namespace spyre::sim
