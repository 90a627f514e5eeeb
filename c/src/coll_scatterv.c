/* SPDX-License-Identifier: BSD-3-Clause */
/* HSPLIT_Scatterv: the root packs the blocks in tree order, with the byte
   size of each (64 bits), and hands both to its node leader; each level then
   hands every member the sizes of its subtree's blocks and their bytes, in
   pieces that each fit an int (coll_gatherv.c), as HSPLIT_Scatter does with
   blocks of one size. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "hsplit_internal.h"

/* Down the levels: once the level where it receives is done, *acc holds
   this process's subtree's bytes and *sizes the byte size of each of its
   blocks (negative: the root could not pack them), its own first. *largest,
   the largest block (the holder's to give), travels down with the sizes:
   every process learns it, for auto mode's size class. */
static int vtree_scatter(const hsplit_hierarchy *h, char **acc, int64_t **sizes, int root,
                         int64_t *largest)
{
    int last = h->first + h->nlevels - 1, rc = MPI_SUCCESS;
    int64_t piece = hsplit_vector_piece(h);
    hsplit_requests q = {NULL, 0, 0};
    for (int level = h->first; level <= last && rc == MPI_SUCCESS; level++) {
        MPI_Comm comm = hsplit_roots_at(h, level);
        const int *counts = hsplit_counts_at(h, level);
        int me, n, at_root = hsplit_root_at(h, level, root);
        MPI_Comm_rank(comm, &me);
        MPI_Comm_size(comm, &n);
        if (me != at_root) {
            /* [largest, the sizes of my subtree's blocks] */
            free(*sizes);
            *sizes = malloc(sizeof(int64_t) * ((size_t)counts[me] + 1));
            if (*sizes == NULL) return MPI_ERR_NO_MEM;
            rc = MPI_Scatterv(NULL, NULL, NULL, MPI_INT64_T, *sizes, counts[me] + 1,
                              MPI_INT64_T, at_root, comm);
            if (rc == MPI_SUCCESS) {
                *largest = (*sizes)[0];
                memmove(*sizes, *sizes + 1, sizeof(int64_t) * (size_t)counts[me]);
            }
            int64_t total = 0;
            for (int i = 0; i < counts[me] && rc == MPI_SUCCESS; i++)
                total += (*sizes)[i] > 0 ? (*sizes)[i] : 0;
            free(*acc);
            *acc = rc == MPI_SUCCESS ? malloc(total > 0 ? (size_t)total : 1) : NULL;
            if (rc == MPI_SUCCESS && *acc == NULL) rc = MPI_ERR_NO_MEM;
            if (rc == MPI_SUCCESS && total > 0)
                rc = hsplit_post_pieces(&q, 0, *acc, total, at_root, comm, piece);
            int wrc = hsplit_requests_wait(&q);
            if (rc == MPI_SUCCESS) rc = wrc;
            continue;
        }
        int *first, nblocks;
        int *blocks = hsplit_byte_layout(counts, n, 1, &first, &nblocks);
        int64_t *offs = malloc(sizeof(int64_t) * ((size_t)n + 1));
        /* member j's part: largest, then its subtree's sizes */
        int64_t *parts = malloc(sizeof(int64_t) * ((size_t)nblocks + (size_t)n));
        int *lengths = malloc(sizeof(int) * 2 * (size_t)n);
        if (blocks == NULL || offs == NULL || parts == NULL || lengths == NULL)
            rc = MPI_ERR_NO_MEM;
        for (int j = 0; j < n && rc == MPI_SUCCESS; j++) {
            lengths[j] = counts[j] + 1;
            lengths[n + j] = first[j] + j;
            parts[first[j] + j] = *largest;
            memcpy(parts + first[j] + j + 1, *sizes + first[j],
                   sizeof(int64_t) * (size_t)counts[j]);
        }
        if (rc == MPI_SUCCESS)
            rc = MPI_Scatterv(parts, lengths, lengths + n, MPI_INT64_T, MPI_IN_PLACE, 0,
                              MPI_INT64_T, me, comm);
        free(parts);
        free(lengths);
        /* member j's bytes: the blocks of its subtree, after those before it */
        for (int j = 0, i = 0; j < n && rc == MPI_SUCCESS; j++) {
            offs[j] = j == 0 ? 0 : offs[j - 1];
            for (int end = i + counts[j]; i < end; i++)
                offs[j] += (*sizes)[i] > 0 ? (*sizes)[i] : 0;
        }
        /* offs[j] is now where member j's bytes end */
        for (int j = 0; j < n && rc == MPI_SUCCESS; j++) {
            int64_t start = j == 0 ? 0 : offs[j - 1];
            if (j != me && offs[j] > start)
                rc = hsplit_post_pieces(&q, 1, *acc + start, offs[j] - start, j, comm, piece);
        }
        int wrc = hsplit_requests_wait(&q);
        if (rc == MPI_SUCCESS) rc = wrc;
        /* keep my own part at offset 0 for the levels below */
        if (rc == MPI_SUCCESS) {
            int64_t start = me == 0 ? 0 : offs[me - 1];
            if (start != 0 && offs[me] > start)
                memmove(*acc, *acc + start, (size_t)(offs[me] - start));
            memmove(*sizes, *sizes + first[me], sizeof(int64_t) * (size_t)counts[me]);
        }
        free(blocks);
        free(offs);
    }
    return rc;
}

