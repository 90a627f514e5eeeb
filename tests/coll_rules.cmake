# SPDX-License-Identifier: BSD-3-Clause
# HSPLIT_COLL_RULES: the rules file that fixes auto mode's choice without
# measuring (user guide, section 8.5). The parser alone (no MPI), the rules
# in the collectives (2 emulated nodes), and scripts/coll-rules on a
# hand-made CSV fixture.
add_executable(test_coll_rules_parser unit/test_coll_rules.c
               ${PROJECT_SOURCE_DIR}/c/src/coll_rules.c ${PROJECT_SOURCE_DIR}/c/src/coll_schedule.c
               ${PROJECT_SOURCE_DIR}/c/src/topology_conf.c ${PROJECT_SOURCE_DIR}/c/src/hostlist.c)
target_include_directories(test_coll_rules_parser PRIVATE ${PROJECT_SOURCE_DIR}/c/src)
target_compile_options(test_coll_rules_parser PRIVATE ${HSPLIT_WARNINGS})
add_test(NAME unit_coll_rules COMMAND test_coll_rules_parser
         ${CMAKE_CURRENT_SOURCE_DIR}/scripts/coll_rules_expected.txt)
set_tests_properties(unit_coll_rules PROPERTIES LABELS "unit;coll" TIMEOUT 120)

# the paths the rules force, seen in the segment's counters and the calls
# the hierarchy served; bad, missing and different files (not under SMPI:
# the test reads the node segment)
if(NOT HSPLIT_SMPI)
  add_executable(test_coll_rules mpi/test_coll_rules.c)
  target_include_directories(test_coll_rules PRIVATE ${PROJECT_SOURCE_DIR}/c/src)
  target_compile_options(test_coll_rules PRIVATE ${HSPLIT_WARNINGS})
  target_link_libraries(test_coll_rules PRIVATE hsplit_static)
  hsplit_mpi_test(coll_rules 4 ENV ${FIG1_ENV} HSPLIT_NODES=2
                  COMMAND $<TARGET_FILE:test_coll_rules> LABELS coll)
  hsplit_mpi_test(coll_rules_env 4 ENV ${FIG1_ENV} HSPLIT_NODES=2
                  HSPLIT_COLL_RULES=${CMAKE_CURRENT_SOURCE_DIR}/mpi/coll_rules_env.txt
                  COMMAND $<TARGET_FILE:test_coll_rules> env LABELS coll)
endif()

if(HSPLIT_VALGRIND)
  add_test(NAME valgrind_unit_coll_rules COMMAND ${VG} $<TARGET_FILE:test_coll_rules_parser>)
  set_tests_properties(valgrind_unit_coll_rules PROPERTIES LABELS "unit;coll;valgrind"
                       TIMEOUT 600)
  if(NOT HSPLIT_SMPI AND HSPLIT_MPI_FLAVOR STREQUAL "openmpi")
    hsplit_mpi_test(valgrind_coll_rules 4 ENV ${FIG1_ENV} HSPLIT_NODES=2
                    COMMAND ${VG} $<TARGET_FILE:test_coll_rules> LABELS coll valgrind)
    set_tests_properties(valgrind_coll_rules PROPERTIES TIMEOUT 900)
  endif()
endif()

# scripts/coll-rules on a hand-made sweep: the exact file expected
if(Python3_Interpreter_FOUND)
  add_test(NAME coll_rules_script
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/scripts/test_coll_rules.py
                   ${PROJECT_SOURCE_DIR}/scripts/coll-rules ${CMAKE_CURRENT_SOURCE_DIR}/scripts)
  set_tests_properties(coll_rules_script PROPERTIES LABELS "coll;scripts" TIMEOUT 60)
endif()
