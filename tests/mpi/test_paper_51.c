/* SPDX-License-Identifier: BSD-3-Clause */
/* The paper's section 5.1: 32 processes on 4 nodes of the figure-1 machine
   (2 NUMA nodes x 1 package x 2 L2 x 2 cores), process x = 8k + i bound to
   core i of node k. Every expectation below is the paper's, written from its
   formulas: step 1 Machine {8k..8k+7}, step 2 NUMANode {4j..4j+3}, step 3
   L2Cache {2m, 2m+1}, step 4 Core {x}, step 5 MPI_COMM_NULL; roots
   {0,8,16,24}, {8k, 8k+4}, {8k+4j, 8k+4j+2}, {2m, 2m+1}. Run with
   HSPLIT_TOPOLOGY="pack:2 [numa] l3:1 l2:2 core:2 pu:1" HSPLIT_NODES=8. */
#include "test_util.h"

enum { NPROCS = 32, DEPTH = 4 };

/* Expected members of x's level-s communicator (s = 0..3) and of its roots
   communicator; returns the counts. */
static int expected_level(int x, int s, int *out)
{
    static const int span[DEPTH] = {8, 4, 2, 1};
    int first = x - x % span[s];
    for (int i = 0; i < span[s]; i++) out[i] = first + i;
    return span[s];
}

static int expected_roots(int x, int s, int *out)
{
    /* Roots of the step-s split of x's parent: the first process of each
       child of the parent, if x is one of them. */
    static const int parent_span[DEPTH] = {32, 8, 4, 2}, child_span[DEPTH] = {8, 4, 2, 1};
    if (x % child_span[s] != 0) return 0;
    int first = x - x % parent_span[s], n = 0;
    for (int r = first; r < first + parent_span[s]; r += child_span[s]) out[n++] = r;
    return n;
}

static const char *const level_names[DEPTH] = {"Machine", "NUMANode", "L2Cache", "Core"};
static const int level_num[DEPTH] = {4, 2, 2, 2};

static int expected_index(int x, int s)
{
    static const int span[DEPTH] = {8, 4, 2, 1};
    return (x / span[s]) % level_num[s];
}

static void check_with_roots(int x)
{
    MPI_Comm parent = MPI_COMM_WORLD, levels[DEPTH + 1], roots[DEPTH + 1];
    int exp[32], n;
    char what[64];
    for (int s = 0; s <= DEPTH; s++) {
        int rc = HSPLIT_Comm_hsplit_with_roots(parent, MPI_INFO_NULL, &levels[s], &roots[s]);
        CHECK_INT(rc, MPI_SUCCESS);
        if (s == DEPTH) {
            CHECK(levels[s] == MPI_COMM_NULL, "step 5 newcomm not MPI_COMM_NULL");
            CHECK(roots[s] == MPI_COMM_NULL, "step 5 rootscomm not MPI_COMM_NULL");
            break;
        }
        n = expected_level(x, s, exp);
        snprintf(what, sizeof what, "step %d newcomm", s + 1);
        test_check_members(levels[s], exp, n, what);
        test_check_level(levels[s], level_names[s], level_num[s], expected_index(x, s));
        n = expected_roots(x, s, exp);
        snprintf(what, sizeof what, "step %d rootscomm", s + 1);
        if (n == 0)
            CHECK(roots[s] == MPI_COMM_NULL, "%s should be MPI_COMM_NULL", what);
        else
            test_check_members(roots[s], exp, n, what);
        /* newcomm is a strict subset of its parent */
        int cmp;
        MPI_Comm_compare(parent, levels[s], &cmp);
        CHECK_INT(cmp, MPI_UNEQUAL);
        parent = levels[s];
    }
    int cmp;
    MPI_Comm_compare(levels[DEPTH - 1], MPI_COMM_SELF, &cmp);
    CHECK_INT(cmp, MPI_CONGRUENT);
    for (int s = 0; s < DEPTH; s++) {
        MPI_Comm_free(&levels[s]);
        if (roots[s] != MPI_COMM_NULL) MPI_Comm_free(&roots[s]);
    }
}

/* The split_type loop of the paper's code snippet, with key = rank, and again
   with a reversing key: same groups, members in key order. */
static void check_split_type(int x, int reverse)
{
    MPI_Comm parent = MPI_COMM_WORLD, level;
    int exp[32], n, rank, size;
    char what[64];
    for (int s = 0; s <= DEPTH; s++) {
        MPI_Comm_rank(parent, &rank);
        MPI_Comm_size(parent, &size);
        int key = reverse ? size - rank : rank;
        int rc = HSPLIT_Comm_split_type(parent, HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY, key,
                                        MPI_INFO_NULL, &level);
        CHECK_INT(rc, MPI_SUCCESS);
        if (parent != MPI_COMM_WORLD) MPI_Comm_free(&parent);
        if (s == DEPTH) {
            CHECK(level == MPI_COMM_NULL, "split_type step 5 not MPI_COMM_NULL");
            break;
        }
        n = expected_level(x, s, exp);
        if (reverse) {
            /* Each step reverses the order of its parent: after an odd number
               of reversals a block is in descending world order. */
            int base[32];
            memcpy(base, exp, sizeof(int) * (size_t)n);
            for (int i = 0; i < n; i++) exp[i] = s % 2 == 0 ? base[n - 1 - i] : base[i];
        }
        snprintf(what, sizeof what, "split_type%s step %d", reverse ? " reversed" : "", s + 1);
        test_check_members(level, exp, n, what);
        test_check_level(level, level_names[s], level_num[s], expected_index(x, s));
        parent = level;
    }
}

