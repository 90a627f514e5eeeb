# SPDX-License-Identifier: BSD-3-Clause
# Release hygiene: only the public API leaves libhsplit.so.
find_program(HSPLIT_NM nm)
if(HSPLIT_NM)
  add_test(NAME release_exported_symbols
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/release/check_symbols.sh $<TARGET_FILE:hsplit>
                   ${PROJECT_SOURCE_DIR}/docs/api-reference.md)
  set_tests_properties(release_exported_symbols PROPERTIES LABELS "release;docs")
endif()
# hsplit-info --version: the version of project(VERSION)
add_test(NAME release_info_version COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1
         $<TARGET_FILE:hsplit-info> --version)
set_tests_properties(release_info_version PROPERTIES ENVIRONMENT "${HSPLIT_TEST_ENV}"
                     LABELS "release;mpi" TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "^hsplit-info \\(hsplit\\) ${PROJECT_VERSION}\n")
# the licence: an SPDX line at the top of every source file
add_test(NAME release_spdx_lines
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/release/check_spdx.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(release_spdx_lines PROPERTIES LABELS "release;docs")
# as a subproject (add_subdirectory): the libraries only
add_test(NAME release_subproject
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/install/check_subproject.sh ${PROJECT_SOURCE_DIR}
                 ${MPI_C_COMPILER})
set_tests_properties(release_subproject PROPERTIES LABELS "release;install" TIMEOUT 300)
