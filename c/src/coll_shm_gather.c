/* SPDX-License-Identifier: BSD-3-Clause */
/* Gather, scatter and allgather inside one node's shared segment (the OSMP
   base case), with the protocol of coll_shm.c (steps, slots, areas, DONE
   and failure words; coll_shm_private.h). Blocks travel in MPI's packed
   form: memcpy of the buffer when the datatype is flat, else packed and
   unpacked, so that senders and receivers may give different datatypes of
   one signature.

   - gather and allgather: blocks that fit a slot: each process but the root
     (allgather: every process) packs its block into its slot (flag and data
     in one line for a small block); the root (everyone) waits for each
     other slot and unpacks it into recvbuf. Larger blocks: one step per
     slice of an area, each process copying slice k of its own block into
     its own area; the areas are per writer, so that slice k of every block
     travels in the same step however many processes there are, and no call
     needs MPI's own collective. A reader whose datatype is not flat
     collects the packed blocks in a buffer and unpacks them at the end.
   - scatter: slots and areas have one writer, so the root writes into its
     own: its blocks but its own, in rank order, are one stream, in its slot
     when the stream fits one (one step), else in slices of its area; each
     process waits only for the steps that hold part of its block and says
     DONE at once for the others.

   Copies per byte (flat datatypes; other ones +1 on each side: packed into
   a buffer or the slot, unpacked out of it): gather and allgather 2 (block
   -> its writer's slot or area, -> each reader, the readers in parallel),
   the collector's own block 1 (a local copy; MPI_IN_PLACE 0); scatter 2
   (root -> its slot or area, -> the member), the root's own block 1. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "coll_shm_private.h"

/* One process's buffer of a call: blocks of count elements of type. */
typedef struct {
    char *buf;
    int count;
    MPI_Datatype type;
    int64_t elem;     /* packed bytes per element */
    MPI_Aint extent;  /* block i starts i * count * extent bytes on */
    int flat;         /* memcpy moves a block */
} blocks;

static int describe(const void *buf, int count, MPI_Datatype type, blocks *b)
{
    b->buf = (char *)(uintptr_t)buf;
    b->count = count;
    b->type = type;
    int common = hsplit_shm_common_size(type);
    if (common > 0) {
        b->elem = b->extent = common;
        b->flat = 1;
        return MPI_SUCCESS;
    }
    b->elem = hsplit_element_bytes(type);
    if (b->elem < 0) return MPI_ERR_TYPE;
    MPI_Aint lb;
    int rc = MPI_Type_get_extent(type, &lb, &b->extent);
    b->flat = rc == MPI_SUCCESS && hsplit_shm_type_flat(type);
    return rc;
}

static int64_t block_bytes(const blocks *b)
{
    return b->count > 0 ? (int64_t)b->count * b->elem : 0;
}

/* Block i of a buffer of several (in integers: the buffer may be MPI_BOTTOM). */
static char *block_at(const blocks *b, int i)
{
    MPI_Aint offset = (MPI_Aint)i * b->count * b->extent;
    return (char *)((uintptr_t)b->buf + (uintptr_t)offset);
}

static int pack_block(const blocks *b, const char *from, char *to)
{
    if (!b->flat) return hsplit_pack_elements(from, b->count, b->type, b->elem, to, MPI_COMM_SELF);
    memcpy(to, from, (size_t)block_bytes(b));
    return MPI_SUCCESS;
}

static int unpack_block(const blocks *b, const char *from, char *to)
{
    if (!b->flat) return hsplit_unpack_elements(from, to, b->count, b->type, b->elem, MPI_COMM_SELF);
    memcpy(to, from, (size_t)block_bytes(b));
    return MPI_SUCCESS;
}

/* A block from one process's buffer to its own other one (the collector's
   or root's own block); nothing in place. */
static int copy_block(const blocks *from, const char *src, const blocks *to, char *dst)
{
    if (src == dst) return MPI_SUCCESS;
    if (from->flat && to->flat) {
        memcpy(dst, src, (size_t)block_bytes(to));
        return MPI_SUCCESS;
    }
    return MPI_Sendrecv(src, from->count, from->type, 0, 0, dst, to->count, to->type, 0, 0,
                        MPI_COMM_SELF, MPI_STATUS_IGNORE);
}

