/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests without MPI: HSPLIT_NODES and HSPLIT_BIND parsing, topology
   loading and level naming, on the paper's figure-1 machine
   "pack:2 [numa] l3:1 l2:2 core:2 pu:1" (8 cores, PU i = core i). */
#include <stdio.h>
#include <string.h>
#include "hsplit_internal.h"
#include "unit_check.h"

static void check_nodes_ok(const char *spec, int world, const int *nodes, const int *locals)
{
    hsplit_node_map map;
    int kind = hsplit_parse_nodes(spec, world, &map);
    CHECK(kind == HSPLIT_KIND_OK, "HSPLIT_NODES=%s refused", spec);
    if (kind != HSPLIT_KIND_OK) return;
    for (int r = 0; r < world; r++) {
        int node, local;
        hsplit_node_of(&map, r, &node, &local);
        CHECK(node == nodes[r] && local == locals[r], "HSPLIT_NODES=%s rank %d: node %d local %d, "
              "expected %d %d", spec, r, node, local, nodes[r], locals[r]);
    }
    hsplit_node_map_free(&map);
}

static void check_nodes_bad(const char *spec, int world)
{
    hsplit_node_map map;
    CHECK(hsplit_parse_nodes(spec, world, &map) == HSPLIT_ERR_NODES,
          "HSPLIT_NODES=\"%s\" accepted", spec);
}

static void test_nodes(void)
{
    check_nodes_ok("2", 5, (int[]){0, 0, 1, 1, 2}, (int[]){0, 1, 0, 1, 0});
    check_nodes_ok(" 3 ", 4, (int[]){0, 0, 0, 1}, (int[]){0, 1, 2, 0});
    check_nodes_ok("cyclic:2", 5, (int[]){0, 1, 0, 1, 0}, (int[]){0, 0, 1, 1, 2});
    check_nodes_ok("1,0,1,0,7", 5, (int[]){1, 0, 1, 0, 7}, (int[]){0, 0, 1, 1, 0});
    check_nodes_ok("0,0,0,1,1,2,2,2,2", 9, (int[]){0, 0, 0, 1, 1, 2, 2, 2, 2},
                   (int[]){0, 1, 2, 0, 1, 0, 1, 2, 3});
    const char *bad[] = {"0", "-1", "x", "2x", "cyclic:", "cyclic:0", "cyclic:-2", "cyclic:a",
                         "0,1", "0,1,2,3,4", "0,,1,1", "0,1,1,a", "0,1,1,-1", ",", "99999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) check_nodes_bad(bad[i], 4);
}

/* Values at and past the int limits, signs, junk: the last int is a valid
   node index, K or N; one more, or anything that is not a plain number
   (around spaces aside), is HSPLIT_ERR_NODES. */
static void test_nodes_limits(void)
{
    check_nodes_ok("2147483647", 4, (int[]){0, 0, 0, 0}, (int[]){0, 1, 2, 3});
    check_nodes_ok("cyclic:2147483647", 4, (int[]){0, 1, 2, 3}, (int[]){0, 0, 0, 0});
    check_nodes_ok("0,100,999999999,2147483647", 4, (int[]){0, 100, 999999999, 2147483647},
                   (int[]){0, 0, 0, 0});
    check_nodes_ok("999999999,0,999999999,0", 4, (int[]){999999999, 0, 999999999, 0},
                   (int[]){0, 0, 1, 1});
    check_nodes_ok(" 5 , 2,5 ,2", 4, (int[]){5, 2, 5, 2}, (int[]){0, 0, 1, 1});
    hsplit_node_map map;
    if (hsplit_parse_nodes("7,2147483647,7", 3, &map) == HSPLIT_KIND_OK) {
        CHECK(hsplit_node_index_of(&map, 1) == 2147483647 && hsplit_node_index_of(&map, 2) == 7,
              "node index of a list");
        hsplit_node_map_free(&map);
    } else {
        CHECK(0, "HSPLIT_NODES=7,2147483647,7 refused");
    }
    const char *bad[] = {"2147483648", "4294967296", "99999999999999999999", "-0", "+2", "0x2",
                         "2 2", "2,", "cyclic:2147483648", "cyclic:4294967297", "cyclic: 0",
                         "cyclic:+2", "cyclic:-0", "Cyclic:2", "cyclic:2:3", "cyclic",
                         "0,1,2147483648,3", "0,1,4294967296,3", "0,-1,2,3", "0,+1,2,3",
                         "0,1,2,", ",0,1,2", "0,1,2,3,", "0;1;2;3", "0,1,2,3 x", "0,1,2,1e3",
                         "", " "};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) check_nodes_bad(bad[i], 4);
}

