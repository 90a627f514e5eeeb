/* SPDX-License-Identifier: BSD-3-Clause */
/* HSPLIT_Reduce and HSPLIT_Allreduce: partial results flow up the levels,
   segment after segment (a level combines segment s while the one below
   combines s+1). Non-commutative operations use the hierarchy only when its
   tree order is the rank order, so that every combination is in rank order.
   Large allreduces of commutative operations take the multi-leader
   schedule (coll_multileader.c). */
#include <stdlib.h>
#include "hsplit_internal.h"

/* MPICH 4.0.2 crashes in MPI_Reduce with MPI_IN_PLACE at a root other than
   0: such a root reduces into a separate buffer and copies back. */
static int reduce_into_nonzero_root(void *acc, int count, MPI_Datatype datatype, MPI_Op op,
                                    int root, MPI_Comm comm)
{
    void *base, *result = hsplit_temp_buffer(count, datatype, &base);
    if (result == NULL) return MPI_ERR_NO_MEM;
    int rc = MPI_Reduce(acc, result, count, datatype, op, root, comm);
    if (rc == MPI_SUCCESS) rc = hsplit_local_copy(result, acc, count, datatype);
    free(base);
    return rc;
}

static int reduce_levels(void *acc, int count, MPI_Datatype datatype, MPI_Op op, int root,
                         const hsplit_hierarchy *h, int last, int low, int top, int all_at_top)
{
    int rc = MPI_SUCCESS;
    for (int level = last; level >= low && rc == MPI_SUCCESS; level--) {
        MPI_Comm comm = hsplit_roots_at(h, level);
        int me, at_root = hsplit_root_at(h, level, root);
        MPI_Comm_rank(comm, &me);
        if (all_at_top && level == top)
            rc = MPI_Allreduce(MPI_IN_PLACE, acc, count, datatype, op, comm);
        else if (me == at_root && at_root != 0)
            rc = reduce_into_nonzero_root(acc, count, datatype, op, at_root, comm);
        else if (me == at_root)
            rc = MPI_Reduce(MPI_IN_PLACE, acc, count, datatype, op, at_root, comm);
        else
            rc = MPI_Reduce(acc, NULL, count, datatype, op, at_root, comm);
    }
    return rc;
}

/* SMPI 3.32's nonblocking reductions combine the operands of a
   non-commutative operation out of rank order: under SMPI such reductions
   are not pipelined. */
static int pipeline_allowed(MPI_Op op)
{
#if HSPLIT_UNDER_SMPI
    int commute = 1;
    MPI_Op_commutative(op, &commute);
    return commute;
#else
    (void)op;
    return 1;
#endif
}

/* Combine up the levels from the deepest to `top` (inclusive). acc holds this
   process's input and, at a level it leads, receives the combination.
   all_at_top: the top level is an allreduce (everyone there gets it). */
