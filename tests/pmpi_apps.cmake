# SPDX-License-Identifier: BSD-3-Clause
# Real programs, unmodified, under libhsplit_pmpi: LAMMPS (examples/melt),
# HPCC and an mpi4py script, each run without and with the preload on an
# emulated cluster of 2 nodes x 2 processes, by tests/pmpi/apps_run.sh (its
# header says what it asserts). Debian builds lammps, hpcc and python3-mpi4py
# against Open MPI: Open MPI trees only. A program that is not installed
# makes its test skip (exit status 77); scripts/test installs them.
if(NOT TARGET hsplit_pmpi)
  return()
endif()
if(NOT HSPLIT_MPI_FLAVOR STREQUAL "openmpi")
  message(STATUS "hsplit: pmpi_lammps, pmpi_hpcc, pmpi_mpi4py not registered: "
                 "Debian's programs use Open MPI, this tree ${HSPLIT_MPI_FLAVOR}")
  return()
endif()
if(HSPLIT_SANITIZE)
  # an ASan-instrumented library cannot be preloaded into programs built
  # without ASan (the ASan runtime must come first)
  message(STATUS "hsplit: pmpi_lammps, pmpi_hpcc, pmpi_mpi4py not registered under HSPLIT_SANITIZE")
  return()
endif()

foreach(app lammps hpcc mpi4py)
  add_test(NAME pmpi_${app}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/pmpi/apps_run.sh ${app} $<TARGET_FILE:hsplit_pmpi>
                   ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 4 ${HSPLIT_MPIEXEC_FLAGS}
                   ${MPIEXEC_PREFLAGS})
  # alone: these programs poll for messages without yielding much, and beside
  # another test's processes on 2 cores HPCC took 53 s instead of 5
  set_tests_properties(pmpi_${app} PROPERTIES ENVIRONMENT "${HSPLIT_TEST_ENV}" TIMEOUT 300
                       SKIP_RETURN_CODE 77 LABELS "mpi;pmpi;apps" RUN_SERIAL TRUE)
endforeach()