static void check_bind(hwloc_topology_t topo, const char *spec, int local, const char *expected)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc(), want = hwloc_bitmap_alloc();
    hwloc_bitmap_sscanf(want, expected);
    int kind = hsplit_emulated_binding(topo, spec, local, set);
    CHECK(kind == HSPLIT_KIND_OK && hwloc_bitmap_isequal(set, want),
          "HSPLIT_BIND=%s local %d: kind %d, expected %s", spec, local, kind, expected);
    hwloc_bitmap_free(set);
    hwloc_bitmap_free(want);
}

static void check_bind_bad(hwloc_topology_t topo, const char *spec, int local)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    CHECK(hsplit_emulated_binding(topo, spec, local, set) == HSPLIT_ERR_BIND,
          "HSPLIT_BIND=\"%s\" local %d accepted", spec, local);
    hwloc_bitmap_free(set);
}

static void test_bind(hwloc_topology_t topo)
{
    check_bind(topo, NULL, 3, "0x8");          /* default: core */
    check_bind(topo, "core", 3, "0x8");
    check_bind(topo, "Core", 9, "0x2");        /* wraps around the 8 cores */
    check_bind(topo, "pu", 7, "0x80");
    check_bind(topo, "l2cache", 1, "0xc");
    check_bind(topo, "numanode", 1, "0xf0");
    check_bind(topo, "package", 2, "0x0f");
    check_bind(topo, "machine", 5, "0xff");
    check_bind(topo, "none", 4, "0xff");
    const char *paper52 = "core:0;core:1;l2cache:1;l2cache:1;numanode:1;numanode:1;numanode:1;"
                          "numanode:1";
    const char *paper52_sets[8] = {"0x1", "0x2", "0xc", "0xc", "0xf0", "0xf0", "0xf0", "0xf0"};
    for (int i = 0; i < 8; i++) check_bind(topo, paper52, i, paper52_sets[i]);
    check_bind(topo, "0x000000f0", 0, "0xf0");
    check_bind(topo, "core:2;0x3", 1, "0x3");
    check_bind_bad(topo, "core:0;core:1", 2);  /* more processes than items */
    check_bind_bad(topo, "core:8", 0);
    check_bind_bad(topo, "core:-1", 0);
    check_bind_bad(topo, "core:", 0);
    check_bind_bad(topo, "core:1;bogus:0", 0); /* every item is checked */
    check_bind_bad(topo, "0x100", 0);          /* outside the machine */
    check_bind_bad(topo, "0x0", 0);
    check_bind_bad(topo, "bogus", 0);
    check_bind_bad(topo, "l1icache", 0);
    check_bind_bad(topo, "misc:0", 0);
    check_bind_bad(topo, "die", 0);            /* no Die in this machine */
    check_bind_bad(topo, "l1cache:0", 0);
}

/* Malformed HSPLIT_BIND values, refused for every local rank (all processes
   of a node agree), never turned into another item's binding nor into an
   empty one. */
