/* SPDX-License-Identifier: BSD-3-Clause */
/* The hierarchical schedules whose node part runs in the node's shared
   memory (coll_shm.c): inside each node the processes meet in one segment,
   and only the node leaders exchange messages, with the MPI's own
   collective on their communicator (the two-level shape of HAN). On one
   node the whole collective is the shared-memory one. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include "coll_shm_private.h"

/* Where comm rank `root` is: its node (the leaders' rank of its leader)
   and its rank in that node. One node: the node itself. */
static int locate(hsplit_hierarchy *h, int root, int *node, int *position)
{
    if (!h->multi_node) {
        *node = 0;
        *position = root;
        return MPI_SUCCESS;
    }
    int rc = hsplit_node_layout(h);
    if (rc == MPI_SUCCESS) *node = hsplit_node_layout_find(h, root, position);
    return rc;
}

/* The node index of this process (its leader's rank among the leaders). */
static int my_node(const hsplit_hierarchy *h)
{
    return h->multi_node ? h->node_index : 0;
}

int hsplit_shm_schedule_barrier(hsplit_hierarchy *h)
{
    hsplit_shm *shm = h->shm;
    if (!h->multi_node) return hsplit_shm_barrier(shm);
    int rc = hsplit_shm_barrier_arrive(shm);
    MPI_Comm leaders = hsplit_shm_leaders(shm);
    if (rc == MPI_SUCCESS && leaders != MPI_COMM_NULL) rc = MPI_Barrier(leaders);
    /* released even after an error: no process stays waiting */
    int rrc = hsplit_shm_barrier_release(shm);
    return rc != MPI_SUCCESS ? rc : rrc;
}

int hsplit_shm_schedule_bcast(hsplit_hierarchy *h, void *buf, int count, MPI_Datatype datatype,
                              int root)
{
    hsplit_shm *shm = h->shm;
    int node, position, rc = locate(h, root, &node, &position);
    if (rc != MPI_SUCCESS) return rc;
    /* the root's node first: its leader then holds the data */
    int mine = my_node(h) == node;
    if (mine) rc = hsplit_shm_bcast(shm, buf, count, datatype, position);
    if (!h->multi_node) return rc;
    MPI_Comm leaders = hsplit_shm_leaders(shm);
    if (rc == MPI_SUCCESS && leaders != MPI_COMM_NULL)
        rc = MPI_Bcast(buf, count, datatype, node, leaders);
    if (rc == MPI_SUCCESS && !mine) rc = hsplit_shm_bcast(shm, buf, count, datatype, 0);
    return rc;
}

/* The leaders' reduce to the leader of node `node`, into result there
   (never MPI_IN_PLACE at a root other than 0: MPICH 4.0.2 crashes there). */
static int leaders_reduce(MPI_Comm leaders, void *acc, void *result, int count,
                          MPI_Datatype datatype, MPI_Op op, int node)
{
    int me;
    MPI_Comm_rank(leaders, &me);
    return MPI_Reduce(acc, me == node ? result : NULL, count, datatype, op, node, leaders);
}

int hsplit_shm_schedule_reduce(hsplit_hierarchy *h, const void *sendbuf, void *recvbuf,
                               int count, MPI_Datatype datatype, MPI_Op op, int root)
{
    hsplit_shm *shm = h->shm;
    if (!h->multi_node) return hsplit_shm_reduce(shm, sendbuf, recvbuf, count, datatype, op, root);
    int node, position, rc = locate(h, root, &node, &position);
    if (rc != MPI_SUCCESS) return rc;
    const void *input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    MPI_Comm leaders = hsplit_shm_leaders(shm);
    int is_root = h->rank == root, leads = leaders != MPI_COMM_NULL;
    /* a leader's node result, and the root leader's final result: the
       root's recvbuf when the root leads, else scratch */
    void *acc_base = NULL, *res_base = NULL, *acc = NULL, *result = NULL;
    if (leads) {
        acc = hsplit_temp_buffer(count, datatype, &acc_base);
        if (acc == NULL) rc = MPI_ERR_NO_MEM;
        if (my_node(h) == node) {
            result = is_root ? recvbuf : hsplit_temp_buffer(count, datatype, &res_base);
            if (result == NULL) rc = MPI_ERR_NO_MEM;
        }
    }
    /* every process takes part in the node's reduce, even after a local
       failure, so that no one waits for it (the failure is returned) */
    int nrc = hsplit_shm_reduce(shm, input, acc, count, datatype, op, 0);
    if (rc == MPI_SUCCESS) rc = nrc;
    if (leads) {
        int lrc = leaders_reduce(leaders, acc, result, count, datatype, op, node);
        if (rc == MPI_SUCCESS) rc = lrc;
    }
    /* the root's leader hands the result to the root */
    int root_leader = leads && my_node(h) == node && position != 0;
    if (root_leader && rc == MPI_SUCCESS)
        rc = MPI_Send(result, count, datatype, root, HSPLIT_TAG_DELIVER, h->base);
    if (is_root && position != 0) {
        int leader = h->node_order[h->node_starts[node]];
        int rrc = MPI_Recv(recvbuf, count, datatype, leader, HSPLIT_TAG_DELIVER, h->base,
                           MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS) rc = rrc;
    }
    free(acc_base);
    free(res_base);
    return rc;
}

