/* SPDX-License-Identifier: BSD-3-Clause */
/* Pieces shared by the hierarchical collectives: the HSPLIT_COLL* variables,
   when to use the hierarchy, temporary buffers, the segment size, and the
   pipelined broadcast down the tree. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hsplit_internal.h"

/* The environment, as POSIX declares it. */
extern char **environ;

/* The HSPLIT_COLL* variables, in one pass over the environment: read at
   every collective call (a program may change them between calls), where
   a getenv per variable would scan the environment nine times. On a
   machine with more processes than cores every process's microseconds add
   up to the call's time. values[i] is the value of "HSPLIT_COLL" followed by
   suffixes[i], or NULL; the first definition counts, as for getenv. */
enum { COLL_MODE, COLL_SEGMENT, COLL_MIN_PROCS, COLL_MIN_BYTES, COLL_MAX_BYTES, COLL_RSAG,
       COLL_TRIALS, COLL_REPORT, COLL_NVARS };
static const char *const suffixes[COLL_NVARS] = {
    "", "_SEGMENT_SIZE", "_MIN_PROCS", "_MIN_BYTES", "_MAX_BYTES", "_RSAG_BYTES", "_TRIALS",
    "_REPORT"};

static void coll_environment(const char *values[COLL_NVARS])
{
    static const char prefix[] = "HSPLIT_COLL";
    for (int i = 0; i < COLL_NVARS; i++) values[i] = NULL;
    for (char **e = environ; e != NULL && *e != NULL; e++) {
        if (strncmp(*e, prefix, sizeof prefix - 1) != 0) continue;
        const char *rest = *e + sizeof prefix - 1;
        for (int i = 0; i < COLL_NVARS; i++) {
            size_t n = strlen(suffixes[i]);
            if (values[i] == NULL && strncmp(rest, suffixes[i], n) == 0 && rest[n] == '=') {
                values[i] = rest + n + 1;
                break;
            }
        }
    }
}

/* A number from the environment: fallback when unset or empty; 0 when it is
   an integer in [min, max], else -1 (malformed values are errors, never
   silently replaced by the default). */
static int env_long(const char *value, long fallback, long min, long max, long *out)
{
    *out = fallback;
    if (value == NULL || value[0] == '\0') return 0;
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (errno != 0 || end == value || *end != '\0' || v < min || v > max) return -1;
    *out = v;
    return 0;
}

/* What each number may be, for the error message. */
_Static_assert(HSPLIT_COLL_MAX_TRIALS == 5, "HSPLIT_COLL_TRIALS message");
static const struct {
    const char *name, *expected;
} coll_numbers[] = {
    {"HSPLIT_COLL_SEGMENT_SIZE", "an integer >= 1 (bytes), or unset to choose by message size"},
    {"HSPLIT_COLL_MIN_PROCS", "an integer >= 1"},
    {"HSPLIT_COLL_MIN_BYTES", "an integer >= 0"},
    {"HSPLIT_COLL_MAX_BYTES", "an integer >= 0, or -1 for no limit"},
    {"HSPLIT_COLL_RSAG_BYTES", "an integer >= 0 (bytes), or -1 for never"},
    {"HSPLIT_COLL_TRIALS", "an integer from 0 to 5"},
    {"HSPLIT_COLL_REPORT", "0 or 1"},
};