static void test_bind_hostile(hwloc_topology_t topo)
{
    const char *bad[] = {
        "core:0;;core:1;core:2;core:3", /* empty item: was local rank 1 -> core 0 */
        "0x3;;0xc", "core:0;core:1;", ";core:0;core:1", ";", ";;",
        "core:0; core:1", "core:0 ;core:1", "core: 1;core:2", "core:1 ;core:2", " core",
        "core ", "core\n", "core\tjunk", "core junk", "core-", "core junk:1;core:2",
        "core.:1;core:2", "core:1\n;core:2", "core:+1;core:2", "core:0x1;core:2",
        "core:1a;core:2", "core:2147483648;core:1", "core:4294967296;core:1",
        "core:99999999999999999999;core:1", "core:1:2;core:2", "core::1;core:2", ":1;core:2",
        "0x1 ;0x2", "0x1,;0x2", ",0x1;0x2", "core:0;,0x1", "0x1,,0x2;0x3", "0x;0x1",
        "0x123456789;0x1", "0xf...f;0x1", "0X1;0x2", "5;0x2", "0x1g;0x2", "0x1,0x;0x2",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        for (int local = 0; local < 3; local++) check_bind_bad(topo, bad[i], local);
    /* no place on the node: no binding, whatever the form */
    const char *forms[] = {"core", "pu", "none", "core:0;core:1", "0x1", NULL};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        check_bind_bad(topo, forms[i], -1);
        check_bind_bad(topo, forms[i], -2147483647 - 1);
    }
    /* what stays valid, exactly */
    for (int i = 0; i < 4; i++) {
        char want[8];
        snprintf(want, sizeof want, "0x%x", 1u << (3 - i));
        check_bind(topo, "core:3;core:2;core:1;core:0", i, want);
    }
    check_bind(topo, "pu:007", 0, "0x80");
    check_bind(topo, "0x0,0x000000f0", 0, "0xf0");
    check_bind(topo, "core:1;0xf0;L2Cache:3", 2, "0xc0");
    check_bind(topo, "core", 2147483647, "0x80"); /* 2^31 - 1 = 7 mod 8 */
}

static void test_names(hwloc_topology_t topo)
{
    struct { const char *set; const char *name; } cases[] = {
        {"0xff", "Machine"}, {"0x0f", "NUMANode"}, {"0x03", "L2Cache"}, {"0x01", "Core"},
        {"0x05", "NUMANode"}, {"0x11", "Machine"},
    };
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hwloc_bitmap_sscanf(set, cases[i].set);
        const char *name = hsplit_level_name(topo, hsplit_covering_object(topo, set));
        CHECK(strcmp(name, cases[i].name) == 0, "level of %s: %s, expected %s", cases[i].set,
              name, cases[i].name);
    }
    hwloc_bitmap_free(set);
    hwloc_obj_type_t type;
    CHECK(hsplit_parse_type("L2Cache", &type) == 0 && type == HWLOC_OBJ_L2CACHE, "L2Cache");
    CHECK(hsplit_parse_type("numanode", &type) == 0 && type == HWLOC_OBJ_NUMANODE, "numanode");
    CHECK(hsplit_parse_type("PU", &type) == 0 && type == HWLOC_OBJ_PU, "PU");
    CHECK(hsplit_parse_type("L1iCache", &type) != 0, "instruction cache accepted");
    CHECK(hsplit_parse_type("", &type) != 0, "empty name accepted");
    CHECK(hsplit_parse_type("Bridge", &type) != 0, "I/O type accepted");
}

static void test_words(hwloc_topology_t topo)
{
    unsigned long words[2];
    hwloc_bitmap_t a = hwloc_bitmap_alloc(), b = hwloc_bitmap_alloc();
    hwloc_bitmap_sscanf(a, "0xf0");
    int n = hsplit_cpuset_words(topo);
    CHECK(n == 1, "8 PUs in %d words", n);
    hsplit_bitmap_to_words(a, n, words);
    hsplit_bitmap_from_words(b, n, words);
    CHECK(hwloc_bitmap_isequal(a, b) && words[0] == 0xf0, "words round trip");
    hwloc_bitmap_free(a);
    hwloc_bitmap_free(b);
}

static void test_load_errors(void)
{
    hwloc_topology_t topo;
    CHECK(hsplit_topology_load("/nonexistent/machine.xml", &topo) == HSPLIT_ERR_TOPOLOGY,
          "missing XML file accepted");
    CHECK(hsplit_topology_load("pack:two core:2", &topo) == HSPLIT_ERR_TOPOLOGY,
          "bad synthetic string accepted");
    CHECK(hsplit_topology_load(__FILE__, &topo) == HSPLIT_ERR_TOPOLOGY,
          "a file that is not XML accepted");
}

int main(void)
{
    hwloc_topology_t topo;
    int kind = hsplit_topology_load("pack:2 [numa] l3:1 l2:2 core:2 pu:1", &topo);
    CHECK(kind == HSPLIT_KIND_OK, "figure-1 machine not loaded");
    if (kind != HSPLIT_KIND_OK) return 1;
    test_nodes();
    test_nodes_limits();
    test_bind(topo);
    test_bind_hostile(topo);
    test_names(topo);
    test_words(topo);
    test_load_errors();
    hwloc_topology_destroy(topo);
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
