/* SPDX-License-Identifier: BSD-3-Clause */
/* The paper's section 5.2: one node of the figure-1 machine, 8 processes with
   non-uniform bindings: p0, p1 on cores 0 and 1, p2, p3 on L2 cache 1, p4-p7
   on NUMA node 1. Expectations are the paper's:
   step 1 NUMANode {0-3} {4-7}, roots {0,4};
   step 2 L2Cache {0,1} {2,3}, NULL for p4-p7, roots {0,2} (NULL on NUMA 1);
   step 3 Core {0} {1}, NULL for p2-p7, roots {0,1} (NULL on L2 1);
   step 4 NULL everywhere. Run with HSPLIT_TOPOLOGY="pack:2 [numa] l3:1 l2:2
   core:2 pu:1" and HSPLIT_BIND="core:0;core:1;l2cache:1;l2cache:1;numanode:1;
   numanode:1;numanode:1;numanode:1". */
#include "test_util.h"

typedef struct {
    int n;             /* 0: MPI_COMM_NULL */
    int ranks[4];
    const char *type;
    int num_comms, index;
} expected_comm;

#define NONE {0, {0}, NULL, 0, 0}
#define ROOTS(a, b) {2, {a, b}, NULL, 0, 0}

/* [step][process] */
static const expected_comm levels[4][8] = {
    {{4, {0, 1, 2, 3}, "NUMANode", 2, 0}, {4, {0, 1, 2, 3}, "NUMANode", 2, 0},
     {4, {0, 1, 2, 3}, "NUMANode", 2, 0}, {4, {0, 1, 2, 3}, "NUMANode", 2, 0},
     {4, {4, 5, 6, 7}, "NUMANode", 2, 1}, {4, {4, 5, 6, 7}, "NUMANode", 2, 1},
     {4, {4, 5, 6, 7}, "NUMANode", 2, 1}, {4, {4, 5, 6, 7}, "NUMANode", 2, 1}},
    {{2, {0, 1}, "L2Cache", 2, 0}, {2, {0, 1}, "L2Cache", 2, 0},
     {2, {2, 3}, "L2Cache", 2, 1}, {2, {2, 3}, "L2Cache", 2, 1},
     NONE, NONE, NONE, NONE},
    {{1, {0}, "Core", 2, 0}, {1, {1}, "Core", 2, 1}, NONE, NONE, NONE, NONE, NONE, NONE},
    {NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE},
};

static const expected_comm roots[4][8] = {
    {ROOTS(0, 4), NONE, NONE, NONE, ROOTS(0, 4), NONE, NONE, NONE},
    {ROOTS(0, 2), NONE, ROOTS(0, 2), NONE, NONE, NONE, NONE, NONE},
    {ROOTS(0, 1), ROOTS(0, 1), NONE, NONE, NONE, NONE, NONE, NONE},
    {NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE},
};

static const int nlevels_expected[8] = {3, 3, 2, 2, 1, 1, 1, 1};

static void check_comm(MPI_Comm comm, const expected_comm *e, const char *what, int level)
{
    if (e->n == 0) {
        CHECK(comm == MPI_COMM_NULL, "%s should be MPI_COMM_NULL", what);
        return;
    }
    test_check_members(comm, e->ranks, e->n, what);
    if (level && comm != MPI_COMM_NULL)
        test_check_level(comm, e->type, e->num_comms, e->index);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int x, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &x);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 8) MPI_Abort(MPI_COMM_WORLD, 2);

    /* The paper's loop with hsplit_with_roots: a process stops calling once it
       holds MPI_COMM_NULL, exactly as in the paper's code snippet. */
    MPI_Comm parent = MPI_COMM_WORLD, made[4] = {MPI_COMM_NULL, MPI_COMM_NULL, MPI_COMM_NULL, MPI_COMM_NULL};
    char what[64];
    for (int s = 0; s < 4 && parent != MPI_COMM_NULL; s++) {
        MPI_Comm level, root;
        CHECK_INT(HSPLIT_Comm_hsplit_with_roots(parent, MPI_INFO_NULL, &level, &root), MPI_SUCCESS);
        snprintf(what, sizeof what, "step %d newcomm", s + 1);
        check_comm(level, &levels[s][x], what, 1);
        snprintf(what, sizeof what, "step %d rootscomm", s + 1);
        check_comm(root, &roots[s][x], what, 0);
        if (root != MPI_COMM_NULL) MPI_Comm_free(&root);
        made[s] = level;
        parent = level;
    }
    for (int s = 0; s < 4; s++)
        if (made[s] != MPI_COMM_NULL) MPI_Comm_free(&made[s]);

    /* The same through split_type and through hsplit_all. */
    parent = MPI_COMM_WORLD;
    for (int s = 0; s < 4 && parent != MPI_COMM_NULL; s++) {
        MPI_Comm level;
        int rank;
        MPI_Comm_rank(parent, &rank);
        CHECK_INT(HSPLIT_Comm_split_type(parent, HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY, rank,
                                         MPI_INFO_NULL, &level), MPI_SUCCESS);
        snprintf(what, sizeof what, "split_type step %d", s + 1);
        check_comm(level, &levels[s][x], what, 1);
        if (parent != MPI_COMM_WORLD) MPI_Comm_free(&parent);
        parent = level;
    }
    if (parent != MPI_COMM_WORLD && parent != MPI_COMM_NULL) MPI_Comm_free(&parent);

    MPI_Comm all[6], all_roots[6];
    int nlevels = -1;
    CHECK_INT(HSPLIT_Comm_hsplit_all(MPI_COMM_WORLD, MPI_INFO_NULL, 6, &nlevels, all, all_roots),
              MPI_SUCCESS);
    CHECK_INT(nlevels, nlevels_expected[x]);
    for (int s = 0; s < 6; s++) {
        if (s < 4) {
            snprintf(what, sizeof what, "hsplit_all level %d", s + 1);
            check_comm(all[s], &levels[s][x], what, 1);
            snprintf(what, sizeof what, "hsplit_all roots %d", s + 1);
            check_comm(all_roots[s], &roots[s][x], what, 0);
        } else {
            CHECK(all[s] == MPI_COMM_NULL && all_roots[s] == MPI_COMM_NULL, "level %d", s);
        }
        if (all[s] != MPI_COMM_NULL) MPI_Comm_free(&all[s]);
        if (all_roots[s] != MPI_COMM_NULL) MPI_Comm_free(&all_roots[s]);
    }

    /* get_min_hlevel with non-uniform bindings: p2 and p3 are bound to the
       whole L2 cache 1, p4-p7 to NUMA node 1. */
    struct { int ranks[2]; int n; const char *expected; } cases[] = {
        {{0, 1}, 2, "L2Cache"}, {{2, 3}, 2, "L2Cache"}, {{0, 2}, 2, "NUMANode"},
        {{4, 5}, 2, "NUMANode"}, {{0, 4}, 2, "Machine"}, {{0}, 1, "Core"}, {{2}, 1, "L2Cache"},
        {{4}, 1, "NUMANode"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char type[HSPLIT_MAX_HLEVEL_NAME];
        int len, listed = 0;
        for (int j = 0; j < cases[i].n; j++) listed |= cases[i].ranks[j] == x;
        CHECK_INT(HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, cases[i].n, cases[i].ranks, type, &len),
                  MPI_SUCCESS);
        CHECK_STR(type, listed ? cases[i].expected : "Unknown");
    }
    return test_finish();
}