static int tree_reduce(const hsplit_hierarchy *h, void *acc, int count, MPI_Datatype datatype,
                       MPI_Op op, int root, int top, int all_at_top)
{
    int last = h->first + h->nlevels - 1, low = h->first > top ? h->first : top;
    if (count == 0 || last < low) return MPI_SUCCESS;
    MPI_Aint lb, extent;
    MPI_Type_get_extent(datatype, &lb, &extent);
    int seg = hsplit_segment_elements(h, count, datatype), nseg = hsplit_segment_count(count, seg);
    int nstages = last - low + 1;
    /* nothing to pipeline, or a top level whose root is not rank 0 (see
       reduce_into_nonzero_root): one blocking call per level */
    if (nseg == 1 || (!all_at_top && h->multi_node && root != 0) || !pipeline_allowed(op))
        return reduce_levels(acc, count, datatype, op, root, h, last, low, top, all_at_top);
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)nstages);
    if (reqs == NULL) return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    /* step t: stage k (level last-k) works on segment t-k (64 bits: nseg
       may be close to INT_MAX) */
    for (int64_t t = 0; t < (int64_t)nseg + nstages - 1 && rc == MPI_SUCCESS; t++) {
        int nposted = 0;
        for (int k = 0; k < nstages && rc == MPI_SUCCESS; k++) {
            int level = last - k;
            if (t - k < 0 || t - k >= nseg) continue;
            int s = (int)(t - k);
            int n = s == nseg - 1 ? count - s * seg : seg;
            char *at = (char *)acc + (MPI_Aint)s * seg * extent;
            MPI_Comm comm = hsplit_roots_at(h, level);
            int me, at_root = hsplit_root_at(h, level, root);
            MPI_Comm_rank(comm, &me);
            if (all_at_top && level == top)
                rc = MPI_Iallreduce(MPI_IN_PLACE, at, n, datatype, op, comm, &reqs[nposted++]);
            else if (me == at_root && at_root != 0)
                rc = MPI_ERR_INTERN; /* pipelined only where the roots are rank 0 */
            else if (me == at_root)
                rc = MPI_Ireduce(MPI_IN_PLACE, at, n, datatype, op, at_root, comm, &reqs[nposted++]);
            else
                rc = MPI_Ireduce(at, NULL, n, datatype, op, at_root, comm, &reqs[nposted++]);
        }
        if (rc == MPI_SUCCESS) rc = hsplit_wait_all(nposted, reqs);
    }
    free(reqs);
    return rc;
}

/* Plain MPI must be used for a non-commutative operation unless the tree
   order is the rank order. */
int hsplit_needs_rank_order(const hsplit_hierarchy *h, MPI_Op op)
{
    int commute = 1;
    MPI_Op_commutative(op, &commute);
    return !commute && h->order.mode != HSPLIT_RANKMAP_DIRECT;
}

/* The hierarchy a reduction may use (NULL: plain MPI), and its bytes
   (negative when MPI_Type_size says MPI_UNDEFINED); comm and count >= 0
   checked. */
static int begin(MPI_Comm comm, int count, MPI_Datatype datatype, MPI_Op op, int root,
                 hsplit_hierarchy **h, long *bytes)
{
    int type_size = 0;
    int rc = MPI_Type_size(datatype, &type_size);
    *bytes = (long)count * type_size;
    if (rc == MPI_SUCCESS) rc = hsplit_coll_begin(comm, *bytes, root, h);
    MPI_Aint lb, extent;
    if (rc == MPI_SUCCESS && *h != NULL) {
        MPI_Type_get_extent(datatype, &lb, &extent);
        /* no bytes (count 0, or elements of size 0): nothing to move; or
           too many for MPI_Type_size */
        if (*bytes <= 0 || hsplit_needs_rank_order(*h, op) || extent < 0) *h = NULL;
    }
    return rc;
}

/* The count plain MPI is given: 0 when there are no bytes to move, so that
   MPI checks the other arguments and returns (Open MPI 4.1 otherwise walks
   2^30 elements of size 0 one by one, for seconds). */
static int plain_count(int count, long bytes)
{
    return bytes == 0 ? 0 : count;
}

/* MPI_Reduce, but never MPI_IN_PLACE at a root other than 0 (MPICH 4.0.2
   crashes there): the root's input is copied out of recvbuf first. */
static int plain_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, int root, MPI_Comm comm)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(datatype, &lb, &extent);
    if (sendbuf != MPI_IN_PLACE || rank != root || root == 0 || extent < 0)
        return MPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    void *base, *input = hsplit_temp_buffer(count, datatype, &base);
    int rc = input == NULL ? MPI_ERR_NO_MEM : hsplit_local_copy(recvbuf, input, count, datatype);
    if (rc != MPI_SUCCESS) {
        free(base);
        return hsplit_raise_code(comm, rc);
    }
    rc = MPI_Reduce(input, recvbuf, count, datatype, op, root, comm); /* raised by MPI */
    free(base);
    return rc;
}

