/* SPDX-License-Identifier: BSD-3-Clause */
/* The multi-leader allreduce over several levels (schedules mlall and
   mlnet): the two-level multi-leader schedule (coll_multileader.c) applied
   level after level, bottom up. Each stage is a partition of the processes
   (the groups of one level of the hierarchy):

     stage 0: every group of the finest level reduce-scatters the message
              in as many slices as its smallest group has processes; the
              i-th process of every group carries slice i on;
     stage s: the carriers of one slice (one per group of stage s-1, within
              the same carriers of stage s-1) form groups by the level of
              stage s, and reduce-scatter their slice the same way;
     top:     the carriers of one slice across the coarsest groups
              allreduce it (MPI's call, the ring or recursive doubling);
     then every stage, top down, allgathers its slices in its groups.

   So the part of the message that crosses a level shrinks with every level
   below it: on a tapered network only 1/(processes per leaf switch) of the
   message goes up the uplinks, where the two-level schedule sends
   1/(processes per node) of it.

   The stages and their communicators are made once per hierarchy and
   schedule, from one table every process holds alike (the leader of every
   process's group on every level), so that the partition of every stage is
   computed identically everywhere and needs no agreement. Uneven groups:
   as in the two-level schedule, a stage cuts as many slices as its smallest
   group (within the same carriers) has processes; the others only receive
   in the allgather.

   The broadcast (the same schedules) runs the reduce-scatters' way up as
   scatters, along the root's path only: the root's group of stage 0
   scatters its message from the root; in stage s, the groups within the
   root's group of stage s's partition scatter the slice of their member
   from the root's group of stage s-1 (the one that holds it); across the
   top, each last slice is broadcast from its carrier on the root's side.
   The allgathers then run as for the allreduce. Every group of a stage
   holds the same slices across the partitions, so each group has exactly
   one such member. */
#include <stdlib.h>
#include <string.h>
#include "hsplit_internal.h"

void hsplit_ml_levels_free(hsplit_hierarchy *h)
{
    for (int v = 0; v < HSPLIT_ML_LEVEL_KINDS; v++) {
        hsplit_ml_levels *m = h->ml_levels[v];
        if (m == NULL) continue;
        for (int s = 0; s < m->nstages; s++)
            if (m->stage[s].group != MPI_COMM_NULL) MPI_Comm_free(&m->stage[s].group);
        if (m->top != MPI_COMM_NULL) MPI_Comm_free(&m->top);
        hsplit_ml_levels_discard(m);
        h->ml_levels[v] = NULL;
    }
}

void hsplit_ml_levels_discard(hsplit_ml_levels *m)
{
    if (m == NULL) return;
    free(m->tables);
    free(m);
}

/* lead[r * depth + l]: the leader (lowest rank) of rank r's group on level
   l. A process leads its group on its first level and below; above, its
   leader is what the first member (the parent group's leader) of its first
   roots communicator has, which that member learnt on its own first level:
   one broadcast per level, top down, then one allgather. */
static int leader_table(hsplit_hierarchy *h, int **table)
{
    int depth = h->depth, n = h->size;
    int *mine = malloc(sizeof(int) * (size_t)(depth > 0 ? depth : 1));
    int *all = malloc(sizeof(int) * (size_t)n * (size_t)(depth > 0 ? depth : 1));
    int failed = mine == NULL || all == NULL, any = 0;
    int rc = MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, h->base);
    if (rc == MPI_SUCCESS && any) rc = MPI_ERR_NO_MEM;
    for (int l = 0; rc == MPI_SUCCESS && l < depth; l++) mine[l] = h->rank;
    for (int i = 0; rc == MPI_SUCCESS && i < h->nlevels; i++) {
        int level = h->first + i;
        /* the levels above this one, from the member that leads the parent */
        if (level > 0) rc = MPI_Bcast(mine, level, MPI_INT, 0, h->roots[i]);
        if (i == 0)
            for (int l = level; l < depth; l++) mine[l] = h->rank;
    }
    if (rc == MPI_SUCCESS && depth > 0)
        rc = MPI_Allgather(mine, depth, MPI_INT, all, depth, MPI_INT, h->base);
    free(mine);
    if (rc != MPI_SUCCESS) {
        free(all);
        return rc;
    }
    *table = all;
    return MPI_SUCCESS;
}

