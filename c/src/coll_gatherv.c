/* SPDX-License-Identifier: BSD-3-Clause */
/* HSPLIT_Gatherv and HSPLIT_Allgatherv: blocks of any size travel packed,
   leader after leader up the levels in tree order, as in coll_gather.c.
   Only the root knows every block's size, so each level first gathers the
   byte totals of its members' subtrees (64 bits), then the bytes move point
   to point in pieces that each fit an int: no total is too large and no
   process needs to know in advance what the others hold. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "hsplit_internal.h"

/* ---- pieces shared with coll_scatterv.c ---- */

int64_t hsplit_vector_piece(const hsplit_hierarchy *h)
{
    long seg = h->config.segment_bytes;
    return seg > 0 && seg <= INT_MAX ? (int64_t)seg : (int64_t)1 << 30;
}

int hsplit_post_pieces(hsplit_requests *q, int send, char *buf, int64_t bytes, int peer,
                       MPI_Comm comm, int64_t piece)
{
    int rc = MPI_SUCCESS;
    for (int64_t at = 0; at < bytes && rc == MPI_SUCCESS; at += piece) {
        if (q->n == q->cap) {
            int cap = q->cap > 0 ? 2 * q->cap : 16;
            MPI_Request *more = realloc(q->reqs, sizeof(MPI_Request) * (size_t)cap);
            if (more == NULL) return MPI_ERR_NO_MEM;
            q->reqs = more;
            q->cap = cap;
        }
        int n = (int)(bytes - at < piece ? bytes - at : piece);
        rc = send ? MPI_Isend(buf + at, n, MPI_BYTE, peer, HSPLIT_TAG_LIFT, comm, &q->reqs[q->n])
                  : MPI_Irecv(buf + at, n, MPI_BYTE, peer, HSPLIT_TAG_LIFT, comm, &q->reqs[q->n]);
        if (rc == MPI_SUCCESS) q->n++;
    }
    return rc;
}

int hsplit_requests_wait(hsplit_requests *q)
{
    int rc = hsplit_wait_all(q->n, q->reqs);
    free(q->reqs);
    q->reqs = NULL;
    q->n = q->cap = 0;
    return rc;
}

int64_t hsplit_element_bytes(MPI_Datatype datatype)
{
    MPI_Count size = 0;
    if (MPI_Type_size_x(datatype, &size) != MPI_SUCCESS || size < 0 || size > INT_MAX) return -1;
    return (int64_t)size;
}

/* Elements per MPI_Pack call: as many as fit an int of bytes. */
static int elements_per_call(int count, int64_t elembytes)
{
    if (elembytes <= 0 || (int64_t)count * elembytes <= INT_MAX) return count > 0 ? count : 1;
    return (int)(INT_MAX / elembytes);
}

int hsplit_pack_elements(const void *buf, int count, MPI_Datatype datatype, int64_t elembytes,
                         char *out, MPI_Comm comm)
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(datatype, &lb, &extent);
    int per = elements_per_call(count, elembytes), rc = MPI_SUCCESS;
    for (int e = 0; e < count && rc == MPI_SUCCESS; e += per) {
        int n = count - e < per ? count - e : per, pos = 0;
        const char *from = buf == MPI_BOTTOM && e == 0 ? MPI_BOTTOM
                                                       : (const char *)buf + (MPI_Aint)e * extent;
        rc = hsplit_pack(from, n, datatype, out + (int64_t)e * elembytes, (int)(n * elembytes),
                         &pos, comm);
        if (rc == MPI_SUCCESS && pos != n * elembytes) rc = MPI_ERR_INTERN;
    }
    return rc;
}

int hsplit_unpack_elements(const char *in, void *buf, int count, MPI_Datatype datatype,
                           int64_t elembytes, MPI_Comm comm)
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(datatype, &lb, &extent);
    int per = elements_per_call(count, elembytes), rc = MPI_SUCCESS;
    for (int e = 0; e < count && rc == MPI_SUCCESS; e += per) {
        int n = count - e < per ? count - e : per, pos = 0;
        void *to = buf == MPI_BOTTOM && e == 0 ? MPI_BOTTOM : (char *)buf + (MPI_Aint)e * extent;
        rc = hsplit_unpack(in + (int64_t)e * elembytes, (int)(n * elembytes), &pos, to, n,
                           datatype, comm);
    }
    return rc;
}

