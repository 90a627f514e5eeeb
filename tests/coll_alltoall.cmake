# SPDX-License-Identifier: BSD-3-Clause
# HSPLIT_Alltoall and HSPLIT_Alltoallv against MPI's own (test_coll_alltoall.c
# says what is covered) on the layouts a hierarchy must handle, in auto and
# off mode, and their errors. MPICH busy-polls when oversubscribed: fewer
# processes and --light there.
add_executable(test_coll_alltoall mpi/test_coll_alltoall.c)
target_compile_options(test_coll_alltoall PRIVATE ${HSPLIT_WARNINGS})
target_link_libraries(test_coll_alltoall PRIVATE hsplit::hsplit)
set(A2A_EXE $<TARGET_FILE:test_coll_alltoall>)
if(HSPLIT_TEST_FULL_LAYOUTS)
  set(A2A_ARGS)
  set(A2A_51 32 --light)                 # the paper's 4 nodes x 8 cores (HSPLIT_NODES=8)
  set(A2A_UNEVEN 9 0,0,0,1,1,2,2,2,2)
  set(A2A_CYCLIC 9)
  set(A2A_AUTO 9 cyclic:3)
else()
  set(A2A_ARGS --light)
  set(A2A_51 10 --light)                 # a full node of 8 and one of 2
  set(A2A_UNEVEN 6 0,0,0,1,2,2)
  set(A2A_CYCLIC 6)
  set(A2A_AUTO 6 cyclic:2)
endif()
# one node of the figure-1 machine: worlds of 1 and 2 processes
hsplit_mpi_test(coll_alltoall_world_1 1 ENV ${COLL_ENV} COMMAND ${A2A_EXE} ${A2A_ARGS}
                LABELS coll)
hsplit_mpi_test(coll_alltoall_world_2 2 ENV ${COLL_ENV} COMMAND ${A2A_EXE} ${A2A_ARGS}
                LABELS coll)
list(GET A2A_51 0 np)
list(GET A2A_51 1 args)
hsplit_mpi_test(coll_alltoall_paper_51 ${np} ENV ${COLL_ENV} HSPLIT_NODES=8
                COMMAND ${A2A_EXE} ${args} LABELS coll)
list(GET A2A_UNEVEN 0 np)
list(GET A2A_UNEVEN 1 nodes)
hsplit_mpi_test(coll_alltoall_uneven ${np} ENV ${COLL_ENV} HSPLIT_NODES=${nodes}
                COMMAND ${A2A_EXE} ${A2A_ARGS} LABELS coll)
hsplit_mpi_test(coll_alltoall_cyclic ${A2A_CYCLIC} ENV ${COLL_ENV} HSPLIT_NODES=cyclic:3
                COMMAND ${A2A_EXE} ${A2A_ARGS} LABELS coll)
if(HSPLIT_TEST_FULL_LAYOUTS)
  hsplit_mpi_test(coll_alltoall_paper_52 8 ENV ${COLL_ENV} "HSPLIT_BIND=${HSPLIT_PAPER52_BIND}"
                  COMMAND ${A2A_EXE} ${A2A_ARGS} LABELS coll)
endif()
# auto mode: calls alternate between both paths until measured, one trial each
list(GET A2A_AUTO 0 np)
list(GET A2A_AUTO 1 nodes)
hsplit_mpi_test(coll_alltoall_auto ${np} ENV ${FIG1_ENV} HSPLIT_NODES=${nodes}
                HSPLIT_COLL_TRIALS=1 COMMAND ${A2A_EXE} --light LABELS coll)
# plain MPI throughout (the fast path and the full one)
hsplit_mpi_test(coll_alltoall_off ${np} ENV ${FIG1_ENV} HSPLIT_NODES=${nodes} HSPLIT_COLL=off
                COMMAND ${A2A_EXE} --light LABELS coll)
# errors: on the hierarchy (3 processes on 2 nodes: a leader with a member,
# a leader alone) and on plain MPI
hsplit_mpi_test(coll_alltoall_errors 3 ENV ${COLL_ENV} HSPLIT_NODES=0,0,1
                COMMAND ${A2A_EXE} --errors LABELS coll)
hsplit_mpi_test(coll_alltoall_errors_off 3 ENV ${FIG1_ENV} HSPLIT_COLL=off HSPLIT_NODES=0,0,1
                COMMAND ${A2A_EXE} --errors LABELS coll)
set_tests_properties(coll_alltoall_world_1 coll_alltoall_world_2 coll_alltoall_paper_51
                     coll_alltoall_uneven coll_alltoall_cyclic coll_alltoall_auto
                     coll_alltoall_off coll_alltoall_errors coll_alltoall_errors_off
                     PROPERTIES TIMEOUT 300)
if(HSPLIT_TEST_FULL_LAYOUTS)
  set_tests_properties(coll_alltoall_paper_52 PROPERTIES TIMEOUT 300)
endif()
# memcheck on uneven nodes (Open MPI)
if(HSPLIT_VALGRIND AND HSPLIT_MPI_FLAVOR STREQUAL "openmpi")
  hsplit_mpi_test(valgrind_coll_alltoall 5 ENV ${COLL_ENV} HSPLIT_NODES=0,0,0,1,1
                  COMMAND ${VG} ${A2A_EXE} --light LABELS coll valgrind)
endif()
