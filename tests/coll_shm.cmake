# SPDX-License-Identifier: BSD-3-Clause
# The shared-memory engine of the collectives (coll_shm*.c), called directly
# (test_coll_shm.c): barrier, bcast, reduce, allreduce, gather, scatter and
# allgather in the node segment
# against MPI's own calls on the node communicator and computed values, on one
# node, emulated nodes (blocks, cyclic, uneven), a small segment (slices), a
# node of one process (no segment anywhere), a stress run and memcheck.
# --light: the first and last roots only. MPICH busy-polls when
# oversubscribed: 4 processes at most there.
add_executable(test_coll_shm mpi/test_coll_shm.c)
target_include_directories(test_coll_shm PRIVATE ${PROJECT_SOURCE_DIR}/c/src)
target_compile_options(test_coll_shm PRIVATE ${HSPLIT_WARNINGS})
target_link_libraries(test_coll_shm PRIVATE hsplit_static)
set(SHM_EXE $<TARGET_FILE:test_coll_shm>)
set(SHM_TOPO "HSPLIT_TOPOLOGY=pack:2 core:4 pu:1")
if(HSPLIT_TEST_FULL_LAYOUTS)
  hsplit_mpi_test(coll_shm_one_node_4 4 COMMAND ${SHM_EXE} LABELS "coll;shm")
  hsplit_mpi_test(coll_shm_one_node_8 8 COMMAND ${SHM_EXE} --light LABELS "coll;shm")
  hsplit_mpi_test(coll_shm_nodes_4 8 ENV ${SHM_TOPO} HSPLIT_NODES=4
                  COMMAND ${SHM_EXE} LABELS "coll;shm")
  hsplit_mpi_test(coll_shm_cyclic 8 ENV ${SHM_TOPO} HSPLIT_NODES=cyclic:2
                  COMMAND ${SHM_EXE} --light LABELS "coll;shm")
  hsplit_mpi_test(coll_shm_uneven 8 ENV ${SHM_TOPO} HSPLIT_NODES=0,0,0,1,1,1,1,1
                  COMMAND ${SHM_EXE} LABELS "coll;shm")
  hsplit_mpi_test(coll_shm_small_segment 4 ENV HSPLIT_COLL_SHM_BYTES=4096
                  COMMAND ${SHM_EXE} LABELS "coll;shm")
  hsplit_mpi_test(coll_shm_node_of_one 5 ENV ${SHM_TOPO} HSPLIT_NODES=0,0,1,1,2
                  COMMAND ${SHM_EXE} --expect-null LABELS "coll;shm")
  hsplit_mpi_test(coll_shm_stress 4 ENV HSPLIT_COLL_SHM_BYTES=16384
                  COMMAND ${SHM_EXE} --stress 5 LABELS "coll;shm")
  if(HSPLIT_VALGRIND)
    hsplit_mpi_test(valgrind_coll_shm 3 ENV ${SHM_TOPO} HSPLIT_COLL_SHM_BYTES=16384
                    COMMAND ${VG} ${SHM_EXE} --light LABELS "coll;shm;valgrind")
    set_tests_properties(valgrind_coll_shm PROPERTIES TIMEOUT 900)
  endif()
else()
  hsplit_mpi_test(coll_shm_one_node_4 4 COMMAND ${SHM_EXE} --light LABELS "coll;shm")
  hsplit_mpi_test(coll_shm_nodes_2 4 ENV ${SHM_TOPO} HSPLIT_NODES=2
                  COMMAND ${SHM_EXE} --light LABELS "coll;shm")
  hsplit_mpi_test(coll_shm_small_segment 3 ENV HSPLIT_COLL_SHM_BYTES=4096
                  COMMAND ${SHM_EXE} --light LABELS "coll;shm")
  hsplit_mpi_test(coll_shm_node_of_one 3 ENV ${SHM_TOPO} HSPLIT_NODES=0,0,1
                  COMMAND ${SHM_EXE} --expect-null LABELS "coll;shm")
  hsplit_mpi_test(coll_shm_stress 2 ENV HSPLIT_COLL_SHM_BYTES=16384
                  COMMAND ${SHM_EXE} --stress 2 LABELS "coll;shm")
endif()
# the node's tree (HSPLIT_COLL_SHM_FANOUT): groups of 2 or 3 processes, so
# that small nodes take the two-hop barrier, small bcast and small reductions
if(HSPLIT_TEST_FULL_LAYOUTS)
  hsplit_mpi_test(coll_shm_tree_5 5 ENV HSPLIT_COLL_SHM_FANOUT=2
                  COMMAND ${SHM_EXE} LABELS "coll;shm")
  hsplit_mpi_test(coll_shm_tree_uneven 9 ENV ${SHM_TOPO} HSPLIT_NODES=0,0,0,0,0,0,0,1,1
                  HSPLIT_COLL_SHM_FANOUT=3 COMMAND ${SHM_EXE} --light LABELS "coll;shm")
  hsplit_mpi_test(coll_shm_tree_stress 7 ENV HSPLIT_COLL_SHM_BYTES=16384
                  HSPLIT_COLL_SHM_FANOUT=3 COMMAND ${SHM_EXE} --stress 3 LABELS "coll;shm")
else()
  hsplit_mpi_test(coll_shm_tree_3 3 ENV HSPLIT_COLL_SHM_FANOUT=2
                  COMMAND ${SHM_EXE} --light LABELS "coll;shm")
endif()