void *hsplit_temp_vector(const int *counts, const int *displs, int n, MPI_Datatype datatype,
                         void **base)
{
    /* the span from the lowest block start to the highest block end */
    int64_t low = 0, high = 0;
    for (int i = 0; i < n; i++) {
        if (counts[i] == 0) continue;
        if (displs[i] < low) low = displs[i];
        if ((int64_t)displs[i] + counts[i] > high) high = (int64_t)displs[i] + counts[i];
    }
    MPI_Aint lb, extent;
    MPI_Type_get_extent(datatype, &lb, &extent);
    char *buf = hsplit_temp_buffer(high - low, datatype, base);
    return buf == NULL ? NULL : buf - (MPI_Aint)low * extent;
}

/* ---- the tree ---- */

/* Up the levels from the deepest to `top`: at each level it leads, a process
   gathers its members' subtree totals, then their bytes, after its own, into
   *acc (realloc'd; its own bytes first on entry). *bytes: what *acc holds,
   negative when some block of the subtree could not be packed (then nothing
   of it moves on, and the root reports it). */
static int vtree_gather(const hsplit_hierarchy *h, char **acc, int64_t *bytes, int root, int top)
{
    int last = h->first + h->nlevels - 1, low = h->first > top ? h->first : top, rc = MPI_SUCCESS;
    int64_t piece = hsplit_vector_piece(h);
    hsplit_requests q = {NULL, 0, 0};
    for (int level = last; level >= low && rc == MPI_SUCCESS; level--) {
        MPI_Comm comm = hsplit_roots_at(h, level);
        int me, n, at_root = hsplit_root_at(h, level, root);
        MPI_Comm_rank(comm, &me);
        MPI_Comm_size(comm, &n);
        if (me != at_root) {
            rc = MPI_Gather(bytes, 1, MPI_INT64_T, NULL, 0, MPI_INT64_T, at_root, comm);
            if (rc == MPI_SUCCESS && *bytes > 0)
                rc = hsplit_post_pieces(&q, 1, *acc, *bytes, at_root, comm, piece);
            if (rc == MPI_SUCCESS) rc = hsplit_requests_wait(&q);
            continue;
        }
        int64_t *sizes = malloc(sizeof(int64_t) * 2 * (size_t)n), *offs = sizes + n, total = 0;
        if (sizes == NULL) return MPI_ERR_NO_MEM;
        rc = MPI_Gather(bytes, 1, MPI_INT64_T, sizes, 1, MPI_INT64_T, me, comm);
        int unpackable = 0;
        for (int j = 0; j < n && rc == MPI_SUCCESS; j++) {
            if (sizes[j] < 0) unpackable = 1;
            offs[j] = total;
            total += sizes[j] > 0 ? sizes[j] : 0;
        }
        char *grown = rc == MPI_SUCCESS ? realloc(*acc, total > 0 ? (size_t)total : 1) : *acc;
        if (grown == NULL) rc = MPI_ERR_NO_MEM;
        else *acc = grown;
        /* my bytes sit at offset 0; in the level's order they sit at my slot */
        if (rc == MPI_SUCCESS && sizes[me] > 0 && offs[me] != 0)
            memmove(*acc + offs[me], *acc, (size_t)sizes[me]);
        for (int j = 0; j < n && rc == MPI_SUCCESS; j++)
            if (j != me && sizes[j] > 0)
                rc = hsplit_post_pieces(&q, 0, *acc + offs[j], sizes[j], j, comm, piece);
        int wrc = hsplit_requests_wait(&q);
        if (rc == MPI_SUCCESS) rc = wrc;
        *bytes = unpackable ? -1 : total;
        free(sizes);
    }
    return rc;
}

/* Unpack, at the root, the tree-ordered bytes of every rank (but skip, the
   root's own block in place) into its place. */
