# SPDX-License-Identifier: BSD-3-Clause
# Hostile and oversized inputs: HSPLIT_NETWORK (a Slurm topology.conf), the
# Slurm address variables and HSPLIT_TOPOLOGY. Each is refused quickly, with
# its error class on every process and a string naming the limit at fault
# (constants in c/src/topology_conf.h, hostlist.h and hsplit_internal.h),
# never a hang (a FIFO), a crash (a read past a short pattern), minutes of
# work (a quadratic parse, hwloc on 262,144 PUs) or gigabytes (/dev/zero, a
# sparse file, millions of names). test_input_limits makes the inputs that
# cannot be files of the tree (FIFOs, sparse files, long lines) at run time.
add_executable(test_input_limits mpi/test_input_limits.c)
target_compile_options(test_input_limits PRIVATE ${HSPLIT_WARNINGS})
target_link_libraries(test_input_limits PRIVATE hsplit::hsplit)
set(LIMITS_EXE $<TARGET_FILE:test_input_limits>)
set(LIMITS_NETWORK_ENV "HSPLIT_TOPOLOGY=${TINY_NODE}" HSPLIT_NODES=1)

# short timeouts: a hang or minutes of work fails
function(limits_test name np)
  hsplit_mpi_test(${name} ${np} ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT 60)
endfunction()

# ---- SLURM_TOPOLOGY_ADDR_PATTERN shorter than the address: the pattern's
# value ends just before an inaccessible page (--guard); the matching read
# past its end (a crash) ----
foreach(case "sw|sw" "switch_dot|switch." "switch_sw|switch.sw")
  string(REPLACE "|" ";" fields "${case}")
  list(GET fields 0 name)
  list(GET fields 1 pattern)
  limits_test(network_error_slurm_pattern_short_${name} 2 ENV ${LIMITS_NETWORK_ENV}
              SLURM_TOPOLOGY_ADDR=top.a.node0
              COMMAND ${LIMITS_EXE} --guard SLURM_TOPOLOGY_ADDR_PATTERN=${pattern} NETWORK
                      "SLURM_TOPOLOGY_ADDR \"top.a.node0\" does not match SLURM_TOPOLOGY_ADDR_PATTERN \"${pattern}\""
              LABELS "network;limits")
endforeach()

# ---- HSPLIT_NETWORK: only a regular file, of bounded size, lines and names ----
# a FIFO: open and read blocked for ever
limits_test(network_error_fifo 2 ENV ${LIMITS_NETWORK_ENV}
            COMMAND ${LIMITS_EXE} --fifo HSPLIT_NETWORK NETWORK "hsplit: HSPLIT_NETWORK /tmp/"
                    "cannot read the file (a FIFO: only a regular file is read)"
            LABELS "network;limits")
# /dev/zero: grew to 2 GiB per process
limits_test(network_error_dev_zero 2 ENV ${LIMITS_NETWORK_ENV} HSPLIT_NETWORK=/dev/zero
            COMMAND ${LIMITS_EXE} NETWORK
                    "HSPLIT_NETWORK /dev/zero: cannot read the file (a character device: only a regular file is read)"
            LABELS "network;limits")
# sparse files one byte past HSPLIT_CONF_MAX_BYTES (16 MiB) and of 1 GiB: read
# whole (1 GiB per process) before "not a text file"; now refused unread
limits_test(network_error_file_too_large 2 ENV ${LIMITS_NETWORK_ENV}
            COMMAND ${LIMITS_EXE} --sparse HSPLIT_NETWORK 16777217 NETWORK
                    "the file has 16777217 bytes, more than the 16777216 allowed (the limit HSPLIT_CONF_MAX_BYTES)"
            LABELS "network;limits")
limits_test(network_error_file_1gib 2 ENV ${LIMITS_NETWORK_ENV}
            COMMAND ${LIMITS_EXE} --sparse HSPLIT_NETWORK 1073741824 NETWORK
                    "the file has 1073741824 bytes, more than the 16777216 allowed (the limit HSPLIT_CONF_MAX_BYTES)"
            LABELS "network;limits")
# a line one byte past HSPLIT_CONF_MAX_LINE (64 KiB, its end of line included)
limits_test(network_error_line_too_long 2 ENV ${LIMITS_NETWORK_ENV}
            COMMAND ${LIMITS_EXE} --conf-line HSPLIT_NETWORK 65537 NETWORK "line 2:"
                    "the line has 65537 bytes, more than the 65536 allowed (the limit HSPLIT_CONF_MAX_LINE)"
            LABELS "network;limits")
