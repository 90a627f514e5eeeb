# SPDX-License-Identifier: BSD-3-Clause
# HSPLIT_Comm_split_type as MPI defines MPI_Comm_split_type: MPI_UNDEFINED on
# odd ranks, on rank 0, on all but one process; HW_GUIDED without its key;
# agreed errors; MPI_COMM_SELF; intercommunicators. Block, uneven and cyclic
# layouts of 4-core nodes; a hang is a failure (short timeout).
add_executable(test_split_undefined mpi/test_split_undefined.c)
target_compile_options(test_split_undefined PRIVATE ${HSPLIT_WARNINGS})
target_link_libraries(test_split_undefined PRIVATE hsplit::hsplit)
set(SPLIT_TYPE_TOPOLOGY "HSPLIT_TOPOLOGY=pack:2 l3:1 core:2 pu:1")
foreach(case "block|8|4" "uneven|7|0,0,0,1,1,2,2" "cyclic|8|cyclic:2")
  string(REPLACE "|" ";" fields "${case}")
  list(GET fields 0 name)
  list(GET fields 1 np)
  list(GET fields 2 nodes)
  hsplit_mpi_test(split_undefined_${name} ${np} ENV ${SPLIT_TYPE_TOPOLOGY} HSPLIT_NODES=${nodes}
                  COMMAND $<TARGET_FILE:test_split_undefined> ${nodes} LABELS split)
  set_tests_properties(split_undefined_${name} PROPERTIES TIMEOUT 120)
endforeach()
# node indices at the ends of the int range: the node range and the colours
# in 64 bits (they overflowed: processes of different nodes shared a level)
hsplit_mpi_test(split_nodes_int_max 4 ENV "HSPLIT_TOPOLOGY=pack:2 core:2 pu:1"
                HSPLIT_NODES=0,0,2147483647,2147483647
                COMMAND $<TARGET_FILE:test_split_undefined> 0,0,2147483647,2147483647
                LABELS split)
hsplit_mpi_test(split_nodes_wide_guided 3 ENV "HSPLIT_TOPOLOGY=core:64 pu:1"
                HSPLIT_NODES=0,100,67108864
                COMMAND $<TARGET_FILE:test_split_undefined> 0,100,67108864 wide LABELS split)
set_tests_properties(split_nodes_int_max split_nodes_wide_guided PROPERTIES TIMEOUT 120)
# the same rules from Fortran (hsplit_f08)
if(HSPLIT_WITH_FORTRAN)
  add_executable(test_f08_split_undefined fortran/test_f08_split_undefined.f90)
  target_compile_options(test_f08_split_undefined PRIVATE ${F08_TEST_FLAGS})
  target_link_libraries(test_f08_split_undefined PRIVATE test_util_f08)
  hsplit_mpi_test(f08_split_undefined 8 ENV ${SPLIT_TYPE_TOPOLOGY} HSPLIT_NODES=4
                  COMMAND $<TARGET_FILE:test_f08_split_undefined> LABELS "split;fortran")
  set_tests_properties(f08_split_undefined PROPERTIES TIMEOUT 120)
endif()
# HSPLIT_NODES set on every process but one (the others' real node keys are
# collective): HSPLIT_ERR_NODES on every process, for the splits and the
# first get_min_hlevel, never a hang
hsplit_mpi_test(split_nodes_on_all_but_one 4 ENV "HSPLIT_TOPOLOGY=pack:2 core:2 pu:1"
                COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/network/per_rank_env.sh
                        "HSPLIT_NODES=2|2|2|" -- $<TARGET_FILE:test_env_errors> NODES
                LABELS split)
set_tests_properties(split_nodes_on_all_but_one PROPERTIES TIMEOUT 60)