/* Number of distinct groups of a partition (part[r]: the lowest rank of
   r's group, so a group is counted at its lowest rank). */
static int groups_of(const int *part, int n)
{
    int k = 0;
    for (int r = 0; r < n; r++) k += part[r] == r;
    return k;
}

/* Whether partition a is the partition b or coarser: every group of b lies
   in one group of a. */
static int coarser_or_equal(const int *a, const int *b, int n)
{
    for (int r = 0; r < n; r++)
        if (a[r] != a[b[r]]) return 0;
    return 1;
}

/* The stage partitions, finest first, into parts (room for depth + 1
   partitions of n, and one more for the nodes): every level of the
   hierarchy (kind HSPLIT_ML_ALL), or the nodes and the levels coarser than
   them (HSPLIT_ML_NET); a partition equal to the one before it, or of
   single processes only, is left out. */
static int stage_partitions(hsplit_hierarchy *h, int kind, const int *lead, int *parts)
{
    int n = h->size, depth = h->depth, nparts = 0;
    int *node = parts + (size_t)(depth + 1) * (size_t)n; /* after the room of the stages */
    for (int r = 0; r < n; r++) {
        int position, g = hsplit_node_layout_find(h, r, &position);
        node[r] = h->node_order[h->node_starts[g]];
    }
    if (kind == HSPLIT_ML_NET && groups_of(node, n) < n) {
        memcpy(parts, node, sizeof(int) * (size_t)n);
        nparts = 1;
    }
    for (int l = depth - 1; l >= 0; l--) {
        int *p = parts + (size_t)nparts * (size_t)n;
        for (int r = 0; r < n; r++) p[r] = lead[(size_t)r * (size_t)depth + (size_t)l];
        int k = groups_of(p, n);
        if (k == n) continue; /* single processes */
        if (kind == HSPLIT_ML_NET && !coarser_or_equal(p, node, n)) continue;
        if (nparts > 0 && groups_of(p - n, n) == k) continue; /* nested: equal */
        nparts++;
    }
    return nparts;
}

/* Sorting processes by (key1, key2, rank). */
typedef struct {
    int key1, key2, rank;
} sort_entry;