static void check_hsplit_all(int x)
{
    MPI_Comm levels[8], roots[8];
    int nlevels = -1, exp[32], n;
    int rc = HSPLIT_Comm_hsplit_all(MPI_COMM_WORLD, MPI_INFO_NULL, 8, &nlevels, levels, roots);
    CHECK_INT(rc, MPI_SUCCESS);
    CHECK_INT(nlevels, DEPTH);
    for (int s = 0; s < DEPTH; s++) {
        n = expected_level(x, s, exp);
        test_check_members(levels[s], exp, n, "hsplit_all level");
        n = expected_roots(x, s, exp);
        if (n == 0) CHECK(roots[s] == MPI_COMM_NULL, "hsplit_all roots not NULL");
        else test_check_members(roots[s], exp, n, "hsplit_all roots");
    }
    for (int s = DEPTH; s < 8; s++)
        CHECK(levels[s] == MPI_COMM_NULL && roots[s] == MPI_COMM_NULL, "level %d not NULL", s);
    for (int s = 0; s < DEPTH; s++) {
        MPI_Comm_free(&levels[s]);
        if (roots[s] != MPI_COMM_NULL) MPI_Comm_free(&roots[s]);
    }
    /* maxlevels cuts the hierarchy; no roots wanted */
    rc = HSPLIT_Comm_hsplit_all(MPI_COMM_WORLD, MPI_INFO_NULL, 2, &nlevels, levels, NULL);
    CHECK_INT(rc, MPI_SUCCESS);
    CHECK_INT(nlevels, 2);
    n = expected_level(x, 1, exp);
    test_check_members(levels[1], exp, n, "hsplit_all maxlevels=2 level 2");
    MPI_Comm_free(&levels[0]);
    MPI_Comm_free(&levels[1]);
}

/* get_min_hlevel on MPI_COMM_WORLD, figure-1 machine: p0,p1 share an L2;
   p0,p2 share the NUMA node (= package = L3); p0,p4 only the machine; p0,p8
   are on different nodes. */
static void check_min_hlevel(int x)
{
    int k8 = x - x % 8, len;
    char type[HSPLIT_MAX_HLEVEL_NAME];
    struct { int ranks[2]; int n; const char *expected; } cases[] = {
        {{x, x ^ 1}, 2, "L2Cache"},
        {{x, x ^ 2}, 2, "NUMANode"},
        {{x, x ^ 4}, 2, "Machine"},
        {{x, (x + 8) % 32}, 2, "Cluster"},
        {{x}, 1, "Core"},
        {{(x + 1) % 32, (x + 2) % 32}, 2, "Unknown"},
        {{0}, 0, "Unknown"},
        {{k8 + 1, k8}, 2, x % 8 < 2 ? "L2Cache" : "Unknown"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, cases[i].n, cases[i].ranks, type, &len);
        CHECK_INT(rc, MPI_SUCCESS);
        CHECK_STR(type, cases[i].expected);
        CHECK_INT(len, (long)strlen(cases[i].expected));
    }
}

/* On communicators the library made, get_min_hlevel is local: one process
   alone asks (the others do not call), which would hang if it were not. */
static void check_min_hlevel_local(int x)
{
    MPI_Comm node, roots;
    HSPLIT_Comm_hsplit_with_roots(MPI_COMM_WORLD, MPI_INFO_NULL, &node, &roots);
    int node_rank, len;
    char type[HSPLIT_MAX_HLEVEL_NAME];
    MPI_Comm_rank(node, &node_rank);
    if (node_rank == 0) {
        int pair[2] = {0, 1}, far[2] = {0, 7};
        CHECK_INT(HSPLIT_Comm_get_min_hlevel(node, 2, pair, type, &len), MPI_SUCCESS);
        CHECK_STR(type, "L2Cache");
        CHECK_INT(HSPLIT_Comm_get_min_hlevel(node, 2, far, type, &len), MPI_SUCCESS);
        CHECK_STR(type, "Machine");
    }
    if (x == 0) {
        int leaders[2] = {0, 3};
        CHECK_INT(HSPLIT_Comm_get_min_hlevel(roots, 2, leaders, type, &len), MPI_SUCCESS);
        CHECK_STR(type, "Cluster");
    }
    if (roots != MPI_COMM_NULL) MPI_Comm_free(&roots);
    MPI_Comm_free(&node);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int x, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &x);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != NPROCS) {
        if (x == 0) fprintf(stderr, "run with %d processes\n", NPROCS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    check_with_roots(x);
    check_split_type(x, 0);
    check_split_type(x, 1);
    check_hsplit_all(x);
    check_min_hlevel(x);
    check_min_hlevel_local(x);
    return test_finish();
}