int hsplit_shm_schedule_allreduce(hsplit_hierarchy *h, const void *sendbuf, void *recvbuf,
                                  int count, MPI_Datatype datatype, MPI_Op op)
{
    hsplit_shm *shm = h->shm;
    if (!h->multi_node) return hsplit_shm_allreduce(shm, sendbuf, recvbuf, count, datatype, op);
    const void *input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    MPI_Comm leaders = hsplit_shm_leaders(shm);
    int rc = MPI_SUCCESS, leads = leaders != MPI_COMM_NULL;
    /* in place, the leader reduces its node into a copy of its input */
    void *base = NULL, *acc = recvbuf;
    if (leads && sendbuf == MPI_IN_PLACE) {
        acc = hsplit_temp_buffer(count, datatype, &base);
        if (acc == NULL) rc = MPI_ERR_NO_MEM;
    }
    int nrc = hsplit_shm_reduce(shm, input, acc != NULL ? acc : recvbuf, count, datatype, op, 0);
    if (rc == MPI_SUCCESS) rc = nrc;
    if (leads && rc == MPI_SUCCESS) {
        rc = MPI_Allreduce(MPI_IN_PLACE, acc, count, datatype, op, leaders);
        if (rc == MPI_SUCCESS && acc != recvbuf)
            rc = hsplit_local_copy(acc, recvbuf, count, datatype);
    }
    /* every process takes part in the node's broadcast (see reduce) */
    int brc = hsplit_shm_bcast(shm, recvbuf, count, datatype, 0);
    free(base);
    return rc != MPI_SUCCESS ? rc : brc;
}

/* ---- gather, scatter, allgather across nodes: the node part in shared
   memory into (out of) the node leader, as packed blocks; the leaders move
   the nodes' blocks with MPI's vector collective, node after node (the
   layout's order: nodes need not be ranges of ranks), and the root puts
   them in rank order. A process that failed takes part to the end all the
   same (garbage moves, its error is returned), so that no one waits. ---- */

/* The bytes of every node's blocks and where they start, node after node
   (one allocation: free the returned pointer); NULL if out of memory. */
static int *node_bytes(const hsplit_hierarchy *h, int64_t bytes, int **displs)
{
    int n = h->nnodes;
    int *counts = malloc(sizeof(int) * 2 * (size_t)n);
    if (counts == NULL) return NULL;
    *displs = counts + n;
    for (int g = 0; g < n; g++) {
        counts[g] = (int)((h->node_starts[g + 1] - h->node_starts[g]) * bytes);
        (*displs)[g] = (int)(h->node_starts[g] * bytes);
    }
    return counts;
}

/* Block `rank` of a buffer of blocks of count elements of type (in
   integers: the buffer may be MPI_BOTTOM). */
static char *rank_block(void *buf, int count, MPI_Datatype type, int rank)
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(type, &lb, &extent);
    return (char *)((uintptr_t)buf + (uintptr_t)((MPI_Aint)rank * count * extent));
}

/* The blocks of `bytes` of all processes between a leader and its node's
   process `peer` (the root): nothing but an empty message after a failure
   (rc), which the receiver turns into an error. */
static int hand_over(hsplit_hierarchy *h, int send, char *all, int64_t bytes, int peer, int tag,
                     int rc)
{
    int total = (int)(h->size * bytes);
    if (send) return MPI_Send(all, rc == MPI_SUCCESS ? total : 0, MPI_BYTE, peer, tag, h->base);
    MPI_Status status;
    int got = 0, rrc = MPI_Recv(all, total, MPI_BYTE, peer, tag, h->base, &status);
    if (rrc == MPI_SUCCESS) MPI_Get_count(&status, MPI_BYTE, &got);
    return rrc != MPI_SUCCESS ? rrc : got != total ? MPI_ERR_OTHER : MPI_SUCCESS;
}

/* What the schedules across nodes share: the root's node and position,
   the block bytes (the same everywhere), the leaders' byte layout. */
