# SPDX-License-Identifier: BSD-3-Clause
# Hostile emulation settings: malformed HSPLIT_BIND items, launchers' local
# ranks that are no local rank, node indices far apart or past the int range.
# Each gives the same error class on every process, or exactly the results
# the settings mean; never a hang (short timeout), a crash or an empty
# binding. The parsers' exact answers are in unit/test_emulation.c; two
# libFuzzer targets compare them with an independent reading of the grammar.
add_executable(test_emulation_hostile mpi/test_emulation_hostile.c)
target_compile_options(test_emulation_hostile PRIVATE ${HSPLIT_WARNINGS})
target_link_libraries(test_emulation_hostile PRIVATE hsplit::hsplit)
set(EMU_EXE $<TARGET_FILE:test_emulation_hostile>)
# sets variables per MPI_COMM_WORLD rank after the launcher has set its own
set(EMU_PER_RANK ${CMAKE_CURRENT_SOURCE_DIR}/network/per_rank_env.sh)
# HSPLIT_COLL=on: the collectives build their hierarchy whatever their size
set(EMU_FIG1 "HSPLIT_TOPOLOGY=${HSPLIT_FIG1}" HSPLIT_COLL=on)
set(EMU_BIND4 "HSPLIT_BIND=core:0<SEMI>core:1<SEMI>core:2<SEMI>core:3")

function(emulation_test name np)
  hsplit_mpi_test(emulation_${name} ${np} ${ARGN} LABELS emulation)
  set_tests_properties(emulation_${name} PROPERTIES TIMEOUT 60)
endfunction()

# ---- malformed HSPLIT_BIND items: HSPLIT_ERR_BIND everywhere ----
# an empty item bound local rank 1 to core 0; a trailing ';' was ignored; a
# space before an index was skipped; ",0x1" aborted the process in hwloc
foreach(case "empty_item|core:0<SEMI><SEMI>core:1<SEMI>core:2<SEMI>core:3"
             "trailing_semicolon|core:0<SEMI>core:1<SEMI>core:2<SEMI>core:3<SEMI>"
             "space|core:0<SEMI>core: 1<SEMI>core:2<SEMI>core:3"
             "type_junk|core:0<SEMI>core junk:1<SEMI>core:2<SEMI>core:3"
             "cpuset_leading_comma|core:0<SEMI>,0x1<SEMI>core:2<SEMI>core:3")
  string(REPLACE "|" ";" fields "${case}")
  list(GET fields 0 name)
  list(GET fields 1 bind)
  emulation_test(bind_${name} 4 ENV ${EMU_FIG1} "HSPLIT_BIND=${bind}"
                 COMMAND ${EMU_EXE} error BIND)
endforeach()

# ---- launchers' local ranks (no HSPLIT_NODES: the binding takes them) ----
# not a decimal integer in [0, world size) on every process or on one only:
# HSPLIT_ERR_BIND on every process (a negative one gave an empty binding, 16
# identical levels and a crash in HSPLIT_Bcast; garbage was local rank 0)
emulation_test(launcher_rank_negative 4 ENV ${EMU_FIG1} ${EMU_BIND4}
               COMMAND ${EMU_PER_RANK} "OMPI_COMM_WORLD_LOCAL_RANK=-1" -- ${EMU_EXE} error BIND)
emulation_test(launcher_rank_garbage_one 4 ENV ${EMU_FIG1} ${EMU_BIND4}
               COMMAND ${EMU_PER_RANK} "OMPI_COMM_WORLD_LOCAL_RANK=0|abc|2|3" --
                       ${EMU_EXE} error BIND)
emulation_test(launcher_rank_huge_one 4 ENV ${EMU_FIG1} HSPLIT_BIND=core
               COMMAND ${EMU_PER_RANK} "OMPI_COMM_WORLD_LOCAL_RANK=0|1|99999999999|3" --
                       ${EMU_EXE} error BIND)
emulation_test(launcher_rank_out_of_range 4 ENV ${EMU_FIG1} HSPLIT_BIND=core
               COMMAND ${EMU_PER_RANK} "OMPI_COMM_WORLD_LOCAL_RANK=0|1|2|4" --
                       ${EMU_EXE} error BIND)
