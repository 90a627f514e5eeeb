/* SPDX-License-Identifier: BSD-3-Clause */
/* HSPLIT_Gather and HSPLIT_Allgather: blocks travel packed (MPI_Pack), leader
   after leader up the levels, in tree order; the holder puts them in rank
   order at the end. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "hsplit_internal.h"

/* Up the levels from the deepest to `top`: at each level it leads, a process
   gathers the subtrees of the members of that level after its own, into acc
   (its own blocks first, at offset 0). Returns in *nblocks how many blocks
   acc holds. At level 0 on several nodes the gather root is the root's node
   leader (root >= 0). */
static int tree_gather(const hsplit_hierarchy *h, char *acc, int blockbytes, int root, int top,
                       int *nblocks)
{
    int last = h->first + h->nlevels - 1, low = h->first > top ? h->first : top, rc = MPI_SUCCESS;
    *nblocks = 1;
    for (int level = last; level >= low && rc == MPI_SUCCESS; level--) {
        MPI_Comm comm = hsplit_roots_at(h, level);
        const int *counts = hsplit_counts_at(h, level);
        int me, n, at_root = hsplit_root_at(h, level, root);
        MPI_Comm_rank(comm, &me);
        MPI_Comm_size(comm, &n);
        if (me != at_root) {
            rc = MPI_Gatherv(acc, *nblocks * blockbytes, MPI_BYTE, NULL, NULL, NULL, MPI_BYTE,
                             at_root, comm);
            continue;
        }
        int *displs, total;
        int *bytes = hsplit_byte_layout(counts, n, blockbytes, &displs, &total);
        if (bytes == NULL) return MPI_ERR_NO_MEM;
        /* my blocks sit at offset 0; in place they must sit at my slot */
        if (displs[me] != 0) memmove(acc + displs[me], acc, (size_t)bytes[me]);
        rc = MPI_Gatherv(MPI_IN_PLACE, 0, MPI_BYTE, acc, bytes, displs, MPI_BYTE, me, comm);
        *nblocks = total / blockbytes;
        free(bytes);
    }
    return rc;
}

/* The most blocks this process ever holds: its subtree at its first level. */
static int max_blocks(const hsplit_hierarchy *h, int all)
{
    if (h->nlevels == 0) return 1;
    if (all) return h->size;
    int n, total = 0;
    MPI_Comm_size(h->roots[0], &n);
    for (int j = 0; j < n; j++) total += h->counts[0][j];
    return total;
}

int hsplit_tree_allgather_bytes(const hsplit_hierarchy *h, const void *mine, int blockbytes,
                                void *out)
{
    memcpy(out, mine, (size_t)blockbytes);
    int nblocks, rc = tree_gather(h, out, blockbytes, 0, 1, &nblocks);
    MPI_Comm top = hsplit_roots_at(h, 0);
    if (rc == MPI_SUCCESS && top != MPI_COMM_NULL) {
        int n, me, total, *displs;
        MPI_Comm_size(top, &n);
        MPI_Comm_rank(top, &me);
        int *bytes = hsplit_byte_layout(h->counts[0], n, blockbytes, &displs, &total);
        if (bytes == NULL) return MPI_ERR_NO_MEM;
        if (displs[me] != 0) memmove((char *)out + displs[me], out, (size_t)bytes[me]);
        rc = MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, out, bytes, displs, MPI_BYTE, top);
        free(bytes);
    }
    if (rc == MPI_SUCCESS)
        rc = hsplit_tree_bcast(h, out, h->size * blockbytes, MPI_BYTE, 0, 1);
    return rc;
}

/* Unpack size blocks of tree-ordered packed bytes into rank slots. */
static int unpack_blocks(const hsplit_hierarchy *h, const char *packed, int blockbytes,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype)
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(recvtype, &lb, &extent);
    int rc = MPI_SUCCESS;
    for (int i = 0; i < h->size && rc == MPI_SUCCESS; i++) {
        int slot = hsplit_rankmap_lookup(&h->order, i), pos = 0;
        rc = hsplit_unpack(packed + (size_t)i * (size_t)blockbytes, blockbytes, &pos,
                           (char *)recvbuf + (MPI_Aint)slot * recvcount * extent, recvcount,
                           recvtype, h->base);
    }
    return rc;
}

/* Block size in bytes (count >= 0), the same on every process by MPI's
   matching rules; negative when MPI_Type_size says MPI_UNDEFINED (more than
   an int of bytes), which plain MPI handles. Returns an MPI code. */
static int block_bytes(int count, MPI_Datatype type, long *bytes)
{
    int size = 0, rc = MPI_Type_size(type, &size);
    *bytes = (long)count * size;
    return rc;
}

/* Whether the hierarchy can carry size blocks of bytes (the byte
   collectives take int counts); without overflow. */
static int fits_tree(long bytes, int size)
{
    return bytes > 0 && bytes <= INT_MAX / size;
}

