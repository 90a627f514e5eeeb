/* SPDX-License-Identifier: BSD-3-Clause */
/* Multi-leader (split-rail) schedules of bcast, reduce, allreduce and
   allgather over the two-level view of hsplit_node_groups: the message is
   cut into h->rsag_pieces slices, the i-th process of every group carries
   slice i across the groups on h->rsag_cross (one inter-node collective per
   slice, all in parallel), and the groups distribute or collect the slices
   inside themselves. Every process of a node moves about 1/pieces of the
   message across nodes instead of one leader moving all of it.

   Uneven groups: pieces is the smallest group's size, so every group has a
   process of group rank i for every slice i; rsag_cross[i] holds exactly one
   process per group, and a collective on it reaches every group once. The
   processes of group rank >= pieces carry nothing across groups, but they
   are in the group steps (scatter, reduce-scatter, gather, allgather),
   which give them their part of the input and all of the result.

   One node: the groups are the level-0 groups hsplit_node_groups makes
   there, and the same schedules run (with one group, bcast is a
   scatter-allgather and reduce a reduce-scatter-gather inside the node).

   Every schedule calls its collectives on every process alike, whatever
   its data; a local failure (packing, a block size that contradicts the
   others') is returned after the process took its part. Out of memory is
   returned at once, as in the other schedules. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hsplit_internal.h"

int64_t hsplit_ml_slice_size(int64_t total, int pieces, int i)
{
    return i < pieces ? total / pieces + (i < total % pieces) : 0;
}

int64_t hsplit_ml_slice_start(int64_t total, int pieces, int i)
{
    int64_t extra = total % pieces;
    return (int64_t)i * (total / pieces) + (i < extra ? i : extra);
}

/* The node layout (and the groups), and this process's group rank and size. */
static int begin(hsplit_hierarchy *h, int *grank, int *gsize)
{
    int rc = hsplit_node_layout(h);
    if (rc != MPI_SUCCESS) return rc;
    MPI_Comm_rank(h->rsag_group, grank);
    MPI_Comm_size(h->rsag_group, gsize);
    return MPI_SUCCESS;
}

/* The cross step of one slice under the schedule's cross shape
   (coll_schedule.h): HSPLIT_SHAPE_MPI, MPI's own call on rsag_cross;
   HSPLIT_SHAPE_RING, the ring (coll_level_algo.c) over it; HSPLIT_SHAPE_RD
   and HSPLIT_SHAPE_RAB, recursive doubling and Rabenseifner's for the
   allreduce, MPI's own call otherwise. The
   level of coll_level_algo.c's calls is the whole communicator (the cross,
   or a group), members in its rank order. */
static hsplit_view_level comm_level(MPI_Comm comm)
{
    hsplit_view_level l = {comm, 0, 0, 0, NULL}; /* members: its ranks */
    MPI_Comm_size(comm, &l.n);
    MPI_Comm_rank(comm, &l.me);
    return l;
}

int hsplit_ml_cross_bcast(MPI_Comm comm, int shape, void *buf, int count, MPI_Datatype datatype,
                          int root)
{
    if (shape != HSPLIT_SHAPE_RING) return MPI_Bcast(buf, count, datatype, root, comm);
    hsplit_view_level l = comm_level(comm);
    return hsplit_level_bcast_ring(comm, &l, buf, count, datatype, root);
}

int hsplit_ml_cross_allreduce(MPI_Comm comm, int shape, void *buf, int count,
                              MPI_Datatype datatype, MPI_Op op)
{
    hsplit_view_level l = comm_level(comm);
    if (shape == HSPLIT_SHAPE_RING)
        return hsplit_level_allreduce_ring(comm, &l, buf, count, datatype, op);
    if (shape == HSPLIT_SHAPE_RD)
        return hsplit_level_allreduce_rd(comm, &l, buf, count, datatype, op, 0);
    if (shape == HSPLIT_SHAPE_RAB)
        return hsplit_level_allreduce_rab(comm, &l, buf, count, datatype, op, 0);
    return MPI_Allreduce(MPI_IN_PLACE, buf, count, datatype, op, comm);
}

