# SPDX-License-Identifier: BSD-3-Clause
# libhsplit_pmpi and Fortran programs: three unmodified programs (mpif.h,
# `use mpi`, `use mpi_f08`; MPI_ calls only) run with the library preloaded,
# where the report must show that the library took every call (Open MPI's
# Fortran bindings bypass the C MPI_ functions: c/pmpi/pmpi_fortran_ompi.c;
# MPICH's mpi_f08 barrier, split type and finalize too:
# pmpi_fortran_mpich.c), and without it, where the same checks pass (they
# hold for the MPI's own collectives). Not under SMPI (no library there).
if(HSPLIT_WITH_FORTRAN AND TARGET hsplit_pmpi AND NOT HSPLIT_SMPI)
  # mpif.h is not Fortran 2018: Open MPI's declares COMMON blocks
  # (obsolescent), MPICH's INTEGER*8 (an extension): no -std there; and its
  # hundreds of PARAMETERs, unused, would each warn under -Wextra.
  set(PMPI_MPIFH_FLAGS ${HSPLIT_FORTRAN_FLAGS})
  list(REMOVE_ITEM PMPI_MPIFH_FLAGS -std=f2018)
  if(CMAKE_Fortran_COMPILER_ID STREQUAL "GNU")
    list(APPEND PMPI_MPIFH_FLAGS -Wno-unused-parameter)
  endif()
  set(PMPI_FORTRAN_ENV HSPLIT_COLL=on HSPLIT_NODES=2 "HSPLIT_TOPOLOGY=pack:2 core:2 pu:1"
      HSPLIT_PMPI_REPORT=1)
  foreach(binding mpifh use_mpi use_mpi_f08)
    set(exe test_pmpi_fortran_${binding})
    add_executable(${exe} pmpi/fortran_${binding}.f90)
    # the body all three include
    target_include_directories(${exe} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/pmpi)
    set_target_properties(${exe} PROPERTIES
                          Fortran_MODULE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/pmpi_fortran_${binding})
    if(binding STREQUAL "mpifh")
      target_compile_options(${exe} PRIVATE ${PMPI_MPIFH_FLAGS})
    else()
      target_compile_options(${exe} PRIVATE ${HSPLIT_FORTRAN_FLAGS})
    endif()
    # no hsplit: the MPI's Fortran library only
    target_link_libraries(${exe} PRIVATE MPI::MPI_Fortran)

    # (a) preloaded: the results and the report
    add_test(NAME pmpi_fortran_${binding}
             COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/pmpi/fortran_check.sh ${HSPLIT_MPI_FLAVOR}
                     $<TARGET_FILE:hsplit_pmpi> 4 $<TARGET_FILE:${exe}>
                     ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 4 ${HSPLIT_MPIEXEC_FLAGS}
                     ${MPIEXEC_PREFLAGS})
    set_tests_properties(pmpi_fortran_${binding} PROPERTIES
                         ENVIRONMENT "${HSPLIT_TEST_ENV};${PMPI_FORTRAN_ENV}"
                         TIMEOUT 120 LABELS "mpi;pmpi;fortran")
    # (b) not preloaded: the program's checks hold for the MPI's collectives
    hsplit_mpi_test(pmpi_fortran_${binding}_unpreloaded 4 ENV ${PMPI_FORTRAN_ENV}
                    COMMAND $<TARGET_FILE:${exe}> LABELS "pmpi;fortran")
    set_tests_properties(pmpi_fortran_${binding}_unpreloaded PROPERTIES TIMEOUT 120)
  endforeach()
endif()
