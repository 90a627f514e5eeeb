/* SPDX-License-Identifier: BSD-3-Clause */
/* HSPLIT_Reduce_scatter_block and HSPLIT_Reduce_scatter: each node group
   reduces the whole vector to its leader, the leaders reduce-scatter the
   vector across the groups (each leader gets the blocks of its own group's
   processes), and each leader scatters its group's blocks inside the group.
   Only the leaders talk across nodes. A non-commutative operation takes this
   path only when every group is a range of consecutive ranks: the groups'
   partial results then combine in rank order. */
#include <limits.h>
#include <stdlib.h>
#include "hsplit_internal.h"

/* Checked by every process before anything communicates (the same result
   on every process when the arguments are): the datatype and the operation
   (run() then checks MPI_IN_PLACE as recvbuf). */
static int check_args(MPI_Datatype datatype, MPI_Op op)
{
    if (datatype == MPI_DATATYPE_NULL) return MPI_ERR_TYPE;
    if (op == MPI_OP_NULL) return MPI_ERR_OP;
    return MPI_SUCCESS;
}

/* The leader's part across nodes: the node's reduced vector `full` (blocks in
   rank order) put in group order when the groups are not rank ranges, then
   reduce-scattered among the leaders, group g getting its processes' blocks
   into piece. */
static int leaders_reduce_scatter(const hsplit_hierarchy *h, void *full, void *piece,
                                  const int *counts, int total, MPI_Datatype datatype, MPI_Op op)
{
    int nnodes = h->nnodes, rc = MPI_SUCCESS;
    int *node_counts = malloc(sizeof(int) * (size_t)nnodes);
    if (node_counts == NULL) return MPI_ERR_NO_MEM;
    for (int g = 0; g < nnodes; g++) {
        node_counts[g] = 0;
        for (int j = h->node_starts[g]; j < h->node_starts[g + 1]; j++)
            node_counts[g] += counts[h->node_order[j]];
    }
    void *base = NULL, *ordered = full;
    if (!h->nodes_contiguous) {
        MPI_Aint lb, extent;
        MPI_Type_get_extent(datatype, &lb, &extent);
        /* where each rank's block starts in rank order (64 bits: offsets) */
        int64_t *at = malloc(sizeof(int64_t) * (size_t)h->size);
        ordered = at == NULL ? NULL : hsplit_temp_buffer(total, datatype, &base);
        if (ordered == NULL) rc = MPI_ERR_NO_MEM;
        for (int r = 0, sum = 0; rc == MPI_SUCCESS && r < h->size; sum += counts[r++])
            at[r] = sum;
        int64_t to = 0;
        for (int j = 0; rc == MPI_SUCCESS && j < h->size; j++) {
            int r = h->node_order[j];
            rc = hsplit_local_copy((char *)full + at[r] * extent, (char *)ordered + to * extent,
                                   counts[r], datatype);
            to += counts[r];
        }
        free(at);
    }
    if (rc == MPI_SUCCESS)
        rc = MPI_Reduce_scatter(ordered, piece, node_counts, datatype, op, h->rsag_cross);
    free(base);
    free(node_counts);
    return rc;
}

