/* SPDX-License-Identifier: BSD-3-Clause */
/* ompi_bcast_shim.c: Open MPI coll_tuned's binary-tree broadcasts, for
   simulations under SimGrid SMPI, as an override of MPI_Bcast.

   SMPI 3.32 cannot be told to use its own versions of the paper's Split
   Binary and Binary broadcasts on hsplit's hierarchies
   (--cfg=smpi/bcast:ompi_split_bintree or NTSB aborts: SMPI broadcasts with
   the forced algorithm inside every new communicator, one-process ones
   included, and its ompi_split_bintree's small-message fallback sends to a
   rank that never receives). SMPI declares MPI_Bcast weak and provides
   PMPI_Bcast, so a program linked with this file gets this MPI_Bcast, while
   SMPI's internal broadcasts keep the algorithm of --cfg=smpi/bcast (a safe
   one: binomial_tree). HSPLIT_SIM_BCAST selects:

     binary        Open MPI's bintree (coll_tuned bcast algorithm 5): a
                   binary tree (fanout 2) over the ranks shifted by the
                   root (rank s has children s + 2^l and s + 2^(l+1) where
                   l is the level of s), segmented; each inner rank
                   forwards segment k while it receives segment k + 1.
     split_binary  Open MPI's split_bintree (algorithm 4): the root splits
                   the buffer in two halves, pipelines the first half down
                   the left subtree (odd shifted ranks) and the second down
                   the right subtree (even shifted ranks) of the same binary
                   tree, then each rank swaps its half with its partner in
                   the other subtree (with an even process count, the last
                   rank gets the second half from the root). Messages too
                   small for a segment in each half go down a segmented
                   chain (Open MPI's fallback: chain, one chain).
     anything else, or unset: PMPI_Bcast (SMPI's --cfg=smpi/bcast).

   Segment size: Open MPI's fixed decision for the split binary tree, 1 KiB
   below 370728 bytes and 8 KiB from there, for both algorithms (Open MPI's
   fixed decision never picks the plain binary tree; forced without a
   segment size it is not segmented), or HSPLIT_SIM_BCAST_SEGSIZE bytes (0:
   no segmentation). Written from the algorithms' descriptions, over
   PMPI point-to-point calls on the broadcast's communicator with tag
   HSPLIT_SIM_BCAST_TAG: not for programs that receive with MPI_ANY_TAG
   while a broadcast runs. Buffers are count x extent bytes of a contiguous
   datatype, as Open MPI's segmentation assumes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

#define HSPLIT_SIM_BCAST_TAG 31731

/* Broadcasts this override ran (not forwarded to PMPI_Bcast), for tests
   that must see that hsplit's calls reach it. */
long hsplit_sim_bcast_calls;

typedef struct {
    int prev, next[2], nnext;
} tree;

/* Open MPI's tree of fanout 2 (or a chain: fanout 1) on shifted ranks. */
static tree build_tree(int fanout, int rank, int size, int root)
{
    tree t = {-1, {-1, -1}, 0};
    int s = (rank - root + size) % size;
    if (fanout == 1) {
        if (s > 0) t.prev = (s - 1 + root) % size;
        if (s + 1 < size) t.next[t.nnext++] = (s + 1 + root) % size;
        return t;
    }
    /* the level of s: levels hold 1, 2, 4, ... ranks; first: its first rank */
    int first = 0, delta = 1; /* delta: 2^level, the level's width */
    while (first + delta <= s) {
        first += delta;
        delta *= 2;
    }
    for (int i = 0; i < 2; i++) {
        long c = s + (long)delta * (i + 1);
        if (c >= size) break;
        t.next[t.nnext++] = (int)((c + root) % size);
    }
    if (s > 0) {
        int p = s;
        if (p < 2) p = 0;
        else
            while (p >= first) p -= delta / 2;
        t.prev = (p + root) % size;
    }
    return t;
}

/* Open MPI's segmented tree broadcast: the root sends each segment to its
   children; inner ranks receive segment k + 1 while they forward k. */
