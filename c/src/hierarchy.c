/* SPDX-License-Identifier: BSD-3-Clause */
/* The hierarchy the collectives run over, built once per communicator with
   the library's own split and cached as an attribute (paper section 6: the
   "loop over the levels"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hsplit_internal.h"

MPI_Comm hsplit_roots_at(const hsplit_hierarchy *h, int level)
{
    int i = level - h->first;
    return h->first >= 0 && i >= 0 && i < h->nlevels ? h->roots[i] : MPI_COMM_NULL;
}

const int *hsplit_counts_at(const hsplit_hierarchy *h, int level)
{
    return h->counts[level - h->first];
}

/* The roots[0] member whose subtree holds root: its tree position falls in
   [top_starts[j], top_starts[j+1]), found by binary search over the nodes. */
static int top_member_of(const hsplit_hierarchy *h, int root)
{
    int pos = hsplit_rankmap_inverse(&h->order, root), lo = 0, hi;
    MPI_Comm_size(h->roots[0], &hi);
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (h->top_starts[mid] <= pos) lo = mid;
        else hi = mid;
    }
    return lo;
}

int hsplit_root_at(const hsplit_hierarchy *h, int level, int root)
{
    return level == 0 && h->multi_node ? top_member_of(h, root) : 0;
}

int hsplit_is_top_holder(const hsplit_hierarchy *h, int root)
{
    if (!h->multi_node)
        return h->rank == 0;
    if (h->first != 0)
        return 0;
    int r;
    MPI_Comm_rank(h->roots[0], &r);
    return r == top_member_of(h, root);
}

/* The communicators are freed only while MPI works: under SMPI, what is
   left at MPI_Finalize is deleted after it (the simulator reclaims it). */
static void free_levels(hsplit_hierarchy *h)
{
    int usable = hsplit_mpi_usable();
    if (usable) hsplit_rsag_free(h);
    for (int i = 0; i < h->nlevels; i++) {
        if (h->roots[i] != MPI_COMM_NULL && usable)
            MPI_Comm_free(&h->roots[i]);
        free(h->counts[i]);
    }
    free(h->roots);
    free(h->counts);
    h->roots = NULL;
    h->counts = NULL;
    h->nlevels = 0;
    if (h->base != MPI_COMM_NULL && usable)
        MPI_Comm_free(&h->base);
    h->base = MPI_COMM_NULL;
}

static void hierarchy_free(hsplit_hierarchy *h)
{
    free_levels(h);
    hsplit_views_free(h);
    /* NULL once hsplit_rsag_free ran (MPI usable) */
    free(h->node_order);
    free(h->node_slot);
    free(h->node_starts);
    for (int k = 0; k < HSPLIT_ML_LEVEL_KINDS; k++) hsplit_ml_levels_discard(h->ml_levels[k]);
    free(h->top_starts);
    hsplit_rankmap_free(&h->order);
    free(h);
}

/* Append a roots communicator and the subtree sizes of its members. Once
   appended, the communicator is the hierarchy's (freed by free_levels), even
   when a later step fails. */
static int add_level(hsplit_hierarchy *h, int level, MPI_Comm roots, int subtree)
{
    MPI_Comm *r = realloc(h->roots, sizeof *r * (size_t)(h->nlevels + 1));
    if (r == NULL) return MPI_ERR_NO_MEM;
    h->roots = r;
    int **c = realloc(h->counts, sizeof *c * (size_t)(h->nlevels + 1));
    if (c == NULL) return MPI_ERR_NO_MEM;
    h->counts = c;
    int n;
    MPI_Comm_size(roots, &n);
    h->counts[h->nlevels] = malloc(sizeof(int) * (size_t)n);
    h->roots[h->nlevels] = roots;
    if (h->first < 0) h->first = level;
    h->nlevels++;
    if (h->counts[h->nlevels - 1] == NULL) return MPI_ERR_NO_MEM;
    return MPI_Allgather(&subtree, 1, MPI_INT, h->counts[h->nlevels - 1], 1, MPI_INT, roots);
}

/* Is comm one of the hierarchy's roots communicators? */
static int holds(const hsplit_hierarchy *h, MPI_Comm comm)
{
    for (int i = 0; i < h->nlevels; i++)
        if (h->roots[i] == comm) return 1;
    return 0;
}

