/* SPDX-License-Identifier: BSD-3-Clause */
/* The views of a hierarchy that the collective engine runs over (level
   pruning): "all", every level the split made (the hierarchy's roots
   communicators); "two", the node and the nodes' leaders (the
   communicators of hsplit_node_groups); "net", the split's levels above the
   nodes and the node as one level. A view lists, for this process, the
   levels it is a member of, top first, with their members' ranks in h->base,
   so that the engine's trees address every message on h->base and need no
   communicator of their own: a level cut into virtual groups, or a tree that
   spans several levels, costs nothing to build. Made on first use, once per
   hierarchy and view (collective over h->base, like the hierarchy). */
#include <limits.h>
#include <stdlib.h>
#include "hsplit_internal.h"

void hsplit_views_free(hsplit_hierarchy *h)
{
    for (int v = 0; v < HSPLIT_NVIEWS; v++) {
        hsplit_view *view = h->views[v];
        if (view == NULL) continue;
        for (int i = 0; i < view->nlevels; i++) free(view->level[i].members);
        free(view->top_starts);
        free(view);
        h->views[v] = NULL;
    }
}

/* Appends comm (this process a member) as the view's level `index`, with
   its members' base ranks (one allgather over comm). */
static int add_level(hsplit_hierarchy *h, hsplit_view *view, MPI_Comm comm, int index)
{
    hsplit_view_level *l = &view->level[view->nlevels];
    MPI_Comm_size(comm, &l->n);
    MPI_Comm_rank(comm, &l->me);
    l->comm = comm;
    l->index = index;
    l->members = malloc(sizeof(int) * (size_t)l->n);
    if (l->members == NULL) return MPI_ERR_NO_MEM;
    view->nlevels++;
    return MPI_Allgather(&h->rank, 1, MPI_INT, l->members, 1, MPI_INT, comm);
}

/* Every level the split made. A process's top member, where it sends first
   as a broadcast's root, is the leader of its group just below level 0: the
   level-0 members are those leaders themselves; the others learn it from
   their first level's leader, level after level down (one integer per
   level). The level-0 members keep where each member's subtree starts in
   tree order, to find the member a root lies under. */
/* The split's levels up to `last` (all: INT_MAX), with the top member. */
static int add_split_levels(hsplit_hierarchy *h, hsplit_view *view, int last)
{
    int rc = MPI_SUCCESS;
    view->top_base = h->rank;
    for (int i = 0; i < h->nlevels && rc == MPI_SUCCESS; i++) {
        int level = h->first + i;
        if (level > last) break;
        rc = add_level(h, view, h->roots[i], level);
        if (rc == MPI_SUCCESS && level > 0)
            rc = MPI_Bcast(&view->top_base, 1, MPI_INT, 0, h->roots[i]);
    }
    return rc;
}

/* Level-0 members: where each member's subtree starts in tree order. */
static int add_top_starts(hsplit_hierarchy *h, hsplit_view *view)
{
    if (h->first != 0) return MPI_SUCCESS;
    const int *counts = hsplit_counts_at(h, 0);
    int n = view->level[0].n;
    view->top_starts = malloc(sizeof(int) * ((size_t)n + 1));
    if (view->top_starts == NULL) return MPI_ERR_NO_MEM;
    view->top_starts[0] = 0;
    for (int j = 0; j < n; j++) view->top_starts[j + 1] = view->top_starts[j] + counts[j];
    return MPI_SUCCESS;
}

static int build_all(hsplit_hierarchy *h, hsplit_view *view)
{
    int rc = add_split_levels(h, view, INT_MAX);
    return rc != MPI_SUCCESS ? rc : add_top_starts(h, view);
}

/* The node leaders (level 0) and the node (level 1); the node layout tells
   every process which node any rank is on. */
static int build_two(hsplit_hierarchy *h, hsplit_view *view)
{
    int rc = hsplit_node_layout(h);
    if (rc != MPI_SUCCESS) return rc;
    int grank;
    MPI_Comm_rank(h->rsag_group, &grank);
    if (grank == 0 && h->rsag_cross != MPI_COMM_NULL)
        rc = add_level(h, view, h->rsag_cross, 0);
    if (rc == MPI_SUCCESS) rc = add_level(h, view, h->rsag_group, 1);
    if (rc == MPI_SUCCESS) view->top_base = view->level[view->nlevels - 1].members[0];
    return rc;
}

