# Third-party dependencies: all come from Debian packages (scripts/setup.sh installs them).

find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(yaml-cpp REQUIRED)  # sweep specs in YAML
find_package(PkgConfig REQUIRED)
pkg_check_modules(SYSTEMC REQUIRED IMPORTED_TARGET systemc)

# SystemC stamps its headers with the C++ standard the library was built with
# (sc_api_version_2_3_4_cxx2017...). Our C++20 code must present the library's
# standard or linking fails, so probe which value this libsystemc accepts.
include(CheckCXXSourceCompiles)
set(_sc_probe "#include <systemc>\nint sc_main(int, char**) { return 0; }\nint main() { sc_core::sc_time t(1, sc_core::SC_NS); return t.value() == 0; }\n")
set(SPYRE_SC_CPLUSPLUS "")
foreach(_std 201703L 201402L 202002L)
  set(CMAKE_REQUIRED_DEFINITIONS -DSC_CPLUSPLUS=${_std})
  set(CMAKE_REQUIRED_INCLUDES ${SYSTEMC_INCLUDE_DIRS})
  set(CMAKE_REQUIRED_LIBRARIES ${SYSTEMC_LINK_LIBRARIES})
  unset(_sc_ok CACHE)
  check_cxx_source_compiles("${_sc_probe}" _sc_ok)
  if(_sc_ok)
    set(SPYRE_SC_CPLUSPLUS ${_std})
    break()
  endif()
endforeach()
unset(CMAKE_REQUIRED_DEFINITIONS)
unset(CMAKE_REQUIRED_INCLUDES)
unset(CMAKE_REQUIRED_LIBRARIES)
if(NOT SPYRE_SC_CPLUSPLUS)
  message(FATAL_ERROR "could not link a SystemC program with any SC_CPLUSPLUS value; is libsystemc-dev installed?")
endif()
message(STATUS "SystemC API standard: ${SPYRE_SC_CPLUSPLUS}")

add_library(spyre_systemc INTERFACE)
target_link_libraries(spyre_systemc INTERFACE PkgConfig::SYSTEMC)
target_compile_definitions(spyre_systemc INTERFACE SC_CPLUSPLUS=${SPYRE_SC_CPLUSPLUS})

if(SPYRE_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