/* Rank in rsag_cross[i] of group g's carrier of slice i. The crosses are
   ranked as h->base, so this is not g where groups interleave (cyclic
   placement): count the groups whose i-th process has a lower rank. */
static int cross_rank_of(const hsplit_hierarchy *h, int g, int i)
{
    int carrier = h->node_order[h->node_starts[g] + i], k = 0;
    for (int other = 0; other < h->nnodes; other++)
        if (h->node_order[h->node_starts[other] + i] < carrier) k++;
    return k;
}

/* The group of every rank of rsag_cross[i] (nnodes entries). */
static void cross_groups(const hsplit_hierarchy *h, int i, int *group_of)
{
    int k = 0;
    for (int r = 0; r < h->size; r++) {
        int position, g = hsplit_node_layout_find(h, r, &position);
        if (position == i) group_of[k++] = g;
    }
}

/* Element counts and displacements of the slices of count elements over a
   group of gsize (one allocation: free the returned pointer). */
static int *slice_counts(int count, int pieces, int gsize, int **displs)
{
    int *counts = malloc(sizeof(int) * 2 * (size_t)gsize);
    if (counts == NULL) return NULL;
    *displs = counts + gsize;
    for (int j = 0; j < gsize; j++) {
        counts[j] = (int)hsplit_ml_slice_size(count, pieces, j);
        (*displs)[j] = (int)hsplit_ml_slice_start(count, pieces, j < pieces ? j : pieces);
    }
    return counts;
}

static int first_error(int a, int b) { return a != MPI_SUCCESS ? a : b; }

/* The group's reduce-scatter of counts[i] elements to member i (displs:
   where they start). SMPI 3.32's MPI_Reduce_scatter under its `ompi`
   selector gives wrong results when a count is 0 (2 ints over 16 processes,
   counts 1, 1, 0, ...: rank 0 got garbage, rank 1 ten times its sum; the
   `mpich` selector's was right): under SMPI such a call reduces to member 0
   and scatters. */
int hsplit_ml_group_reduce_scatter(const void *input, void *piece, const int *counts,
                                   const int *displs, int gsize, MPI_Datatype datatype, MPI_Op op,
                                   MPI_Comm group)
{
    int zero = 0, total = 0;
    for (int i = 0; i < gsize; i++) {
        zero |= counts[i] == 0;
        total += counts[i];
    }
    if (!HSPLIT_UNDER_SMPI || !zero)
        return MPI_Reduce_scatter(input, piece, counts, datatype, op, group);
    int grank;
    MPI_Comm_rank(group, &grank);
    void *base = NULL, *all = grank == 0 ? hsplit_temp_buffer(total, datatype, &base) : NULL;
    if (grank == 0 && all == NULL) return MPI_ERR_NO_MEM;
    int rc = MPI_Reduce(input, all, total, datatype, op, 0, group);
    if (rc == MPI_SUCCESS)
        rc = MPI_Scatterv(all, counts, displs, datatype, piece, counts[grank], datatype, 0, group);
    free(base);
    return rc;
}

/* From this many gathered bytes, an even group allgathers its slices by
   neighbour exchange (coll_level_algo.c) instead of MPI's allgatherv. On
   the simulated EPYC16 (16 processes per node, SMPI's `ompi` selector,
   which takes a Bruck allgatherv there) the ml allreduce went from 171.6 to
   164.9 us at 512 KiB and the bcast from 297.7 to 290.9; with SMPI's own
   neighbour exchange forced, 32 KiB was about 1 us slower and 128 KiB even
   (docs/results.md). */
#define NX_MIN_BYTES (128 << 10)

/* The group's allgatherv in place: member i's counts[i] elements at
   displs[i] of buf to every member. */