static int unpack_vector(const hsplit_hierarchy *h, const char *packed, int64_t total,
                         void *recvbuf, const int *counts, const int *displs,
                         MPI_Datatype type, int skip)
{
    if (total < 0) return MPI_ERR_TYPE; /* a block no MPI_Pack could take */
    int64_t elem = hsplit_element_bytes(type), expected = 0;
    for (int r = 0; r < h->size; r++)
        if (r != skip && counts[r] > 0) expected += elem < 0 ? -1 : (int64_t)counts[r] * elem;
    if (elem < 0 && expected != 0) return MPI_ERR_TYPE;
    /* the blocks' signatures must match: what came is what the counts say */
    if (expected != total) return MPI_ERR_TRUNCATE;
    MPI_Aint lb, extent;
    MPI_Type_get_extent(type, &lb, &extent);
    int64_t off = 0;
    int rc = MPI_SUCCESS;
    for (int i = 0; i < h->size && rc == MPI_SUCCESS; i++) {
        int r = hsplit_rankmap_lookup(&h->order, i);
        if (r == skip || counts[r] == 0) continue;
        char *at = recvbuf == MPI_BOTTOM && displs[r] == 0
                       ? MPI_BOTTOM : (char *)recvbuf + (MPI_Aint)displs[r] * extent;
        rc = hsplit_unpack_elements(packed + off, at, counts[r], type, elem, h->base);
        off += (int64_t)counts[r] * elem;
    }
    return rc;
}

/* This process's block packed into a new buffer (*mine, *bytes; -1: it
   cannot be packed). */
static int pack_own(const void *buf, int count, MPI_Datatype type, char **mine, int64_t *bytes,
                    MPI_Comm comm)
{
    int64_t elem = hsplit_element_bytes(type);
    *bytes = count == 0 ? 0 : elem < 0 ? -1 : (int64_t)count * elem;
    *mine = malloc(*bytes > 0 ? (size_t)*bytes : 1);
    if (*mine == NULL) return MPI_ERR_NO_MEM;
    return *bytes > 0 ? hsplit_pack_elements(buf, count, type, elem, *mine, comm) : MPI_SUCCESS;
}

static int gatherv_tree(const hsplit_hierarchy *h, const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                        const int *displs, MPI_Datatype recvtype, int root)
{
    int holder = hsplit_is_top_holder(h, root), in_place = h->rank == root &&
                                                           sendbuf == MPI_IN_PLACE;
    char *acc = NULL;
    int64_t bytes = 0;
    /* the root in place gives no bytes: its block is where it belongs */
    int rc = in_place ? ((acc = malloc(1)) != NULL ? MPI_SUCCESS : MPI_ERR_NO_MEM)
                      : pack_own(sendbuf, sendcount, sendtype, &acc, &bytes, h->base);
    /* a block that cannot be packed still takes part (bytes < 0): the others
       complete, the root fails */
    int local = rc;
    if (rc != MPI_ERR_NO_MEM) rc = vtree_gather(h, &acc, &bytes, root, 0);
    if (rc == MPI_SUCCESS && holder && h->rank != root) {
        rc = MPI_Send(&bytes, 1, MPI_INT64_T, root, HSPLIT_TAG_DELIVER, h->base);
        hsplit_requests q = {NULL, 0, 0};
        if (rc == MPI_SUCCESS && bytes > 0)
            rc = hsplit_post_pieces(&q, 1, acc, bytes, root, h->base, hsplit_vector_piece(h));
        int wrc = hsplit_requests_wait(&q);
        if (rc == MPI_SUCCESS) rc = wrc;
    } else if (rc == MPI_SUCCESS && !holder && h->rank == root) {
        rc = MPI_Recv(&bytes, 1, MPI_INT64_T, h->node_leader, HSPLIT_TAG_DELIVER, h->base,
                      MPI_STATUS_IGNORE);
        free(acc);
        acc = rc == MPI_SUCCESS ? malloc(bytes > 0 ? (size_t)bytes : 1) : NULL;
        if (rc == MPI_SUCCESS && acc == NULL) rc = MPI_ERR_NO_MEM;
        hsplit_requests q = {NULL, 0, 0};
        if (rc == MPI_SUCCESS && bytes > 0)
            rc = hsplit_post_pieces(&q, 0, acc, bytes, h->node_leader, h->base,
                                    hsplit_vector_piece(h));
        int wrc = hsplit_requests_wait(&q);
        if (rc == MPI_SUCCESS) rc = wrc;
    }
    if (rc == MPI_SUCCESS && h->rank == root)
        rc = unpack_vector(h, acc, bytes, recvbuf, recvcounts, displs, recvtype,
                           in_place ? root : -1);
    free(acc);
    if (rc == MPI_SUCCESS && local != MPI_SUCCESS) rc = local;
    if (rc == MPI_SUCCESS && !in_place && sendcount > 0 && hsplit_element_bytes(sendtype) < 0)
        rc = MPI_ERR_TYPE;
    return rc;
}

