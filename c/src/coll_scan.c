/* SPDX-License-Identifier: BSD-3-Clause */
/* HSPLIT_Scan and HSPLIT_Exscan: a prefix inside each node group (MPI's
   scan), an exclusive scan of the node totals among the last processes of
   the groups, a broadcast of that prefix inside each group, and each process
   combines it with its node-local result: prefix op mine, in rank order.
   Right only when every node group is a range of consecutive ranks (checked
   once per hierarchy, agreed): otherwise plain MPI. */
#include <limits.h>
#include <stdlib.h>
#include "hsplit_internal.h"

/* The hierarchical schedule; count > 0. */
static int scan_tree(const hsplit_hierarchy *h, const void *sendbuf, void *recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, int exclusive)
{
    int gsize, grank, rc = MPI_SUCCESS;
    MPI_Comm_size(h->rsag_group, &gsize);
    MPI_Comm_rank(h->rsag_group, &grank);
    int last = grank == gsize - 1, first_node = h->node_index == 0;
    /* the node total (the last process's inclusive prefix) and the prefix
       of the earlier nodes; the first node has none */
    void *total_base = NULL, *prefix_base = NULL, *total = recvbuf, *prefix = NULL;
    if (exclusive && last) {
        total = hsplit_temp_buffer(count, datatype, &total_base);
        if (total == NULL) return MPI_ERR_NO_MEM;
        /* the input, before an in-place exscan overwrites it */
        rc = hsplit_local_copy(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, total, count,
                               datatype);
    }
    if (rc == MPI_SUCCESS && (!first_node || last)) {
        prefix = hsplit_temp_buffer(count, datatype, &prefix_base);
        if (prefix == NULL) rc = MPI_ERR_NO_MEM;
    }
    /* 1: inside the node */
    if (rc == MPI_SUCCESS)
        rc = exclusive ? MPI_Exscan(sendbuf, recvbuf, count, datatype, op, h->rsag_group)
                       : MPI_Scan(sendbuf, recvbuf, count, datatype, op, h->rsag_group);
    /* the last's total: its exclusive result (none at group rank 0) op input */
    if (rc == MPI_SUCCESS && exclusive && last && grank > 0)
        rc = MPI_Reduce_local(recvbuf, total, count, datatype, op);
    /* 2: across nodes, among the lasts (in node order: the groups are ranges) */
    if (rc == MPI_SUCCESS && last)
        rc = MPI_Exscan(total, prefix, count, datatype, op, h->node_lasts);
    /* 3: the prefix to the node (the first node has none) */
    if (rc == MPI_SUCCESS && !first_node && gsize > 1)
        rc = MPI_Bcast(prefix, count, datatype, gsize - 1, h->rsag_group);
    /* 4: the earlier ranks' part first */
    if (rc == MPI_SUCCESS && !first_node) {
        if (exclusive && grank == 0) rc = hsplit_local_copy(prefix, recvbuf, count, datatype);
        else rc = MPI_Reduce_local(prefix, recvbuf, count, datatype, op);
    }
    free(total_base);
    free(prefix_base);
    return rc;
}

static int scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, int exclusive)
{
    int type_size = 0, rc = MPI_Type_size(datatype, &type_size);
    long bytes = (long)count * type_size; /* negative: MPI_UNDEFINED, plain MPI */
    hsplit_hierarchy *h = NULL;
    if (rc == MPI_SUCCESS) rc = hsplit_coll_begin(comm, bytes, -2, &h);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(datatype, &lb, &extent);
    /* nothing to move, or a negative extent (as the other reductions) */
    if (rc == MPI_SUCCESS && h != NULL && (bytes <= 0 || extent < 0)) h = NULL;
    if (rc == MPI_SUCCESS && h != NULL) rc = hsplit_node_layout(h);
    if (rc == MPI_SUCCESS && h != NULL && !h->nodes_contiguous) h = NULL;
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    hsplit_coll_trial trial;
    int kind = exclusive ? HSPLIT_COLL_EXSCAN : HSPLIT_COLL_SCAN;
    hsplit_coll_choose(&h, kind, bytes, &trial);
    /* no bytes: MPI checks the other arguments and returns (see coll_reduce.c) */
    int n = bytes == 0 ? 0 : count;
    if (h != NULL) rc = scan_tree(h, sendbuf, recvbuf, count, datatype, op, exclusive);
    else if (exclusive) rc = MPI_Exscan(sendbuf, recvbuf, n, datatype, op, comm);
    else rc = MPI_Scan(sendbuf, recvbuf, n, datatype, op, comm);
    return hsplit_coll_finish(comm, h, &trial, rc);
}

/* Checked before anything communicates, the same on every process when the
   arguments are: comm, count, datatype, op. */
static int check_args(MPI_Comm comm, int count, MPI_Datatype datatype, MPI_Op op)
{
    int rc = hsplit_coll_check_comm(comm);
    if (rc == MPI_SUCCESS && count < 0) rc = MPI_ERR_COUNT;
    if (rc == MPI_SUCCESS && datatype == MPI_DATATYPE_NULL) rc = MPI_ERR_TYPE;
    if (rc == MPI_SUCCESS && op == MPI_OP_NULL) rc = MPI_ERR_OP;
    return rc;
}

/* MPI_IN_PLACE is sendbuf, never recvbuf (MPI_ERR_BUFFER, as MPICH and
   HSPLIT_Allreduce say; Open MPI says MPI_ERR_ARG): a process with an input
   still takes its part with a scratch result, so that the others complete. */
static int run(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, int exclusive)
{
    int rc = check_args(comm, count, datatype, op);
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    if (recvbuf != MPI_IN_PLACE)
        return scan(sendbuf, recvbuf, count, datatype, op, comm, exclusive);
    if (sendbuf == MPI_IN_PLACE) return hsplit_raise_code(comm, MPI_ERR_BUFFER);
    void *base;
    recvbuf = hsplit_temp_buffer(count, datatype, &base);
    if (recvbuf == NULL) return hsplit_raise_code(comm, MPI_ERR_BUFFER);
    rc = scan(sendbuf, recvbuf, count, datatype, op, comm, exclusive);
    return hsplit_coll_misused(comm, base, rc, MPI_ERR_BUFFER);
}

int HSPLIT_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm)
{
    /* plain MPI decided (off mode, auto's choice) and nothing unusual:
       MPI's call, which checks its arguments itself */
    hsplit_coll_state *s = hsplit_coll_state_find(comm);
    if (s != NULL && sendbuf != MPI_IN_PLACE && recvbuf != MPI_IN_PLACE &&
        datatype != MPI_DATATYPE_NULL && op != MPI_OP_NULL) {
        long n = hsplit_coll_bytes(count, datatype);
        if (n > 0 && hsplit_coll_plain(s, HSPLIT_COLL_SCAN, n))
            return MPI_Scan(sendbuf, recvbuf, count, datatype, op, comm);
    }
    return run(sendbuf, recvbuf, count, datatype, op, comm, 0);
}

int HSPLIT_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm)
{
    hsplit_coll_state *s = hsplit_coll_state_find(comm);
    if (s != NULL && sendbuf != MPI_IN_PLACE && recvbuf != MPI_IN_PLACE &&
        datatype != MPI_DATATYPE_NULL && op != MPI_OP_NULL) {
        long n = hsplit_coll_bytes(count, datatype);
        if (n > 0 && hsplit_coll_plain(s, HSPLIT_COLL_EXSCAN, n))
            return MPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm);
    }
    return run(sendbuf, recvbuf, count, datatype, op, comm, 1);
}