int hsplit_ml_group_allgatherv(void *buf, const int *counts, const int *displs, int gsize,
                               MPI_Datatype datatype, MPI_Comm group)
{
    int64_t total = 0, elem = hsplit_element_bytes(datatype);
    for (int i = 0; i < gsize; i++) total += counts[i];
    if (gsize % 2 != 0 || elem < 0 || total * elem < NX_MIN_BYTES)
        return MPI_Allgatherv(MPI_IN_PLACE, 0, datatype, buf, counts, displs, datatype, group);
    hsplit_view_level l = comm_level(group);
    return hsplit_level_allgatherv_nx(group, &l, buf, counts, displs, datatype);
}

int hsplit_ml_bcast_bytes(hsplit_hierarchy *h, void *buffer, int count, MPI_Datatype datatype,
                          int root, hsplit_ml_bytes_mover move, const void *arg)
{
    if (count < 0) return MPI_ERR_COUNT;
    if (root < 0 || root >= h->size) return MPI_ERR_ROOT;
    int64_t elem = hsplit_element_bytes(datatype);
    if (elem < 0) return MPI_ERR_TYPE;
    int64_t bytes = (int64_t)count * elem; /* the same everywhere: equal signatures */
    if (bytes == 0) return MPI_SUCCESS;
    /* slices and their places are ints of bytes: larger messages go whole */
    if (bytes > INT_MAX) return MPI_Bcast(buffer, count, datatype, root, h->base);
    /* bytes, not elements: processes may give different datatypes of one
       signature; a buffer that is not its bytes moves packed */
    int direct = hsplit_type_contiguous(datatype), is_root = h->rank == root;
    char *packed = direct ? buffer : malloc((size_t)bytes);
    if (packed == NULL) return MPI_ERR_NO_MEM;
    int local = MPI_SUCCESS;
    if (!direct && is_root)
        local = hsplit_pack_elements(buffer, count, datatype, elem, packed, h->base);
    int rc = move(h, packed, (int)bytes, root, arg);
    if (rc == MPI_SUCCESS && !direct && !is_root)
        rc = hsplit_unpack_elements(packed, buffer, count, datatype, elem, h->base);
    if (!direct) free(packed);
    return first_error(local, rc);
}

/* ml's bytes: the root's group scatters them, each slice crosses the groups
   from the root group's carrier, every group allgathers. */
static int ml_bcast_move(hsplit_hierarchy *h, char *packed, int bytes, int root, const void *arg)
{
    int cross = *(const int *)arg;
    int grank, gsize, rc = begin(h, &grank, &gsize);
    if (rc != MPI_SUCCESS) return rc;
    int pieces = h->rsag_pieces, root_position;
    int root_group = hsplit_node_layout_find(h, root, &root_position);
    int home = root_group == h->node_index, is_root = h->rank == root;
    int *displs, *counts = slice_counts(bytes, pieces, gsize, &displs);
    if (counts == NULL) return MPI_ERR_NO_MEM;
    /* the root's group: slice i to its process i */
    if (home)
        rc = MPI_Scatterv(packed, counts, displs, MPI_BYTE,
                          is_root ? MPI_IN_PLACE : packed + displs[grank], counts[grank],
                          MPI_BYTE, root_position, h->rsag_group);
    /* slice i across the groups, from the root group's process i; every
       carrier of slice i has the same count: all call, or none */
    if (rc == MPI_SUCCESS && h->rsag_cross != MPI_COMM_NULL && counts[grank] > 0)
        rc = hsplit_ml_cross_bcast(h->rsag_cross, cross, packed + displs[grank], counts[grank],
                                   MPI_BYTE, cross_rank_of(h, root_group, grank));
    /* every group: all slices to all */
    if (rc == MPI_SUCCESS)
        rc = hsplit_ml_group_allgatherv(packed, counts, displs, gsize, MPI_BYTE, h->rsag_group);
    free(counts);
    return rc;
}

int hsplit_ml_bcast(hsplit_hierarchy *h, void *buffer, int count, MPI_Datatype datatype, int root,
                    int cross)
{
    return hsplit_ml_bcast_bytes(h, buffer, count, datatype, root, ml_bcast_move, &cross);
}

