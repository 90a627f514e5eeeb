# SPDX-License-Identifier: BSD-3-Clause
# HSPLIT_Reduce_scatter_block, HSPLIT_Reduce_scatter, HSPLIT_Scan and
# HSPLIT_Exscan against MPI's own and against results computed from the
# inputs (test_coll_scan.c): one and two processes, the paper's 4 x 8 cluster,
# uneven nodes, nodes not in rank order (plain MPI for the scans and for
# non-commutative reduce-scatters), the non-uniform binding of paper 5.2,
# auto mode's measured choice, the plain path, and the erroneous arguments.
# MPICH busy-polls when oversubscribed: fewer processes and --light there.
add_executable(test_coll_scan mpi/test_coll_scan.c)
target_compile_options(test_coll_scan PRIVATE ${HSPLIT_WARNINGS})
target_link_libraries(test_coll_scan PRIVATE hsplit::hsplit)
set(SCAN_EXE $<TARGET_FILE:test_coll_scan>)
if(HSPLIT_TEST_FULL_LAYOUTS)
  set(SCAN_51 32 8)
  set(SCAN_51_ARGS --light)
  set(SCAN_UNEVEN 9 0,0,0,1,1,2,2,2,2)
  set(SCAN_CYCLIC 9 cyclic:3)
  set(SCAN_ARGS)
else()
  set(SCAN_51 10 8)
  set(SCAN_51_ARGS --minimal)
  set(SCAN_UNEVEN 6 0,0,0,1,2,2)
  set(SCAN_CYCLIC 6 cyclic:3)
  set(SCAN_ARGS --light)
endif()
hsplit_mpi_test(coll_scan_world_1 1 ENV ${COLL_ENV} COMMAND ${SCAN_EXE} LABELS coll)
hsplit_mpi_test(coll_scan_world_2 2 ENV ${COLL_ENV} COMMAND ${SCAN_EXE} LABELS coll)
list(GET SCAN_51 0 np)
list(GET SCAN_51 1 nodes)
hsplit_mpi_test(coll_scan_paper_51 ${np} ENV ${COLL_ENV} HSPLIT_NODES=${nodes}
                COMMAND ${SCAN_EXE} ${SCAN_51_ARGS} LABELS coll)
list(GET SCAN_UNEVEN 0 np)
list(GET SCAN_UNEVEN 1 nodes)
hsplit_mpi_test(coll_scan_uneven ${np} ENV ${COLL_ENV} HSPLIT_NODES=${nodes}
                COMMAND ${SCAN_EXE} ${SCAN_ARGS} LABELS coll)
list(GET SCAN_CYCLIC 0 np)
list(GET SCAN_CYCLIC 1 nodes)
hsplit_mpi_test(coll_scan_cyclic ${np} ENV ${COLL_ENV} HSPLIT_NODES=${nodes}
                COMMAND ${SCAN_EXE} ${SCAN_ARGS} LABELS coll)
if(HSPLIT_TEST_FULL_LAYOUTS)
  hsplit_mpi_test(coll_scan_paper_52 8 ENV ${COLL_ENV} "HSPLIT_BIND=${HSPLIT_PAPER52_BIND}"
                  COMMAND ${SCAN_EXE} --light LABELS coll)
endif()
# auto mode (HSPLIT_COLL unset): one timed trial of each path per size
# class; then the plain path (two nodes of 3, MPICH 2 of 2)
if(HSPLIT_TEST_FULL_LAYOUTS)
  set(SCAN_SMALL 6 3)
else()
  set(SCAN_SMALL 4 2)
endif()
list(GET SCAN_SMALL 0 np)
list(GET SCAN_SMALL 1 nodes)
hsplit_mpi_test(coll_scan_auto ${np} ENV ${FIG1_ENV} HSPLIT_NODES=${nodes} HSPLIT_COLL_TRIALS=1
                COMMAND ${SCAN_EXE} --light LABELS coll)
hsplit_mpi_test(coll_scan_off ${np} ENV ${FIG1_ENV} HSPLIT_NODES=${nodes} HSPLIT_COLL=off
                COMMAND ${SCAN_EXE} --light LABELS coll)
hsplit_mpi_test(coll_scan_errors 4 ENV ${COLL_ENV} HSPLIT_NODES=2
                COMMAND ${SCAN_EXE} --errors LABELS coll)
# memcheck on uneven nodes (Open MPI)
if(HSPLIT_VALGRIND AND HSPLIT_MPI_FLAVOR STREQUAL "openmpi")
  hsplit_mpi_test(valgrind_coll_scan 5 ENV ${COLL_ENV} HSPLIT_NODES=0,0,0,1,1
                  COMMAND ${VG} ${SCAN_EXE} --light LABELS coll valgrind)
endif()
