# SPDX-License-Identifier: BSD-3-Clause
# The collectives' settings given as MPI_Info hints (HSPLIT_Comm_set_coll_info):
# with HSPLIT_COLL=off in the environment, on two emulated nodes of two
# processes, hinted communicators take what their hints say (auto mode's
# reports on rank 0's stderr), results match MPI's own under every setting,
# bad hints are MPI_ERR_ARG everywhere, duplicates keep the hints, and the
# variables are read once per communicator (test_coll_settings.c).
add_executable(test_coll_settings mpi/test_coll_settings.c)
target_compile_options(test_coll_settings PRIVATE ${HSPLIT_WARNINGS})
target_link_libraries(test_coll_settings PRIVATE hsplit::hsplit)
hsplit_mpi_test(coll_settings 4 ENV "HSPLIT_TOPOLOGY=pack:2 core:2 pu:1" HSPLIT_NODES=2
                HSPLIT_COLL=off COMMAND $<TARGET_FILE:test_coll_settings> LABELS coll)
# three processes: nodes of two and one
hsplit_mpi_test(coll_settings_3 3 ENV "HSPLIT_TOPOLOGY=pack:2 core:2 pu:1" HSPLIT_NODES=0,0,1
                HSPLIT_COLL=off COMMAND $<TARGET_FILE:test_coll_settings> LABELS coll)
set_tests_properties(coll_settings coll_settings_3 PROPERTIES TIMEOUT 120)
# the binding (hsplit_f08)
if(HSPLIT_WITH_FORTRAN)
  add_executable(test_f08_coll_settings fortran/test_f08_coll_settings.f90)
  target_compile_options(test_f08_coll_settings PRIVATE ${F08_TEST_FLAGS})
  target_link_libraries(test_f08_coll_settings PRIVATE test_util_f08)
  hsplit_mpi_test(f08_coll_settings 4 ENV "HSPLIT_TOPOLOGY=pack:2 core:2 pu:1" HSPLIT_NODES=2
                  HSPLIT_COLL=off COMMAND $<TARGET_FILE:test_f08_coll_settings>
                  LABELS "coll;fortran")
  set_tests_properties(f08_coll_settings PROPERTIES TIMEOUT 120)
endif()
# The settings enumerated (HSPLIT_Coll_setting_*): declared names, defaults,
# strings cut as MPI_Info_get_string cuts them, values by precedence (hint,
# the communicator's own info keys where the MPI keeps them, variable,
# default), errors (test_coll_settings_api.c).
add_executable(test_coll_settings_api mpi/test_coll_settings_api.c)
target_compile_options(test_coll_settings_api PRIVATE ${HSPLIT_WARNINGS})
target_link_libraries(test_coll_settings_api PRIVATE hsplit::hsplit)
hsplit_mpi_test(coll_settings_api 2 ENV HSPLIT_COLL_MIN_PROCS=7 HSPLIT_COLL_SEGMENT_SIZE=
                COMMAND $<TARGET_FILE:test_coll_settings_api> LABELS coll)
set_tests_properties(coll_settings_api PROPERTIES TIMEOUT 120)
# hsplit-info --settings: the table, a malformed value flagged, the CSV form
add_test(NAME info_settings
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/info/check_settings.sh "${HSPLIT_MPIEXEC_LINE}"
                 $<TARGET_FILE:hsplit-info>)
set_tests_properties(info_settings PROPERTIES ENVIRONMENT "${HSPLIT_TEST_ENV}"
                     LABELS "mpi;info" TIMEOUT 120)