# (the files are in network/limits/, out of the fuzzers' seeds of network/*.conf:
# their variants expanding 600,000 names each cut the fuzzing to a few runs a second)
# names: the lists of a file together (each within HSPLIT_HOSTLIST_MAX; 20
# lists of 1,000,000 names took 1.2 GiB), one expression, one name's length
limits_test(network_error_names_total 2 ENV ${LIMITS_NETWORK_ENV}
            HSPLIT_NETWORK=${NETWORK_DIR}/limits/limit_names_total.conf
            COMMAND ${LIMITS_EXE} NETWORK "limit_names_total.conf line 4:"
                    "the lists name more than 1000000 nodes and switches (the limit HSPLIT_CONF_MAX_NAMES)"
            LABELS "network;limits")
limits_test(network_error_expression_too_large 2 ENV ${LIMITS_NETWORK_ENV}
            HSPLIT_NETWORK=${NETWORK_DIR}/limits/limit_expression.conf
            COMMAND ${LIMITS_EXE} NETWORK "limit_expression.conf line 2:"
                    "expands to more than 1000000 names (the limit HSPLIT_HOSTLIST_MAX)"
            LABELS "network;limits")
limits_test(network_error_name_too_long 2 ENV ${LIMITS_NETWORK_ENV}
            HSPLIT_NETWORK=${NETWORK_DIR}/limits/limit_name_length.conf
            COMMAND ${LIMITS_EXE} NETWORK "limit_name_length.conf line 2:"
                    "has a name of more than 255 characters (the limit HSPLIT_HOSTLIST_MAX_NAME)"
            LABELS "network;limits")

# ---- HSPLIT_TOPOLOGY: PUs and arity of a synthetic description (checked
# before hwloc builds it), a regular XML file of bounded size ----
# (each process's error string names the limit)
foreach(case "pus_262144|pack:64 core:64 pu:64|HSPLIT_TOPOLOGY_MAX_PUS" # minutes, gigabytes
             "pus_16384|pack:16 core:32 pu:32|HSPLIT_TOPOLOGY_MAX_PUS"  # a second, past it
             "arity|core:2048 pu:1|HSPLIT_TOPOLOGY_MAX_ARITY")          # flat: quadratic
  string(REPLACE "|" ";" fields "${case}")
  list(GET fields 0 name)
  list(GET fields 1 topology)
  list(GET fields 2 limit)
  limits_test(topology_error_${name} 2 ENV "HSPLIT_TOPOLOGY=${topology}"
              COMMAND ${LIMITS_EXE} TOPOLOGY "(the limit ${limit})" LABELS limits)
endforeach()
limits_test(topology_error_fifo 2 COMMAND ${LIMITS_EXE} --fifo HSPLIT_TOPOLOGY TOPOLOGY
            "a FIFO: only a regular file is read" LABELS limits)
# a valid XML file padded with comments one byte past
# HSPLIT_TOPOLOGY_MAX_XML_BYTES (8 MiB)
limits_test(topology_error_xml_too_large 2
            COMMAND ${LIMITS_EXE} --pad-xml HSPLIT_TOPOLOGY
                    ${HSPLIT_TOPOLOGY_DIR}/16em64t-4s2c2t.xml 8388609 TOPOLOGY
                    "(the limit HSPLIT_TOPOLOGY_MAX_XML_BYTES)"
            LABELS limits)
# the loader itself (no MPI): every limit at its boundary with its exact
# message, every XML file of topology/xml still accepted
add_executable(test_input_limits_topology mpi/test_input_limits_topology.c)
target_include_directories(test_input_limits_topology PRIVATE ${PROJECT_SOURCE_DIR}/c/src)
target_compile_options(test_input_limits_topology PRIVATE ${HSPLIT_WARNINGS})
target_link_libraries(test_input_limits_topology PRIVATE hsplit_static)
add_test(NAME topology_limits COMMAND test_input_limits_topology ${HSPLIT_TOPOLOGY_DIR})
set_tests_properties(topology_limits PROPERTIES LABELS "unit;limits" TIMEOUT 60)
# at the limits, through MPI: accepted (8192 PUs, 1024 children; an XML file of 8 MiB)
limits_test(topology_limits_accepted_synthetic 2 ENV "HSPLIT_TOPOLOGY=pack:8 core:1024 pu:1"
            COMMAND ${LIMITS_EXE} OK LABELS limits)