/* Frees a communicator of the descent unless something keeps it: base, the
   node communicator, or a level (a flat group is its own roots communicator). */
static void release(const hsplit_hierarchy *h, MPI_Comm node, MPI_Comm *comm)
{
    if (*comm != MPI_COMM_NULL && *comm != h->base && *comm != node && !holds(h, *comm))
        MPI_Comm_free(comm);
    *comm = MPI_COMM_NULL;
}

/* room for a level per object type of hwloc, per switch level, and the nodes */
_Static_assert(HSPLIT_MAX_LEVELS > HWLOC_OBJ_TYPE_MAX + HSPLIT_MAX_SWITCH_LEVELS + 1,
               "HSPLIT_MAX_LEVELS below what a consistent hierarchy may need");

int hsplit_levels_step(int level, int psize, int num, int csize)
{
    if (level >= HSPLIT_MAX_LEVELS) return HSPLIT_LEVELS_TOO_DEEP;
    /* nothing split, only single processes, or the whole group again (an
       empty binding is inside every object): the roots communicator would
       hold the group's processes in the group's order, as the group does */
    if (num == 0 || num == psize || csize == psize) return HSPLIT_LEVELS_FLAT;
    return HSPLIT_LEVELS_SPLIT;
}

/* The levels: split every group along the hardware until single processes;
   the roots communicator of each split holds the new groups' leaders and the
   processes the split left alone. Keeps the level-0 communicator on several
   nodes (a node, or a top-level switch group) in *node.

   A split that makes no group strictly smaller ends the descent there (see
   hsplit_levels_step): the group, which then is what its roots communicator
   would be, becomes the level's roots communicator without another split,
   and a flat level 0 is no hierarchy at all (the collectives run MPI's own).
   Every step agrees within a group: num is agreed, and csize == psize holds
   everywhere in a group or nowhere. Past HSPLIT_MAX_LEVELS the build fails
   (*too_deep): the bindings contradict the topology. */
static int build_levels(hsplit_hierarchy *h, MPI_Comm *node, int *too_deep)
{
    MPI_Comm parent = h->base;
    int rc = MPI_SUCCESS;
    *node = MPI_COMM_NULL;
    *too_deep = 0;
    for (int level = 0;; level++) {
        int psize, prank, num, csize = 1, crank = 0;
        MPI_Comm_size(parent, &psize);
        if (psize == 1) break;
        /* the bound, before any split: whatever this one would give */
        if (hsplit_levels_step(level, psize, 1, 1) == HSPLIT_LEVELS_TOO_DEEP) {
            *too_deep = 1;
            rc = MPI_ERR_INTERN;
            break;
        }
        MPI_Comm_rank(parent, &prank);
        MPI_Comm child, roots = MPI_COMM_NULL;
        char name[HSPLIT_MAX_HLEVEL_NAME];
        int kind = hsplit_split(parent, HSPLIT_SPLIT_PHYSICAL, HWLOC_OBJ_MACHINE, 0, prank,
                                HSPLIT_KIND_OK, &child, &num, name);
        if (kind != HSPLIT_KIND_OK) { rc = hsplit_kind_code(kind); break; }
        if (child != MPI_COMM_NULL) {
            MPI_Comm_size(child, &csize);
            MPI_Comm_rank(child, &crank);
        }
        if (hsplit_levels_step(level, psize, num, csize) == HSPLIT_LEVELS_FLAT) {
            if (child != MPI_COMM_NULL) MPI_Comm_free(&child);
            /* every process a leaf under the group's leader, its rank 0 */
            if (level > 0) rc = add_level(h, level, parent, 1);
            break;
        }
        rc = MPI_Comm_split(parent, crank == 0 ? 0 : MPI_UNDEFINED, prank, &roots);
        if (rc == MPI_SUCCESS && roots != MPI_COMM_NULL) {
            rc = hsplit_comm_made(roots);
            /* like every communicator of the library, a roots communicator
               knows its world processes through a compressed rank map */
            if (rc == MPI_SUCCESS) rc = hsplit_attach_child_rankmap(parent, roots);
            if (rc == MPI_SUCCESS) rc = add_level(h, level, roots, csize);
            release(h, *node, &roots);
        }
        if (level == 0) {
            /* on several nodes the first split places every process: by node,
               or by switch under a switch tree (the top-level group of a
               process then spans several nodes) */
            h->multi_node = child != MPI_COMM_NULL &&
                            (strcmp(name, "Machine") == 0 || strcmp(name, "Switch") == 0);
            if (h->multi_node) *node = child;
        }
        release(h, *node, &parent);
        parent = child;
        if (rc != MPI_SUCCESS || child == MPI_COMM_NULL || csize == 1) break;
    }
    release(h, *node, &parent);
    return rc;
}