static int by_keys(const void *a, const void *b)
{
    const sort_entry *x = a, *y = b;
    if (x->key1 != y->key1) return x->key1 < y->key1 ? -1 : 1;
    if (x->key2 != y->key2) return x->key2 < y->key2 ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Sorts the active processes (cross[r] >= 0) by (cross, key[r], rank);
   returns how many. */
static int sorted_active(const int *cross, const int *key, int n, sort_entry *e)
{
    int m = 0;
    for (int r = 0; r < n; r++)
        if (cross[r] >= 0) e[m++] = (sort_entry){cross[r], key[r], r};
    qsort(e, (size_t)m, sizeof *e, by_keys);
    return m;
}

/* Runs the stages over every process (the same computation everywhere):
   for process me, the colour of its group at each stage (its lowest rank;
   MPI_UNDEFINED once me carries nothing), its pieces there, and the colour
   of its carriers across the top. cross[r]: the lowest rank of the set of
   carriers r is in (-1: r carries nothing on). */
static int plan_stages(int n, int me, const int *parts, int nparts, int *colour, int *pieces,
                       int *top_colour)
{
    int *cross = malloc(sizeof(int) * 4 * (size_t)n);
    sort_entry *e = malloc(sizeof *e * (size_t)n);
    if (cross == NULL || e == NULL) {
        free(cross);
        free(e);
        return MPI_ERR_NO_MEM;
    }
    int *position = cross + n, *first = cross + 2 * (size_t)n, *least = cross + 3 * (size_t)n;
    for (int r = 0; r < n; r++) cross[r] = 0;
    for (int s = 0; s < nparts; s++) {
        const int *part = parts + (size_t)s * (size_t)n;
        /* groups: runs of equal (cross, part), ranks ascending */
        int m = sorted_active(cross, part, n, e);
        for (int i = 0; i < m; i++) least[e[i].key1] = n;
        for (int i = 0; i < m;) {
            int j = i;
            while (j < m && e[j].key1 == e[i].key1 && e[j].key2 == e[i].key2) j++;
            for (int k = i; k < j; k++) {
                position[e[k].rank] = k - i;
                first[e[k].rank] = e[i].rank;
            }
            /* the smallest group of these carriers (kept at their id) */
            if (j - i < least[e[i].key1]) least[e[i].key1] = j - i;
            i = j;
        }
        colour[s] = cross[me] >= 0 ? first[me] : MPI_UNDEFINED;
        pieces[s] = cross[me] >= 0 ? least[cross[me]] : 0;
        /* the next carriers: one position within one set of carriers */
        for (int r = 0; r < n; r++)
            if (cross[r] >= 0 && position[r] >= least[cross[r]]) cross[r] = -1;
        m = sorted_active(cross, position, n, e);
        for (int i = 0; i < m;) {
            int j = i;
            while (j < m && e[j].key1 == e[i].key1 && e[j].key2 == e[i].key2) j++;
            for (int k = i; k < j; k++) cross[e[k].rank] = e[i].rank;
            i = j;
        }
    }
    *top_colour = cross[me] >= 0 ? cross[me] : MPI_UNDEFINED;
    free(cross);
    free(e);
    return MPI_SUCCESS;
}

/* The h->base ranks of comm's members into ranks (comm's size of them). */
static int members_of(MPI_Comm comm, MPI_Comm base, int *ranks)
{
    int size;
    MPI_Comm_size(comm, &size);
    int *mine = malloc(sizeof(int) * (size_t)size);
    if (mine == NULL) return MPI_ERR_NO_MEM;
    for (int i = 0; i < size; i++) mine[i] = i;
    MPI_Group group, all;
    MPI_Comm_group(comm, &group);
    MPI_Comm_group(base, &all);
    int rc = MPI_Group_translate_ranks(group, size, mine, all, ranks);
    MPI_Group_free(&group);
    MPI_Group_free(&all);
    free(mine);
    return rc;
}

/* The tables the broadcast reads (the partitions and the members of this
   process's groups), once the communicators are made; agreed, as a
   failure on one process alone would leave the others a schedule it
   lacks. */
static int keep_tables(hsplit_hierarchy *h, hsplit_ml_levels *m, const int *parts)
{
    size_t n = (size_t)h->size, room = n * (size_t)m->nstages;
    for (int s = 0; s < m->nstages; s++)
        if (m->stage[s].group != MPI_COMM_NULL) room += (size_t)m->stage[s].gsize;
    m->top_size = 0;
    if (m->top != MPI_COMM_NULL) MPI_Comm_size(m->top, &m->top_size);
    room += (size_t)m->top_size;
    m->tables = malloc(sizeof(int) * (room > 0 ? room : 1));
    int rc = m->tables == NULL ? MPI_ERR_NO_MEM : MPI_SUCCESS;
    if (rc == MPI_SUCCESS) {
        memcpy(m->tables, parts, sizeof(int) * n * (size_t)m->nstages);
        m->part = m->tables;
        int *at = m->tables + n * (size_t)m->nstages;
        for (int s = 0; s < m->nstages && rc == MPI_SUCCESS; s++) {
            hsplit_ml_stage *st = &m->stage[s];
            if (st->group == MPI_COMM_NULL) continue;
            rc = members_of(st->group, h->base, at);
            st->members = at;
            at += st->gsize;
        }
        if (rc == MPI_SUCCESS && m->top != MPI_COMM_NULL) rc = members_of(m->top, h->base, at);
        m->top_members = at;
    }
    int failed = rc != MPI_SUCCESS, any = 0;
    int arc = MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, h->base);
    if (arc != MPI_SUCCESS) return arc;
    return any ? (rc != MPI_SUCCESS ? rc : MPI_ERR_OTHER) : MPI_SUCCESS;
}