/* The bytes of the largest block the counts give (0 for a type that cannot
   be packed: the call fails at the root). */
static int64_t largest_block(const int *counts, MPI_Datatype type, int n)
{
    int64_t elem = hsplit_element_bytes(type), largest = 0;
    for (int r = 0; elem > 0 && r < n; r++)
        if ((int64_t)counts[r] * elem > largest) largest = (int64_t)counts[r] * elem;
    return largest;
}

static int gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int *recvcounts, const int *displs, MPI_Datatype recvtype, int root,
                   MPI_Comm comm)
{
    hsplit_hierarchy *h = NULL;
    /* non-roots know their own block only: the size class learned (hsplit_internal.h) */
    int rc = hsplit_coll_begin(comm, HSPLIT_COLL_ANY_SIZE, root, &h);
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    hsplit_coll_trial trial;
    hsplit_coll_choose(&h, HSPLIT_COLL_GATHERV, HSPLIT_COLL_ANY_SIZE, &trial);
    rc = h != NULL ? gatherv_tree(h, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                  recvtype, root)
                   : MPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                 recvtype, root, comm);
    /* The sizes only travel up, so only the root knows them: in auto mode it
       hands every process the largest block, whose class the next call
       takes (hsplit_internal.h). Without it one measured choice would serve
       every size on the communicator: the hierarchy kept at 1 MiB because
       it won at 4 bytes. Every process took its part in the tree, even one
       whose block could not be packed, so all of them are here. */
    if (h != NULL && h->config.mode == HSPLIT_COLL_AUTO) {
        int64_t largest = h->rank == root ? largest_block(recvcounts, recvtype, h->size) : 0;
        int brc = MPI_Bcast(&largest, 1, MPI_INT64_T, root, h->base);
        if (brc == MPI_SUCCESS)
            hsplit_coll_learn_size(h, HSPLIT_COLL_GATHERV,
                                   largest > LONG_MAX ? LONG_MAX : (long)largest);
        if (rc == MPI_SUCCESS) rc = brc;
    }
    return hsplit_coll_finish(comm, h, &trial, rc);
}

/* MPI_ERR_ARG for missing arrays, MPI_ERR_COUNT for a negative count. */
static int check_counts(const int *counts, const int *displs, int n)
{
    if (counts == NULL || displs == NULL) return MPI_ERR_ARG;
    for (int i = 0; i < n; i++)
        if (counts[i] < 0) return MPI_ERR_COUNT;
    return MPI_SUCCESS;
}

int HSPLIT_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                   MPI_Comm comm)
{
    /* plain MPI decided (off mode, auto's choice) and nothing unusual */
    hsplit_coll_state *s = hsplit_coll_state_find(comm);
    if (s != NULL && sendbuf != MPI_IN_PLACE && recvbuf != MPI_IN_PLACE &&
        hsplit_coll_plain(s, HSPLIT_COLL_GATHERV, HSPLIT_COLL_ANY_SIZE))
        return MPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           root, comm);
    int rank = 0, size = 0, rc = hsplit_coll_check_comm(comm);
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    /* before anything communicates, each process checks what MPI reads from
       it: its block (not the root's in place), and the counts, displacements
       and receive type at the root; MPI_IN_PLACE only as the root's sendbuf */
    int in_place = sendbuf == MPI_IN_PLACE;
    if (rank != root && in_place) rc = MPI_ERR_ARG;
    else if (!in_place && sendcount < 0) rc = MPI_ERR_COUNT;
    else if (!in_place && sendtype == MPI_DATATYPE_NULL) rc = MPI_ERR_TYPE;
    else if (rank == root) rc = check_counts(recvcounts, displs, size);
    if (rc == MPI_SUCCESS && rank == root && recvtype == MPI_DATATYPE_NULL) rc = MPI_ERR_TYPE;
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    if (rank != root || recvbuf != MPI_IN_PLACE)
        return gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                       comm);
    /* a root without a receive buffer still takes its part when it has a
       block to give (the others complete), then fails */
    void *base = NULL;
    recvbuf = in_place ? NULL : hsplit_temp_vector(recvcounts, displs, size, recvtype, &base);
    if (recvbuf == NULL) return hsplit_raise_code(comm, MPI_ERR_ARG);
    rc = gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
    return hsplit_coll_misused(comm, base, rc, MPI_ERR_ARG);
}

/* ---- Allgatherv ---- */