/* The leader of this process's level-0 group (its node, or its top-level
   switch group under a switch tree), and, on the members of level 0, where
   each group's subtree starts in tree order (O(groups), not O(size)). */
static int build_node_leaders(hsplit_hierarchy *h, MPI_Comm node)
{
    h->node_leader = h->rank;
    int rc = MPI_Bcast(&h->node_leader, 1, MPI_INT, 0, node);
    if (rc != MPI_SUCCESS || h->first != 0) return rc;
    int n;
    MPI_Comm_size(h->roots[0], &n);
    h->top_starts = malloc(sizeof(int) * ((size_t)n + 1));
    if (h->top_starts == NULL) return MPI_ERR_NO_MEM;
    h->top_starts[0] = 0;
    for (int j = 0; j < n; j++) h->top_starts[j + 1] = h->top_starts[j] + h->counts[0][j];
    return MPI_SUCCESS;
}

/* The tree order of the comm ranks (what a gather collects, leader first,
   subtree after subtree), as a compressed rank map: direct for layouts whose
   tree order is the rank order, O(1) for other regular ones. */
static int build_order(hsplit_hierarchy *h)
{
    int *order = malloc(sizeof(int) * (size_t)h->size);
    if (order == NULL) return MPI_ERR_NO_MEM;
    int rc = hsplit_tree_allgather_bytes(h, &h->rank, (int)sizeof(int), order);
    if (rc == MPI_SUCCESS && hsplit_rankmap_detect(order, h->size, &h->order) != HSPLIT_RANKMAP_OK)
        rc = MPI_ERR_NO_MEM;
    free(order);
    return rc;
}

/* A communicator of comm's processes in comm's order for the library's own
   messages, with comm's rank map when comm has one (what MPI_Comm_dup would
   copy). A split, not MPI_Comm_dup: under Open MPI 4.1, with threads making
   communicators at once, a dup followed by splits of what it made stalled
   far more often in stress runs than splits alone (user guide, Threads);
   and SMPI's dup
   copies the group on every rank and the attributes that all ranks put on
   the shared MPI_COMM_WORLD (P^2 in all), while its split shares one group
   among the members and copies no attribute. */
static int make_base(MPI_Comm comm, hsplit_hierarchy *h)
{
    int rank, found = 0;
    void *map;
    MPI_Comm_rank(comm, &rank);
    int rc = MPI_Comm_split(comm, 0, rank, &h->base);
    if (rc != MPI_SUCCESS) return rc;
    const hsplit_context *ctx = hsplit_get_context();
    if (ctx == NULL) return MPI_ERR_INTERN;
    MPI_Comm_get_attr(comm, ctx->rankmap_keyval, &map, &found);
    return found ? hsplit_attach_child_rankmap(comm, h->base) : MPI_SUCCESS;
}

/* Said once per build, by rank 0: MPI_ERR_INTERN alone would not say why. */
static void report_too_deep(const hsplit_hierarchy *h)
{
    if (h->rank == 0)
        fprintf(stderr, "hsplit: the hierarchy of a communicator would be deeper than "
                        "HSPLIT_MAX_LEVELS (%d): the process bindings contradict the "
                        "topology; the collective fails with MPI_ERR_INTERN\n",
                HSPLIT_MAX_LEVELS);
}