/* Makes the stages of kind (collective over h->base). */
static int make_levels(hsplit_hierarchy *h, int kind, hsplit_ml_levels **out)
{
    int rc = hsplit_node_layout(h);
    if (rc != MPI_SUCCESS) return rc;
    int *lead = NULL, n = h->size;
    rc = leader_table(h, &lead);
    if (rc != MPI_SUCCESS) return rc;
    hsplit_ml_levels *m = calloc(1, sizeof *m);
    int *parts = malloc(sizeof(int) * (size_t)n * (size_t)(h->depth + 2));
    int nparts = 0, colour[HSPLIT_MAX_LEVELS + 1], pieces[HSPLIT_MAX_LEVELS + 1], top = 0;
    int failed = m == NULL || parts == NULL;
    if (!failed) {
        nparts = stage_partitions(h, kind, lead, parts);
        failed = plan_stages(n, h->rank, parts, nparts, colour, pieces, &top) != MPI_SUCCESS;
    }
    free(lead);
    /* every process allocates before any fails alone: agree first */
    int any = 0;
    rc = MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, h->base);
    if (rc == MPI_SUCCESS && any) rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        free(parts);
        free(m);
        return rc;
    }
    m->top = MPI_COMM_NULL;
    for (int s = 0; s < nparts; s++) m->stage[s].group = MPI_COMM_NULL;
    m->nstages = nparts;
    for (int s = 0; s < nparts && rc == MPI_SUCCESS; s++) {
        hsplit_ml_stage *st = &m->stage[s];
        rc = MPI_Comm_split(h->base, colour[s], h->rank, &st->group);
        if (rc == MPI_SUCCESS && st->group != MPI_COMM_NULL) {
            MPI_Comm_size(st->group, &st->gsize);
            MPI_Comm_rank(st->group, &st->grank);
            st->pieces = pieces[s];
        }
        if (rc == MPI_SUCCESS) rc = hsplit_comm_made(st->group);
    }
    if (rc == MPI_SUCCESS) rc = MPI_Comm_split(h->base, top, h->rank, &m->top);
    if (rc == MPI_SUCCESS) rc = hsplit_comm_made(m->top);
    if (rc == MPI_SUCCESS) rc = keep_tables(h, m, parts);
    free(parts);
    h->ml_levels[kind] = m; /* freed with the hierarchy, also when incomplete */
    if (rc == MPI_SUCCESS) *out = m;
    return rc;
}

int hsplit_ml_levels_get(hsplit_hierarchy *h, int kind, hsplit_ml_levels **m)
{
    if (h->ml_levels[kind] != NULL && h->ml_levels[kind]->ready) {
        *m = h->ml_levels[kind];
        return MPI_SUCCESS;
    }
    if (h->ml_levels[kind] != NULL) return MPI_ERR_INTERN; /* failed before */
    int rc = make_levels(h, kind, m);
    if (rc == MPI_SUCCESS) (*m)->ready = 1;
    return rc;
}

/* The counts and displacements of stage st's slices of total elements. */
static void stage_slices(const hsplit_ml_stage *st, int total, int *counts, int *displs)
{
    for (int j = 0; j < st->gsize; j++) {
        counts[j] = (int)hsplit_ml_slice_size(total, st->pieces, j);
        displs[j] = (int)hsplit_ml_slice_start(total, st->pieces, j < st->pieces ? j : st->pieces);
    }
}