/* The hierarchical schedules; count > 0. */
int hsplit_reduce_tree(const hsplit_hierarchy *h, const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype datatype, MPI_Op op, int root)
{
    int rc = MPI_SUCCESS, holder = hsplit_is_top_holder(h, root);
    const void *input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    /* acc: the root keeps its result in recvbuf; other leaders need space */
    void *base = NULL, *acc = holder && h->rank == root ? recvbuf : NULL;
    int leads = h->nlevels > 1 || holder;
    if (acc == NULL && leads) {
        acc = hsplit_temp_buffer(count, datatype, &base);
        if (acc == NULL) return MPI_ERR_NO_MEM;
    }
    if (acc != NULL) rc = hsplit_local_copy(input, acc, count, datatype);
    if (rc == MPI_SUCCESS)
        rc = tree_reduce(h, acc != NULL ? acc : (void *)input, count, datatype, op, root, 0, 0);
    /* one intra-node message when the root is not its node's leader */
    if (rc == MPI_SUCCESS && holder && h->rank != root)
        rc = MPI_Send(acc, count, datatype, root, HSPLIT_TAG_DELIVER, h->base);
    if (rc == MPI_SUCCESS && !holder && h->rank == root)
        rc = MPI_Recv(recvbuf, count, datatype, h->node_leader, HSPLIT_TAG_DELIVER, h->base,
                      MPI_STATUS_IGNORE);
    free(base);
    return rc;
}

/* The communicators of the multi-leader schedules, on first use
   (every process takes that path in the same call). Groups are the nodes on
   several nodes (the switch groups of level 0 would span nodes) and the
   level-0 groups on one node; a process the split leaves alone is a group of
   its own. The pieces are as many as the smallest group has processes, so
   that the i-th process of every group holds the same piece. */
int hsplit_node_groups(hsplit_hierarchy *h)
{
    if (h->rsag_ready) return MPI_SUCCESS;
    int colour = h->rank, rc = MPI_SUCCESS;
    if (h->multi_node) {
        const hsplit_context *ctx = hsplit_get_context();
        rc = ctx == NULL ? MPI_ERR_INTERN : hsplit_node_key(ctx, h->base, &colour);
    } else {
        MPI_Comm child;
        int num;
        char name[HSPLIT_MAX_HLEVEL_NAME];
        rc = hsplit_kind_code(hsplit_split(h->base, HSPLIT_SPLIT_PHYSICAL, HWLOC_OBJ_MACHINE, 0,
                                           h->rank, HSPLIT_KIND_OK, &child, &num, name));
        if (rc == MPI_SUCCESS && child != MPI_COMM_NULL) {
            rc = MPI_Bcast(&colour, 1, MPI_INT, 0, child); /* the group leader's rank */
            MPI_Comm_free(&child);
        }
    }
    MPI_Comm group = MPI_COMM_NULL, cross = MPI_COMM_NULL;
    int gsize = 0, grank = 0, pieces = 0;
    if (rc == MPI_SUCCESS) rc = MPI_Comm_split(h->base, colour, h->rank, &group);
    if (rc == MPI_SUCCESS) rc = hsplit_comm_made(group);
    if (rc == MPI_SUCCESS) {
        MPI_Comm_size(group, &gsize);
        MPI_Comm_rank(group, &grank);
        rc = MPI_Allreduce(&gsize, &pieces, 1, MPI_INT, MPI_MIN, h->base);
    }
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_split(h->base, grank < pieces ? grank : MPI_UNDEFINED, h->rank, &cross);
    if (rc == MPI_SUCCESS) rc = hsplit_comm_made(cross);
    if (rc != MPI_SUCCESS) {
        if (group != MPI_COMM_NULL) MPI_Comm_free(&group);
        if (cross != MPI_COMM_NULL) MPI_Comm_free(&cross);
        return rc;
    }
    h->rsag_group = group;
    h->rsag_cross = cross;
    h->rsag_pieces = pieces;
    h->rsag_ready = 1;
    return MPI_SUCCESS;
}