static int pack_mine(const void *buf, int count, MPI_Datatype type, char *out, int blockbytes,
                     MPI_Comm comm)
{
    int pos = 0;
    int rc = hsplit_pack(buf, count, type, out, blockbytes, &pos, comm);
    return rc == MPI_SUCCESS && pos != blockbytes ? MPI_ERR_INTERN : rc;
}

/* The hierarchical schedules; blocks of bytes > 0. */
static int gather_tree(const hsplit_hierarchy *h, const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, int blockbytes)
{
    int rc, holder = hsplit_is_top_holder(h, root);
    char *acc = malloc((size_t)max_blocks(h, holder) * (size_t)blockbytes);
    if (acc == NULL) return MPI_ERR_NO_MEM;
    if (h->rank == root && sendbuf == MPI_IN_PLACE) {
        MPI_Aint lb, extent;
        MPI_Type_get_extent(recvtype, &lb, &extent);
        rc = pack_mine((char *)recvbuf + (MPI_Aint)root * recvcount * extent, recvcount,
                       recvtype, acc, blockbytes, h->base);
    } else {
        rc = pack_mine(sendbuf, sendcount, sendtype, acc, blockbytes, h->base);
    }
    int nblocks;
    if (rc == MPI_SUCCESS) rc = tree_gather(h, acc, blockbytes, root, 0, &nblocks);
    if (rc == MPI_SUCCESS && holder && h->rank == root)
        rc = unpack_blocks(h, acc, blockbytes, recvbuf, recvcount, recvtype);
    else if (rc == MPI_SUCCESS && holder)
        rc = MPI_Send(acc, h->size * blockbytes, MPI_BYTE, root, HSPLIT_TAG_DELIVER, h->base);
    else if (rc == MPI_SUCCESS && h->rank == root) {
        char *all = malloc((size_t)h->size * (size_t)blockbytes);
        rc = all == NULL ? MPI_ERR_NO_MEM
                         : MPI_Recv(all, h->size * blockbytes, MPI_BYTE, h->node_leader,
                                    HSPLIT_TAG_DELIVER, h->base, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS) rc = unpack_blocks(h, all, blockbytes, recvbuf, recvcount, recvtype);
        free(all);
    }
    free(acc);
    return rc;
}

static int allgather_tree(const hsplit_hierarchy *h, const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, int blockbytes)
{
    char *mine = malloc((size_t)blockbytes), *all = malloc((size_t)h->size * (size_t)blockbytes);
    int rc = mine != NULL && all != NULL ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && sendbuf == MPI_IN_PLACE) {
        MPI_Aint lb, extent;
        MPI_Type_get_extent(recvtype, &lb, &extent);
        rc = pack_mine((char *)recvbuf + (MPI_Aint)h->rank * recvcount * extent, recvcount,
                       recvtype, mine, blockbytes, h->base);
    } else if (rc == MPI_SUCCESS) {
        rc = pack_mine(sendbuf, sendcount, sendtype, mine, blockbytes, h->base);
    }
    if (rc == MPI_SUCCESS) rc = hsplit_tree_allgather_bytes(h, mine, blockbytes, all);
    if (rc == MPI_SUCCESS) rc = unpack_blocks(h, all, blockbytes, recvbuf, recvcount, recvtype);
    free(mine);
    free(all);
    return rc;
}

static int gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, int rank, MPI_Comm comm)
{
    long bytes;
    int rc = rank == root ? block_bytes(recvcount, recvtype, &bytes)
                          : block_bytes(sendcount, sendtype, &bytes);
    hsplit_hierarchy *h = NULL;
    if (rc == MPI_SUCCESS) rc = hsplit_coll_begin(comm, bytes, root, &h);
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    if (h != NULL && !fits_tree(bytes, h->size)) h = NULL;
    hsplit_coll_trial trial;
    hsplit_coll_choose(&h, HSPLIT_COLL_GATHER, bytes, &trial);
    /* no bytes (on every process, by MPI's rules): MPI checks the other
       arguments and returns (Open MPI 4.1 walks 2^30 elements of size 0 one
       by one, for seconds) */
    if (bytes == 0) sendcount = recvcount = 0;
    rc = h != NULL && trial.shm
             ? hsplit_shm_schedule_gather(h, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                          recvtype, root)
         : h != NULL ? gather_tree(h, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                   root, (int)bytes)
                     : MPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                                  comm);
    return hsplit_coll_finish(comm, h, &trial, rc);
}