static MPI_Aint recv_extent(MPI_Datatype type)
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(type, &lb, &extent);
    return extent;
}

/* This process's block packed into out: as many bytes as count (its
   recvcounts[rank]) elements of elem packed bytes, MPI's matching rule; in
   place from its displacement displ in recvbuf. A send block of another
   size gives zeros and *local = MPI_ERR_TRUNCATE: the process still takes
   part, so that the others complete. */
static int pack_block(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      const void *recvbuf, int count, int displ, MPI_Datatype recvtype,
                      int64_t elem, char *out, MPI_Comm comm, int *local)
{
    int64_t bytes = (int64_t)count * elem;
    if (sendbuf == MPI_IN_PLACE)
        return hsplit_pack_elements((const char *)recvbuf + (MPI_Aint)displ * recv_extent(recvtype),
                                    count, recvtype, elem, out, comm);
    int64_t send_elem = hsplit_element_bytes(sendtype);
    if (sendcount > 0 ? send_elem < 0 || (int64_t)sendcount * send_elem != bytes : bytes != 0) {
        memset(out, 0, (size_t)bytes);
        *local = MPI_ERR_TRUNCATE;
        return MPI_SUCCESS;
    }
    return sendcount > 0 ? hsplit_pack_elements(sendbuf, sendcount, sendtype, send_elem, out, comm)
                         : MPI_SUCCESS;
}

static int allgatherv_tree(const hsplit_hierarchy *h, const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                           const int *displs, MPI_Datatype recvtype, int64_t elem, int total)
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(recvtype, &lb, &extent);
    /* where each tree position's block starts in the tree-ordered bytes */
    int64_t *pos = malloc(sizeof(int64_t) * ((size_t)h->size + 1));
    if (pos == NULL) return MPI_ERR_NO_MEM;
    pos[0] = 0;
    for (int i = 0; i < h->size; i++)
        pos[i + 1] = pos[i] + (int64_t)recvcounts[hsplit_rankmap_lookup(&h->order, i)] * elem;
    /* my block, as many bytes as recvcounts[rank] says (MPI's matching rule) */
    int64_t bytes = (int64_t)recvcounts[h->rank] * elem;
    char *acc = malloc(bytes > 0 ? (size_t)bytes : 1);
    int rc = acc != NULL ? MPI_SUCCESS : MPI_ERR_NO_MEM, local = MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        rc = pack_block(sendbuf, sendcount, sendtype, recvbuf, recvcounts[h->rank],
                        displs[h->rank], recvtype, elem, acc, h->base, &local);
    if (rc == MPI_SUCCESS) rc = vtree_gather(h, &acc, &bytes, 0, 1);
    MPI_Comm top = hsplit_roots_at(h, 0);
    if (rc == MPI_SUCCESS && top != MPI_COMM_NULL) {
        /* the top level's members swap their subtrees: sizes from the counts */
        int n, me;
        MPI_Comm_size(top, &n);
        MPI_Comm_rank(top, &me);
        int *sizes = malloc(sizeof(int) * 2 * (size_t)n), *offs = sizes + n;
        char *grown = realloc(acc, (size_t)total > 0 ? (size_t)total : 1);
        if (sizes == NULL || grown == NULL) rc = MPI_ERR_NO_MEM;
        if (grown != NULL) acc = grown;
        for (int j = 0, start = 0; j < n && rc == MPI_SUCCESS; j++) {
            offs[j] = (int)pos[start];
            start += h->counts[0][j];
            sizes[j] = (int)(pos[start] - offs[j]);
        }
        if (rc == MPI_SUCCESS && offs[me] != 0 && sizes[me] > 0)
            memmove(acc + offs[me], acc, (size_t)sizes[me]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, acc, sizes, offs, MPI_BYTE, top);
        free(sizes);
    } else if (rc == MPI_SUCCESS) {
        free(acc);
        acc = malloc((size_t)total);
        if (acc == NULL) rc = MPI_ERR_NO_MEM;
    }
    if (rc == MPI_SUCCESS) rc = hsplit_tree_bcast(h, acc, total, MPI_BYTE, 0, 1);
    for (int i = 0; i < h->size && rc == MPI_SUCCESS; i++) {
        int r = hsplit_rankmap_lookup(&h->order, i);
        if (recvcounts[r] == 0) continue;
        rc = hsplit_unpack_elements(acc + pos[i], (char *)recvbuf + (MPI_Aint)displs[r] * extent,
                                    recvcounts[r], recvtype, elem, h->base);
    }
    free(acc);
    free(pos);
    return rc == MPI_SUCCESS ? local : rc;
}

