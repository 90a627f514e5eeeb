# SPDX-License-Identifier: BSD-3-Clause
# HSPLIT_Gatherv, HSPLIT_Scatterv and HSPLIT_Allgatherv against MPI's own
# (test_coll_vector: every root up to 8 processes, counts that differ per
# process, displacements out of order with gaps, mixed type maps,
# MPI_IN_PLACE) on the layouts a hierarchy must handle, and their errors.
# MPICH is slow oversubscribed: fewer processes and --light there.
add_executable(test_coll_vector mpi/test_coll_vector.c)
target_compile_options(test_coll_vector PRIVATE ${HSPLIT_WARNINGS})
target_link_libraries(test_coll_vector PRIVATE hsplit::hsplit)
set(VECTOR_EXE $<TARGET_FILE:test_coll_vector>)
if(HSPLIT_TEST_FULL_LAYOUTS)
  set(VECTOR_ARGS)
  set(VECTOR_51 32 --light)
  set(VECTOR_UNEVEN 9 0,0,0,1,1,2,2,2,2)
  set(VECTOR_CYCLIC 9)
else()
  set(VECTOR_ARGS --light)
  set(VECTOR_51 10 --light)
  set(VECTOR_UNEVEN 6 0,0,0,1,2,2)
  set(VECTOR_CYCLIC 6)
endif()
# one node of the figure-1 machine: worlds of 1 and 2 processes
hsplit_mpi_test(coll_vector_world_1 1 ENV ${COLL_ENV} COMMAND ${VECTOR_EXE} LABELS coll)
hsplit_mpi_test(coll_vector_world_2 2 ENV ${COLL_ENV} COMMAND ${VECTOR_EXE} LABELS coll)
# the paper's 4 nodes x 8 cores (Open MPI; MPICH: a full node of 8 and one of 2)
list(POP_FRONT VECTOR_51 np)
hsplit_mpi_test(coll_vector_paper_51 ${np} ENV ${COLL_ENV} HSPLIT_NODES=8
                COMMAND ${VECTOR_EXE} ${VECTOR_51} LABELS coll)
# uneven nodes, nodes not in rank order
list(GET VECTOR_UNEVEN 0 np)
list(GET VECTOR_UNEVEN 1 nodes)
hsplit_mpi_test(coll_vector_uneven ${np} ENV ${COLL_ENV} HSPLIT_NODES=${nodes}
                COMMAND ${VECTOR_EXE} ${VECTOR_ARGS} LABELS coll)
hsplit_mpi_test(coll_vector_cyclic ${VECTOR_CYCLIC} ENV ${COLL_ENV} HSPLIT_NODES=cyclic:3
                COMMAND ${VECTOR_EXE} ${VECTOR_ARGS} LABELS coll)
# non-uniform binding on one node (paper 5.2)
if(HSPLIT_TEST_FULL_LAYOUTS)
  hsplit_mpi_test(coll_vector_paper_52 8 ENV ${COLL_ENV} "HSPLIT_BIND=${HSPLIT_PAPER52_BIND}"
                  COMMAND ${VECTOR_EXE} LABELS coll)
endif()
# 1 KiB pieces: every block of more than 1 KiB travels in several messages
# (the path of subtrees beyond an int of bytes)
hsplit_mpi_test(coll_vector_pieces ${VECTOR_CYCLIC} ENV ${COLL_ENV} HSPLIT_NODES=2
                HSPLIT_COLL_SEGMENT_SIZE=1024 COMMAND ${VECTOR_EXE} --light LABELS coll)
# auto mode (measured choice, one trial of each path) and plain MPI
hsplit_mpi_test(coll_vector_auto ${VECTOR_CYCLIC} ENV ${FIG1_ENV} HSPLIT_NODES=cyclic:2
                HSPLIT_COLL_TRIALS=1 COMMAND ${VECTOR_EXE} --light LABELS coll)
hsplit_mpi_test(coll_vector_off ${VECTOR_CYCLIC} ENV ${FIG1_ENV} HSPLIT_NODES=cyclic:2
                HSPLIT_COLL=off COMMAND ${VECTOR_EXE} --light LABELS coll)
# erroneous arguments: the same class everywhere, no hang (short timeout)
hsplit_mpi_test(coll_vector_errors 4 ENV ${COLL_ENV} HSPLIT_NODES=2
                COMMAND ${VECTOR_EXE} --errors LABELS coll)
set_tests_properties(coll_vector_errors PROPERTIES TIMEOUT 120)
# memcheck on uneven nodes with 1 KiB pieces (Open MPI)
if(HSPLIT_VALGRIND AND HSPLIT_MPI_FLAVOR STREQUAL "openmpi")
  hsplit_mpi_test(valgrind_coll_vector 5 ENV ${COLL_ENV} HSPLIT_NODES=0,0,0,1,1
                  HSPLIT_COLL_SEGMENT_SIZE=1024 COMMAND ${VG} ${VECTOR_EXE} --light
                  LABELS coll valgrind)
endif()
