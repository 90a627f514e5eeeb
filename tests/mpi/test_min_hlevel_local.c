/* SPDX-License-Identifier: BSD-3-Clause */
/* HSPLIT_Comm_get_min_hlevel is collective only on its first call on a
   communicator hsplit has not met, and local afterwards, on duplicates made
   after that call, and on every communicator an hsplit split makes: after
   one collective call each, one process alone asks, on MPI_COMM_WORLD, on
   an MPI_Comm_dup of it made afterwards, on user MPI_Comm_split
   communicators and on the levels and roots communicators of an hsplit
   split, while the others wait on a communicator of their own (an
   MPI_Comm_dup made before hsplit was ever called). Were any of these calls
   collective, the lone caller would wait forever (CTest's TIMEOUT fails it).

   Run with 4 processes, HSPLIT_TOPOLOGY="pack:2 [numa] l3:1 l2:2 core:2 pu:1"
   (figure 1: an L2 cache holds cores 0 and 1) and HSPLIT_NODES=cyclic:2:
   world rank w is on node w % 2 as its local rank w / 2, bound (HSPLIT_BIND
   defaults to core) to core w / 2. So world ranks {0,2} share node 0 and an
   L2 cache (cores 0 and 1), {1,3} node 1 and an L2 cache, and any pair of an
   even and an odd rank spans the two nodes: "Cluster" (no network).

   The communicators, in comm-rank order of world ranks:
     world   [0,1,2,3]                (MPI_Comm_compare: IDENT)
     dup     [0,1,2,3]                (CONGRUENT)
     reverse [3,2,1,0]  split(0, -w)  (SIMILAR)
     odd     [3,1]      split(w % 2, -w), on world rank 3 (UNEQUAL)
     node    [1,3]      hsplit's first level, on world rank 3 (node 1)
     roots   [0,1]      its roots communicator (world 0 and 1 lead the
                        nodes), on world ranks 0 and 1: not on rank 3 */
#include "test_util.h"

typedef struct {
    int n, ranks[3];
    const char *expected;
} query;

static void ask(MPI_Comm comm, const char *what, const query *q, int nq)
{
    char type[HSPLIT_MAX_HLEVEL_NAME];
    int len = -1;
    for (int i = 0; i < nq; i++) {
        int rc = HSPLIT_Comm_get_min_hlevel(comm, q[i].n, q[i].ranks, type, &len);
        CHECK(rc == MPI_SUCCESS, "%s, query %d: rc %d", what, i, rc);
        if (rc != MPI_SUCCESS) continue;
        CHECK(strcmp(type, q[i].expected) == 0, "%s, query %d: \"%s\", expected \"%s\"", what, i,
              type, q[i].expected);
        CHECK_INT(len, (long)strlen(q[i].expected));
    }
}

/* world and dup: comm rank == world rank; the caller is world rank 3 */
static const query world_queries[] = {
    {2, {1, 3}, "L2Cache"}, {2, {3, 0}, "Cluster"}, {3, {3, 2, 1}, "Cluster"},
    {2, {0, 2}, "Unknown"}, /* the caller not listed */
};
/* reverse: comm rank i is world rank 3 - i; the caller is comm rank 0 */
static const query reverse_queries[] = {
    {2, {0, 2}, "L2Cache"}, /* world 3, 1 */
    {2, {0, 1}, "Cluster"}, /* world 3, 2 */
    {2, {1, 3}, "Unknown"}, /* world 2, 0: the caller not listed */
};
/* odd: [3, 1]; the caller is comm rank 0 */
static const query odd_queries[] = {
    {2, {0, 1}, "L2Cache"}, /* world 3, 1 */
    {2, {1, 0}, "L2Cache"},
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int w, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &w);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (w == 0) fprintf(stderr, "run with 4 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* all made before hsplit's first call: no rank map on any of them */
    MPI_Comm sync, reverse, parity, dup, node, roots;
    MPI_Comm_dup(MPI_COMM_WORLD, &sync);
    MPI_Comm_split(MPI_COMM_WORLD, 0, -w, &reverse);
    MPI_Comm_split(MPI_COMM_WORLD, w % 2, -w, &parity);

    /* the first call on each is collective: every process, its own rank */
    char type[HSPLIT_MAX_HLEVEL_NAME];
    int len, me;
    MPI_Comm list[] = {MPI_COMM_WORLD, reverse, parity};
    for (int i = 0; i < 3; i++) {
        MPI_Comm_rank(list[i], &me);
        CHECK_INT(HSPLIT_Comm_get_min_hlevel(list[i], 1, &me, type, &len), MPI_SUCCESS);
        CHECK_STR(type, "Core"); /* the highest object with its PUs */
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &dup); /* after: the map is copied */
    CHECK_INT(HSPLIT_Comm_hsplit_with_roots(MPI_COMM_WORLD, MPI_INFO_NULL, &node, &roots),
              MPI_SUCCESS);

    if (w == 3) { /* alone */
        ask(MPI_COMM_WORLD, "world", world_queries, 4);
        ask(dup, "dup", world_queries, 4);
        ask(reverse, "reverse", reverse_queries, 3);
        ask(parity, "odd", odd_queries, 2);
        ask(node, "node", odd_queries, 2); /* [1, 3]: ranks 0, 1 are world 1, 3 */
        CHECK(roots == MPI_COMM_NULL, "world rank 3 leads no node");
    }
    if (w == 0) { /* alone too, on the roots communicator [0, 1] */
        static const query roots_queries[] = {{2, {0, 1}, "Cluster"}, {1, {1}, "Unknown"}};
        ask(roots, "roots", roots_queries, 2);
    }
    MPI_Barrier(sync);

    /* every process on world again: {0,2} and {1,3} share an L2 cache,
       {0,1} do not */
    int pair[2] = {w, (w + 2) % 4}, cross[2] = {w, w ^ 1};
    CHECK_INT(HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 2, pair, type, &len), MPI_SUCCESS);
    CHECK_STR(type, "L2Cache");
    CHECK_INT(HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 2, cross, type, &len), MPI_SUCCESS);
    CHECK_STR(type, "Cluster");

    if (roots != MPI_COMM_NULL) MPI_Comm_free(&roots);
    MPI_Comm_free(&node);
    MPI_Comm_free(&parity);
    MPI_Comm_free(&reverse);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&sync);
    return test_finish();
}