limits_test(topology_limits_accepted_xml 2
            COMMAND ${LIMITS_EXE} --pad-xml HSPLIT_TOPOLOGY
                    ${HSPLIT_TOPOLOGY_DIR}/16em64t-4s2c2t.xml 8388608 OK
            LABELS limits)

# ---- the parsers alone ----
# a topology.conf of 100,000 switches: parsed in well under a second (the
# parse was quadratic: 64 to 106 s); the limits' exact answers and their
# boundaries are in unit/test_topology_conf.c and unit/test_hostlist.c
add_test(NAME unit_topology_conf_100k_switches COMMAND test_topology_conf --switches 100000)
set_tests_properties(unit_topology_conf_100k_switches PROPERTIES LABELS "unit;network;limits"
                     TIMEOUT 20)
# a FIFO there would hang: fail fast instead
set_tests_properties(unit_topology_conf unit_hostlist PROPERTIES TIMEOUT 120)

if(HSPLIT_VALGRIND)
  hsplit_mpi_test(valgrind_network_error_line_too_long 2 ENV ${LIMITS_NETWORK_ENV}
                  COMMAND ${VG} ${LIMITS_EXE} --conf-line HSPLIT_NETWORK 65537 NETWORK "line 2:"
                          "(the limit HSPLIT_CONF_MAX_LINE)"
                  LABELS "valgrind;network;limits")
  hsplit_mpi_test(valgrind_network_error_slurm_pattern_short 2 ENV ${LIMITS_NETWORK_ENV}
                  SLURM_TOPOLOGY_ADDR=top.a.node0
                  COMMAND ${VG} ${LIMITS_EXE} --guard SLURM_TOPOLOGY_ADDR_PATTERN=switch.sw
                          NETWORK "does not match SLURM_TOPOLOGY_ADDR_PATTERN"
                  LABELS "valgrind;network;limits")
endif()

# ---- libFuzzer: the hostlist parser alone (as fuzz_rankmap and
# fuzz_topology_conf, tests/CMakeLists.txt: clang with libFuzzer, bounded run) ----
if(HSPLIT_FUZZ_OK)
  set(fuzz_hostlist_exe ${CMAKE_CURRENT_BINARY_DIR}/fuzz_hostlist)
  add_custom_command(OUTPUT ${fuzz_hostlist_exe}
    COMMAND ${HSPLIT_CLANG} -std=c11 -g -O1 ${HSPLIT_WARNINGS}
            -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
            -I${PROJECT_SOURCE_DIR}/c/src ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_hostlist.c
            ${PROJECT_SOURCE_DIR}/c/src/hostlist.c -o ${fuzz_hostlist_exe}
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_hostlist.c
            ${PROJECT_SOURCE_DIR}/c/src/hostlist.c ${PROJECT_SOURCE_DIR}/c/src/hostlist.h
    COMMENT "Building the hostlist fuzzer with clang" VERBATIM)
  add_custom_target(fuzz_hostlist_target ALL DEPENDS ${fuzz_hostlist_exe})
  # seeded with the grammar's cases: ranges, padding, several groups, limits
  set(fuzz_hostlist_corpus ${CMAKE_CURRENT_BINARY_DIR}/fuzz_hostlist_corpus)
  file(MAKE_DIRECTORY ${fuzz_hostlist_corpus})
  set(seed_index 0)
  foreach(seed "node[01-04,07],login1" "r[1-2]n[1-2]" "n[098-101]" "a[1-2]b[3]c[4-5]x"
               "n[0-999999999]" "a[0-999]b[0-999]c[0-9]" "n[999999998-999999999]"
               "rack[1-2]-ib,[3-4]" "n[1-3],m[2-1]" "n[1,]")
    file(WRITE ${fuzz_hostlist_corpus}/seed${seed_index} "${seed}")
    math(EXPR seed_index "${seed_index} + 1")
  endforeach()
  add_test(NAME fuzz_hostlist
           COMMAND ${fuzz_hostlist_exe} -max_total_time=${HSPLIT_FUZZ_SECONDS} -max_len=1024 -rss_limit_mb=2048
                   ${fuzz_hostlist_corpus})
  set_tests_properties(fuzz_hostlist PROPERTIES LABELS "fuzz;network;limits" TIMEOUT 300)
endif()