# the other launchers' variables (Open MPI's unset: the first set one counts)
emulation_test(launcher_rank_mpich_negative 4 ENV ${EMU_FIG1} ${EMU_BIND4}
               COMMAND ${EMU_PER_RANK} "OMPI_COMM_WORLD_LOCAL_RANK=|" "PMI_LOCAL_RANK=|"
                       "MPI_LOCALRANKID=0|1|-1|3" -- ${EMU_EXE} error BIND)
emulation_test(launcher_rank_slurm_garbage 4 ENV ${EMU_FIG1} ${EMU_BIND4}
               COMMAND ${EMU_PER_RANK} "OMPI_COMM_WORLD_LOCAL_RANK=|" "MPI_LOCALRANKID=|"
                       "PMI_LOCAL_RANK=|" "SLURM_LOCALID=0|1x|2|3" -- ${EMU_EXE} error BIND)
# valid local ranks, in reverse: rank r on core 3 - r (cores 0-1 and 2-3 share
# an L2 cache, 0-3 a NUMA node); the first variable set counts, the others are
# not read
emulation_test(launcher_rank_reversed 4 ENV ${EMU_FIG1} ${EMU_BIND4}
               COMMAND ${EMU_PER_RANK} "OMPI_COMM_WORLD_LOCAL_RANK=3|2|1|0" "MPI_LOCALRANKID=x"
                       "SLURM_LOCALID=-1" --
                       ${EMU_EXE} min_hlevel 0,1=L2Cache 2,3=L2Cache 1,2=NUMANode 0,3=NUMANode)
emulation_test(launcher_rank_reversed_mpich 4 ENV ${EMU_FIG1} ${EMU_BIND4}
               COMMAND ${EMU_PER_RANK} "OMPI_COMM_WORLD_LOCAL_RANK=|" "MPI_LOCALRANKID=3|2|1|0" --
                       ${EMU_EXE} min_hlevel 0,1=L2Cache 2,3=L2Cache 1,2=NUMANode 0,3=NUMANode)
# with HSPLIT_NODES the local rank is the node's: the launcher's is not read
emulation_test(launcher_rank_unused_with_nodes 3 ENV ${EMU_FIG1} HSPLIT_NODES=0,100,999999999
               COMMAND ${EMU_PER_RANK} "OMPI_COMM_WORLD_LOCAL_RANK=-1" --
                       ${EMU_EXE} nodes 0,100,999999999)

# ---- HSPLIT_NODES ----
# node indices far apart cost nothing in their range (a bitmap over [0, 1e9)
# took 311 MiB a process), keep their order and their names node<i>
emulation_test(nodes_far_apart 3 ENV ${EMU_FIG1} HSPLIT_NODES=0,100,999999999
               COMMAND ${EMU_EXE} nodes 0,100,999999999)
emulation_test(nodes_far_apart_unordered 4 ENV ${EMU_FIG1}
               HSPLIT_NODES=999999999,0,2147483647,0
               COMMAND ${EMU_EXE} nodes 999999999,0,2147483647,0)
# past the int range, K overflowing, N = 0: HSPLIT_ERR_NODES everywhere
foreach(case "over_int_max|0,1,2147483648,3" "k_overflow|4294967297" "cyclic_zero|cyclic:0"
             "negative|0,-1,1,2")
  string(REPLACE "|" ";" fields "${case}")
  list(GET fields 0 name)
  list(GET fields 1 nodes)
  emulation_test(nodes_${name} 4 ENV ${EMU_FIG1} HSPLIT_NODES=${nodes}
                 COMMAND ${EMU_EXE} error NODES)
endforeach()

if(HSPLIT_VALGRIND)
  # the error path of a bad local rank on one process frees what it made
  hsplit_mpi_test(valgrind_emulation_launcher_rank 2 ENV ${EMU_FIG1} HSPLIT_BIND=core
                  COMMAND ${EMU_PER_RANK} "OMPI_COMM_WORLD_LOCAL_RANK=0|-1" -- ${VG} ${EMU_EXE}
                          error BIND LABELS "valgrind;emulation")
endif()

