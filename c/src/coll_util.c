/* SPDX-License-Identifier: BSD-3-Clause */
/* Pieces shared by the hierarchical collectives: the HSPLIT_COLL* variables,
   when to use the hierarchy, temporary buffers, the segment size, and the
   pipelined broadcast down the tree. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hsplit_internal.h"

/* Says which setting is wrong, once per call on rank 0 of comm: MPI_ERR_ARG
   alone would not. */
static void report_bad_config(const hsplit_coll_state *s)
{
    if (s->rank != 0) return;
    int i = hsplit_coll_setting_index(s->config.bad);
    if (i < 0) {
        if (s->info_disagree)
            fprintf(stderr, "hsplit: the processes of a communicator carry different "
                            "HSPLIT_COLL* info keys, or malformed ones: the collectives "
                            "return MPI_ERR_ARG\n");
        return;
    }
    const char *value = s->values[i];
    fprintf(stderr, "hsplit: %s=\"%s\" is malformed (expected %s): the collectives return "
                    "MPI_ERR_ARG\n", s->config.bad, value != NULL ? value : "",
            hsplit_coll_settings[i].expected);
}

int hsplit_coll_check_comm(MPI_Comm comm)
{
    return hsplit_kind_code(hsplit_check_intracomm(comm));
}

int hsplit_coll_begin(MPI_Comm comm, long bytes, int root, hsplit_hierarchy **h)
{
    *h = NULL;
    int rc = hsplit_coll_check_comm(comm);
    if (rc != MPI_SUCCESS) return rc;
    /* the settings, read at the communicator's first collective */
    hsplit_coll_state *s;
    rc = hsplit_coll_state_get(comm, &s);
    if (rc == MPI_SUCCESS) rc = hsplit_coll_state_ready(comm, s);
    if (rc != MPI_SUCCESS) return rc;
    int size = s->size;
    if (root != -2 && (root < 0 || root >= size)) return MPI_ERR_ROOT;
    const hsplit_coll_config *c = &s->config;
    /* every process finds the same error here, before communicating */
    if (c->bad != NULL) {
        report_bad_config(s);
        return MPI_ERR_ARG;
    }
    /* the rules file: read and agreed at the first collective after the
       settings, before the thresholds, so that a bad file fails every call */
    if (s->rules_status == HSPLIT_RULES_PENDING) {
        rc = hsplit_coll_rules_settle(comm, s);
        if (rc != MPI_SUCCESS) return rc;
    }
    if (s->rules_status == HSPLIT_RULES_BAD) return MPI_ERR_ARG;
    if (c->mode == HSPLIT_COLL_OFF) return MPI_SUCCESS;
    int thresholds = bytes != HSPLIT_COLL_ANY_SIZE;
    if (c->mode == HSPLIT_COLL_AUTO &&
        (size < c->min_procs ||
         (thresholds && (bytes < c->min_bytes || (c->max_bytes >= 0 && bytes > c->max_bytes)))))
        return MPI_SUCCESS;
    hsplit_hierarchy *found;
    rc = hsplit_hierarchy_get(comm, &found);
    if (rc != MPI_SUCCESS) return rc;
    /* the communicator's settings, not what the hierarchy's build read */
    found->config = *c;
    found->rules = s->rules_status == HSPLIT_RULES_OK && s->rules.n > 0 ? &s->rules : NULL;
    /* one level: the hierarchy is the flat communicator itself, for good,
       unless the node's shared memory may serve it (hsplit_coll_choose
       finds out, and marks it flat otherwise) */
    int shm_possible = !HSPLIT_UNDER_SMPI && c->shm != HSPLIT_COLL_OFF && size >= 2;
    if (found->depth >= 2) {
        *h = found;
    } else if (shm_possible) {
        *h = found;
        if (!s->flat_but_shm) { /* the other collectives: plain MPI at once */
            s->flat_but_shm = 1;
            hsplit_coll_state_update(s);
        }
    } else if (!s->flat) {
        s->flat = 1;
        hsplit_coll_state_update(s);
    }
    return MPI_SUCCESS;
}