int hsplit_ml_reduce(hsplit_hierarchy *h, const void *sendbuf, void *recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, int root, int cross)
{
    int commute = 0;
    if (op == MPI_OP_NULL || MPI_Op_commutative(op, &commute) != MPI_SUCCESS) return MPI_ERR_OP;
    /* the slices are combined group by group, not in rank order */
    if (!commute) return MPI_ERR_OP;
    if (count < 0) return MPI_ERR_COUNT;
    if (root < 0 || root >= h->size) return MPI_ERR_ROOT;
    if (count == 0) return MPI_SUCCESS;
    int grank, gsize, rc = begin(h, &grank, &gsize);
    if (rc != MPI_SUCCESS) return rc;
    int pieces = h->rsag_pieces, root_position;
    int root_group = hsplit_node_layout_find(h, root, &root_position);
    int home = root_group == h->node_index, is_root = h->rank == root;
    int *displs, *counts = slice_counts(count, pieces, gsize, &displs);
    if (counts == NULL) return MPI_ERR_NO_MEM;
    int mine = counts[grank];
    /* this process's slice of its group's sum, and, in the root's group,
       of the sum of all (never MPI_IN_PLACE at a root other than 0 of the
       cross reduce: MPICH 4.0.2 crashes there) */
    void *piece_base = NULL, *result_base = NULL;
    void *piece = hsplit_temp_buffer(mine, datatype, &piece_base);
    void *result = home ? hsplit_temp_buffer(mine, datatype, &result_base) : NULL;
    if (piece == NULL || (home && result == NULL)) {
        free(piece_base);
        free(result_base);
        free(counts);
        return MPI_ERR_NO_MEM;
    }
    /* in place, the root's input is recvbuf, written by the gather only */
    const void *input = sendbuf == MPI_IN_PLACE && is_root ? recvbuf : sendbuf;
    rc = hsplit_ml_group_reduce_scatter(input, piece, counts, displs, gsize, datatype, op,
                                        h->rsag_group);
    if (rc == MPI_SUCCESS && h->rsag_cross != MPI_COMM_NULL && mine > 0 &&
        cross == HSPLIT_SHAPE_RING) {
        /* the ring's result is left in the piece of the root's carrier */
        hsplit_view_level l = comm_level(h->rsag_cross);
        rc = hsplit_level_reduce_ring(h->rsag_cross, &l, piece, mine, datatype, op,
                                      cross_rank_of(h, root_group, grank));
        if (rc == MPI_SUCCESS && home) rc = hsplit_local_copy(piece, result, mine, datatype);
    } else if (rc == MPI_SUCCESS && h->rsag_cross != MPI_COMM_NULL && mine > 0) {
        rc = MPI_Reduce(piece, result, mine, datatype, op, cross_rank_of(h, root_group, grank),
                        h->rsag_cross);
    }
    if (rc == MPI_SUCCESS && home)
        rc = MPI_Gatherv(result, mine, datatype, is_root ? recvbuf : NULL, counts, displs,
                         datatype, root_position, h->rsag_group);
    free(piece_base);
    free(result_base);
    free(counts);
    return rc;
}

/* Moved from coll_reduce.c unchanged, but for count 0, which returns at
   once. Slices of zero elements (count < pieces) skip the cross allreduce,
   on every carrier of that slice alike. */