void hsplit_rsag_free(hsplit_hierarchy *h)
{
    if (h->shm_ready) {
        hsplit_shm_free(h->shm);
        h->shm = NULL;
        h->shm_ready = 0;
    }
    hsplit_node_layout_free(h);
    hsplit_ml_levels_free(h);
    if (!h->rsag_ready) return;
    if (h->rsag_group != MPI_COMM_NULL) MPI_Comm_free(&h->rsag_group);
    if (h->rsag_cross != MPI_COMM_NULL) MPI_Comm_free(&h->rsag_cross);
    h->rsag_ready = 0;
}

static int uses_rsag(const hsplit_hierarchy *h, long bytes, MPI_Op op)
{
    int commute = 0;
    MPI_Op_commutative(op, &commute);
    return commute && h->config.rsag_bytes >= 0 && bytes >= h->config.rsag_bytes;
}

static int allreduce_tree(const hsplit_hierarchy *h, const void *sendbuf, void *recvbuf,
                          int count, MPI_Datatype datatype, MPI_Op op)
{
    /* everyone's result lands in recvbuf: combine there on the way up, the
       top level is an allreduce, and the result comes back down */
    int rc = MPI_SUCCESS;
    if (sendbuf != MPI_IN_PLACE) rc = hsplit_local_copy(sendbuf, recvbuf, count, datatype);
    if (rc == MPI_SUCCESS) rc = tree_reduce(h, recvbuf, count, datatype, op, 0, 0, 1);
    if (rc == MPI_SUCCESS) rc = hsplit_tree_bcast(h, recvbuf, count, datatype, 0, 1);
    return rc;
}

/* A call whose size class is decided for the segment goes there at once
   when the full path would surely take it too: a predefined type of
   positive extent (count > 0 and a valid communicator checked by the
   caller), a valid operation, and an order of combination the segment
   keeps (commutative, or nodes in rank order). Others take the full path. */
static int shm_direct_fits(const hsplit_hierarchy *h, MPI_Datatype datatype, MPI_Op op)
{
    if (op == MPI_OP_NULL) return 0;
    if (!(datatype == MPI_DOUBLE || datatype == MPI_INT || datatype == MPI_FLOAT ||
          datatype == MPI_LONG || datatype == MPI_LONG_LONG || datatype == MPI_UNSIGNED ||
          datatype == MPI_BYTE || datatype == MPI_CHAR))
        return 0;
    if (op == MPI_SUM || op == MPI_MAX || op == MPI_MIN) return 1;
    return !hsplit_needs_rank_order(h, op);
}

static int reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm)
{
    hsplit_hierarchy *h = NULL;
    long bytes;
    int rc = begin(comm, count, datatype, op, root, &h, &bytes);
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    hsplit_coll_trial trial;
    hsplit_coll_choose(&h, HSPLIT_COLL_REDUCE, bytes, &trial);
    if (h != NULL && trial.shm)
        rc = hsplit_shm_schedule_reduce(h, sendbuf, recvbuf, count, datatype, op, root);
    else if (h != NULL && trial.schedule != NULL)
        rc = hsplit_engine_reduce(h, trial.schedule, sendbuf, recvbuf, count, datatype, op, root);
    else if (h != NULL)
        rc = hsplit_reduce_tree(h, sendbuf, recvbuf, count, datatype, op, root);
    else
        rc = plain_reduce(sendbuf, recvbuf, plain_count(count, bytes), datatype, op, root, comm);
    return hsplit_coll_finish(comm, h, &trial, rc);
}