/* MPI's own allgatherv. Processes may describe their blocks with different
   datatypes of equal type signatures, and MPICH 4.0's ring MPI_Allgatherv
   (large totals) counts its pipeline chunks in elements, 32 KiB over the
   extent of each process's own datatype, so that a strided vector of ints,
   or 3 contiguous ints, against MPI_INT disagree on the chunks and fail with
   MPI_ERR_TRUNCATE: a process whose datatypes are not as_is packs its block
   and moves bytes, the blocks in rank order (counts[i] x type size each),
   then unpacks each block into its place (a predefined type's chunks are
   the same bytes as MPI_BYTE's). When the total exceeds an int of bytes
   (known everywhere: every process has the counts), MPI's call as it is.
   Errors of this path are raised here (MPI raised its own). */
static int plain_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int *recvcounts, const int *displs,
                            MPI_Datatype recvtype, int size, int64_t elem, int64_t total,
                            MPI_Comm comm)
{
    int in_place = sendbuf == MPI_IN_PLACE;
    if (total <= 0 || total > INT_MAX ||
        (hsplit_type_dense_named(recvtype) && (in_place || hsplit_type_dense_named(sendtype))))
        return MPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                              recvtype, comm);
    int rank, all = 0, *at = NULL;
    MPI_Comm_rank(comm, &rank);
    int *bytes = hsplit_byte_layout(recvcounts, size, (int)elem, &at, &all);
    /* every block, then (not in place) this process's own to send */
    char *packed = bytes == NULL ? NULL
                                 : malloc((size_t)all + (size_t)(in_place ? 0 : bytes[rank]) + 1);
    if (packed == NULL) {
        free(bytes);
        return hsplit_raise_code(comm, MPI_ERR_NO_MEM);
    }
    char *mine = packed + (in_place ? at[rank] : all);
    int local = MPI_SUCCESS;
    int rc = pack_block(sendbuf, sendcount, sendtype, recvbuf, recvcounts[rank], displs[rank],
                        recvtype, elem, mine, comm, &local);
    if (rc == MPI_SUCCESS)
        rc = MPI_Allgatherv(in_place ? MPI_IN_PLACE : mine, in_place ? 0 : bytes[rank], MPI_BYTE,
                            packed, bytes, at, MPI_BYTE, comm);
    MPI_Aint extent = recv_extent(recvtype);
    for (int r = 0; r < size && rc == MPI_SUCCESS; r++)
        if (recvcounts[r] > 0 && !(in_place && r == rank))
            rc = hsplit_unpack_elements(packed + at[r],
                                        (char *)recvbuf + (MPI_Aint)displs[r] * extent,
                                        recvcounts[r], recvtype, elem, comm);
    free(packed);
    free(bytes);
    return rc == MPI_SUCCESS ? hsplit_raise_code(comm, local) : rc;
}

/* The bytes of an allgatherv's blocks, counts[i] elements of elem bytes
   (elem < 0, a type without a byte size: more than an int for any count);
   -1 when a count is negative. */
static int64_t allgatherv_total(const int *counts, int size, int64_t elem)
{
    int64_t total = 0;
    for (int i = 0; i < size; i++) {
        if (counts[i] < 0) return -1;
        total += counts[i] == 0 ? 0 : elem < 0 ? (int64_t)INT_MAX + 1 : (int64_t)counts[i] * elem;
    }
    return total;
}

/* The size class of an allgatherv in auto mode: the mean block, rounded up
   (every process knows every count, so it is the same everywhere). */
static long allgatherv_class_bytes(int64_t total, int size)
{
    return (long)(total / size + (total % size != 0));
}