/* At the root: the byte size of every tree position's block (0 for the
   root's own in place; -1 everywhere when a block cannot be packed) and the
   blocks packed in tree order. */
static int pack_tree(const hsplit_hierarchy *h, const void *sendbuf, const int *sendcounts,
                     const int *displs, MPI_Datatype sendtype, int skip, char **acc,
                     int64_t *sizes)
{
    int64_t elem = hsplit_element_bytes(sendtype), total = 0;
    int unpackable = 0;
    for (int i = 0; i < h->size; i++) {
        int r = hsplit_rankmap_lookup(&h->order, i);
        int count = r == skip ? 0 : sendcounts[r];
        if (count > 0 && elem < 0) unpackable = 1;
        sizes[i] = count > 0 && elem >= 0 ? (int64_t)count * elem : 0;
        total += sizes[i];
    }
    if (unpackable) {
        for (int i = 0; i < h->size; i++) sizes[i] = -1;
        total = 0;
    }
    *acc = malloc(total > 0 ? (size_t)total : 1);
    if (*acc == NULL) return MPI_ERR_NO_MEM;
    MPI_Aint lb, extent;
    MPI_Type_get_extent(sendtype, &lb, &extent);
    int64_t off = 0;
    int rc = MPI_SUCCESS;
    for (int i = 0; i < h->size && rc == MPI_SUCCESS && !unpackable; i++) {
        if (sizes[i] == 0) continue;
        int r = hsplit_rankmap_lookup(&h->order, i);
        const char *at = sendbuf == MPI_BOTTOM && displs[r] == 0
                             ? MPI_BOTTOM : (const char *)sendbuf + (MPI_Aint)displs[r] * extent;
        rc = hsplit_pack_elements(at, sendcounts[r], sendtype, elem, *acc + off, h->base);
        off += sizes[i];
    }
    return rc;
}

static int scatterv_tree(const hsplit_hierarchy *h, const void *sendbuf, const int *sendcounts,
                         const int *displs, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, int root, int64_t *largest)
{
    int holder = hsplit_is_top_holder(h, root), in_place = h->rank == root &&
                                                           recvbuf == MPI_IN_PLACE;
    char *acc = NULL;
    int64_t *sizes = NULL;
    int rc = MPI_SUCCESS;
    if (h->rank == root || holder) {
        sizes = malloc(sizeof(int64_t) * (size_t)h->size);
        if (sizes == NULL) return MPI_ERR_NO_MEM;
    }
    if (h->rank == root) {
        rc = pack_tree(h, sendbuf, sendcounts, displs, sendtype, in_place ? root : -1, &acc,
                       sizes);
        if (rc == MPI_SUCCESS && !holder) {
            /* the sizes, then the bytes, to the node leader */
            int64_t total = 0;
            for (int i = 0; i < h->size; i++) total += sizes[i] > 0 ? sizes[i] : 0;
            rc = MPI_Send(sizes, h->size, MPI_INT64_T, h->node_leader, HSPLIT_TAG_LIFT,
                          h->base);
            hsplit_requests q = {NULL, 0, 0};
            if (rc == MPI_SUCCESS && total > 0)
                rc = hsplit_post_pieces(&q, 1, acc, total, h->node_leader, h->base,
                                        hsplit_vector_piece(h));
            int wrc = hsplit_requests_wait(&q);
            if (rc == MPI_SUCCESS) rc = wrc;
        }
    } else if (holder) {
        rc = MPI_Recv(sizes, h->size, MPI_INT64_T, root, HSPLIT_TAG_LIFT, h->base,
                      MPI_STATUS_IGNORE);
        int64_t total = 0;
        for (int i = 0; i < h->size && rc == MPI_SUCCESS; i++)
            total += sizes[i] > 0 ? sizes[i] : 0;
        acc = rc == MPI_SUCCESS ? malloc(total > 0 ? (size_t)total : 1) : NULL;
        if (rc == MPI_SUCCESS && acc == NULL) rc = MPI_ERR_NO_MEM;
        hsplit_requests q = {NULL, 0, 0};
        if (rc == MPI_SUCCESS && total > 0)
            rc = hsplit_post_pieces(&q, 0, acc, total, root, h->base, hsplit_vector_piece(h));
        int wrc = hsplit_requests_wait(&q);
        if (rc == MPI_SUCCESS) rc = wrc;
    }
    if (rc == MPI_SUCCESS && h->rank == root && !holder) {
        /* the root's own block comes back down the tree like any other */
        free(acc);
        acc = NULL;
        free(sizes);
        sizes = NULL;
    }
    /* the largest block, which the holder knows and hands down */
    *largest = 0;
    for (int i = 0; holder && rc == MPI_SUCCESS && i < h->size; i++)
        if (sizes[i] > *largest) *largest = sizes[i];
    if (rc == MPI_SUCCESS) rc = vtree_scatter(h, &acc, &sizes, root, largest);
    if (rc == MPI_SUCCESS && !in_place) {
        /* my block: the first of my subtree; MPI's recvcount is a limit */
        int64_t elem = hsplit_element_bytes(recvtype), got = sizes[0];
        if (got < 0 || (elem < 0 && recvcount > 0 && got > 0)) rc = MPI_ERR_TYPE;
        else if (got > (int64_t)recvcount * (elem > 0 ? elem : 0) ||
                 (got > 0 && got % elem != 0))
            rc = MPI_ERR_TRUNCATE;
        else if (got > 0)
            rc = hsplit_unpack_elements(acc, recvbuf, (int)(got / elem), recvtype, elem,
                                        h->base);
    }
    free(acc);
    free(sizes);
    return rc;
}