int hsplit_ml_allreduce(hsplit_hierarchy *h, const void *sendbuf, void *recvbuf, int count,
                        MPI_Datatype datatype, MPI_Op op, int cross)
{
    if (count == 0) return MPI_SUCCESS;
    int rc = hsplit_node_groups(h);
    if (rc != MPI_SUCCESS) return rc;
    int gsize, grank;
    MPI_Comm_size(h->rsag_group, &gsize);
    MPI_Comm_rank(h->rsag_group, &grank);
    int *counts = malloc(sizeof(int) * 2 * (size_t)gsize);
    if (counts == NULL) return MPI_ERR_NO_MEM;
    int *displs = counts + gsize, pieces = h->rsag_pieces, at = 0;
    for (int i = 0; i < gsize; i++) {
        counts[i] = i < pieces ? count / pieces + (i < count % pieces) : 0;
        displs[i] = at;
        at += counts[i];
    }
    int mine = counts[grank];
    void *base, *piece = hsplit_temp_buffer(mine, datatype, &base);
    if (piece == NULL) rc = MPI_ERR_NO_MEM;
    /* in place: the input is recvbuf, which only the allgather writes */
    const void *input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    if (rc == MPI_SUCCESS)
        rc = hsplit_ml_group_reduce_scatter(input, piece, counts, displs, gsize, datatype, op,
                                            h->rsag_group);
    /* every holder of a piece has the same count: all call, or none */
    if (rc == MPI_SUCCESS && h->rsag_cross != MPI_COMM_NULL && mine > 0)
        rc = hsplit_ml_cross_allreduce(h->rsag_cross, cross, piece, mine, datatype, op);
    /* the piece at its place in recvbuf (in place, recvbuf was the input,
       which the reduce-scatter has read), then every piece to all */
    if (rc == MPI_SUCCESS && mine > 0) {
        MPI_Aint lb, extent;
        MPI_Type_get_extent(datatype, &lb, &extent);
        rc = hsplit_local_copy(piece, (char *)recvbuf + (MPI_Aint)displs[grank] * extent, mine,
                               datatype);
    }
    if (rc == MPI_SUCCESS)
        rc = hsplit_ml_group_allgatherv(recvbuf, counts, displs, gsize, datatype, h->rsag_group);
    free(base);
    free(counts);
    return rc;
}

/* Block r of a buffer of blocks of count elements of type (in integers:
   the buffer may be MPI_BOTTOM). */
static char *block_of(void *buf, int count, MPI_Datatype type, int r)
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(type, &lb, &extent);
    return (char *)((uintptr_t)buf + (uintptr_t)((MPI_Aint)r * count * extent));
}

/* Bytes of group g's region of `all` (its blocks in group rank order),
   which hsplit_ml_slice_size and hsplit_ml_slice_start cut in slices. */
static int64_t region_bytes(const hsplit_hierarchy *h, int g, int64_t block)
{
    return (int64_t)(h->node_starts[g + 1] - h->node_starts[g]) * block;
}