static int hierarchy_build(MPI_Comm comm, hsplit_hierarchy *h)
{
    h->first = -1;
    h->user = comm;
    h->base = MPI_COMM_NULL;
    hsplit_coll_read_config(&h->config);
    int rc = make_base(comm, h);
    if (rc != MPI_SUCCESS) return rc;
    MPI_Comm_size(h->base, &h->size);
    MPI_Comm_rank(h->base, &h->rank);
    hsplit_rankmap_regular(h->size, 0, 1, 1, &h->order);
    MPI_Comm node = MPI_COMM_NULL;
    int too_deep;
    rc = build_levels(h, &node, &too_deep);
    /* agreed before anything else collective: a failure in one group (the
       level bound) must not leave the others waiting in a node broadcast */
    int mine[3] = {rc, too_deep, h->first < 0 ? 0 : h->first + h->nlevels}, all[3];
    int arc = MPI_Allreduce(mine, all, 3, MPI_INT, MPI_MAX, h->base);
    if (arc != MPI_SUCCESS) {
        rc = arc;
    } else {
        if (all[0] != MPI_SUCCESS) rc = all[0];
        if (all[1]) report_too_deep(h);
        h->depth = all[2];
    }
    if (rc == MPI_SUCCESS && h->multi_node)
        rc = build_node_leaders(h, node);
    if (node != MPI_COMM_NULL && !holds(h, node)) MPI_Comm_free(&node);
    if (rc == MPI_SUCCESS && h->depth >= 2)
        rc = build_order(h);
    return rc;
}

/* Keep the hierarchy on the context's list so that MPI_Finalize can free its
   communicators while MPI still works. */
static void live_add(hsplit_context *ctx, hsplit_hierarchy *h)
{
    pthread_mutex_lock(&ctx->live_lock);
    h->ctx = ctx;
    h->next = ctx->live_hierarchies;
    if (h->next != NULL) h->next->prev = h;
    ctx->live_hierarchies = h;
    pthread_mutex_unlock(&ctx->live_lock);
}

static void live_remove(hsplit_hierarchy *h)
{
    hsplit_context *ctx = h->ctx;
    if (ctx == NULL) return;
    pthread_mutex_lock(&ctx->live_lock);
    if (h->prev != NULL) h->prev->next = h->next;
    else ctx->live_hierarchies = h->next;
    if (h->next != NULL) h->next->prev = h->prev;
    h->ctx = NULL;
    pthread_mutex_unlock(&ctx->live_lock);
}

int hsplit_hierarchy_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm; (void)keyval; (void)extra;
    hsplit_hierarchy *h = value;
    live_remove(h);
    hierarchy_free(h);
    return MPI_SUCCESS;
}

void hsplit_hierarchy_release_all(hsplit_context *ctx)
{
    int usable = hsplit_mpi_usable();
    for (;;) {
        pthread_mutex_lock(&ctx->live_lock);
        hsplit_hierarchy *h = ctx->live_hierarchies;
        pthread_mutex_unlock(&ctx->live_lock);
        if (h == NULL) break;
        /* MPI finalized (SMPI): the attribute, deleted later, frees h; it
           only has to forget the context, which goes now */
        if (!usable) {
            live_remove(h);
            continue;
        }
        /* deleting the attribute runs hsplit_hierarchy_delete, which unlinks h */
        if (MPI_Comm_delete_attr(h->user, ctx->hierarchy_keyval) != MPI_SUCCESS) {
            live_remove(h);
            free_levels(h); /* the attribute keeps the memory; free its comms */
        }
    }
}

int hsplit_hierarchy_get(MPI_Comm comm, hsplit_hierarchy **out)
{
    hsplit_context *ctx = hsplit_get_context();
    if (ctx == NULL) return MPI_ERR_INTERN;
    int found = 0;
    MPI_Comm_get_attr(comm, ctx->hierarchy_keyval, out, &found);
    if (found) return MPI_SUCCESS;
    hsplit_hierarchy *h = calloc(1, sizeof *h);
    if (h == NULL) return MPI_ERR_NO_MEM;
    int rc = hierarchy_build(comm, h);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_set_attr(comm, ctx->hierarchy_keyval, h);
    if (rc != MPI_SUCCESS) {
        hierarchy_free(h);
        return rc;
    }
    live_add(ctx, h);
    *out = h;
    return MPI_SUCCESS;
}
