# SPDX-License-Identifier: BSD-3-Clause
# The multi-leader schedules (coll_multileader.c), called directly
# (test_coll_multileader.c): bcast, reduce, allreduce and allgather against
# MPI's own calls and computed values on emulated nodes: two nodes of 4,
# uneven nodes (3 and 5), cyclic placement, three nodes of 2, 3 and 1 (one
# slice), one node (its level-0 groups: 4 cores of one package, each its own
# group; or 2 packages of 2); --pieces: the slices the layout must give (the smallest
# node's size); --cross: the ring or recursive doubling across the nodes.
# MPICH busy-polls when oversubscribed: three layouts of at most 6 processes
# there.
add_executable(test_coll_multileader mpi/test_coll_multileader.c)
target_include_directories(test_coll_multileader PRIVATE ${PROJECT_SOURCE_DIR}/c/src)
target_compile_options(test_coll_multileader PRIVATE ${HSPLIT_WARNINGS})
target_link_libraries(test_coll_multileader PRIVATE hsplit_static)
set(ML_EXE $<TARGET_FILE:test_coll_multileader>)
# the groups' allgather from 128 KiB (neighbour exchange), alone: 1 to 4
# pairs of members
add_executable(test_level_allgatherv_nx mpi/test_level_allgatherv_nx.c)
target_include_directories(test_level_allgatherv_nx PRIVATE ${PROJECT_SOURCE_DIR}/c/src)
target_compile_options(test_level_allgatherv_nx PRIVATE ${HSPLIT_WARNINGS})
target_link_libraries(test_level_allgatherv_nx PRIVATE hsplit_static)
hsplit_mpi_test(level_allgatherv_nx 8 COMMAND $<TARGET_FILE:test_level_allgatherv_nx>
                LABELS "coll;multileader")
set(ML_TOPO "HSPLIT_TOPOLOGY=pack:2 core:4 pu:1")
if(HSPLIT_TEST_FULL_LAYOUTS)
  hsplit_mpi_test(coll_ml_nodes_2x4 8 ENV ${ML_TOPO} HSPLIT_NODES=4
                  COMMAND ${ML_EXE} --pieces 4 LABELS "coll;multileader")
  hsplit_mpi_test(coll_ml_uneven 8 ENV ${ML_TOPO} HSPLIT_NODES=0,0,0,1,1,1,1,1
                  COMMAND ${ML_EXE} --pieces 3 LABELS "coll;multileader")
  hsplit_mpi_test(coll_ml_cyclic 8 ENV ${ML_TOPO} HSPLIT_NODES=cyclic:2
                  COMMAND ${ML_EXE} --pieces 4 LABELS "coll;multileader")
  hsplit_mpi_test(coll_ml_three_nodes 6 ENV ${ML_TOPO} HSPLIT_NODES=0,0,1,1,1,2
                  COMMAND ${ML_EXE} --pieces 1 LABELS "coll;multileader")
  hsplit_mpi_test(coll_ml_one_node 4 ENV ${ML_TOPO} HSPLIT_NODES=4
                  COMMAND ${ML_EXE} --pieces 1 LABELS "coll;multileader")
  hsplit_mpi_test(coll_ml_one_node_packages 4 ENV "HSPLIT_TOPOLOGY=pack:2 core:2 pu:1"
                  HSPLIT_NODES=4 COMMAND ${ML_EXE} --pieces 2 LABELS "coll;multileader")
  # the step across the nodes by the ring and by recursive doubling, on 3
  # nodes (not a power of two) of uneven sizes
  hsplit_mpi_test(coll_ml_cross_ring 7 ENV ${ML_TOPO} HSPLIT_NODES=0,0,1,1,1,2,2
                  COMMAND ${ML_EXE} --pieces 2 --cross ring LABELS "coll;multileader")
  hsplit_mpi_test(coll_ml_cross_rd 7 ENV ${ML_TOPO} HSPLIT_NODES=0,0,1,1,1,2,2
                  COMMAND ${ML_EXE} --pieces 2 --cross rd LABELS "coll;multileader")
  if(HSPLIT_VALGRIND)
    # two slices, nodes that are no ranges of ranks
    hsplit_mpi_test(valgrind_coll_ml 4 ENV ${ML_TOPO} HSPLIT_NODES=cyclic:2
                    COMMAND ${VG} ${ML_EXE} --light --pieces 2 LABELS "coll;multileader;valgrind")
    set_tests_properties(valgrind_coll_ml PROPERTIES TIMEOUT 900)
  endif()
else()
  hsplit_mpi_test(coll_ml_uneven 6 ENV ${ML_TOPO} HSPLIT_NODES=0,0,1,1,1,1
                  COMMAND ${ML_EXE} --light --pieces 2 LABELS "coll;multileader")
  hsplit_mpi_test(coll_ml_cyclic 4 ENV ${ML_TOPO} HSPLIT_NODES=cyclic:2
                  COMMAND ${ML_EXE} --light --pieces 2 LABELS "coll;multileader")
  hsplit_mpi_test(coll_ml_cross_ring 5 ENV ${ML_TOPO} HSPLIT_NODES=0,0,1,1,2
                  COMMAND ${ML_EXE} --light --pieces 1 --cross ring LABELS "coll;multileader")
endif()