int hsplit_coll_misused(MPI_Comm comm, void *base, int rc, int code)
{
    free(base);
    return rc != MPI_SUCCESS ? rc : hsplit_raise_code(comm, code);
}

void *hsplit_temp_buffer(int64_t count, MPI_Datatype datatype, void **base)
{
    MPI_Aint lb, extent, true_lb, true_extent;
    MPI_Type_get_extent(datatype, &lb, &extent);
    MPI_Type_get_true_extent(datatype, &true_lb, &true_extent);
    /* count elements span true_extent + (count - 1) * |extent| bytes, the
       first at the lowest address unless the extent is negative; checked, as
       a product of a count and an extent can exceed any size */
    uint64_t step = extent < 0 ? (uint64_t)0 - (uint64_t)extent : (uint64_t)extent;
    uint64_t gaps = count > 1 ? (uint64_t)(count - 1) : 0, span = (uint64_t)true_extent;
    *base = NULL;
    if (count < 0 || true_extent < 0 || (step > 0 && gaps > (SIZE_MAX - span) / step))
        return NULL;
    span += gaps * step;
    *base = malloc(span > 0 ? (size_t)span : 1);
    if (*base == NULL) return NULL;
    return (char *)*base - true_lb + (extent < 0 ? (MPI_Aint)(gaps * step) : 0);
}

/* MPICH 4.0 refuses MPI_Pack and MPI_Unpack of a NULL buffer, which is how
   both MPIs spell MPI_BOTTOM. Data at absolute addresses are then described
   from a local anchor by a datatype displaced by minus the anchor's address. */
static int displaced_to_bottom(const void *anchor, int count, MPI_Datatype datatype,
                               MPI_Datatype *shifted)
{
    MPI_Aint at;
    int rc = MPI_Get_address(anchor, &at);
    /* minus the address, in integers: Open MPI's MPI_Aint_diff(0, at)
       subtracts from a null pointer, which clang rejects */
    MPI_Aint displacement = (MPI_Aint)0 - at;
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_create_hindexed(1, &count, &displacement, datatype, shifted);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Type_commit(shifted);
        if (rc != MPI_SUCCESS) MPI_Type_free(shifted);
    }
    return rc;
}

int hsplit_pack(const void *inbuf, int count, MPI_Datatype datatype, void *outbuf, int outsize,
                int *position, MPI_Comm comm)
{
    if (inbuf != MPI_BOTTOM || count == 0)
        return MPI_Pack(inbuf, count, datatype, outbuf, outsize, position, comm);
    char anchor = 0;
    MPI_Datatype shifted;
    int rc = displaced_to_bottom(&anchor, count, datatype, &shifted);
    if (rc != MPI_SUCCESS) return rc;
    rc = MPI_Pack(&anchor, 1, shifted, outbuf, outsize, position, comm);
    MPI_Type_free(&shifted);
    return rc;
}

int hsplit_unpack(const void *inbuf, int insize, int *position, void *outbuf, int count,
                  MPI_Datatype datatype, MPI_Comm comm)
{
    if (outbuf != MPI_BOTTOM || count == 0)
        return MPI_Unpack(inbuf, insize, position, outbuf, count, datatype, comm);
    char anchor = 0;
    MPI_Datatype shifted;
    int rc = displaced_to_bottom(&anchor, count, datatype, &shifted);
    if (rc != MPI_SUCCESS) return rc;
    rc = MPI_Unpack(inbuf, insize, position, &anchor, 1, shifted, comm);
    MPI_Type_free(&shifted);
    return rc;
}

int hsplit_type_dense_named(MPI_Datatype type)
{
    int ints, addresses, types, combiner, size;
    MPI_Aint lb, extent, true_lb, true_extent;
    if (type == MPI_DATATYPE_NULL) return 0;
    MPI_Type_get_envelope(type, &ints, &addresses, &types, &combiner);
    if (combiner != MPI_COMBINER_NAMED) return 0;
    MPI_Type_size(type, &size);
    MPI_Type_get_extent(type, &lb, &extent);
    MPI_Type_get_true_extent(type, &true_lb, &true_extent);
    return size == extent && size == true_extent && lb == 0 && true_lb == 0;
}