int hsplit_coll_read_config(hsplit_coll_config *c)
{
    const char *v[COLL_NVARS];
    coll_environment(v);
    const char *mode = v[COLL_MODE];
    long trials, report, min_procs;
    c->bad = NULL;
    c->mode = HSPLIT_COLL_AUTO;
    if (mode != NULL && strcmp(mode, "on") == 0) c->mode = HSPLIT_COLL_ON;
    else if (mode != NULL && strcmp(mode, "off") == 0) c->mode = HSPLIT_COLL_OFF;
    else if (mode != NULL && mode[0] != '\0' && strcmp(mode, "auto") != 0) c->bad = "HSPLIT_COLL";
    /* the first malformed variable, in the order of coll_numbers */
    enum { NNUMBERS = sizeof coll_numbers / sizeof coll_numbers[0] };
    int bad[NNUMBERS];
    bad[0] = env_long(v[COLL_SEGMENT], 0, 1, LONG_MAX, &c->segment_bytes);
    bad[1] = env_long(v[COLL_MIN_PROCS], 4, 1, INT_MAX, &min_procs);
    bad[2] = env_long(v[COLL_MIN_BYTES], 0, 0, LONG_MAX, &c->min_bytes);
    bad[3] = env_long(v[COLL_MAX_BYTES], -1, -1, LONG_MAX, &c->max_bytes);
    bad[4] = env_long(v[COLL_RSAG], HSPLIT_COLL_RSAG_DEFAULT, -1, LONG_MAX,
                      &c->rsag_bytes);
    bad[5] = env_long(v[COLL_TRIALS], 3, 0, HSPLIT_COLL_MAX_TRIALS, &trials);
    bad[6] = env_long(v[COLL_REPORT], 0, 0, 1, &report);
    for (int i = 0; i < NNUMBERS && c->bad == NULL; i++)
        if (bad[i]) c->bad = coll_numbers[i].name;
    c->min_procs = (int)min_procs;
    c->trials = (int)trials;
    c->report = report > 0;
    return c->bad == NULL ? MPI_SUCCESS : MPI_ERR_ARG;
}

/* Says which variable is wrong, once per call on rank 0 of comm: MPI_ERR_ARG
   alone would not. */
static void report_bad_config(MPI_Comm comm, const char *name)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank != 0) return;
    const char *expected = "auto, on, off or empty";
    for (size_t i = 0; i < sizeof coll_numbers / sizeof coll_numbers[0]; i++)
        if (strcmp(coll_numbers[i].name, name) == 0) expected = coll_numbers[i].expected;
    const char *value = getenv(name);
    fprintf(stderr, "hsplit: %s=\"%s\" is malformed (expected %s): the collectives return "
                    "MPI_ERR_ARG\n", name, value != NULL ? value : "", expected);
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
    int size;
    MPI_Comm_size(comm, &size);
    if (root != -2 && (root < 0 || root >= size)) return MPI_ERR_ROOT;
    hsplit_coll_config c;
    /* every process finds the same error here, before communicating */
    if (hsplit_coll_read_config(&c) != MPI_SUCCESS) {
        report_bad_config(comm, c.bad);
        return MPI_ERR_ARG;
    }
    if (c.mode == HSPLIT_COLL_OFF) return MPI_SUCCESS;
    if (c.mode == HSPLIT_COLL_AUTO &&
        (size < c.min_procs || bytes < c.min_bytes || (c.max_bytes >= 0 && bytes > c.max_bytes)))
        return MPI_SUCCESS;
    hsplit_hierarchy *found;
    rc = hsplit_hierarchy_get(comm, &found);
    if (rc != MPI_SUCCESS) return rc;
    /* read at every call, like the thresholds */
    found->config.mode = c.mode;
    found->config.rsag_bytes = c.rsag_bytes;
    /* one level: the hierarchy is the flat communicator itself */
    if (found->depth >= 2) *h = found;
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

int hsplit_segment_elements(const hsplit_hierarchy *h, int count, MPI_Datatype datatype)
{
    /* Only contiguous elements smaller than a segment are pipelined: the
       nonblocking collectives of Open MPI 4.1 (libnbc) cut large messages of
       other datatypes themselves and get the pieces wrong. */
    int size;
    MPI_Aint lb, extent, true_lb, true_extent;
    MPI_Type_size(datatype, &size);
    MPI_Type_get_extent(datatype, &lb, &extent);
    MPI_Type_get_true_extent(datatype, &true_lb, &true_extent);
    int contiguous = size == extent && size == true_extent && lb == 0 && true_lb == 0;
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