/* ---- gather (root >= 0) and allgather (root < 0) ---- */

/* Every block fits a slot: one step. */
static int collect_in_slots(hsplit_shm *shm, const blocks *out, const blocks *in, int root)
{
    int me = shm->rank, n = shm->size, rc = MPI_SUCCESS;
    uint64_t s = ++shm->step;
    if (me != root) {
        hsplit_shm_wait_slot_free(shm, s);
        rc = pack_block(out, out->buf, hsplit_shm_slot(shm, me, s) + HSPLIT_SHM_SLOT_HEADER);
        hsplit_shm_publish_slot(shm, s, rc != MPI_SUCCESS);
    }
    if (root < 0 || me == root) {
        /* the own block while the others write theirs */
        int crc = copy_block(out, out->buf, in, block_at(in, me));
        if (rc == MPI_SUCCESS) rc = crc;
        /* from the next rank on: the readers of an allgather spread out */
        for (int k = 1; k < n; k++) {
            int i = (me + k) % n;
            hsplit_shm_wait_ge(hsplit_shm_slot_flag(shm, i, s), s);
            if (hsplit_shm_slot_failed_at(shm, i, s)) {
                if (rc == MPI_SUCCESS) rc = MPI_ERR_OTHER;
            } else if (rc == MPI_SUCCESS) {
                rc = unpack_block(in, hsplit_shm_slot(shm, i, s) + HSPLIT_SHM_SLOT_HEADER,
                                  block_at(in, i));
            }
        }
        if (root < 0) hsplit_shm_saw_all_published(shm, s);
    }
    hsplit_shm_store_flag(shm, HSPLIT_SHM_DONE, s);
    return rc;
}

/* Larger blocks: step k carries slice k of every block, each in its
   writer's area. */
static int collect_in_areas(hsplit_shm *shm, const blocks *out, const blocks *in, int root,
                            int64_t bytes)
{
    int me = shm->rank, n = shm->size, collects = root < 0 || me == root, gives = me != root;
    int wrc = MPI_SUCCESS, rrc = MPI_SUCCESS; /* this process's writes, its reads */
    char *packed_out = NULL, *packed_in = NULL;
    const char *src = out->buf;
    if (gives && !out->flat) {
        packed_out = malloc((size_t)bytes);
        wrc = packed_out == NULL ? MPI_ERR_NO_MEM : pack_block(out, out->buf, packed_out);
        src = packed_out;
    }
    if (collects && !in->flat) {
        packed_in = malloc((size_t)n * (size_t)bytes);
        if (packed_in == NULL) rrc = MPI_ERR_NO_MEM;
    }
    int64_t slice = (int64_t)shm->area_bytes;
    for (int64_t off = 0; off < bytes; off += slice) {
        size_t len = (size_t)(bytes - off < slice ? bytes - off : slice);
        uint64_t s = ++shm->step;
        if (gives) {
            hsplit_shm_wait_area_free(shm, s);
            if (wrc == MPI_SUCCESS) memcpy(hsplit_shm_area(shm, me, s), src + off, len);
            else hsplit_shm_store_failed(shm, s);
            hsplit_shm_store_flag(shm, HSPLIT_SHM_POST, s);
        }
        if (collects && off == 0) {
            int crc = copy_block(out, out->buf, in, block_at(in, me));
            if (rrc == MPI_SUCCESS) rrc = crc;
        }
        for (int k = 1; collects && k < n; k++) {
            int i = (me + k) % n;
            hsplit_shm_wait_ge(hsplit_shm_flag_of(shm, i, HSPLIT_SHM_POST), s);
            if (rrc == MPI_SUCCESS && hsplit_shm_failed_at(shm, i, s)) rrc = MPI_ERR_OTHER;
            if (rrc != MPI_SUCCESS) continue;
            char *to = in->flat ? block_at(in, i) : packed_in + (size_t)i * (size_t)bytes;
            memcpy(to + off, hsplit_shm_area(shm, i, s), len);
        }
        if (root < 0) hsplit_shm_saw_all_published(shm, s);
        hsplit_shm_store_flag(shm, HSPLIT_SHM_DONE, s);
    }
    for (int i = 0; packed_in != NULL && rrc == MPI_SUCCESS && i < n; i++)
        if (i != me) rrc = unpack_block(in, packed_in + (size_t)i * (size_t)bytes, block_at(in, i));
    free(packed_out);
    free(packed_in);
    return wrc != MPI_SUCCESS ? wrc : rrc;
}