/* The hierarchical schedule; total = sum of counts, 0 < total <= INT_MAX. */
static int reduce_scatter_tree(const hsplit_hierarchy *h, const void *sendbuf, void *recvbuf,
                               const int *counts, int total, MPI_Datatype datatype, MPI_Op op)
{
    int gsize, grank, rc = MPI_SUCCESS;
    MPI_Comm_size(h->rsag_group, &gsize);
    MPI_Comm_rank(h->rsag_group, &grank);
    const void *input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    /* the leader keeps the node's vector, then its group's blocks */
    void *full_base = NULL, *piece_base = NULL, *full = NULL, *piece = NULL;
    int *scounts = NULL, *sdispls = NULL;
    const int *members = h->node_order + h->node_starts[h->node_index];
    if (grank == 0) {
        full = hsplit_temp_buffer(total, datatype, &full_base);
        scounts = malloc(sizeof(int) * 2 * (size_t)gsize);
        int64_t mine = 0;
        for (int j = 0; scounts != NULL && j < gsize; j++) {
            sdispls = scounts + gsize;
            scounts[j] = counts[members[j]];
            sdispls[j] = (int)mine; /* within total */
            mine += scounts[j];
        }
        piece = hsplit_temp_buffer(mine, datatype, &piece_base);
        if (full == NULL || scounts == NULL || piece == NULL) rc = MPI_ERR_NO_MEM;
    }
    /* as in the other collectives, a process short of memory fails alone */
    if (rc == MPI_SUCCESS) rc = MPI_Reduce(input, full, total, datatype, op, 0, h->rsag_group);
    if (rc == MPI_SUCCESS && grank == 0)
        rc = leaders_reduce_scatter(h, full, piece, counts, total, datatype, op);
    if (rc == MPI_SUCCESS)
        rc = MPI_Scatterv(piece, scounts, sdispls, datatype, recvbuf, counts[h->rank], datatype,
                          0, h->rsag_group);
    free(full_base);
    free(piece_base);
    free(scounts);
    return rc;
}

/* The hierarchy to use (NULL: plain MPI); bytes is the whole vector's, the
   same on every process (the counts are). */
static int begin(MPI_Comm comm, long bytes, MPI_Op op, MPI_Datatype datatype, int kind,
                 hsplit_hierarchy **h, hsplit_coll_trial *trial)
{
    int rc = hsplit_coll_begin(comm, bytes, -2, h);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(datatype, &lb, &extent);
    /* nothing to move; more than the int counts of the steps carry; or a
       negative extent (as the other reductions) */
    if (rc == MPI_SUCCESS && *h != NULL && (bytes <= 0 || bytes > INT_MAX || extent < 0))
        *h = NULL;
    if (rc == MPI_SUCCESS && *h != NULL) rc = hsplit_node_layout(*h);
    if (rc == MPI_SUCCESS && *h != NULL && !(*h)->nodes_contiguous) {
        int commute = 1;
        MPI_Op_commutative(op, &commute);
        if (!commute) *h = NULL; /* groups out of rank order: plain MPI keeps it */
    }
    trial->h = NULL;
    if (rc == MPI_SUCCESS) hsplit_coll_choose(h, kind, bytes, trial);
    return rc;
}

/* Elements of the whole vector (counts >= 0 checked), in 64 bits. */
static int64_t vector_count(const int *counts, int size)
{
    int64_t total = 0;
    for (int i = 0; i < size; i++) total += counts[i];
    return total;
}

/* Bytes of the whole vector; negative when MPI_Type_size cannot say (more
   than an int of bytes in one element), which plain MPI handles. */
static long vector_bytes(const int *counts, int size, MPI_Datatype datatype)
{
    int type_size = 0;
    if (MPI_Type_size(datatype, &type_size) != MPI_SUCCESS || type_size == MPI_UNDEFINED)
        return -1;
    int64_t total = vector_count(counts, size);
    if (type_size > 0 && total > INT64_MAX / type_size) return LONG_MAX;
    return (long)(total * type_size);
}

static int reduce_scatter(const void *sendbuf, void *recvbuf, const int *counts,
                          int block, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    int size;
    MPI_Comm_size(comm, &size);
    long bytes = vector_bytes(counts, size, datatype);
    int kind = block >= 0 ? HSPLIT_COLL_REDUCE_SCATTER_BLOCK : HSPLIT_COLL_REDUCE_SCATTER;
    hsplit_hierarchy *h = NULL;
    hsplit_coll_trial trial;
    int rc = begin(comm, bytes, op, datatype, kind, &h, &trial);
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    if (h != NULL) /* bytes <= INT_MAX: the elements are fewer */
        rc = reduce_scatter_tree(h, sendbuf, recvbuf, counts, (int)vector_count(counts, size),
                                 datatype, op);
    else if (block >= 0)
        rc = MPI_Reduce_scatter_block(sendbuf, recvbuf, bytes == 0 ? 0 : block, datatype, op,
                                      comm);
    else
        rc = MPI_Reduce_scatter(sendbuf, recvbuf, counts, datatype, op, comm);
    return hsplit_coll_finish(comm, h, &trial, rc);
}