/* The stages this process carries into (returned: how many, the first
   ones): its part's size and place in a message of count elements before
   each (total[s], start[s]) and after the last; the largest of their groups
   in *largest (at least 1). */
static int carried_parts(const hsplit_ml_levels *m, int count, int *total, int *start,
                         int *largest)
{
    int nst = 0;
    *largest = 1;
    total[0] = count;
    start[0] = 0;
    for (int s = 0; s < m->nstages && m->stage[s].group != MPI_COMM_NULL; s++) {
        const hsplit_ml_stage *st = &m->stage[s];
        if (st->gsize > *largest) *largest = st->gsize;
        int at = st->grank < st->pieces ? st->grank : st->pieces;
        total[s + 1] = (int)hsplit_ml_slice_size(total[s], st->pieces, st->grank);
        start[s + 1] = start[s] + (int)hsplit_ml_slice_start(total[s], st->pieces, at);
        nst = s + 1;
    }
    return nst;
}

int hsplit_ml_levels_allreduce(hsplit_hierarchy *h, int kind, const void *sendbuf, void *recvbuf,
                               int count, MPI_Datatype datatype, MPI_Op op, int cross)
{
    if (count == 0) return MPI_SUCCESS;
    hsplit_ml_levels *m;
    int rc = hsplit_ml_levels_get(h, kind, &m);
    if (rc != MPI_SUCCESS) return rc;
    int total[HSPLIT_MAX_LEVELS + 2], start[HSPLIT_MAX_LEVELS + 2], largest;
    int nst = carried_parts(m, count, total, start, &largest);
    int *counts = malloc(sizeof(int) * 2 * (size_t)largest), *displs = counts + largest;
    /* two scratch parts of the first stage's slice, in turn */
    void *base[2] = {NULL, NULL}, *part[2];
    int room = nst > 0 ? total[1] : count;
    part[0] = hsplit_temp_buffer(room, datatype, &base[0]);
    part[1] = hsplit_temp_buffer(room, datatype, &base[1]);
    if (counts == NULL || part[0] == NULL || part[1] == NULL) {
        free(counts);
        free(base[0]);
        free(base[1]);
        return MPI_ERR_NO_MEM;
    }
    MPI_Aint lb, extent;
    MPI_Type_get_extent(datatype, &lb, &extent);
    /* in place: the input is recvbuf, which only the allgathers write */
    const void *input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    const void *in = input;
    void *mine = NULL;
    /* every member of a stage's group holds the same total: all call, or
       none */
    for (int s = 0; s < nst && rc == MPI_SUCCESS && total[s] > 0; s++) {
        const hsplit_ml_stage *st = &m->stage[s];
        stage_slices(st, total[s], counts, displs);
        mine = part[s % 2];
        rc = hsplit_ml_group_reduce_scatter(in, mine, counts, displs, st->gsize, datatype, op,
                                            st->group);
        in = mine;
    }
    if (rc == MPI_SUCCESS && m->top != MPI_COMM_NULL && total[nst] > 0) {
        if (nst == 0) { /* no stage: the whole message across the top */
            mine = part[0];
            rc = hsplit_local_copy(input, mine, count, datatype);
        }
        if (rc == MPI_SUCCESS) rc = hsplit_ml_cross_allreduce(m->top, cross, mine, total[nst],
                                                              datatype, op);
    }
    /* this process's part at its place in recvbuf, then every stage's
       slices to its group, top down */
    if (rc == MPI_SUCCESS && total[nst] > 0)
        rc = hsplit_local_copy(mine, (char *)recvbuf + (MPI_Aint)start[nst] * extent, total[nst],
                               datatype);
    for (int s = nst - 1; s >= 0 && rc == MPI_SUCCESS; s--) {
        if (total[s] == 0) continue;
        const hsplit_ml_stage *st = &m->stage[s];
        stage_slices(st, total[s], counts, displs);
        rc = hsplit_ml_group_allgatherv((char *)recvbuf + (MPI_Aint)start[s] * extent, counts,
                                        displs, st->gsize, datatype, st->group);
    }
    free(counts);
    free(base[0]);
    free(base[1]);
    return rc;
}

