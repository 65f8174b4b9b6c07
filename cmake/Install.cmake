# `cmake --install build --prefix P`: the spyre-sim binary, the libraries and
# their headers, the built-in arch config and the example models, and a CMake
# package so another project can find_package(spyre_sim) and link spyre::sim,
# spyre::compiler, spyre::runtime, spyre::studies.
include(CMakePackageConfigHelpers)

get_property(spyre_libraries GLOBAL PROPERTY SPYRE_LIBRARIES)
set_target_properties(spyre_systemc PROPERTIES EXPORT_NAME systemc)
install(TARGETS ${spyre_libraries} spyre_systemc EXPORT spyre_simTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${SPYRE_INSTALL_INCLUDEDIR})
install(TARGETS spyre-sim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The sweep plotter (docs/sweep.md), as a command beside spyre-sim.
install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/plot_sweep.py DESTINATION ${CMAKE_INSTALL_BINDIR} RENAME spyre-sim-plot)
foreach(dir runtime compiler sim studies)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir} DESTINATION ${SPYRE_INSTALL_INCLUDEDIR}
          FILES_MATCHING PATTERN "*.h")
endforeach()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/models/ DESTINATION ${CMAKE_INSTALL_DATADIR}/spyre-sim/models)

set(spyre_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/spyre_sim)
install(EXPORT spyre_simTargets NAMESPACE spyre:: DESTINATION ${spyre_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/spyre_simConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/spyre_simConfig.cmake INSTALL_DESTINATION ${spyre_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/spyre_simConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/spyre_simConfig.cmake ${PROJECT_BINARY_DIR}/spyre_simConfigVersion.cmake
        DESTINATION ${spyre_cmake_dir})

# `cpack -G DEB` in the build directory: a Debian package of the same tree
# (installs under /usr; the Python module lands in /usr/lib/python3/dist-packages).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME spyre-sim)
set(CPACK_PACKAGE_VENDOR "spyre-sim")
set(CPACK_PACKAGE_CONTACT "spyre-sim developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Cycle-approximate simulator of the IBM Spyre accelerator, with its compiler")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # libsystemc and the C++ runtime, from the binary's links
set(CPACK_DEBIAN_PACKAGE_DEPENDS "nlohmann-json3-dev, libyaml-cpp-dev, libsystemc-dev, libopenblas-dev, pkg-config")  # for find_package users
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-numpy")
include(CPack)
