# `cmake --install BUILD --prefix P`: the two libraries, their headers under P/include/nanotrn (included as
# "neuron/isa/builder.h", as inside this tree), the nanotrn executable, and the CMake package that
# find_package(nanotrn) reads (P/lib/cmake/nanotrn). examples/custom_kernel builds against it; the test
# install.custom_kernel installs, configures, builds and runs it.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS nanotrn_neuron nanotrn_core EXPORT nanotrnTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
if(TARGET nanotrn)
  install(TARGETS nanotrn RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
# Every header of src/ but the CLI's (the .inc files are data the .cpp files embed).
install(DIRECTORY ${CMAKE_SOURCE_DIR}/src/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/nanotrn FILES_MATCHING
        PATTERN "*.h" PATTERN "cli" EXCLUDE)
install(EXPORT nanotrnTargets NAMESPACE nanotrn:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/nanotrn)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/nanotrnConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/nanotrnConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/nanotrn)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/nanotrnConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/nanotrnConfig.cmake ${CMAKE_BINARY_DIR}/nanotrnConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/nanotrn)