int HSPLIT_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm)
{
    /* plain MPI decided (off mode, auto's choice) and nothing unusual:
       MPI's call, which checks its arguments itself */
    hsplit_coll_state *s = hsplit_coll_state_find(comm);
    if (s != NULL && sendbuf != MPI_IN_PLACE && recvbuf != MPI_IN_PLACE) {
        long n = hsplit_coll_bytes(count, datatype);
        if (n > 0 && hsplit_coll_plain(s, HSPLIT_COLL_REDUCE, n))
            return MPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
        hsplit_hierarchy *direct = hsplit_coll_shm_direct(s, HSPLIT_COLL_REDUCE, n);
        if (n > 0 && direct != NULL && root >= 0 && root < s->size &&
            shm_direct_fits(direct, datatype, op))
            return hsplit_coll_direct_done(
                comm, s,
                hsplit_shm_schedule_reduce(direct, sendbuf, recvbuf, count, datatype, op, root));
    }
    int rc = hsplit_coll_check_comm(comm);
    if (rc == MPI_SUCCESS && count < 0) rc = MPI_ERR_COUNT;
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    if (sendbuf != MPI_IN_PLACE && recvbuf != MPI_IN_PLACE)
        return reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    /* MPI_IN_PLACE may be the root's sendbuf, or the others' recvbuf (not
       read there); anywhere else, MPI_ERR_ARG, as Open MPI says */
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank != root && sendbuf == MPI_IN_PLACE) return hsplit_raise_code(comm, MPI_ERR_ARG);
    if (rank != root || recvbuf != MPI_IN_PLACE)
        return reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    if (sendbuf == MPI_IN_PLACE) return hsplit_raise_code(comm, MPI_ERR_ARG);
    /* a root without a result buffer still gives its input */
    void *base;
    recvbuf = hsplit_temp_buffer(count, datatype, &base);
    if (recvbuf == NULL) return hsplit_raise_code(comm, MPI_ERR_ARG);
    rc = reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    return hsplit_coll_misused(comm, base, rc, MPI_ERR_ARG);
}

static int allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm)
{
    hsplit_hierarchy *h = NULL;
    long bytes;
    int rc = begin(comm, count, datatype, op, -2, &h, &bytes);
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    hsplit_coll_trial trial;
    hsplit_coll_choose(&h, HSPLIT_COLL_ALLREDUCE, bytes, &trial);
    if (h != NULL && trial.shm)
        rc = hsplit_shm_schedule_allreduce(h, sendbuf, recvbuf, count, datatype, op);
    else if (h != NULL && trial.schedule != NULL)
        rc = hsplit_engine_allreduce(h, trial.schedule, sendbuf, recvbuf, count, datatype, op);
    else if (h != NULL && uses_rsag(h, bytes, op))
        rc = hsplit_ml_allreduce(h, sendbuf, recvbuf, count, datatype, op, HSPLIT_SHAPE_MPI);
    else if (h != NULL)
        rc = allreduce_tree(h, sendbuf, recvbuf, count, datatype, op);
    else
        rc = MPI_Allreduce(sendbuf, recvbuf, plain_count(count, bytes), datatype, op, comm);
    return hsplit_coll_finish(comm, h, &trial, rc);
}

int HSPLIT_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm)
{
    hsplit_coll_state *s = hsplit_coll_state_find(comm);
    if (s != NULL && recvbuf != MPI_IN_PLACE) {
        long n = hsplit_coll_bytes(count, datatype);
        if (n > 0 && hsplit_coll_plain(s, HSPLIT_COLL_ALLREDUCE, n))
            return MPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
        hsplit_hierarchy *direct = hsplit_coll_shm_direct(s, HSPLIT_COLL_ALLREDUCE, n);
        if (n > 0 && direct != NULL && shm_direct_fits(direct, datatype, op))
            return hsplit_coll_direct_done(
                comm, s, hsplit_shm_schedule_allreduce(direct, sendbuf, recvbuf, count, datatype, op));
    }
    int rc = hsplit_coll_check_comm(comm);
    if (rc == MPI_SUCCESS && count < 0) rc = MPI_ERR_COUNT;
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    if (recvbuf != MPI_IN_PLACE) return allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    /* MPI_IN_PLACE is sendbuf, never recvbuf (MPI_ERR_BUFFER, as both MPIs
       say); a process with an input still gives it */
    if (sendbuf == MPI_IN_PLACE) return hsplit_raise_code(comm, MPI_ERR_BUFFER);
    void *base;
    recvbuf = hsplit_temp_buffer(count, datatype, &base);
    if (recvbuf == NULL) return hsplit_raise_code(comm, MPI_ERR_BUFFER);
    rc = allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    return hsplit_coll_misused(comm, base, rc, MPI_ERR_BUFFER);
}
