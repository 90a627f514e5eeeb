/* SPDX-License-Identifier: BSD-3-Clause */
/* HSPLIT_Scatter: the root packs the blocks in tree order and hands them to
   its node leader; each level then hands every member its subtree's blocks. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "hsplit_internal.h"

/* Down the levels: acc holds this process's blocks (its whole subtree, its
   own block first) once the level where it receives is done. */
static int tree_scatter(const hsplit_hierarchy *h, char *acc, int blockbytes, int root)
{
    int last = h->first + h->nlevels - 1, rc = MPI_SUCCESS;
    for (int level = h->first; level <= last && rc == MPI_SUCCESS; level++) {
        MPI_Comm comm = hsplit_roots_at(h, level);
        const int *counts = hsplit_counts_at(h, level);
        int me, n, at_root = hsplit_root_at(h, level, root);
        MPI_Comm_rank(comm, &me);
        MPI_Comm_size(comm, &n);
        if (me != at_root) {
            rc = MPI_Scatterv(NULL, NULL, NULL, MPI_BYTE, acc, counts[me] * blockbytes, MPI_BYTE,
                              at_root, comm);
            continue;
        }
        int *displs, total;
        int *bytes = hsplit_byte_layout(counts, n, blockbytes, &displs, &total);
        if (bytes == NULL) return MPI_ERR_NO_MEM;
        rc = MPI_Scatterv(acc, bytes, displs, MPI_BYTE, MPI_IN_PLACE, 0, MPI_BYTE, me, comm);
        /* keep my own part at offset 0 for the levels below */
        if (displs[me] != 0) memmove(acc, acc + displs[me], (size_t)bytes[me]);
        free(bytes);
    }
    return rc;
}

/* The hierarchical schedule; blocks of bytes > 0. */
static int scatter_tree(const hsplit_hierarchy *h, const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, int root, int blockbytes)
{
    int holder = hsplit_is_top_holder(h, root);
    size_t total = (size_t)h->size * (size_t)blockbytes;
    char *acc = malloc(total), *packed = NULL;
    int rc = acc != NULL ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && h->rank == root) {
        /* the blocks in tree order, into the holder's buffer or one to send */
        packed = holder ? acc : malloc(total);
        if (packed == NULL) rc = MPI_ERR_NO_MEM;
        MPI_Aint lb, extent;
        MPI_Type_get_extent(sendtype, &lb, &extent);
        for (int i = 0; i < h->size && rc == MPI_SUCCESS; i++) {
            int slot = hsplit_rankmap_lookup(&h->order, i), pos = 0;
            rc = hsplit_pack((const char *)sendbuf + (MPI_Aint)slot * sendcount * extent,
                             sendcount, sendtype, packed + (size_t)i * (size_t)blockbytes,
                             blockbytes, &pos, h->base);
        }
        if (rc == MPI_SUCCESS && !holder)
            rc = MPI_Send(packed, h->size * blockbytes, MPI_BYTE, h->node_leader,
                          HSPLIT_TAG_LIFT, h->base);
        if (!holder) free(packed);
    } else if (rc == MPI_SUCCESS && holder) {
        rc = MPI_Recv(acc, h->size * blockbytes, MPI_BYTE, root, HSPLIT_TAG_LIFT, h->base,
                      MPI_STATUS_IGNORE);
    }
    if (rc == MPI_SUCCESS) rc = tree_scatter(h, acc, blockbytes, root);
    if (rc == MPI_SUCCESS && !(h->rank == root && recvbuf == MPI_IN_PLACE)) {
        int pos = 0;
        rc = hsplit_unpack(acc, blockbytes, &pos, recvbuf, recvcount, recvtype, h->base);
    }
    free(acc);
    return rc;
}