int HSPLIT_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    /* plain MPI decided (off mode, auto's choice) and nothing unusual:
       MPI's call, which checks its arguments itself */
    hsplit_coll_state *s = hsplit_coll_state_find(comm);
    if (s != NULL && sendbuf != MPI_IN_PLACE && recvbuf != MPI_IN_PLACE) {
        long n = s->rank == root ? hsplit_coll_bytes(recvcount, recvtype)
                                 : hsplit_coll_bytes(sendcount, sendtype);
        if (n > 0 && hsplit_coll_plain(s, HSPLIT_COLL_GATHER, n))
            return MPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                              comm);
        /* the node's shared memory decided: the segment at once */
        hsplit_hierarchy *direct = hsplit_coll_shm_direct_blocks(s, HSPLIT_COLL_GATHER, n, root);
        if (direct != NULL && root >= 0)
            return hsplit_coll_direct_done(
                comm, s,
                hsplit_shm_schedule_gather(direct, sendbuf, sendcount, sendtype, recvbuf,
                                           recvcount, recvtype, root));
    }
    /* comm first: MPI_Comm_rank of MPI_COMM_NULL or a bad handle may crash */
    int rank = 0, rc = hsplit_coll_check_comm(comm);
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    MPI_Comm_rank(comm, &rank);
    /* before anything communicates, each process checks what MPI reads from
       it: sendbuf and sendcount (not the root's in place), recvbuf and
       recvcount at the root; MPI_IN_PLACE only as the root's sendbuf
       (MPI_ERR_ARG, as Open MPI says) */
    int in_place = sendbuf == MPI_IN_PLACE;
    if (rank != root && in_place) rc = MPI_ERR_ARG;
    else if (!in_place && sendcount < 0) rc = MPI_ERR_COUNT;
    else if (rank == root && recvcount < 0) rc = MPI_ERR_COUNT;
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    if (rank != root || recvbuf != MPI_IN_PLACE)
        return gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, rank,
                      comm);
    /* a root without a receive buffer still takes its part (the others
       complete) when it has a block to give */
    int size;
    MPI_Comm_size(comm, &size);
    void *base;
    recvbuf = in_place ? NULL
                       : hsplit_temp_buffer((int64_t)size * recvcount, recvtype, &base);
    if (recvbuf == NULL) return hsplit_raise_code(comm, MPI_ERR_ARG);
    rc = gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, rank, comm);
    return hsplit_coll_misused(comm, base, rc, MPI_ERR_ARG);
}

static int allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    long bytes;
    int rc = block_bytes(recvcount, recvtype, &bytes);
    hsplit_hierarchy *h = NULL;
    if (rc == MPI_SUCCESS) rc = hsplit_coll_begin(comm, bytes, -2, &h);
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    if (h != NULL && !fits_tree(bytes, h->size)) h = NULL;
    hsplit_coll_trial trial;
    hsplit_coll_choose(&h, HSPLIT_COLL_ALLGATHER, bytes, &trial);
    if (bytes == 0) sendcount = recvcount = 0; /* as in gather */
    rc = h != NULL && trial.shm
             ? hsplit_shm_schedule_allgather(h, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                             recvtype)
         : h != NULL && trial.schedule != NULL
             ? hsplit_ml_allgather(h, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype)
         : h != NULL ? allgather_tree(h, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                      recvtype, (int)bytes)
                     : MPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                     comm);
    return hsplit_coll_finish(comm, h, &trial, rc);
}

int HSPLIT_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    hsplit_coll_state *s = hsplit_coll_state_find(comm);
    if (s != NULL && sendbuf != MPI_IN_PLACE && recvbuf != MPI_IN_PLACE && sendcount >= 0) {
        long n = hsplit_coll_bytes(recvcount, recvtype);
        if (n > 0 && hsplit_coll_plain(s, HSPLIT_COLL_ALLGATHER, n))
            return MPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                 comm);
        hsplit_hierarchy *direct = hsplit_coll_shm_direct_blocks(s, HSPLIT_COLL_ALLGATHER, n, -1);
        if (direct != NULL)
            return hsplit_coll_direct_done(
                comm, s,
                hsplit_shm_schedule_allgather(direct, sendbuf, sendcount, sendtype, recvbuf,
                                              recvcount, recvtype));
    }
    int rc = hsplit_coll_check_comm(comm);
    /* checked before anything communicates: MPI_IN_PLACE only as sendbuf
       (MPI_ERR_ARG, as Open MPI says), the counts MPI reads */
    int in_place = sendbuf == MPI_IN_PLACE;
    if (rc == MPI_SUCCESS && ((!in_place && sendcount < 0) || recvcount < 0))
        rc = MPI_ERR_COUNT;
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    if (recvbuf != MPI_IN_PLACE)
        return allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    /* no receive buffer: the process still gives its block, if it has one */
    int size;
    MPI_Comm_size(comm, &size);
    void *base;
    recvbuf = in_place ? NULL
                       : hsplit_temp_buffer((int64_t)size * recvcount, recvtype, &base);
    if (recvbuf == NULL) return hsplit_raise_code(comm, MPI_ERR_ARG);
    rc = allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return hsplit_coll_misused(comm, base, rc, MPI_ERR_ARG);
}
