# SPDX-License-Identifier: BSD-3-Clause
# The collective engine (coll_engine.c): its schedules' text and the trees
# of its levels (no MPI), and the collective test matrix (test_coll: every
# case against MPI's own result) for bcast, reduce and allreduce with
# schedules forced by HSPLIT_COLL_SCHEDULE: every level or two, MPI's own
# call, trees of messages, recursive doubling, Rabenseifner's or the ring
# per level,
# virtual groups, small segments (so that the pipeline has many), the
# multi-leader schedules (ml, allgather included; mlall and mlnet, which
# serve the allreduce and the bcast and leave the others to the default
# tree), on the
# layouts a hierarchy must handle.
add_executable(test_coll_schedule unit/test_coll_schedule.c
               ${PROJECT_SOURCE_DIR}/c/src/coll_schedule.c ${PROJECT_SOURCE_DIR}/c/src/coll_tree.c)
target_include_directories(test_coll_schedule PRIVATE ${PROJECT_SOURCE_DIR}/c/src)
target_compile_options(test_coll_schedule PRIVATE ${HSPLIT_WARNINGS})
add_test(NAME unit_coll_schedule COMMAND test_coll_schedule)
set_tests_properties(unit_coll_schedule PROPERTIES LABELS "unit;coll" TIMEOUT 120)

set(ENGINE_COLLS --coll bcast,reduce,allreduce)
set(ENGINE_ENV ${FIG1_ENV} HSPLIT_COLL=on)
if(HSPLIT_TEST_FULL_LAYOUTS)
  # name|processes|nodes|schedule
  set(ENGINE_CASES
      "binomial_paper_51|32|8|all:binomial"
      "chain_binary_uneven|9|0,0,0,1,1,2,2,2,2|all:chain,binary/64"
      "virtual_flat_cyclic|9|cyclic:3|all+v2:flat/16"
      "two_mpi_paper_51|32|8|two:mpi"
      "two_binomial_chain_uneven|9|0,0,0,1,1,2,2,2,2|two:binomial,chain/8"
      "mpi_top_binomial_below|16|8|all:mpi,binomial/32"
      "binomial_top_mpi_below|16|8|all:binomial,mpi"
      "one_node_binary|8||all+v3:binary,chain/24"
      "multileader_uneven|9|0,0,0,1,1,2,2,2,2|ml"
      "multileader_cyclic|9|cyclic:3|ml"
      "ring_uneven|9|0,0,0,1,1,2,2,2,2|all:ring/64"
      "rd_top_ring_below_uneven|9|0,0,0,1,1,2,2,2,2|all:rd,ring"
      "two_ring_mpi_cyclic|9|cyclic:3|two:ring,mpi"
      "two_rd_binomial_paper_51|16|8|two:rd,binomial"
      "rab_top_binomial_below_uneven|9|0,0,0,1,1,2,2,2,2|all:rab,binomial"
      "multileader_rab_cyclic|9|cyclic:3|ml:rab"
      "multileader_rd_uneven|9|0,0,0,1,1,2,2,2,2|ml:rd"
      "multileader_levels_uneven|9|0,0,0,1,1,2,2,2,2|mlall"
      "multileader_net_ring_cyclic|6|cyclic:3|mlnet:ring")
  set(ENGINE_ARGS --quick)
else()
  set(ENGINE_CASES
      "binomial_uneven|5|0,0,0,1,1|all:binomial/16"
      "two_chain_cyclic|4|cyclic:2|two+v2:chain,mpi/8"
      "multileader_uneven|5|0,0,0,1,1|ml"
      "ring_uneven|5|0,0,0,1,1|all:ring/16"
      "rd_ring_cyclic|6|cyclic:3|two:rd,ring"
      "multileader_levels_uneven|5|0,0,0,1,1|mlall:rd"
      "multileader_rab_three_nodes|5|0,0,1,1,2|ml:rab"
      "multileader_rd_cyclic|6|cyclic:3|ml:rd")
  set(ENGINE_ARGS --light)