static int collect(hsplit_shm *shm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int root)
{
    int me = shm->rank, collects = root < 0 || me == root, rc = MPI_SUCCESS;
    blocks out, in;
    if (collects) rc = describe(recvbuf, recvcount, recvtype, &in);
    /* in place: the collector's block is already in recvbuf, given from there */
    if (rc == MPI_SUCCESS)
        rc = collects && sendbuf == MPI_IN_PLACE
                 ? describe(block_at(&in, me), recvcount, recvtype, &out)
                 : describe(sendbuf, sendcount, sendtype, &out);
    if (rc != MPI_SUCCESS) return rc;
    /* the same everywhere: the signatures match */
    int64_t bytes = collects ? block_bytes(&in) : block_bytes(&out);
    if (bytes == 0) return MPI_SUCCESS;
    if ((uint64_t)bytes <= shm->slot_data) return collect_in_slots(shm, &out, &in, root);
    return collect_in_areas(shm, &out, &in, root, bytes);
}

int hsplit_shm_gather(hsplit_shm *shm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype, int root)
{
    if (root < 0 || root >= shm->size) return MPI_ERR_ROOT;
    return collect(shm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
}

int hsplit_shm_allgather(hsplit_shm *shm, const void *sendbuf, int sendcount,
                         MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype)
{
    return collect(shm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, -1);
}

/* ---- scatter ---- */

/* len bytes of the root's stream from position off into to: the stream is
   from, without the gap bytes at gap_at (the root's own block in its
   buffer; none in a packed stream). */
static void copy_stream(char *to, const char *from, int64_t off, size_t len, int64_t gap_at,
                        int64_t gap)
{
    if (off < gap_at) {
        size_t first = gap_at - off < (int64_t)len ? (size_t)(gap_at - off) : len;
        memcpy(to, from + off, first);
        to += first;
        off += (int64_t)first;
        len -= first;
    }
    if (len > 0) memcpy(to, from + off + gap, len);
}

/* The root's stream, packed: its blocks but its own, in rank order. */
static int pack_others(const blocks *out, int n, int root, int64_t bytes, char *to)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
        if (i != root) rc = pack_block(out, block_at(out, i), to + (i < root ? i : i - 1) * bytes);
    return rc;
}

/* The root's stream in slices of its area; each member copies out the part
   of each slice that is its block. */
static int scatter_in_areas(hsplit_shm *shm, const blocks *out, const blocks *in, int root,
                            int64_t bytes)
{
    int me = shm->rank, n = shm->size, is_root = me == root, rc = MPI_SUCCESS;
    int64_t total = bytes * (n - 1), at = (int64_t)(me < root ? me : me - 1) * bytes;
    char *packed = NULL;
    const char *from = out->buf;
    int64_t gap_at = (int64_t)root * bytes, gap = bytes;
    if (is_root && !out->flat) {
        packed = malloc((size_t)total);
        if (packed == NULL) rc = MPI_ERR_NO_MEM;
        if (rc == MPI_SUCCESS) rc = pack_others(out, n, root, bytes, packed);
        from = packed;
        gap_at = total;
        gap = 0;
    } else if (!is_root && !in->flat) {
        packed = malloc((size_t)bytes);
        if (packed == NULL) rc = MPI_ERR_NO_MEM;
    }
    char *mine = is_root ? NULL : in->flat ? in->buf : packed;
    int64_t slice = (int64_t)shm->area_bytes;
    for (int64_t off = 0; off < total; off += slice) {
        size_t len = (size_t)(total - off < slice ? total - off : slice);
        uint64_t s = ++shm->step;
        char *area = hsplit_shm_area(shm, root, s);
        if (is_root) {
            hsplit_shm_wait_area_free(shm, s);
            if (rc == MPI_SUCCESS) copy_stream(area, from, off, len, gap_at, gap);
            else hsplit_shm_store_failed(shm, s);
            hsplit_shm_store_flag(shm, HSPLIT_SHM_POST, s);
        } else {
            int64_t lo = off > at ? off : at, end = off + (int64_t)len;
            int64_t hi = end < at + bytes ? end : at + bytes;
            if (lo < hi) { /* part of my block: else nothing to wait for */
                hsplit_shm_wait_ge(hsplit_shm_flag_of(shm, root, HSPLIT_SHM_POST), s);
                if (rc == MPI_SUCCESS && hsplit_shm_failed_at(shm, root, s)) rc = MPI_ERR_OTHER;
                if (rc == MPI_SUCCESS) memcpy(mine + (lo - at), area + (lo - off), (size_t)(hi - lo));
            }
        }
        hsplit_shm_store_flag(shm, HSPLIT_SHM_DONE, s);
    }
    if (!is_root && !in->flat && rc == MPI_SUCCESS) rc = unpack_block(in, packed, in->buf);
    free(packed);
    return rc;
}