int hsplit_local_copy(const void *src, void *dst, int count, MPI_Datatype datatype)
{
    if (src == dst || count == 0) return MPI_SUCCESS;
    return MPI_Sendrecv(src, count, datatype, 0, 0, dst, count, datatype, 0, 0, MPI_COMM_SELF,
                        MPI_STATUS_IGNORE);
}

int *hsplit_byte_layout(const int *counts, int n, int blockbytes, int **displs, int *total)
{
    int *bytes = malloc(sizeof(int) * 2 * (size_t)(n > 0 ? n : 1));
    if (bytes == NULL) return NULL;
    *displs = bytes + n;
    int64_t sum = 0;
    for (int j = 0; j < n; j++) {
        /* callers keep size x blockbytes within an int: checked all the same */
        int64_t b = (int64_t)counts[j] * blockbytes;
        if (b < 0 || b > INT_MAX - sum) {
            free(bytes);
            return NULL;
        }
        bytes[j] = (int)b;
        (*displs)[j] = (int)sum;
        sum += b;
    }
    *total = (int)sum;
    return bytes;
}

int hsplit_wait_all(int n, MPI_Request *requests)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        int r = MPI_Wait(&requests[i], MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS) rc = r;
    }
    return rc;
}

long hsplit_segment_bytes(const hsplit_hierarchy *h, long bytes)
{
    if (h->config.segment_bytes > 0) return h->config.segment_bytes;
    /* By message size, as Open MPI's decision functions do: below
       HSPLIT_COLL_PIPELINE_BYTES one call per level (latency dominates);
       above, segments of at least HSPLIT_COLL_MIN_SEGMENT bytes, doubled
       until there are at most HSPLIT_COLL_MAX_SEGMENTS, so that per-segment
       overheads stay bounded while levels still overlap. */
    if (bytes < HSPLIT_COLL_PIPELINE_BYTES) return bytes > 0 ? bytes : 1;
    long seg = HSPLIT_COLL_MIN_SEGMENT;
    while (seg < bytes / HSPLIT_COLL_MAX_SEGMENTS + (bytes % HSPLIT_COLL_MAX_SEGMENTS != 0))
        seg *= 2;
    return seg;
}

int hsplit_type_contiguous(MPI_Datatype datatype)
{
    int size;
    MPI_Aint lb, extent, true_lb, true_extent;
    MPI_Type_size(datatype, &size);
    MPI_Type_get_extent(datatype, &lb, &extent);
    MPI_Type_get_true_extent(datatype, &true_lb, &true_extent);
    return size == extent && size == true_extent && lb == 0 && true_lb == 0;
}

int hsplit_segment_elements(const hsplit_hierarchy *h, int count, MPI_Datatype datatype)
{
    /* Only contiguous elements smaller than a segment are pipelined: the
       nonblocking collectives of Open MPI 4.1 (libnbc) cut large messages of
       other datatypes themselves and get the pieces wrong. */
    int size;
    MPI_Type_size(datatype, &size);
    int contiguous = hsplit_type_contiguous(datatype);
    long segment = hsplit_segment_bytes(h, (long)count * size);
    if (!contiguous || size <= 0 || size > segment) return count > 0 ? count : 1;
    long n = segment / size;
    return n > count ? (count > 0 ? count : 1) : (int)n;
}

int hsplit_segment_count(int count, int seg)
{
    /* not (count + seg - 1) / seg, which overflows an int from count + seg
       > 2^31 on: 2^30 + 1 elements in one segment, or 2013265921 bytes and
       more in default segments of 128 MiB */
    return count <= 0 || seg <= 0 ? 1 : count / seg + (count % seg != 0);
}

