# SPDX-License-Identifier: BSD-3-Clause
# The collective test matrix (test_coll: every case against MPI's own
# result) with the nodes' parts in shared memory (HSPLIT_COLL_SHM=on) for the
# seven collectives that have them: one node, the paper's 4 x 8 cluster,
# uneven nodes, nodes not in rank order (non-commutative operations take
# plain MPI there), 4 KiB segments (messages in slices); MPICH
# (oversubscribed, slow) on fewer processes. coll_auto (tests/CMakeLists.txt)
# measures shared memory as a third candidate.
if(HSPLIT_SMPI)
  return()
endif()
set(SHM_COLLS --coll barrier,bcast,reduce,allreduce,gather,scatter,allgather)
set(SHM_ENV ${COLL_ENV} HSPLIT_COLL_SHM=on)
if(HSPLIT_TEST_FULL_LAYOUTS)
  set(SHM_CASES "one_node|8|" "paper_51|32|8" "uneven_nodes|9|0,0,0,1,1,2,2,2,2"
                "cyclic_nodes|9|cyclic:3" "world_2|2|")
  set(SHM_ARGS --quick)
else()
  set(SHM_CASES "one_node|4|" "uneven_nodes|5|0,0,0,1,1" "cyclic_nodes|4|cyclic:2")
  set(SHM_ARGS --light)
endif()
foreach(case ${SHM_CASES})
  string(REPLACE "|" ";" fields "${case}")
  list(GET fields 0 name)
  list(GET fields 1 np)
  list(LENGTH fields nfields)
  set(nodes)
  if(nfields GREATER 2)
    list(GET fields 2 n)
    if(n)
      set(nodes HSPLIT_NODES=${n})
    endif()
  endif()
  hsplit_mpi_test(coll_shm_${name} ${np} ENV ${SHM_ENV} ${nodes}
                  COMMAND ${COLL_EXE} ${SHM_ARGS} ${SHM_COLLS} LABELS coll shm)
  set_tests_properties(coll_shm_${name} PROPERTIES TIMEOUT 900)
endforeach()
# slices: a 4 KiB segment per process, so that 1000 doubles go in pieces
hsplit_mpi_test(coll_shm_slices 4 ENV ${SHM_ENV} HSPLIT_NODES=2 HSPLIT_COLL_SHM_BYTES=4096
                COMMAND ${COLL_EXE} ${SHM_ARGS} ${SHM_COLLS} LABELS coll shm)
if(HSPLIT_VALGRIND AND HSPLIT_MPI_FLAVOR STREQUAL "openmpi")
  hsplit_mpi_test(valgrind_coll_shm_matrix 4 ENV ${SHM_ENV} HSPLIT_NODES=2 HSPLIT_COLL_SHM_BYTES=4096
                  COMMAND ${VG} ${COLL_EXE} --light ${SHM_COLLS} LABELS coll shm valgrind)
endif()
# the public collectives really take the segment (=on), never (=off), and
# as a measured candidate (auto, one trial of each path): one node of 4, and
# 2 nodes of 3 (the leaders in between)
add_executable(test_coll_shm_paths mpi/test_coll_shm_paths.c)
target_include_directories(test_coll_shm_paths PRIVATE ${PROJECT_SOURCE_DIR}/c/src)
target_compile_options(test_coll_shm_paths PRIVATE ${HSPLIT_WARNINGS})
target_link_libraries(test_coll_shm_paths PRIVATE hsplit_static)
foreach(layout "one_node|4|" "two_nodes|6|3")
  string(REPLACE "|" ";" fields "${layout}")
  list(GET fields 0 name)
  list(GET fields 1 np)
  list(GET fields 2 n)
  set(nodes)
  if(n)
    set(nodes HSPLIT_NODES=${n})
  endif()
  hsplit_mpi_test(coll_shm_path_on_${name} ${np} ENV ${FIG1_ENV} ${nodes} HSPLIT_COLL=on
                  HSPLIT_COLL_SHM=on COMMAND $<TARGET_FILE:test_coll_shm_paths> on LABELS coll shm)
  hsplit_mpi_test(coll_shm_path_off_${name} ${np} ENV ${FIG1_ENV} ${nodes} HSPLIT_COLL=on
                  HSPLIT_COLL_SHM=off COMMAND $<TARGET_FILE:test_coll_shm_paths> off LABELS coll shm)
  hsplit_mpi_test(coll_shm_path_auto_${name} ${np} ENV ${FIG1_ENV} ${nodes} HSPLIT_COLL_TRIALS=1
                  COMMAND $<TARGET_FILE:test_coll_shm_paths> auto LABELS coll shm)
endforeach()
# a hierarchy of one level (unbound processes on one node): only the
# segment can serve it; auto mode measures it against plain MPI
hsplit_mpi_test(coll_shm_path_on_flat 3 ENV ${FIG1_ENV} HSPLIT_BIND=none HSPLIT_COLL=on
                HSPLIT_COLL_SHM=on COMMAND $<TARGET_FILE:test_coll_shm_paths> on LABELS coll shm)
hsplit_mpi_test(coll_shm_path_auto_flat 2 ENV ${FIG1_ENV} HSPLIT_BIND=none HSPLIT_COLL_TRIALS=1
                HSPLIT_COLL_MIN_PROCS=2 COMMAND $<TARGET_FILE:test_coll_shm_paths> auto
                LABELS coll shm)
hsplit_mpi_test(coll_shm_path_off_flat 3 ENV ${FIG1_ENV} HSPLIT_BIND=none HSPLIT_COLL=on
                HSPLIT_COLL_SHM=off COMMAND $<TARGET_FILE:test_coll_shm_paths> off LABELS coll shm)
# the node's tree (groups of 2): the whole matrix with two-hop small calls
if(HSPLIT_TEST_FULL_LAYOUTS)
  hsplit_mpi_test(coll_shm_tree_matrix 7 ENV ${SHM_ENV} HSPLIT_NODES=0,0,0,0,0,1,1
                  HSPLIT_COLL_SHM_FANOUT=2 COMMAND ${COLL_EXE} --quick ${SHM_COLLS} LABELS coll shm)
else()
  hsplit_mpi_test(coll_shm_tree_matrix 3 ENV ${SHM_ENV} HSPLIT_COLL_SHM_FANOUT=2
                  COMMAND ${COLL_EXE} --light ${SHM_COLLS} LABELS coll shm)
endif()
