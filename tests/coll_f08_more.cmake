# SPDX-License-Identifier: BSD-3-Clause
# The binding of the vector, all-to-all, reduce-scatter and scan collectives
# (hsplit_f08): each against mpi_f08's own and the values the test computes,
# INTEGER and REAL(8), every root, MPI_IN_PLACE, non-contiguous sections, a
# non-commutative Fortran operation, a negative count (MPI_ERR_COUNT).
# HSPLIT_COLL=on: through the hierarchy; 2 nodes of 4 processes in blocks,
# and 3 nodes in a cyclic layout (a node's processes not consecutive: rank
# order of the scans and of the non-commutative reductions across nodes).
# MPICH, slow oversubscribed (tens of ms a collective): --light, 3 roots and
# REAL(8) on MPI_COMM_WORLD only.
if(HSPLIT_WITH_FORTRAN)
  if(HSPLIT_TEST_FULL_LAYOUTS)
    set(F08_MORE_ARGS)
  else()
    set(F08_MORE_ARGS --light)
  endif()
  add_executable(test_f08_coll_more fortran/test_f08_coll_more.f90 fortran/coll_more_util.f90
                 fortran/coll_more_types.F90)
  target_compile_options(test_f08_coll_more PRIVATE ${F08_TEST_FLAGS})
  target_link_libraries(test_f08_coll_more PRIVATE test_util_f08)
  hsplit_mpi_test(f08_coll_more 8 ENV ${COLL_ENV} HSPLIT_NODES=4
                  COMMAND $<TARGET_FILE:test_f08_coll_more> ${F08_MORE_ARGS}
                  LABELS "coll;fortran")
  hsplit_mpi_test(f08_coll_more_cyclic 6 ENV ${COLL_ENV} HSPLIT_NODES=cyclic:3
                  COMMAND $<TARGET_FILE:test_f08_coll_more> ${F08_MORE_ARGS}
                  LABELS "coll;fortran")
  # the interfaces are mpi_f08's: compiled against MPICH's specific procedures
  # (Open MPI's, with gfortran, take DIMENSION(*) buffers: nothing to compare)
  if(HSPLIT_MPI_FLAVOR STREQUAL "mpich" AND CMAKE_Fortran_COMPILER_ID STREQUAL "GNU")
    add_test(NAME f08_coll_interfaces_as_mpich
             COMMAND ${MPI_Fortran_COMPILER} -std=f2018 -fsyntax-only
                     -I${PROJECT_BINARY_DIR}/fortran/modules
                     ${CMAKE_CURRENT_SOURCE_DIR}/fortran/f08_interfaces_as_mpich.f90)
    set_tests_properties(f08_coll_interfaces_as_mpich PROPERTIES LABELS "coll;fortran"
                         TIMEOUT 60)
  endif()
endif()