# ---- libFuzzer: the HSPLIT_NODES and HSPLIT_BIND parsers (clang, as the
# other fuzz targets; emulation.c and topology.c need mpi.h and hwloc) ----
if(HSPLIT_FUZZ_OK)
  set(emu_fuzz_flags -std=c11 -g -O1 ${HSPLIT_WARNINGS} -D_POSIX_C_SOURCE=200809L
      -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
      -I${PROJECT_SOURCE_DIR}/c/src -I${PROJECT_SOURCE_DIR}/c/include
      -I${PROJECT_BINARY_DIR}/c/include)
  foreach(dir ${MPI_C_INCLUDE_DIRS} ${HWLOC_INCLUDE_DIRS})
    list(APPEND emu_fuzz_flags -I${dir})
  endforeach()
  # emulation.c and what it calls: topology.c, which reads XML files with
  # topology_conf.c's bounded reader (and that one's hostlist.c)
  set(emu_fuzz_sources ${PROJECT_SOURCE_DIR}/c/src/emulation.c ${PROJECT_SOURCE_DIR}/c/src/topology.c
      ${PROJECT_SOURCE_DIR}/c/src/topology_conf.c ${PROJECT_SOURCE_DIR}/c/src/hostlist.c)
  foreach(what nodes bind)
    set(exe ${CMAKE_CURRENT_BINARY_DIR}/fuzz_emulation_${what})
    add_custom_command(OUTPUT ${exe}
      COMMAND ${HSPLIT_CLANG} ${emu_fuzz_flags}
              ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_emulation_${what}.c ${emu_fuzz_sources}
              ${HWLOC_LDFLAGS} -o ${exe}
      DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_emulation_${what}.c ${emu_fuzz_sources}
              ${PROJECT_SOURCE_DIR}/c/src/hsplit_internal.h ${PROJECT_SOURCE_DIR}/c/src/topology_conf.h
              ${PROJECT_SOURCE_DIR}/c/src/hostlist.h
      COMMENT "Building the HSPLIT_${what} fuzzer with clang" VERBATIM)
    add_custom_target(fuzz_emulation_${what}_target ALL DEPENDS ${exe})
    set(corpus ${CMAKE_CURRENT_BINARY_DIR}/fuzz_emulation_${what}_corpus)
    file(MAKE_DIRECTORY ${corpus})
    set(dict ${CMAKE_CURRENT_BINARY_DIR}/fuzz_emulation_${what}.dict)
    add_test(NAME fuzz_emulation_${what}
             COMMAND ${exe} -max_total_time=${HSPLIT_FUZZ_SECONDS} -max_len=256 -rss_limit_mb=2048 -dict=${dict}
                     ${corpus})
    set_tests_properties(fuzz_emulation_${what} PROPERTIES LABELS "fuzz;emulation" TIMEOUT 300)
  endforeach()
  # seeds: the first byte is the world size - 1 (nodes), or the machine (bit
  # 0) and the local rank + 2 (bind); the rest is the value
  string(ASCII 3 world4)
  string(ASCII 7 world8)
  set(corpus ${CMAKE_CURRENT_BINARY_DIR}/fuzz_emulation_nodes_corpus)
  file(WRITE ${corpus}/seed_block "${world8} 2 ")
  file(WRITE ${corpus}/seed_cyclic "${world8}cyclic:3")
  file(WRITE ${corpus}/seed_list "${world4}0,100,999999999,2147483647")
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/fuzz_emulation_nodes.dict
       "\"cyclic:\"\n\",\"\n\" \"\n\"2147483647\"\n\"2147483648\"\n\"-\"\n")
  set(corpus ${CMAKE_CURRENT_BINARY_DIR}/fuzz_emulation_bind_corpus)
  string(REPLACE "<SEMI>" ";" paper52 "${HSPLIT_PAPER52_BIND}")
  file(WRITE ${corpus}/seed_paper52 "6${paper52}")          # machine 0, local rank 5
  file(WRITE ${corpus}/seed_cpusets "/0x0,0x0000000f;0xf0;core:1;Group:3") # 1, 1
  file(WRITE ${corpus}/seed_type "<pu")                     # machine 0, local rank 8
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/fuzz_emulation_bind.dict
       "\"none\"\n\"core\"\n\"pu\"\n\"l2cache\"\n\"numanode\"\n\"package\"\n\"group\"\n"
       "\"die\"\n\"machine\"\n\"0x\"\n\":\"\n\";\"\n\",\"\n\"2147483648\"\n")
endif()
