/* SPDX-License-Identifier: BSD-3-Clause */
/* The hierarchical schedules whose node part runs in the node's shared
   memory (coll_shm.c): inside each node the processes meet in one segment,
   and only the node leaders exchange messages, with the MPI's own
   collective on their communicator (the two-level shape of HAN). On one
   node the whole collective is the shared-memory one. */
#include <stdlib.h>
#include "hsplit_internal.h"

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