int hsplit_shm_scatter(hsplit_shm *shm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype, int root)
{
    if (root < 0 || root >= shm->size) return MPI_ERR_ROOT;
    int me = shm->rank, n = shm->size, is_root = me == root, rc = MPI_SUCCESS;
    int keeps = !(is_root && recvbuf == MPI_IN_PLACE); /* receives a block */
    blocks out, in;
    if (is_root) rc = describe(sendbuf, sendcount, sendtype, &out);
    if (rc == MPI_SUCCESS && keeps) rc = describe(recvbuf, recvcount, recvtype, &in);
    if (rc != MPI_SUCCESS) return rc;
    int64_t bytes = is_root ? block_bytes(&out) : block_bytes(&in);
    if (bytes == 0) return MPI_SUCCESS; /* the same everywhere: the signatures match */
    int64_t total = bytes * (n - 1);
    if ((uint64_t)total > shm->slot_data) {
        rc = scatter_in_areas(shm, &out, &in, root, bytes);
    } else {
        /* one slot: the root's blocks but its own, in rank order */
        uint64_t s = ++shm->step;
        char *data = hsplit_shm_slot(shm, root, s) + HSPLIT_SHM_SLOT_HEADER;
        if (is_root) {
            hsplit_shm_wait_slot_free(shm, s);
            rc = pack_others(&out, n, root, bytes, data);
            hsplit_shm_publish_slot(shm, s, rc != MPI_SUCCESS);
        } else {
            hsplit_shm_wait_ge(hsplit_shm_slot_flag(shm, root, s), s);
            if (hsplit_shm_slot_failed_at(shm, root, s)) rc = MPI_ERR_OTHER;
            else rc = unpack_block(&in, data + (me < root ? me : me - 1) * bytes, in.buf);
        }
        hsplit_shm_store_flag(shm, HSPLIT_SHM_DONE, s);
    }
    /* the root's own block, once the others have theirs under way */
    if (is_root && keeps) {
        int crc = copy_block(&out, block_at(&out, root), &in, in.buf);
        if (rc == MPI_SUCCESS) rc = crc;
    }
    return rc;
}

/* ---- blocks in a given rank order (the schedules across nodes) ---- */

int64_t hsplit_shm_block_bytes(int count, MPI_Datatype type)
{
    blocks b;
    return describe(NULL, count, type, &b) == MPI_SUCCESS ? block_bytes(&b) : -1;
}

int hsplit_shm_place_blocks(const char *packed, const int *ranks, int n, int64_t bytes,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, int skip)
{
    blocks in;
    int rc = describe(recvbuf, recvcount, recvtype, &in);
    for (int j = 0; j < n && rc == MPI_SUCCESS; j++)
        if (ranks[j] != skip)
            rc = unpack_block(&in, packed + (size_t)j * (size_t)bytes, block_at(&in, ranks[j]));
    return rc;
}

int hsplit_shm_take_blocks(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           const int *ranks, int n, int64_t bytes, char *packed)
{
    blocks out;
    int rc = describe(sendbuf, sendcount, sendtype, &out);
    for (int j = 0; j < n && rc == MPI_SUCCESS; j++)
        rc = pack_block(&out, block_at(&out, ranks[j]), packed + (size_t)j * (size_t)bytes);
    return rc;
}