/* Runs the call; a process that gave MPI_IN_PLACE as recvbuf but has an
   input still takes its part with a scratch result (the others complete),
   then fails with MPI_ERR_BUFFER (as MPICH and HSPLIT_Allreduce say; Open
   MPI says MPI_ERR_ARG). */
static int run(const void *sendbuf, void *recvbuf, const int *counts, int block,
               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    if (recvbuf != MPI_IN_PLACE)
        return reduce_scatter(sendbuf, recvbuf, counts, block, datatype, op, comm);
    if (sendbuf == MPI_IN_PLACE) return hsplit_raise_code(comm, MPI_ERR_BUFFER);
    int rank;
    MPI_Comm_rank(comm, &rank);
    void *base;
    recvbuf = hsplit_temp_buffer(counts[rank], datatype, &base);
    if (recvbuf == NULL) return hsplit_raise_code(comm, MPI_ERR_BUFFER);
    int rc = reduce_scatter(sendbuf, recvbuf, counts, block, datatype, op, comm);
    return hsplit_coll_misused(comm, base, rc, MPI_ERR_BUFFER);
}

int HSPLIT_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    /* plain MPI decided (off mode, auto's choice) and nothing unusual:
       MPI's call, which checks its arguments itself */
    hsplit_coll_state *s = hsplit_coll_state_find(comm);
    if (s != NULL && sendbuf != MPI_IN_PLACE && recvbuf != MPI_IN_PLACE &&
        check_args(datatype, op) == MPI_SUCCESS) {
        long n = hsplit_coll_bytes(recvcount, datatype) * s->size;
        if (n > 0 && hsplit_coll_plain(s, HSPLIT_COLL_REDUCE_SCATTER_BLOCK, n))
            return MPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
    }
    int rc = hsplit_coll_check_comm(comm);
    if (rc == MPI_SUCCESS && recvcount < 0) rc = MPI_ERR_COUNT;
    if (rc == MPI_SUCCESS) rc = check_args(datatype, op);
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    int size;
    MPI_Comm_size(comm, &size);
    int *counts = malloc(sizeof(int) * (size_t)size);
    if (counts == NULL) return hsplit_raise_code(comm, MPI_ERR_NO_MEM);
    for (int i = 0; i < size; i++) counts[i] = recvcount;
    rc = run(sendbuf, recvbuf, counts, recvcount, datatype, op, comm);
    free(counts);
    return rc;
}

int HSPLIT_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    hsplit_coll_state *s = hsplit_coll_state_find(comm);
    if (s != NULL && sendbuf != MPI_IN_PLACE && recvbuf != MPI_IN_PLACE && recvcounts != NULL &&
        check_args(datatype, op) == MPI_SUCCESS) {
        long n = 0;
        int type_size = 0;
        for (int i = 0; i < s->size && n >= 0; i++) n = recvcounts[i] < 0 ? -1 : n + recvcounts[i];
        if (n > 0 && n <= INT_MAX && MPI_Type_size(datatype, &type_size) == MPI_SUCCESS && type_size > 0 &&
            hsplit_coll_plain(s, HSPLIT_COLL_REDUCE_SCATTER, n * type_size))
            return MPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
    }
    int rc = hsplit_coll_check_comm(comm);
    int size = 0;
    if (rc == MPI_SUCCESS) MPI_Comm_size(comm, &size);
    if (rc == MPI_SUCCESS && recvcounts == NULL) rc = MPI_ERR_COUNT;
    for (int i = 0; rc == MPI_SUCCESS && i < size; i++)
        if (recvcounts[i] < 0) rc = MPI_ERR_COUNT;
    if (rc == MPI_SUCCESS) rc = check_args(datatype, op);
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    return run(sendbuf, recvbuf, recvcounts, -1, datatype, op, comm);
}