static int scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, int rank, MPI_Comm comm)
{
    int type_size = 0;
    int rc = rank == root ? MPI_Type_size(sendtype, &type_size)
                          : MPI_Type_size(recvtype, &type_size);
    /* negative for MPI_UNDEFINED (more than an int of bytes): plain MPI */
    long bytes = (long)(rank == root ? sendcount : recvcount) * type_size;
    hsplit_hierarchy *h = NULL;
    if (rc == MPI_SUCCESS) rc = hsplit_coll_begin(comm, bytes, root, &h);
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    /* the byte collectives of the tree take int counts */
    if (h != NULL && (bytes <= 0 || bytes > INT_MAX / h->size)) h = NULL;
    hsplit_coll_trial trial;
    hsplit_coll_choose(&h, HSPLIT_COLL_SCATTER, bytes, &trial);
    /* no bytes (on every process, by MPI's rules): MPI checks the other
       arguments and returns (Open MPI 4.1 walks 2^30 elements of size 0 one
       by one, for seconds) */
    if (bytes == 0) sendcount = recvcount = 0;
    rc = h != NULL && trial.shm
             ? hsplit_shm_schedule_scatter(h, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                           recvtype, root)
         : h != NULL ? scatter_tree(h, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                    root, (int)bytes)
                     : MPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                                   comm);
    return hsplit_coll_finish(comm, h, &trial, rc);
}

int HSPLIT_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    /* plain MPI decided (off mode, auto's choice) and nothing unusual:
       MPI's call, which checks its arguments itself */
    hsplit_coll_state *s = hsplit_coll_state_find(comm);
    if (s != NULL && sendbuf != MPI_IN_PLACE && recvbuf != MPI_IN_PLACE && recvcount > 0) {
        long n = s->rank == root ? hsplit_coll_bytes(sendcount, sendtype)
                                 : hsplit_coll_bytes(recvcount, recvtype);
        if (n > 0 && hsplit_coll_plain(s, HSPLIT_COLL_SCATTER, n))
            return MPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                               comm);
        /* the node's shared memory decided: the segment at once */
        hsplit_hierarchy *direct = hsplit_coll_shm_direct_blocks(s, HSPLIT_COLL_SCATTER, n, root);
        if (direct != NULL && root >= 0)
            return hsplit_coll_direct_done(
                comm, s,
                hsplit_shm_schedule_scatter(direct, sendbuf, sendcount, sendtype, recvbuf,
                                            recvcount, recvtype, root));
    }
    /* comm first: MPI_Comm_rank of MPI_COMM_NULL or a bad handle may crash */
    int rank = 0, rc = hsplit_coll_check_comm(comm);
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    MPI_Comm_rank(comm, &rank);
    /* before anything communicates, each process checks what MPI reads from
       it: sendbuf and sendcount at the root, recvbuf and recvcount (not the
       root's in place); MPI_IN_PLACE only as the root's recvbuf (MPI_ERR_ARG,
       as Open MPI says) */
    int in_place = recvbuf == MPI_IN_PLACE;
    if (rank == root && sendbuf == MPI_IN_PLACE) rc = MPI_ERR_ARG;
    else if (rank == root && sendcount < 0) rc = MPI_ERR_COUNT;
    else if (!(rank == root && in_place) && recvcount < 0) rc = MPI_ERR_COUNT;
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    if (rank == root || !in_place)
        return scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, rank,
                       comm);
    /* MPI_IN_PLACE for both buffers, as a call written alike for every
       process would pass them, where the root fails too: fail at once */
    if (sendbuf == MPI_IN_PLACE) return hsplit_raise_code(comm, MPI_ERR_ARG);
    /* a process other than the root without a receive buffer still takes its
       part, receiving into scratch: it may have to hand blocks on */
    void *base;
    recvbuf = hsplit_temp_buffer(recvcount, recvtype, &base);
    if (recvbuf == NULL) return hsplit_raise_code(comm, MPI_ERR_ARG);
    rc = scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, rank, comm);
    return hsplit_coll_misused(comm, base, rc, MPI_ERR_ARG);
}
