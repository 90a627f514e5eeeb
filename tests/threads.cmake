# SPDX-License-Identifier: BSD-3-Clause
# MPI_THREAD_MULTIPLE (test_threads.c): 4 threads per process, each on its own
# duplicate of MPI_COMM_WORLD, make hierarchies in turns and run the
# collectives at once, checked against MPI's own. Skipped (77) where MPI does
# not provide MPI_THREAD_MULTIPLE; a hang is a failure (short timeout).
add_executable(test_threads mpi/test_threads.c)
target_compile_options(test_threads PRIVATE ${HSPLIT_WARNINGS})
target_link_libraries(test_threads PRIVATE hsplit::hsplit Threads::Threads)
set(THREADS_FIG1 "HSPLIT_TOPOLOGY=${HSPLIT_FIG1}")
# two nodes of two processes (levels: Machine, then L2Cache), and one node
# (MPICH's 16 busy-polling threads take turns slowly on few cores: some 45 s
# for 10 creation-heavy iterations on 2 cores, against 2 s with Open MPI;
# fewer iterations there, the same checks)
if(HSPLIT_TEST_FULL_LAYOUTS)
  set(THREADS_ITERATIONS 10)
  set(THREADS_HEAVY_ITERATIONS 10)
else()
  set(THREADS_ITERATIONS 4)
  set(THREADS_HEAVY_ITERATIONS 2)
endif()
hsplit_mpi_test(threads_two_nodes 4 ENV ${THREADS_FIG1} HSPLIT_NODES=2 HSPLIT_COLL=on
                COMMAND $<TARGET_FILE:test_threads> --threads 4 --iterations ${THREADS_ITERATIONS}
                LABELS threads)
hsplit_mpi_test(threads_one_node 4 ENV ${THREADS_FIG1} HSPLIT_COLL=on
                COMMAND $<TARGET_FILE:test_threads> --threads 4 --iterations ${THREADS_ITERATIONS}
                LABELS threads)
# a fresh duplicate, its levels and its collectives' hierarchy every iteration
hsplit_mpi_test(threads_creation_heavy 4 ENV ${THREADS_FIG1} HSPLIT_NODES=2 HSPLIT_COLL=on
                COMMAND $<TARGET_FILE:test_threads> --threads 4
                        --iterations ${THREADS_HEAVY_ITERATIONS} --creation-heavy
                LABELS threads)
set_tests_properties(threads_two_nodes threads_one_node threads_creation_heavy PROPERTIES
                     TIMEOUT 180 SKIP_RETURN_CODE 77)

# The collectives' hierarchy stays bounded (test_levels_bound.c): the
# descent rule and HSPLIT_MAX_LEVELS, then empty bindings (what an invalid
# launcher local rank gave) on every process or on odd ranks, on one node
# and on two: the expected depth, collectives against MPI's own.
add_executable(test_levels_bound mpi/test_levels_bound.c)
target_include_directories(test_levels_bound PRIVATE ${PROJECT_SOURCE_DIR}/c/src)
target_compile_options(test_levels_bound PRIVATE ${HSPLIT_WARNINGS})
target_link_libraries(test_levels_bound PRIVATE hsplit_static)
foreach(case "empty_one_node|all|0|" "empty_two_nodes|all|2|HSPLIT_NODES=2"
             "odd_empty_one_node|odd|2|" "odd_empty_two_nodes|odd|2|HSPLIT_NODES=2")
  string(REPLACE "|" ";" fields "${case}")
  list(GET fields 0 name)
  list(GET fields 1 which)
  list(GET fields 2 depth)
  list(GET fields 3 nodes)
  hsplit_mpi_test(levels_bound_${name} 4 ENV ${THREADS_FIG1} HSPLIT_COLL=on ${nodes}
                  COMMAND $<TARGET_FILE:test_levels_bound> ${which} ${depth} --hsplit-all
                  LABELS threads)
  set_tests_properties(levels_bound_${name} PROPERTIES TIMEOUT 120)
endforeach()
# the communicators a bounded descent keeps or frees (a group that is its own
# roots communicator, the node communicator): none lost, none freed twice
if(HSPLIT_VALGRIND AND HSPLIT_MPI_FLAVOR STREQUAL "openmpi")
  hsplit_mpi_test(valgrind_levels_bound 4 ENV ${THREADS_FIG1} HSPLIT_COLL=on HSPLIT_NODES=2
                  COMMAND ${VG} $<TARGET_FILE:test_levels_bound> odd 2 --hsplit-all
                  LABELS "threads;valgrind")
  set_tests_properties(valgrind_levels_bound PROPERTIES TIMEOUT 300)
endif()