static int scatterv(const void *sendbuf, const int *sendcounts, const int *displs,
                    MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    int root, MPI_Comm comm)
{
    hsplit_hierarchy *h = NULL;
    /* non-roots know their own block only: the size class learned (hsplit_internal.h) */
    int rc = hsplit_coll_begin(comm, HSPLIT_COLL_ANY_SIZE, root, &h);
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    hsplit_coll_trial trial;
    hsplit_coll_choose(&h, HSPLIT_COLL_SCATTERV, HSPLIT_COLL_ANY_SIZE, &trial);
    int64_t largest = 0;
    rc = h != NULL ? scatterv_tree(h, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                   recvtype, root, &largest)
                   : MPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                  recvtype, root, comm);
    /* every process got the largest block with its sizes, before anything
       could fail on it alone (a truncation): all learn the same */
    if (h != NULL)
        hsplit_coll_learn_size(h, HSPLIT_COLL_SCATTERV,
                               largest > LONG_MAX ? LONG_MAX : (long)largest);
    return hsplit_coll_finish(comm, h, &trial, rc);
}

int HSPLIT_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                    MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    int root, MPI_Comm comm)
{
    /* plain MPI decided (off mode, auto's choice) and nothing unusual */
    hsplit_coll_state *s = hsplit_coll_state_find(comm);
    if (s != NULL && sendbuf != MPI_IN_PLACE && recvbuf != MPI_IN_PLACE && recvcount >= 0 &&
        hsplit_coll_plain(s, HSPLIT_COLL_SCATTERV, HSPLIT_COLL_ANY_SIZE))
        return MPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                            root, comm);
    int rank = 0, size = 0, rc = hsplit_coll_check_comm(comm);
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    /* before anything communicates, each process checks what MPI reads from
       it: the counts, displacements, type and buffer at the root, its
       receive count and type (not the root's in place); MPI_IN_PLACE only as
       the root's recvbuf */
    int in_place = recvbuf == MPI_IN_PLACE;
    if (rank == root && sendbuf == MPI_IN_PLACE) rc = MPI_ERR_ARG;
    else if (rank == root && (sendcounts == NULL || displs == NULL)) rc = MPI_ERR_ARG;
    else if (!(rank == root && in_place) && recvcount < 0) rc = MPI_ERR_COUNT;
    else if (!(rank == root && in_place) && recvtype == MPI_DATATYPE_NULL) rc = MPI_ERR_TYPE;
    for (int i = 0; rc == MPI_SUCCESS && rank == root && i < size; i++)
        if (sendcounts[i] < 0) rc = MPI_ERR_COUNT;
    if (rc == MPI_SUCCESS && rank == root && sendtype == MPI_DATATYPE_NULL) rc = MPI_ERR_TYPE;
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    if (rank == root || !in_place)
        return scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                        root, comm);
    /* MPI_IN_PLACE for both buffers, as a call written alike for every
       process would pass them, where the root fails too: fail at once */
    if (sendbuf == MPI_IN_PLACE) return hsplit_raise_code(comm, MPI_ERR_ARG);
    /* a process other than the root without a receive buffer still takes its
       part, receiving into scratch: it may have to hand blocks on */
    void *base;
    recvbuf = hsplit_temp_buffer(recvcount, recvtype, &base);
    if (recvbuf == NULL) return hsplit_raise_code(comm, MPI_ERR_ARG);
    rc = scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                  comm);
    return hsplit_coll_misused(comm, base, rc, MPI_ERR_ARG);
}
