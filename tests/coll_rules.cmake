# SPDX-License-Identifier: BSD-3-Clause
# HSPLIT_COLL_RULES: the rules file that fixes auto mode's choice without
# measuring (user guide, section 8.5). The parser alone (no MPI), the rules
# in the collectives (2 emulated nodes), and scripts/coll-rules on a
# hand-made CSV fixture.
add_executable(test_coll_rules unit/test_coll_rules.c ${PROJECT_SOURCE_DIR}/c/src/coll_rules.c
               ${PROJECT_SOURCE_DIR}/c/src/topology_conf.c ${PROJECT_SOURCE_DIR}/c/src/hostlist.c)
target_include_directories(test_coll_rules PRIVATE ${PROJECT_SOURCE_DIR}/c/src)
target_compile_options(test_coll_rules PRIVATE ${HSPLIT_WARNINGS})
add_test(NAME unit_coll_rules COMMAND test_coll_rules)
set_tests_properties(unit_coll_rules PROPERTIES LABELS "unit;coll" TIMEOUT 120)
if(HSPLIT_VALGRIND)
  add_test(NAME valgrind_unit_coll_rules COMMAND ${VG} $<TARGET_FILE:test_coll_rules>)
  set_tests_properties(valgrind_unit_coll_rules PROPERTIES LABELS "unit;coll;valgrind"
                       TIMEOUT 600)
endif()