int hsplit_ml_allgather(hsplit_hierarchy *h, const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype)
{
    if (recvcount < 0 || (sendbuf != MPI_IN_PLACE && sendcount < 0)) return MPI_ERR_COUNT;
    int64_t elem = hsplit_element_bytes(recvtype);
    if (elem < 0) return MPI_ERR_TYPE;
    int64_t block = (int64_t)recvcount * elem; /* the same everywhere */
    if (block == 0) return MPI_SUCCESS;
    /* every offset below is an int of bytes: larger gathers go whole */
    if (block > INT_MAX / h->size)
        return MPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                             h->base);
    int grank, gsize, rc = begin(h, &grank, &gsize);
    if (rc != MPI_SUCCESS) return rc;
    int pieces = h->rsag_pieces, nnodes = h->nnodes, mine = h->node_index;
    size_t total = (size_t)h->size * (size_t)block;
    /* all: every block, group after group (the layout's order); spread:
       the same bytes slice after slice, each slice's groups in order */
    char *all = malloc(total), *spread = malloc(total);
    int *ints = malloc(sizeof(int) * (2 * (size_t)gsize + 5 * (size_t)nnodes));
    if (all == NULL || spread == NULL || ints == NULL) {
        free(all);
        free(spread);
        free(ints);
        return MPI_ERR_NO_MEM;
    }
    int *slice_bytes = ints, *slice_at = ints + gsize;
    int *cross_counts = ints + 2 * gsize, *cross_displs = cross_counts + nnodes;
    int *group_of = cross_displs + nnodes, *group_counts = group_of + nnodes;
    int *group_displs = group_counts + nnodes;
    /* slice i of every group, in spread: slice_at[i], slice_bytes[i] */
    int64_t at = 0;
    for (int i = 0; i < gsize; i++) {
        int64_t n = 0;
        for (int g = 0; i < pieces && g < nnodes; g++)
            n += hsplit_ml_slice_size(region_bytes(h, g, block), pieces, i);
        slice_bytes[i] = (int)n;
        slice_at[i] = (int)at;
        at += n;
    }
    /* own block at its place */
    int local = MPI_SUCCESS;
    char *own = all + (size_t)(h->node_starts[mine] + grank) * (size_t)block;
    int in_place = sendbuf == MPI_IN_PLACE;
    if (in_place) {
        sendbuf = block_of(recvbuf, recvcount, recvtype, h->rank);
        sendcount = recvcount;
        sendtype = recvtype;
    }
    int64_t send_elem = hsplit_element_bytes(sendtype);
    if (send_elem < 0 || (int64_t)sendcount * send_elem != block) local = MPI_ERR_TRUNCATE;
    else if (hsplit_type_contiguous(sendtype)) memcpy(own, sendbuf, (size_t)block);
    else local = hsplit_pack_elements(sendbuf, sendcount, sendtype, send_elem, own, h->base);
    /* the group's blocks to all of it */
    char *region = all + (size_t)h->node_starts[mine] * (size_t)block;
    rc = MPI_Allgather(MPI_IN_PLACE, 0, MPI_BYTE, region, (int)block, MPI_BYTE, h->rsag_group);
    /* slice i of every group's region to every carrier of slice i, into
       spread's part of slice i (groups in order there; the cross ranks
       them by rank) */
    if (rc == MPI_SUCCESS && h->rsag_cross != MPI_COMM_NULL) {
        int64_t before = 0;
        for (int g = 0; g < nnodes; g++) {
            int64_t n = hsplit_ml_slice_size(region_bytes(h, g, block), pieces, grank);
            group_counts[g] = (int)n;
            group_displs[g] = (int)(slice_at[grank] + before);
            before += n;
        }
        cross_groups(h, grank, group_of);
        for (int k = 0; k < nnodes; k++) {
            cross_counts[k] = group_counts[group_of[k]];
            cross_displs[k] = group_displs[group_of[k]];
        }
        int64_t mine_bytes = region_bytes(h, mine, block);
        rc = MPI_Allgatherv(region + hsplit_ml_slice_start(mine_bytes, pieces, grank),
                            (int)hsplit_ml_slice_size(mine_bytes, pieces, grank), MPI_BYTE, spread,
                            cross_counts, cross_displs, MPI_BYTE, h->rsag_cross);
    }
    /* every slice to the whole group */
    if (rc == MPI_SUCCESS)
        rc = hsplit_ml_group_allgatherv(spread, slice_bytes, slice_at, gsize, MPI_BYTE,
                                        h->rsag_group);
    /* the other groups' slices back into their regions */
    for (int i = 0; rc == MPI_SUCCESS && i < pieces; i++) {
        int64_t from = slice_at[i];
        for (int g = 0; g < nnodes; g++) {
            int64_t bytes = region_bytes(h, g, block), n = hsplit_ml_slice_size(bytes, pieces, i);
            if (g != mine)
                memcpy(all + (size_t)h->node_starts[g] * (size_t)block +
                           (size_t)hsplit_ml_slice_start(bytes, pieces, i),
                       spread + from, (size_t)n);
            from += n;
        }
    }
    /* rank order (groups need not be ranges of ranks) */
    int flat = hsplit_type_contiguous(recvtype);
    for (int p = 0; rc == MPI_SUCCESS && p < h->size; p++) {
        int r = h->node_order[p];
        char *to = block_of(recvbuf, recvcount, recvtype, r);
        const char *from = all + (size_t)p * (size_t)block;
        if (in_place && r == h->rank) continue; /* already there */
        if (flat) memcpy(to, from, (size_t)block);
        else rc = hsplit_unpack_elements(from, to, recvcount, recvtype, elem, h->base);
    }
    free(all);
    free(spread);
    free(ints);
    return first_error(local, rc);
}
