// libsystemc's own main() calls sc_main; spyre-sim runs simulations from its
// own code, but the symbol must exist for the library to link. Every program
// that links the card model links this object (sim/hw/CMakeLists.txt).

extern "C" int sc_main(int, char**) { return 0; }  // as SystemC's sc_externs.h declares it