/* Whether the group of this process's roots communicator i (at `level`)
   spans several nodes: the nodes of the processes of its members'
   subtrees, a range of tree positions that starts where the first member's
   subtree does (this process's own subtree starts at its own position).
   Local, and the same answer on every member: the decision whether to take
   part in that communicator's collectives. */
static int spans_nodes(const hsplit_hierarchy *h, int i, int level)
{
    const int *counts = hsplit_counts_at(h, level);
    int n, me, position;
    MPI_Comm_size(h->roots[i], &n);
    MPI_Comm_rank(h->roots[i], &me);
    int first = hsplit_rankmap_inverse(&h->order, h->rank), total = 0;
    for (int j = 0; j < n; j++) {
        if (j < me) first -= counts[j];
        total += counts[j];
    }
    int node = hsplit_node_layout_find(h, hsplit_rankmap_lookup(&h->order, first), &position);
    for (int t = first + 1; t < first + total; t++)
        if (hsplit_node_layout_find(h, hsplit_rankmap_lookup(&h->order, t), &position) != node)
            return 1;
    return 0;
}

/* The split's levels whose groups span several nodes (the switches', and
   the nodes' leaders under each switch), then the node as one level (the
   node groups of the node layout): the levels inside a node left out. The
   node's leader, its lowest rank, gives the node level its index (after
   its own last level) and the top member. On one node, every level. */
static int build_net(hsplit_hierarchy *h, hsplit_view *view)
{
    if (!h->multi_node) return build_all(h, view);
    int rc = hsplit_node_layout(h);
    view->top_base = h->rank;
    int next = 0; /* the node level's index */
    for (int i = 0; i < h->nlevels && rc == MPI_SUCCESS; i++) {
        int level = h->first + i;
        if (!spans_nodes(h, i, level)) break; /* inside a node, and below */
        rc = add_level(h, view, h->roots[i], level);
        if (rc == MPI_SUCCESS && level > 0)
            rc = MPI_Bcast(&view->top_base, 1, MPI_INT, 0, h->roots[i]);
        next = level + 1;
    }
    if (rc == MPI_SUCCESS) rc = add_level(h, view, h->rsag_group, 0);
    int from_leader[2] = {view->top_base, next};
    if (rc == MPI_SUCCESS) rc = MPI_Bcast(from_leader, 2, MPI_INT, 0, h->rsag_group);
    if (rc != MPI_SUCCESS) return rc;
    view->top_base = from_leader[0];
    view->level[view->nlevels - 1].index = from_leader[1];
    return add_top_starts(h, view);
}

int hsplit_view_get(hsplit_hierarchy *h, int kind, hsplit_view **out)
{
    *out = h->views[kind];
    if (*out != NULL) return MPI_SUCCESS;
    hsplit_view *view = calloc(1, sizeof *view);
    if (view == NULL) return MPI_ERR_NO_MEM; /* agreed below: no */
    view->kind = kind;
    int rc = kind == HSPLIT_VIEW_TWO   ? build_two(h, view)
             : kind == HSPLIT_VIEW_NET ? build_net(h, view)
                                       : build_all(h, view);
    /* every process keeps the view, or none does */
    int ok = rc == MPI_SUCCESS, all_ok = 0;
    int arc = MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, h->base);
    if (arc != MPI_SUCCESS || !all_ok) {
        for (int i = 0; i < view->nlevels; i++) free(view->level[i].members);
        free(view->top_starts);
        free(view);
        return arc != MPI_SUCCESS ? arc : rc != MPI_SUCCESS ? rc : MPI_ERR_NO_MEM;
    }
    h->views[kind] = view;
    *out = view;
    return MPI_SUCCESS;
}

int hsplit_view_top_index(const hsplit_hierarchy *h, const hsplit_view *view, int root)
{
    if (view->kind == HSPLIT_VIEW_TWO) {
        int position;
        return hsplit_node_layout_find(h, root, &position);
    }
    /* the member whose subtree holds root's tree position */
    int pos = hsplit_rankmap_inverse(&h->order, root), lo = 0, hi = view->level[0].n;
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (view->top_starts[mid] <= pos) lo = mid;
        else hi = mid;
    }
    return lo;
}
