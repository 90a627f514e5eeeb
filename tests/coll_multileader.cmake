# SPDX-License-Identifier: BSD-3-Clause
# The multi-leader schedules (coll_multileader.c), called directly
# (test_coll_multileader.c): bcast, reduce, allreduce and allgather against
# MPI's own calls and computed values on emulated nodes: two nodes of 4,
# uneven nodes (3 and 5), cyclic placement, three nodes of 2, 3 and 1 (one
# slice), one node (its level-0 groups: 4 cores of one package, each its own
# group; or 2 packages of 2); --pieces: the slices the layout must give (the smallest
# node's size); --cross: the ring, recursive doubling or Rabenseifner's
# across the nodes.
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
# a level's own allreduces (recursive doubling, Rabenseifner's, the ring),
# alone: 1 to 8 members (4 to 6 under MPICH)
add_executable(test_level_allreduce mpi/test_level_allreduce.c)
target_include_directories(test_level_allreduce PRIVATE ${PROJECT_SOURCE_DIR}/c/src)
target_compile_options(test_level_allreduce PRIVATE ${HSPLIT_WARNINGS})
target_link_libraries(test_level_allreduce PRIVATE hsplit_static)
if(HSPLIT_TEST_FULL_LAYOUTS)
  set(level_allreduce_np 8)
else()
  set(level_allreduce_np 6)
endif()
hsplit_mpi_test(level_allreduce ${level_allreduce_np} COMMAND $<TARGET_FILE:test_level_allreduce>
                LABELS "coll;multileader")
if(HSPLIT_VALGRIND AND HSPLIT_MPI_FLAVOR STREQUAL "openmpi")
  # the fold and the halving's buffers: 1 to 5 members
  hsplit_mpi_test(valgrind_level_allreduce 5 COMMAND ${VG} $<TARGET_FILE:test_level_allreduce>
                  LABELS "coll;multileader;valgrind")
  set_tests_properties(valgrind_level_allreduce PROPERTIES TIMEOUT 900)
endif()
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
  hsplit_mpi_test(coll_ml_cross_rab 7 ENV ${ML_TOPO} HSPLIT_NODES=0,0,1,1,1,2,2
                  COMMAND ${ML_EXE} --pieces 2 --cross rab LABELS "coll;multileader")
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

# The multi-leader allreduce and bcast over several levels (coll_ml_levels.c,
# --levels; the bcast from every root, so along every path through the
# stages), its stages (--stages) written by hand from each layout:
# - 2 nodes of 2 packages of 2 cores: mlall cuts in the packages (2 slices),
#   then in the nodes among the carriers of one slice (2 more), and 4 sets
#   of carriers cross the top; mlnet cuts in the nodes (4 slices) only;
# - uneven nodes of 3 and 5 processes on 2 packages of 4 cores: node 0's 3
#   processes all lie in package 0 (each its own group on that level), node
#   1's in package 0 (4) and 1 (1): the smallest group there has one process,
#   so the packages' stage reduces to one carrier each (ranks 0, 1, 2, 3, 7),
#   which then cut in 2 per node (0, 1, 2 and 3, 7);
# - 8 nodes of one process under three_level.conf's switches: the edge
#   switches (2, 2, 3 and 1 nodes: 1 slice), then the two aggregation
#   switches among ranks 0, 2, 4 and 7 (2 slices).
if(HSPLIT_TEST_FULL_LAYOUTS)
  set(ML_EVEN "HSPLIT_TOPOLOGY=pack:2 core:2 pu:1" HSPLIT_NODES=4)
  set(ML_UNEVEN "HSPLIT_TOPOLOGY=pack:2 core:4 pu:1" HSPLIT_NODES=0,0,0,1,1,1,1,1)
  hsplit_mpi_test(coll_ml_levels_even_all 8 ENV ${ML_EVEN}
                  COMMAND ${ML_EXE} --levels all --stages "2:0,1|2,3|4,5|6,7/2:0,2|4,6|1,3|5,7/0,4|2,6|1,5|3,7"
                  LABELS "coll;multileader")
  hsplit_mpi_test(coll_ml_levels_even_net 8 ENV ${ML_EVEN}
                  COMMAND ${ML_EXE} --levels net --cross ring --stages "4:0,1,2,3|4,5,6,7/0,4|1,5|2,6|3,7"
                  LABELS "coll;multileader")
  hsplit_mpi_test(coll_ml_levels_uneven_all 8 ENV ${ML_UNEVEN}
                  COMMAND ${ML_EXE} --levels all --cross rd --stages "1:0|1|2|3,4,5,6|7/2:0,1,2|3,7/0,3|1,7"
                  LABELS "coll;multileader")
  hsplit_mpi_test(coll_ml_levels_uneven_net 8 ENV ${ML_UNEVEN}
                  COMMAND ${ML_EXE} --levels net --stages "3:0,1,2|3,4,5,6,7/0,3|1,4|2,5"
                  LABELS "coll;multileader")
  hsplit_mpi_test(coll_ml_levels_network 8 ENV "HSPLIT_TOPOLOGY=core:2 pu:1" HSPLIT_NODES=1
                  HSPLIT_NETWORK=${PROJECT_SOURCE_DIR}/tests/network/three_level.conf
                  COMMAND ${ML_EXE} --levels net --cross rd --stages "1:0,1|2,3|4,5,6|7/2:0,2|4,7/0,4|2,7"
                  LABELS "coll;multileader;network")
else() # MPICH: 2 nodes of 2 processes (one package each: the nodes only)
  hsplit_mpi_test(coll_ml_levels_small 4 ENV "HSPLIT_TOPOLOGY=pack:2 core:2 pu:1" HSPLIT_NODES=2
                  COMMAND ${ML_EXE} --light --levels all --stages "2:0,1|2,3/0,2|1,3"
                  LABELS "coll;multileader")
endif()
if(HSPLIT_VALGRIND AND HSPLIT_MPI_FLAVOR STREQUAL "openmpi")
  hsplit_mpi_test(valgrind_coll_ml_levels 4 ENV "HSPLIT_TOPOLOGY=pack:2 core:2 pu:1"
                  HSPLIT_NODES=2 COMMAND ${VG} ${ML_EXE} --light --levels all
                  LABELS "coll;multileader;valgrind")
  set_tests_properties(valgrind_coll_ml_levels PROPERTIES TIMEOUT 900)
endif()