static int tree_bcast(char *buf, long count, MPI_Datatype dt, MPI_Aint extent, MPI_Comm comm,
                      int rank, int root, long segcount, const tree *t)
{
    long nseg = (count + segcount - 1) / segcount;
    MPI_Request send[2], recv[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int rc = MPI_SUCCESS;
    if (rank == root) {
        for (long k = 0; k < nseg && rc == MPI_SUCCESS; k++) {
            long n = k == nseg - 1 ? count - k * segcount : segcount;
            for (int i = 0; i < t->nnext && rc == MPI_SUCCESS; i++)
                rc = PMPI_Isend(buf + k * segcount * extent, (int)n, dt, t->next[i],
                                HSPLIT_SIM_BCAST_TAG, comm, &send[i]);
            if (rc == MPI_SUCCESS) rc = PMPI_Waitall(t->nnext, send, MPI_STATUSES_IGNORE);
        }
        return rc;
    }
    /* receive segment 0, then for each next one: post it, wait for the
       previous, forward the previous */
    int cur = 0;
    rc = PMPI_Irecv(buf, (int)(nseg == 1 ? count : segcount), dt, t->prev, HSPLIT_SIM_BCAST_TAG,
                    comm, &recv[cur]);
    for (long k = 1; k <= nseg && rc == MPI_SUCCESS; k++) {
        if (k < nseg) {
            long n = k == nseg - 1 ? count - k * segcount : segcount;
            rc = PMPI_Irecv(buf + k * segcount * extent, (int)n, dt, t->prev,
                            HSPLIT_SIM_BCAST_TAG, comm, &recv[cur ^ 1]);
            if (rc != MPI_SUCCESS) break;
        }
        rc = PMPI_Wait(&recv[cur], MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || t->nnext == 0) {
            cur ^= 1;
            continue;
        }
        long n = k == nseg ? count - (k - 1) * segcount : segcount;
        for (int i = 0; i < t->nnext && rc == MPI_SUCCESS; i++)
            rc = PMPI_Isend(buf + (k - 1) * segcount * extent, (int)n, dt, t->next[i],
                            HSPLIT_SIM_BCAST_TAG, comm, &send[i]);
        if (rc == MPI_SUCCESS) rc = PMPI_Waitall(t->nnext, send, MPI_STATUSES_IGNORE);
        cur ^= 1;
    }
    return rc;
}

/* Elements per segment for a segment of segsize bytes (0: the whole
   buffer): Open MPI's COLL_BASE_COMPUTED_SEGCOUNT, which rounds to the
   nearest whole element (up when more than half an element is left). */
static long seg_count(long segsize, int type_size, long count)
{
    if (segsize >= type_size && segsize < (long)type_size * count) {
        long n = segsize / type_size;
        if (segsize - n * type_size > type_size / 2) n++;
        return n;
    }
    return count;
}

static long default_segsize(long bytes)
{
    const char *e = getenv("HSPLIT_SIM_BCAST_SEGSIZE");
    if (e && *e) return atol(e);
    return bytes < 370728 ? 1024 : 8192;
}

static int bintree(char *buf, long count, MPI_Datatype dt, int root, MPI_Comm comm, int rank,
                   int size, int type_size, MPI_Aint extent)
{
    tree t = build_tree(2, rank, size, root);
    long segcount = seg_count(default_segsize((long)type_size * count), type_size, count);
    return tree_bcast(buf, count, dt, extent, comm, rank, root, segcount, &t);
}

static int split_bintree(char *buf, long count, MPI_Datatype dt, int root, MPI_Comm comm,
                         int rank, int size, int type_size, MPI_Aint extent)
{
    long segsize = default_segsize((long)type_size * count);
    long counts[2], segcount[2], nseg[2];
    counts[0] = (count + 1) / 2;
    counts[1] = count - counts[0];
    if (segsize > 0) {
        if (segsize < type_size) segsize = type_size;
        segcount[0] = segcount[1] = segsize / type_size;
        for (int h = 0; h < 2; h++) nseg[h] = (counts[h] + segcount[h] - 1) / segcount[h];
    } else {
        segcount[0] = counts[0];
        segcount[1] = counts[1];
        nseg[0] = nseg[1] = 1;
    }
    /* too small for a segment in each half: the segmented chain */
    if (counts[0] == 0 || counts[1] == 0 || segsize > counts[0] * type_size ||
        segsize > counts[1] * type_size) {
        tree chain = build_tree(1, rank, size, root);
        return tree_bcast(buf, count, dt, extent, comm, rank, root,
                          seg_count(segsize, type_size, count), &chain);
    }
    tree t = build_tree(2, rank, size, root);
    char *half[2] = {buf, buf + counts[0] * extent};
    int s = (rank - root + size) % size;
    int lr = (s + 1) % 2; /* 0: left subtree (odd shifted ranks); the root is right */
    int rc = MPI_SUCCESS;
    /* step 1: each half down its subtree, segment by segment */
    if (rank == root) {
        for (long k = 0; k < nseg[0] && rc == MPI_SUCCESS; k++)
            for (int i = 0; i < t.nnext && rc == MPI_SUCCESS; i++) {
                if (k >= nseg[i]) continue;
                long n = k == nseg[i] - 1 ? counts[i] - k * segcount[i] : segcount[i];
                rc = PMPI_Send(half[i] + k * segcount[i] * extent, (int)n, dt, t.next[i],
                               HSPLIT_SIM_BCAST_TAG, comm);
            }
    } else if (t.nnext > 0) {
        MPI_Request base, next;
        long n = nseg[lr] == 1 ? counts[lr] : segcount[lr];
        rc = PMPI_Irecv(half[lr], (int)n, dt, t.prev, HSPLIT_SIM_BCAST_TAG, comm, &base);
        for (long k = 1; k < nseg[lr] && rc == MPI_SUCCESS; k++) {
            long m = k == nseg[lr] - 1 ? counts[lr] - k * segcount[lr] : segcount[lr];
            rc = PMPI_Irecv(half[lr] + k * segcount[lr] * extent, (int)m, dt, t.prev,
                            HSPLIT_SIM_BCAST_TAG, comm, &next);
            if (rc == MPI_SUCCESS) rc = PMPI_Wait(&base, MPI_STATUS_IGNORE);
            for (int i = 0; i < t.nnext && rc == MPI_SUCCESS; i++)
                rc = PMPI_Send(half[lr] + (k - 1) * segcount[lr] * extent, (int)segcount[lr],
                               dt, t.next[i], HSPLIT_SIM_BCAST_TAG, comm);
            base = next;
        }
        if (rc == MPI_SUCCESS) rc = PMPI_Wait(&base, MPI_STATUS_IGNORE);
        long last = counts[lr] - (nseg[lr] - 1) * segcount[lr];
        for (int i = 0; i < t.nnext && rc == MPI_SUCCESS; i++)
            rc = PMPI_Send(half[lr] + (nseg[lr] - 1) * segcount[lr] * extent, (int)last, dt,
                           t.next[i], HSPLIT_SIM_BCAST_TAG, comm);
    } else {
        for (long k = 0; k < nseg[lr] && rc == MPI_SUCCESS; k++) {
            long n = k == nseg[lr] - 1 ? counts[lr] - k * segcount[lr] : segcount[lr];
            rc = PMPI_Recv(half[lr] + k * segcount[lr] * extent, (int)n, dt, t.prev,
                           HSPLIT_SIM_BCAST_TAG, comm, MPI_STATUS_IGNORE);
        }
    }
    if (rc != MPI_SUCCESS) return rc;
    /* step 2: swap halves with the partner in the other subtree */
    int pair = lr == 0 ? (rank + 1) % size : (rank + size - 1) % size;
    if (size % 2 != 0) {
        if (rank != root)
            rc = PMPI_Sendrecv(half[lr], (int)counts[lr], dt, pair, HSPLIT_SIM_BCAST_TAG,
                               half[lr ^ 1], (int)counts[lr ^ 1], dt, pair, HSPLIT_SIM_BCAST_TAG,
                               comm, MPI_STATUS_IGNORE);
    } else if (rank == root) {
        rc = PMPI_Send(half[1], (int)counts[1], dt, (root + size - 1) % size,
                       HSPLIT_SIM_BCAST_TAG, comm);
    } else if (rank == (root + size - 1) % size) {
        rc = PMPI_Recv(half[1], (int)counts[1], dt, root, HSPLIT_SIM_BCAST_TAG, comm,
                       MPI_STATUS_IGNORE);
    } else {
        rc = PMPI_Sendrecv(half[lr], (int)counts[lr], dt, pair, HSPLIT_SIM_BCAST_TAG,
                           half[lr ^ 1], (int)counts[lr ^ 1], dt, pair, HSPLIT_SIM_BCAST_TAG,
                           comm, MPI_STATUS_IGNORE);
    }
    return rc;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    const char *alg = getenv("HSPLIT_SIM_BCAST");
    int which = !alg ? 0 : strcmp(alg, "binary") == 0 ? 1 : strcmp(alg, "split_binary") == 0 ? 2 : 0;
    if (which == 0) return PMPI_Bcast(buf, count, datatype, root, comm);
    int rank, size, type_size;
    MPI_Aint lb, extent;
    PMPI_Comm_size(comm, &size);
    PMPI_Comm_rank(comm, &rank);
    hsplit_sim_bcast_calls++;
    if (size == 1 || count == 0) return MPI_SUCCESS;
    PMPI_Type_size(datatype, &type_size);
    PMPI_Type_get_extent(datatype, &lb, &extent);
    if (type_size == 0) return MPI_SUCCESS;
    return which == 1 ? bintree(buf, count, datatype, root, comm, rank, size, type_size, extent)
                      : split_bintree(buf, count, datatype, root, comm, rank, size, type_size,
                                      extent);
}
