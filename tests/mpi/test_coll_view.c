/* SPDX-License-Identifier: BSD-3-Clause */
/* The engine's views (coll_view.c) of MPI_COMM_WORLD on the network of
   tests/network/three_level.conf (a core switch over agg0 and agg1; agg0
   over edge0 and edge1, agg1 over edge2 and edge3; 2, 2, 3 and 1 nodes
   under them), 16 processes, 2 per node (node k: ranks 2k and 2k+1), the
   node "core:2 pu:1". Each process's levels in each view, written here by
   hand from that file: "net" keeps the switch levels and the node as one
   level, "two" the nodes' leaders and the node, "all" every level the
   split made. Under edge3 the only node splits no further by switch: its
   level below edge3 is inside the node (a core split), which "net" leaves
   out and "all" keeps. */
#include "hsplit_internal.h"
#include "test_util.h"

enum { NP = 16, MAXL = 5 };

/* One view of one process: its levels, top first, as index and members
   (base ranks), the list ended by index -1. */
typedef struct {
    int index;
    int members[4];
} level;

static void check_view(const hsplit_view *v, const level *expected, const char *name)
{
    int rank, n = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    while (n < MAXL && expected[n].index >= 0) n++;
    CHECK(v->nlevels == n, "%s: rank %d has %d levels, expected %d", name, rank, v->nlevels, n);
    for (int i = 0; i < n && i < v->nlevels; i++) {
        const hsplit_view_level *l = &v->level[i];
        int m = 0;
        while (m < 4 && expected[i].members[m] >= 0) m++;
        CHECK(l->index == expected[i].index, "%s: rank %d level %d: index %d, expected %d", name,
              rank, i, l->index, expected[i].index);
        CHECK(l->n == m, "%s: rank %d level %d: %d members, expected %d", name, rank, i, l->n, m);
        for (int k = 0; k < m && k < l->n; k++)
            CHECK(l->members[k] == expected[i].members[k],
                  "%s: rank %d level %d member %d: %d, expected %d", name, rank, i, k,
                  l->members[k], expected[i].members[k]);
        CHECK(l->n <= 1 || l->members[l->me] == rank, "%s: rank %d not itself on level %d",
              name, rank, i);
    }
}

#define L(i, ...) {i, {__VA_ARGS__, -1}}
#define END {-1, {-1}}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != NP) {
        if (rank == 0) fprintf(stderr, "test_coll_view: run on %d processes\n", NP);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* net: the core's split (agg leaders 0, 8), the agg's (edge leaders),
       the edge's (node leaders), then the node, index after its leader's
       last level */
    static const level net[NP][MAXL] = {
        {L(0, 0, 8), L(1, 0, 4), L(2, 0, 2), L(3, 0, 1), END},
        {L(3, 0, 1), END},
        {L(2, 0, 2), L(3, 2, 3), END},
        {L(3, 2, 3), END},
        {L(1, 0, 4), L(2, 4, 6), L(3, 4, 5), END},
        {L(3, 4, 5), END},
        {L(2, 4, 6), L(3, 6, 7), END},
        {L(3, 6, 7), END},
        {L(0, 0, 8), L(1, 8, 14), L(2, 8, 10, 12), L(3, 8, 9), END},
        {L(3, 8, 9), END},
        {L(2, 8, 10, 12), L(3, 10, 11), END},
        {L(3, 10, 11), END},
        {L(2, 8, 10, 12), L(3, 12, 13), END},
        {L(3, 12, 13), END},
        {L(1, 8, 14), L(2, 14, 15), END},
        {L(2, 14, 15), END},
    };
    hsplit_hierarchy *h = NULL;
    CHECK_INT(hsplit_hierarchy_get(MPI_COMM_WORLD, &h), MPI_SUCCESS);
    hsplit_view *v = NULL;
    CHECK_INT(hsplit_view_get(h, HSPLIT_VIEW_NET, &v), MPI_SUCCESS);
    if (v != NULL) check_view(v, net[rank], "net");
    /* two: node leaders 0, 2, ..., 14 at level 0, the node at level 1 */
    CHECK_INT(hsplit_view_get(h, HSPLIT_VIEW_TWO, &v), MPI_SUCCESS);
    if (v != NULL) {
        int leader = rank % 2 == 0, node = rank - rank % 2;
        CHECK(v->nlevels == 1 + leader, "two: rank %d has %d levels", rank, v->nlevels);
        if (leader && v->nlevels == 2) {
            CHECK(v->level[0].index == 0 && v->level[0].n == 8, "two: rank %d level 0", rank);
            for (int k = 0; k < 8 && k < v->level[0].n; k++)
                CHECK(v->level[0].members[k] == 2 * k, "two: leader %d", k);
        }
        const hsplit_view_level *l = &v->level[v->nlevels - 1];
        CHECK(l->index == 1 && l->n == 2 && l->members[0] == node && l->members[1] == node + 1,
              "two: rank %d node level", rank);
    }
    /* all: rank 14 keeps the level inside its node (index 2: 14, 15) and
       the edge's node level is absent there; rank 8's deepest level is its
       node's split (index 3: 8, 9) */
    CHECK_INT(hsplit_view_get(h, HSPLIT_VIEW_ALL, &v), MPI_SUCCESS);
    if (v != NULL && (rank == 14 || rank == 15)) {
        const hsplit_view_level *l = &v->level[v->nlevels - 1];
        CHECK(l->index == 2 && l->n == 2 && l->members[0] == 14 && l->members[1] == 15,
              "all: rank %d deepest level index %d", rank, l->index);
    }
    if (v != NULL && rank == 8) {
        CHECK(v->nlevels == 4, "all: rank 8 has %d levels, expected 4", v->nlevels);
        const hsplit_view_level *l = &v->level[v->nlevels - 1];
        CHECK(l->index == 3 && l->n == 2 && l->members[1] == 9, "all: rank 8 deepest level");
    }
    return test_finish();
}