/* A process receives at its first level (unless it holds the data already)
   and forwards at every deeper one; segments flow down the levels so that a
   level forwards segment s while the one above delivers s+1. */
int hsplit_tree_bcast(const hsplit_hierarchy *h, void *buffer, int count, MPI_Datatype datatype,
                      int root, int from_level)
{
    if (count == 0 || h->nlevels == 0) return MPI_SUCCESS;
    MPI_Aint lb, extent;
    MPI_Type_get_extent(datatype, &lb, &extent);
    int seg = hsplit_segment_elements(h, count, datatype);
    int nseg = hsplit_segment_count(count, seg);
    int start = h->first > from_level ? h->first : from_level;
    int last = h->first + h->nlevels - 1;
    if (start > last) return MPI_SUCCESS;
    /* do I receive at my start level, or hold the data already? */
    int receives = 0;
    if (start == h->first && h->first >= from_level) {
        int me;
        MPI_Comm_rank(h->roots[0], &me);
        receives = me != hsplit_root_at(h, start, root);
    }
    if (nseg == 1) { /* nothing to pipeline: one blocking call per level */
        int rc = MPI_SUCCESS;
        for (int l = start; l <= last && rc == MPI_SUCCESS; l++) {
            MPI_Comm comm = hsplit_roots_at(h, l);
            int me;
            MPI_Comm_rank(comm, &me);
            rc = MPI_Bcast(buffer, count, datatype,
                           l == start && receives ? hsplit_root_at(h, l, root) : me, comm);
        }
        return rc;
    }
    /* At most WINDOW segments in flight per level: bounded requests (Open
       MPI 4.1's nonblocking collectives mix up messages when a communicator
       has too many outstanding operations), kept in rings of WINDOW slots,
       segment s in slot s % WINDOW, so that memory does not grow with the
       number of segments (up to 2^31 - 1). */
    enum { WINDOW = 8 };
    int nfwd = last - start + 1 - receives;
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * WINDOW * (size_t)(nfwd + 1));
    if (reqs == NULL) return MPI_ERR_NO_MEM;
    MPI_Request *recv = reqs, *fwd = reqs + WINDOW;
    int rc = MPI_SUCCESS, root_here = hsplit_root_at(h, start, root);
#define SEGMENT(s) ((char *)buffer + (MPI_Aint)(s) * seg * extent), \
                   ((s) == nseg - 1 ? count - (s) * seg : seg)
    for (int s = 0; receives && s < nseg && s < WINDOW && rc == MPI_SUCCESS; s++)
        rc = MPI_Ibcast(SEGMENT(s), datatype, root_here, h->roots[0], &recv[s]);
    for (int s = 0; s < nseg && rc == MPI_SUCCESS; s++) {
        MPI_Request *slot = &fwd[(size_t)(s % WINDOW) * nfwd];
        if (receives) {
            rc = MPI_Wait(&recv[s % WINDOW], MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS && s < nseg - WINDOW)
                rc = MPI_Ibcast(SEGMENT(s + WINDOW), datatype, root_here, h->roots[0],
                                &recv[s % WINDOW]);
        }
        /* the slot's previous segment, s - WINDOW, is done before s takes it */
        if (rc == MPI_SUCCESS && s >= WINDOW && nfwd > 0) rc = hsplit_wait_all(nfwd, slot);
        for (int l = start + receives; l <= last && rc == MPI_SUCCESS; l++) {
            MPI_Comm comm = hsplit_roots_at(h, l);
            int me;
            MPI_Comm_rank(comm, &me);
            rc = MPI_Ibcast(SEGMENT(s), datatype, me, comm, &slot[l - start - receives]);
        }
    }
#undef SEGMENT
    /* the last WINDOW segments are still in flight */
    int first = nseg > WINDOW ? nseg - WINDOW : 0;
    for (int s = first; s < nseg && rc == MPI_SUCCESS && nfwd > 0; s++)
        rc = hsplit_wait_all(nfwd, &fwd[(size_t)(s % WINDOW) * nfwd]);
    free(reqs);
    return rc;
}