/* The group rank, among members (size of them), of the member that holds
   root's data in stage s: the one in root's group of the partition before
   (stage s-1's; before stage 0, root itself). */
static int holder_of(const hsplit_ml_levels *m, int n, int s, const int *members, int size,
                     int root)
{
    const int *before = s > 0 ? m->part + (size_t)(s - 1) * (size_t)n : NULL;
    for (int j = 0; j < size; j++)
        if (before ? before[members[j]] == before[root] : members[j] == root) return j;
    return -1;
}

/* Whether this process's group of stage s lies on root's path: within
   root's group of stage s's partition. */
static int on_path(const hsplit_ml_levels *m, int n, int s, int me, int root)
{
    const int *part = m->part + (size_t)s * (size_t)n;
    return part[me] == part[root];
}

/* The bytes' way through the stages (hsplit_ml_bcast_bytes's mover). */
typedef struct {
    int kind, cross;
} levels_bcast_arg;

static int levels_bcast_move(hsplit_hierarchy *h, char *packed, int bytes, int root,
                             const void *arg)
{
    const levels_bcast_arg *a = arg;
    hsplit_ml_levels *m;
    int rc = hsplit_ml_levels_get(h, a->kind, &m);
    if (rc != MPI_SUCCESS) return rc;
    int n = h->size, total[HSPLIT_MAX_LEVELS + 2], start[HSPLIT_MAX_LEVELS + 2], largest;
    int nst = carried_parts(m, bytes, total, start, &largest);
    int *counts = malloc(sizeof(int) * 2 * (size_t)largest), *displs = counts + largest;
    if (counts == NULL) return MPI_ERR_NO_MEM;
    /* down the root's path: every member of a group holds the same total,
       and the whole group is on the path or off it: all call, or none */
    for (int s = 0; s < nst && rc == MPI_SUCCESS && total[s] > 0; s++) {
        const hsplit_ml_stage *st = &m->stage[s];
        if (!on_path(m, n, s, h->rank, root)) continue;
        int holder = holder_of(m, n, s, st->members, st->gsize, root);
        if (holder < 0) {
            rc = MPI_ERR_INTERN;
            break;
        }
        stage_slices(st, total[s], counts, displs);
        rc = MPI_Scatterv(packed + start[s], counts, displs, MPI_BYTE,
                          st->grank == holder ? MPI_IN_PLACE : packed + start[s + 1],
                          counts[st->grank], MPI_BYTE, holder, st->group);
    }
    if (rc == MPI_SUCCESS && m->top != MPI_COMM_NULL && total[nst] > 0) {
        int holder = holder_of(m, n, m->nstages, m->top_members, m->top_size, root);
        rc = holder < 0 ? MPI_ERR_INTERN
                        : hsplit_ml_cross_bcast(m->top, a->cross, packed + start[nst],
                                                total[nst], MPI_BYTE, holder);
    }
    for (int s = nst - 1; s >= 0 && rc == MPI_SUCCESS; s--) {
        if (total[s] == 0) continue;
        const hsplit_ml_stage *st = &m->stage[s];
        stage_slices(st, total[s], counts, displs);
        rc = hsplit_ml_group_allgatherv(packed + start[s], counts, displs, st->gsize, MPI_BYTE,
                                        st->group);
    }
    free(counts);
    return rc;
}

int hsplit_ml_levels_bcast(hsplit_hierarchy *h, int kind, void *buffer, int count,
                           MPI_Datatype datatype, int root, int cross)
{
    levels_bcast_arg arg = {kind, cross};
    return hsplit_ml_bcast_bytes(h, buffer, count, datatype, root, levels_bcast_move, &arg);
}
