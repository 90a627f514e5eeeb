# SPDX-License-Identifier: BSD-3-Clause
# libhsplit_pmpi with the project's own C program that calls MPI_ functions
# only: preloaded, linked before the MPI, switched off, refused, in auto
# mode, beside another PMPI tool, and without the library. Each run checks
# the program's results and what the library's report says.
if(NOT TARGET hsplit_pmpi)
  return()
endif()

add_executable(test_pmpi_settings unit/test_pmpi_settings.c ${PROJECT_SOURCE_DIR}/c/pmpi/pmpi_settings.c)
target_include_directories(test_pmpi_settings PRIVATE ${PROJECT_SOURCE_DIR}/c/pmpi
                           ${PROJECT_SOURCE_DIR}/c/include ${PROJECT_BINARY_DIR}/c/include)
target_compile_definitions(test_pmpi_settings PRIVATE _POSIX_C_SOURCE=200809L)
target_compile_options(test_pmpi_settings PRIVATE ${HSPLIT_WARNINGS})
target_link_libraries(test_pmpi_settings PRIVATE MPI::MPI_C Threads::Threads)
add_test(NAME unit_pmpi_settings COMMAND test_pmpi_settings)
set_tests_properties(unit_pmpi_settings PROPERTIES LABELS "unit;pmpi")

# the program: MPI only (hsplit.h for its split-type constants)
add_executable(pmpi_c_program pmpi/pmpi_c_program.c)
target_include_directories(pmpi_c_program PRIVATE ${PROJECT_SOURCE_DIR}/c/include ${PROJECT_BINARY_DIR}/c/include)
target_compile_options(pmpi_c_program PRIVATE ${HSPLIT_WARNINGS})
target_link_libraries(pmpi_c_program PRIVATE MPI::MPI_C)
# the same program linked with the library before the MPI
add_executable(pmpi_c_program_linked pmpi/pmpi_c_program.c)
target_include_directories(pmpi_c_program_linked PRIVATE ${PROJECT_SOURCE_DIR}/c/include ${PROJECT_BINARY_DIR}/c/include)
target_compile_options(pmpi_c_program_linked PRIVATE ${HSPLIT_WARNINGS})
target_link_libraries(pmpi_c_program_linked PRIVATE hsplit_pmpi MPI::MPI_C)
add_library(pmpi_c_tool SHARED pmpi/pmpi_c_tool.c)
target_compile_options(pmpi_c_tool PRIVATE ${HSPLIT_WARNINGS})
target_link_libraries(pmpi_c_tool PRIVATE MPI::MPI_C)

set(PMPI_CLUSTER HSPLIT_NODES=2 "HSPLIT_TOPOLOGY=pack:2 core:2 pu:1" HSPLIT_PMPI_REPORT=1)
set(PMPI_COLLS bcast,reduce,allreduce,gather,scatter,allgather,barrier,gatherv,scatterv,allgatherv,alltoall,alltoallv,reduce_scatter_block,reduce_scatter,scan,exscan)
set(PMPI_LIB $<TARGET_FILE:hsplit_pmpi>)
# pmpi_c_test(NAME PRELOAD ENV... CHECKS... -- PROGRAM ARGS...)
function(pmpi_c_test name preload)
  cmake_parse_arguments(T "" "" "ENV;CHECKS;COMMAND" ${ARGN})
  add_test(NAME ${name}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/pmpi/pmpi_c_check.sh ${HSPLIT_MPI_FLAVOR}
                   "${HSPLIT_MPIEXEC_LINE}" 4 ${preload} ${T_CHECKS} -- ${T_COMMAND})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${HSPLIT_TEST_ENV};${T_ENV}"
                       TIMEOUT 300 LABELS "mpi;pmpi")
endfunction()

# HSPLIT_COLL=on: every collective call takes the hierarchy; the split types
# hsplit serves (and MPI_COMM_TYPE_SHARED, which goes to the MPI)
pmpi_c_test(pmpi_c_preload ${PMPI_LIB} ENV ${PMPI_CLUSTER} HSPLIT_COLL=on
            CHECKS hierarchy=${PMPI_COLLS} some=comm_split_type balanced
            COMMAND $<TARGET_FILE:pmpi_c_program> --hsplit-split)
pmpi_c_test(pmpi_c_linked none ENV ${PMPI_CLUSTER} HSPLIT_COLL=on
            CHECKS hierarchy=${PMPI_COLLS} some=comm_split_type balanced
            COMMAND $<TARGET_FILE:pmpi_c_program_linked> --hsplit-split)
# auto mode: measured choices, every call counted once
pmpi_c_test(pmpi_c_auto ${PMPI_LIB} ENV ${PMPI_CLUSTER}
            CHECKS balanced COMMAND $<TARGET_FILE:pmpi_c_program> --hsplit-split)
# HSPLIT_COLL=off: the library takes every call, plain MPI serves it
pmpi_c_test(pmpi_c_coll_off ${PMPI_LIB} ENV ${PMPI_CLUSTER} HSPLIT_COLL=off
            CHECKS plain=${PMPI_COLLS} COMMAND $<TARGET_FILE:pmpi_c_program> --hsplit-split)
# HSPLIT_PMPI=off: no interception at all (nor a report)
pmpi_c_test(pmpi_c_pmpi_off ${PMPI_LIB} ENV ${PMPI_CLUSTER} HSPLIT_COLL=on HSPLIT_PMPI=off
            CHECKS no-report COMMAND $<TARGET_FILE:pmpi_c_program>)
# a malformed switch: every intercepted call fails with MPI_ERR_ARG, said once
pmpi_c_test(pmpi_c_refused ${PMPI_LIB} ENV ${PMPI_CLUSTER} HSPLIT_PMPI=yes
            CHECKS no-report "says=HSPLIT_PMPI=\"yes\"" COMMAND $<TARGET_FILE:pmpi_c_program> --refused)
# without the library: the program's own checks hold with the MPI alone
pmpi_c_test(pmpi_c_without none ENV ${PMPI_CLUSTER}
            CHECKS no-report COMMAND $<TARGET_FILE:pmpi_c_program>)
# beside another PMPI tool preloaded after it: hsplit takes the collectives,
# the tool sees the rest and still gets MPI_Finalize
pmpi_c_test(pmpi_c_with_tool "${PMPI_LIB}:$<TARGET_FILE:pmpi_c_tool>" ENV ${PMPI_CLUSTER} HSPLIT_COLL=on
            CHECKS hierarchy=${PMPI_COLLS} "says=pmpi tool: rank 0:" "says=pmpi tool: rank 3:"
            COMMAND $<TARGET_FILE:pmpi_c_program> --hsplit-split)
# memcheck: the linked program with the report (its table is freed by
# MPI_Finalize)
if(HSPLIT_VALGRIND)
  hsplit_mpi_test(valgrind_pmpi_c 4 ENV ${PMPI_CLUSTER} HSPLIT_COLL=on
                  COMMAND ${VG} $<TARGET_FILE:pmpi_c_program_linked> --hsplit-split
                  LABELS pmpi valgrind)
endif()