typedef struct {
    int node, position, leads, home; /* home: this process is on the root's node */
    int64_t bytes;
    MPI_Comm leaders;
    int *counts, *displs;            /* leaders only */
} across;

/* root < 0: allgather. bytes < 0: MPI cannot pack the type. */
static int across_begin(hsplit_hierarchy *h, int root, int64_t bytes, across *a)
{
    a->counts = NULL;
    a->bytes = bytes;
    if (bytes < 0) return MPI_ERR_TYPE;
    if (bytes > INT_MAX / h->size) return MPI_ERR_COUNT; /* the callers keep it in an int */
    int rc = root >= 0 ? locate(h, root, &a->node, &a->position) : hsplit_node_layout(h);
    if (rc != MPI_SUCCESS) return rc;
    if (root < 0) a->node = a->position = 0;
    a->leaders = hsplit_shm_leaders(h->shm);
    a->leads = a->leaders != MPI_COMM_NULL;
    a->home = my_node(h) == a->node;
    if (a->leads && bytes > 0) {
        a->counts = node_bytes(h, bytes, &a->displs);
        if (a->counts == NULL) return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

static int first_error(int a, int b) { return a != MPI_SUCCESS ? a : b; }

/* The blocks of a gather or scatter across nodes: *all, every block node
   after node, at the root and its node's leader; *mine, this node's blocks
   at its leader (in *all at the root's leader). MPI_ERR_NO_MEM, with
   everything freed (a.counts too), when a leader lacks its buffer: it
   cannot take part. The root without *all reports it after its steps. */
static int node_buffers(hsplit_hierarchy *h, int root, across *a, char **all, char **mine)
{
    *all = NULL;
    *mine = NULL;
    if (h->rank == root || (a->leads && a->home))
        *all = malloc((size_t)h->size * (size_t)a->bytes);
    if (!a->leads) return MPI_SUCCESS;
    *mine = !a->home ? malloc((size_t)hsplit_shm_size(h->shm) * (size_t)a->bytes)
            : *all != NULL ? *all + (size_t)h->node_starts[a->node] * (size_t)a->bytes : NULL;
    if (*mine != NULL) return MPI_SUCCESS;
    free(*all);
    free(a->counts);
    return MPI_ERR_NO_MEM;
}

int hsplit_shm_schedule_gather(hsplit_hierarchy *h, const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf, int recvcount,
                               MPI_Datatype recvtype, int root)
{
    hsplit_shm *shm = h->shm;
    if (!h->multi_node)
        return hsplit_shm_gather(shm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                 root);
    int is_root = h->rank == root, skip = -1;
    if (is_root && sendbuf == MPI_IN_PLACE) {
        /* the root gives its block from where it is, and leaves it there */
        sendbuf = rank_block(recvbuf, recvcount, recvtype, root);
        sendcount = recvcount;
        sendtype = recvtype;
        skip = root;
    }
    across a;
    int rc = across_begin(h, root,
                          is_root ? hsplit_shm_block_bytes(recvcount, recvtype)
                                  : hsplit_shm_block_bytes(sendcount, sendtype),
                          &a);
    if (rc != MPI_SUCCESS || a.bytes == 0) {
        free(a.counts);
        return rc;
    }
    int nsize = hsplit_shm_size(shm);
    char *all, *mine;
    if (node_buffers(h, root, &a, &all, &mine) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
    if (is_root && all == NULL) rc = MPI_ERR_NO_MEM;
    int nrc = hsplit_shm_gather(shm, sendbuf, sendcount, sendtype, mine, (int)a.bytes, MPI_BYTE, 0);
    rc = first_error(rc, nrc);
    if (a.leads && a.home)
        rc = first_error(rc, MPI_Gatherv(MPI_IN_PLACE, 0, MPI_BYTE, all, a.counts, a.displs,
                                         MPI_BYTE, a.node, a.leaders));
    else if (a.leads)
        rc = first_error(rc, MPI_Gatherv(mine, nsize * (int)a.bytes, MPI_BYTE, NULL, NULL, NULL,
                                         MPI_BYTE, a.node, a.leaders));
    /* the root's leader hands everything to the root */
    int leader = h->node_order[h->node_starts[a.node]];
    if (a.leads && a.home && !is_root)
        rc = first_error(rc, hand_over(h, 1, all, a.bytes, root, HSPLIT_TAG_DELIVER, rc));
    if (is_root && !a.leads && all != NULL)
        rc = first_error(rc, hand_over(h, 0, all, a.bytes, leader, HSPLIT_TAG_DELIVER, rc));
    if (is_root && rc == MPI_SUCCESS)
        rc = hsplit_shm_place_blocks(all, h->node_order, h->size, a.bytes, recvbuf, recvcount,
                                     recvtype, skip);
    if (a.leads && !a.home) free(mine);
    free(all);
    free(a.counts);
    return rc;
}

int hsplit_shm_schedule_scatter(hsplit_hierarchy *h, const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                MPI_Datatype recvtype, int root)
{
    hsplit_shm *shm = h->shm;
    if (!h->multi_node)
        return hsplit_shm_scatter(shm, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                  recvtype, root);
    int is_root = h->rank == root;
    across a;
    int rc = across_begin(h, root,
                          is_root ? hsplit_shm_block_bytes(sendcount, sendtype)
                                  : hsplit_shm_block_bytes(recvcount, recvtype),
                          &a);
    if (rc != MPI_SUCCESS || a.bytes == 0) {
        free(a.counts);
        return rc;
    }
    int nsize = hsplit_shm_size(shm), leader = h->node_order[h->node_starts[a.node]];
    char *all, *mine, *scratch = NULL;
    if (node_buffers(h, root, &a, &all, &mine) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
    /* the root's blocks, node after node, to its leader */
    if (is_root) {
        rc = all == NULL ? MPI_ERR_NO_MEM
                         : hsplit_shm_take_blocks(sendbuf, sendcount, sendtype, h->node_order,
                                                  h->size, a.bytes, all);
        if (!a.leads && all != NULL)
            rc = first_error(rc, hand_over(h, 1, all, a.bytes, leader, HSPLIT_TAG_LIFT, rc));
    } else if (a.leads && a.home) {
        rc = hand_over(h, 0, all, a.bytes, root, HSPLIT_TAG_LIFT, MPI_SUCCESS);
    }
    if (a.leads)
        rc = first_error(rc, MPI_Scatterv(all, a.counts, a.displs, MPI_BYTE,
                                          a.home ? MPI_IN_PLACE : mine,
                                          a.home ? 0 : nsize * (int)a.bytes, MPI_BYTE, a.node,
                                          a.leaders));
    /* an in-place root that does not lead receives its own block into scratch */
    if (is_root && recvbuf == MPI_IN_PLACE && !a.leads) {
        scratch = malloc((size_t)a.bytes);
        recvbuf = scratch;
        recvcount = (int)a.bytes;
        recvtype = MPI_BYTE;
        if (scratch == NULL) rc = MPI_ERR_NO_MEM;
    }
    int nrc = recvbuf == NULL && is_root && !a.leads
                  ? MPI_ERR_NO_MEM
                  : hsplit_shm_scatter(shm, mine, (int)a.bytes, MPI_BYTE, recvbuf, recvcount,
                                       recvtype, 0);
    rc = first_error(rc, nrc);
    if (a.leads && !a.home) free(mine);
    free(all);
    free(scratch);
    free(a.counts);
    return rc;
}

int hsplit_shm_schedule_allgather(hsplit_hierarchy *h, const void *sendbuf, int sendcount,
                                  MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                  MPI_Datatype recvtype)
{
    hsplit_shm *shm = h->shm;
    if (!h->multi_node)
        return hsplit_shm_allgather(shm, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                    recvtype);
    int skip = -1;
    if (sendbuf == MPI_IN_PLACE) { /* as the gather root's */
        sendbuf = rank_block(recvbuf, recvcount, recvtype, h->rank);
        sendcount = recvcount;
        sendtype = recvtype;
        skip = h->rank;
    }
    across a;
    int rc = across_begin(h, -1, hsplit_shm_block_bytes(recvcount, recvtype), &a);
    if (rc != MPI_SUCCESS || a.bytes == 0) {
        free(a.counts);
        return rc;
    }
    /* every process: all blocks node after node, its node's at their place */
    char *all = malloc((size_t)h->size * (size_t)a.bytes);
    if (all == NULL) { /* the node's broadcast needs it everywhere */
        free(a.counts);
        return MPI_ERR_NO_MEM;
    }
    char *mine = all + (size_t)h->node_starts[my_node(h)] * (size_t)a.bytes;
    rc = hsplit_shm_gather(shm, sendbuf, sendcount, sendtype, mine, (int)a.bytes, MPI_BYTE, 0);
    if (a.leads)
        rc = first_error(rc, MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, all, a.counts, a.displs,
                                            MPI_BYTE, a.leaders));
    rc = first_error(rc, hsplit_shm_bcast(shm, all, h->size * (int)a.bytes, MPI_BYTE, 0));
    if (rc == MPI_SUCCESS)
        rc = hsplit_shm_place_blocks(all, h->node_order, h->size, a.bytes, recvbuf, recvcount,
                                     recvtype, skip);
    free(all);
    free(a.counts);
    return rc;
}