endif()
foreach(case ${ENGINE_CASES})
  string(REPLACE "|" ";" fields "${case}")
  list(GET fields 0 name)
  list(GET fields 1 np)
  list(GET fields 2 n)
  list(GET fields 3 schedule)
  set(nodes)
  if(n)
    set(nodes HSPLIT_NODES=${n})
  endif()
  set(colls ${ENGINE_COLLS})
  if(schedule STREQUAL "ml") # the multi-leader allgather too
    set(colls --coll bcast,reduce,allreduce,allgather)
  endif()
  hsplit_mpi_test(coll_engine_${name} ${np} ENV ${ENGINE_ENV} ${nodes}
                  HSPLIT_COLL_SCHEDULE=${schedule}
                  COMMAND ${COLL_EXE} ${ENGINE_ARGS} ${colls} LABELS coll engine)
  set_tests_properties(coll_engine_${name} PROPERTIES TIMEOUT 900)
endforeach()
if(HSPLIT_VALGRIND AND HSPLIT_MPI_FLAVOR STREQUAL "openmpi")
  hsplit_mpi_test(valgrind_coll_engine 4 ENV ${ENGINE_ENV} HSPLIT_NODES=2
                  HSPLIT_COLL_SCHEDULE=all+v2:binomial,chain/16
                  COMMAND ${VG} ${COLL_EXE} --light ${ENGINE_COLLS} LABELS coll engine valgrind)
  set_tests_properties(valgrind_coll_engine PROPERTIES TIMEOUT 900)
  # the buffers of recursive doubling (3 nodes: one member out of the
  # power of two) and of the ring (the node of 2)
  hsplit_mpi_test(valgrind_coll_engine_ring 4 ENV ${ENGINE_ENV} HSPLIT_NODES=0,0,1,2
                  HSPLIT_COLL_SCHEDULE=all:rd,ring
                  COMMAND ${VG} ${COLL_EXE} --light --coll reduce,allreduce
                  LABELS coll engine valgrind)
  set_tests_properties(valgrind_coll_engine_ring PROPERTIES TIMEOUT 900)
endif()

# The view of the switch levels and the node as one level (net:), over the
# three switch levels of tests/network/three_level.conf (8 nodes under 4 edge
# switches of 2, 2, 3 and 1 nodes): a ring across the top, binomial trees
# through the switches, MPI's own call in each node. The full layout has
# two levels inside each node (2 packages of 2 cores), which net leaves out.
if(HSPLIT_TEST_FULL_LAYOUTS)
  set(net_np 32)
  set(net_per_node 4)
  set(net_node "pack:2 core:2 pu:1")
else() # one process per node: the switch levels only
  set(net_np 8)
  set(net_per_node 1)
  set(net_node "${TINY_NODE}")
endif()
hsplit_mpi_test(coll_engine_net_network ${net_np} ENV "HSPLIT_TOPOLOGY=${net_node}"
                HSPLIT_NODES=${net_per_node} HSPLIT_NETWORK=${NETWORK_DIR}/three_level.conf
                HSPLIT_COLL=on HSPLIT_COLL_SCHEDULE=net:ring,binomial,binomial,binomial,mpi/64
                COMMAND ${COLL_EXE} --light ${ENGINE_COLLS} LABELS coll engine network)
set_tests_properties(coll_engine_net_network PROPERTIES TIMEOUT 900)
# each process's levels in the net, two and all views on that network,
# written by hand from three_level.conf (test_coll_view.c)
add_executable(test_coll_view mpi/test_coll_view.c)
target_include_directories(test_coll_view PRIVATE ${PROJECT_SOURCE_DIR}/c/src)
target_compile_options(test_coll_view PRIVATE ${HSPLIT_WARNINGS})
target_link_libraries(test_coll_view PRIVATE hsplit_static)
hsplit_mpi_test(coll_engine_views_network 16 ENV "HSPLIT_TOPOLOGY=${TINY_NODE}" HSPLIT_NODES=2
                HSPLIT_NETWORK=${NETWORK_DIR}/three_level.conf
                COMMAND $<TARGET_FILE:test_coll_view> LABELS coll engine network)