static int allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int *recvcounts, const int *displs, MPI_Datatype recvtype, int size,
                      MPI_Comm comm)
{
    /* the counts are checked: the total is >= 0 */
    int64_t elem = hsplit_element_bytes(recvtype);
    int64_t total = allgatherv_total(recvcounts, size, elem);
    long bytes = allgatherv_class_bytes(total, size);
    hsplit_hierarchy *h = NULL;
    int rc = hsplit_coll_begin(comm, bytes, -2, &h);
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    /* the tree's byte collectives take int counts; no bytes: plain MPI,
       which checks the other arguments */
    if (h != NULL && (total <= 0 || total > INT_MAX)) h = NULL;
    hsplit_coll_trial trial;
    hsplit_coll_choose(&h, HSPLIT_COLL_ALLGATHERV, bytes, &trial);
    if (h == NULL && size == 1) {
        /* one process: a local copy (MPICH 4.0's MPI_Allgatherv puts the
           block at displacement 0, whatever displs says) */
        rc = sendbuf == MPI_IN_PLACE || recvcounts[0] == 0
                 ? MPI_SUCCESS
                 : MPI_Sendrecv(sendbuf, sendcount, sendtype, 0, HSPLIT_TAG_LIFT,
                                (char *)recvbuf + (MPI_Aint)displs[0] * recv_extent(recvtype),
                                recvcounts[0], recvtype, 0, HSPLIT_TAG_LIFT, MPI_COMM_SELF,
                                MPI_STATUS_IGNORE);
    } else if (h != NULL) {
        rc = allgatherv_tree(h, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                             recvtype, elem, (int)total);
    } else if (total == 0 && elem == 0) {
        /* elements of no bytes: no counts (Open MPI 4.1 walks them one by one) */
        int *zeros = calloc((size_t)size, sizeof(int));
        rc = zeros == NULL ? MPI_ERR_NO_MEM
                           : MPI_Allgatherv(sendbuf, 0, sendtype, recvbuf, zeros, displs,
                                            recvtype, comm);
        free(zeros);
    } else {
        rc = plain_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                              recvtype, size, elem, total, comm);
    }
    return hsplit_coll_finish(comm, h, &trial, rc);
}

/* Whether an allgatherv goes to MPI's call at once: plain MPI for every size
   (off mode, a flat hierarchy), or decided for the size class of this call
   (allgatherv's: the mean block, from the counts every process has). */
static int allgatherv_plain(const hsplit_coll_state *s, const int *recvcounts,
                            MPI_Datatype recvtype)
{
    uint64_t plain = s->plain[HSPLIT_COLL_ALLGATHERV];
    if (plain == ~(uint64_t)0) return 1;
    if (plain == 0 || recvcounts == NULL) return 0;
    /* a negative count (the full path's error), no bytes, more than an
       int of bytes: the full path */
    int64_t total = allgatherv_total(recvcounts, s->size, hsplit_element_bytes(recvtype));
    if (total <= 0 || total > INT_MAX) return 0;
    return hsplit_coll_plain(s, HSPLIT_COLL_ALLGATHERV, allgatherv_class_bytes(total, s->size));
}

int HSPLIT_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                      MPI_Comm comm)
{
    /* plain MPI decided and datatypes MPI takes as they are: MPI's call
       (other datatypes move as bytes, see plain_allgatherv) */
    hsplit_coll_state *s = hsplit_coll_state_find(comm);
    if (s != NULL && sendbuf != MPI_IN_PLACE && recvbuf != MPI_IN_PLACE && s->size > 1 &&
        displs != NULL && hsplit_type_dense_named(sendtype) &&
        hsplit_type_dense_named(recvtype) && allgatherv_plain(s, recvcounts, recvtype))
        return MPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                              recvtype, comm);
    int rank = 0, size = 0, rc = hsplit_coll_check_comm(comm);
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    /* checked before anything communicates, on every process: MPI_IN_PLACE
       only as sendbuf, the counts MPI reads, the datatypes */
    int in_place = sendbuf == MPI_IN_PLACE;
    if (!in_place && sendcount < 0) rc = MPI_ERR_COUNT;
    else if (!in_place && sendtype == MPI_DATATYPE_NULL) rc = MPI_ERR_TYPE;
    else rc = check_counts(recvcounts, displs, size);
    if (rc == MPI_SUCCESS && recvtype == MPI_DATATYPE_NULL) rc = MPI_ERR_TYPE;
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    if (recvbuf != MPI_IN_PLACE)
        return allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                          size, comm);
    /* no receive buffer: the process still gives its block, if it has one */
    void *base = NULL;
    recvbuf = in_place ? NULL : hsplit_temp_vector(recvcounts, displs, size, recvtype, &base);
    if (recvbuf == NULL) return hsplit_raise_code(comm, MPI_ERR_ARG);
    rc = allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, size,
                    comm);
    return hsplit_coll_misused(comm, base, rc, MPI_ERR_ARG);
}
