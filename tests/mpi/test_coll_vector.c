/* SPDX-License-Identifier: BSD-3-Clause */
/* HSPLIT_Gatherv, HSPLIT_Scatterv and HSPLIT_Allgatherv against MPI's own.

   Every call runs on the same input as MPI's collective, on the same
   communicator, and must leave the very same bytes: memcmp of every output
   buffer, guard bytes around it and gaps between blocks and inside strided
   elements included, and send buffers unchanged. MPI's result is in turn
   compared with a buffer built here from the inputs, so that a wrong
   expectation cannot pass.

   Covered: every root up to 8 processes (else 0, 1, size/2, size-1); counts
   per process that differ (zeros among them) or are equal, in classes 0, 1,
   7, 1000 and one of about 1 MiB in all; displacements in rank order with
   gaps and in reverse rank order with uneven gaps; MPI_INT, MPI_DOUBLE, a
   strided vector, and type maps that differ between processes with equal
   signatures (a strided vector of 2 ints against 2 MPI_INT, MPI_INT against
   a contiguous pair; the former in the 1 MiB allgatherv too, where MPICH's
   own ring algorithm fails, see reference_allgatherv, and HSPLIT's plain
   path moves bytes); MPI_IN_PLACE where MPI allows it; MPI_COMM_WORLD, a
   communicator in reversed rank order and an hsplit level; repeated calls.

   Usage: test_coll_vector [--light] | --errors
     --light   roots 0 and size-1, count classes 0, 7 and 1000 (MPICH, many
               processes)
     --errors  the erroneous arguments: negative counts, bad roots,
               MPI_DATATYPE_NULL, MPI_COMM_NULL, an intercommunicator,
               MPI_IN_PLACE where MPI does not allow it: the same class on
               every process, through the handler once; then the
               communicator still works */
#include <stdint.h>
#include "test_util.h"
#include "test_errhandler.h"

enum { GUARD = 64, RECV_FILL = 0xA5, SEND_FILL = 0x5A };
#define BIG_BYTES (1L << 20)

static int light;

/* ---------------------------------------------------------------- types */

/* Where the basic values of a datatype lie: element e, value k (in type
   signature order) at e * extent + k * stride bytes from the buffer. */
typedef struct {
    const char *name;
    MPI_Datatype type;
    int is_double, ncomp;
    MPI_Aint stride, extent;
} layout;

enum { L_INT, L_DOUBLE, L_VEC, L_PAIR, NLAYOUTS };
static layout layouts[NLAYOUTS];

/* A case: the layout of even and odd ranks, and the basic values per count
   unit (a multiple of both layouts' ncomp). */
typedef struct {
    const char *name;
    int even, odd, unit;
} type_case;

static const type_case cases[] = {
    {"int", L_INT, L_INT, 1},       {"double", L_DOUBLE, L_DOUBLE, 1},
    {"vec", L_VEC, L_VEC, 2},       {"vec_vs_int", L_VEC, L_INT, 2},
    {"int_vs_pair", L_INT, L_PAIR, 2}};
enum { NCASES = sizeof cases / sizeof cases[0] };

static void make_layouts(void)
{
    layouts[L_INT] = (layout){"int", MPI_INT, 0, 1, 4, 4};
    layouts[L_DOUBLE] = (layout){"double", MPI_DOUBLE, 1, 1, 8, 8};
    /* ints 0 and 2 of every 4: a gap inside each element and one after */
    MPI_Datatype vector;
    MPI_Type_vector(2, 1, 2, MPI_INT, &vector);
    layouts[L_VEC] = (layout){"vec", MPI_DATATYPE_NULL, 0, 2, 8, 16};
    MPI_Type_create_resized(vector, 0, 16, &layouts[L_VEC].type);
    MPI_Type_free(&vector);
    MPI_Type_commit(&layouts[L_VEC].type);
    layouts[L_PAIR] = (layout){"pair", MPI_DATATYPE_NULL, 0, 2, 4, 8};
    MPI_Type_contiguous(2, MPI_INT, &layouts[L_PAIR].type);
    MPI_Type_commit(&layouts[L_PAIR].type);
    for (int i = 0; i < NLAYOUTS; i++) {
        MPI_Aint lb, extent;
        int size;
        MPI_Type_get_extent(layouts[i].type, &lb, &extent);
        MPI_Type_size(layouts[i].type, &size);
        CHECK(lb == 0 && extent == layouts[i].extent &&
                  size == layouts[i].ncomp * (layouts[i].is_double ? 8 : 4),
              "layout %s: lb %ld extent %ld size %d", layouts[i].name, (long)lb, (long)extent,
              size);
    }
}

static const layout *layout_of(const type_case *tc, int rank)
{
    return &layouts[rank % 2 == 0 ? tc->even : tc->odd];
}

/* ---------------------------------------------------------------- values */

static uint32_t mix(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* Basic value b of rank r's block in call `salt`. */
static uint32_t input_bits(int r, long b, uint32_t salt)
{
    return mix((uint32_t)r * 2654435761U ^ mix((uint32_t)b + 0x9e3779b9U * salt));
}

/* Store basic value b of rank r as element e, value k of layout l at base. */
static void store(const layout *l, char *base, long e, int k, int r, long b, uint32_t salt)
{
    char *at = base + e * l->extent + k * l->stride;
    uint32_t bits = input_bits(r, b, salt);
    if (l->is_double) {
        double v = (double)(bits % (1U << 18)) / 4.0;
        memcpy(at, &v, sizeof v);
    } else {
        int v = (int)(bits & 0x7fffffff) - 0x40000000;
        memcpy(at, &v, sizeof v);
    }
}

/* Rank r's block, elems elements of layout l, at base. */
static void store_block(const layout *l, char *base, long elems, int r, uint32_t salt)
{
    for (long e = 0; e < elems; e++)
        for (int k = 0; k < l->ncomp; k++) store(l, base, e, k, r, e * l->ncomp + k, salt);
}

/* A buffer with guard bytes on both sides, filled with fill. */
typedef struct {
    char *base, *data;
    size_t bytes; /* data bytes, guards excluded */
} buffer;

static buffer buffer_make(size_t bytes, int fill)
{
    buffer b = {malloc(bytes + 2 * GUARD), NULL, bytes};
    if (b.base == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
    memset(b.base, fill, bytes + 2 * GUARD);
    b.data = b.base + GUARD;
    return b;
}

static int buffer_same(const buffer *a, const buffer *b)
{
    return a->bytes == b->bytes && memcmp(a->base, b->base, a->bytes + 2 * GUARD) == 0;
}

/* ---------------------------------------------------------------- counts */

/* Count units of each rank: equal (pattern 0) or varied with zeros (1). */
static void make_units(long *units, int size, long c, int pattern)
{
    for (int r = 0; r < size; r++)
        units[r] = pattern == 0 || c == 0 ? c : r % 3 == 1 ? 0 : c + r % 5;
}

/* Counts in elements of l and displacements, in rank order with a gap of 2
   (pattern 0) or in reverse rank order with gaps 1 + r % 2; returns the
   span in elements. */
static long make_counts(const type_case *tc, const layout *l, const long *units, int size,
                        int pattern, int *counts, int *displs)
{
    long at = 0;
    for (int i = 0; i < size; i++) {
        int r = pattern == 0 ? i : size - 1 - i;
        counts[r] = (int)(units[r] * tc->unit / l->ncomp);
        displs[r] = (int)at + (pattern == 0 ? 2 : 1 + r % 2);
        at = displs[r] + counts[r];
    }
    return at + 1;
}

/* ---------------------------------------------------------------- calls */

typedef struct {
    MPI_Comm comm;
    const char *name;
    int rank, size;
} comm_case;

static char where[200];

/* What an error code says, for failure messages. */
static const char *error_text(int rc)
{
    static char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "?");
    return text;
}

static void describe(const char *fn, const comm_case *cc, const type_case *tc, long c, int pattern,
                     int root, int in_place)
{
    snprintf(where, sizeof where, "%s on %s, %s, count %ld, pattern %d, root %d%s", fn, cc->name,
             tc->name, c, pattern, root, in_place ? ", in place" : "");
}

static void run_gatherv(const comm_case *cc, const type_case *tc, long c, int pattern, int root,
                        int in_place, uint32_t salt)
{
    int rank = cc->rank, size = cc->size, is_root = rank == root;
    describe("gatherv", cc, tc, c, pattern, root, in_place);
    const layout *me = layout_of(tc, rank), *lr = layout_of(tc, root);
    long *units = malloc(sizeof(long) * (size_t)size);
    int *counts = malloc(sizeof(int) * 2 * (size_t)size), *displs = counts + size;
    make_units(units, size, c, pattern);
    long mine = units[rank] * tc->unit / me->ncomp;
    buffer send = buffer_make((size_t)(mine * me->extent), SEND_FILL);
    store_block(me, send.data, mine, rank, salt);
    buffer send_copy = buffer_make(send.bytes, 0);
    memcpy(send_copy.base, send.base, send.bytes + 2 * GUARD);
    buffer a = {NULL, NULL, 0}, b = a, want = a;
    if (is_root) {
        long span = make_counts(tc, lr, units, size, pattern, counts, displs);
        a = buffer_make((size_t)(span * lr->extent), RECV_FILL);
        b = buffer_make(a.bytes, RECV_FILL);
        want = buffer_make(a.bytes, RECV_FILL);
        for (int r = 0; r < size; r++)
            store_block(lr, want.data + displs[r] * lr->extent, counts[r], r, salt);
        if (in_place) { /* the root's block is in place already */
            store_block(lr, a.data + displs[root] * lr->extent, counts[root], root, salt);
            store_block(lr, b.data + displs[root] * lr->extent, counts[root], root, salt);
        }
    }
    const void *sb = is_root && in_place ? MPI_IN_PLACE : send.data;
    /* arguments MPI reads at the root only: NULL elsewhere */
    int rc = HSPLIT_Gatherv(sb, (int)mine, me->type, a.data, is_root ? counts : NULL,
                            is_root ? displs : NULL, lr->type, root, cc->comm);
    CHECK(rc == MPI_SUCCESS, "%s: HSPLIT_Gatherv returned %d (%s)", where, rc, error_text(rc));
    rc = MPI_Gatherv(sb, (int)mine, me->type, b.data, is_root ? counts : NULL,
                     is_root ? displs : NULL, lr->type, root, cc->comm);
    CHECK(rc == MPI_SUCCESS, "%s: MPI_Gatherv returned %d (%s)", where, rc, error_text(rc));
    if (is_root) {
        CHECK(buffer_same(&a, &b), "%s: HSPLIT_Gatherv differs from MPI_Gatherv", where);
        CHECK(buffer_same(&b, &want), "%s: MPI_Gatherv differs from the inputs", where);
    }
    CHECK(buffer_same(&send, &send_copy), "%s: send buffer changed", where);
    free(a.base), free(b.base), free(want.base), free(send.base), free(send_copy.base);
    free(units), free(counts);
}

static void run_scatterv(const comm_case *cc, const type_case *tc, long c, int pattern, int root,
                         int in_place, uint32_t salt)
{
    int rank = cc->rank, size = cc->size, is_root = rank == root;
    describe("scatterv", cc, tc, c, pattern, root, in_place);
    const layout *me = layout_of(tc, rank), *lr = layout_of(tc, root);
    long *units = malloc(sizeof(long) * (size_t)size);
    int *counts = malloc(sizeof(int) * 2 * (size_t)size), *displs = counts + size;
    make_units(units, size, c, pattern);
    long mine = units[rank] * tc->unit / me->ncomp;
    buffer send = {NULL, NULL, 0}, send_copy = send;
    if (is_root) {
        long span = make_counts(tc, lr, units, size, pattern, counts, displs);
        send = buffer_make((size_t)(span * lr->extent), SEND_FILL);
        for (int r = 0; r < size; r++)
            store_block(lr, send.data + displs[r] * lr->extent, counts[r], r, salt);
        send_copy = buffer_make(send.bytes, 0);
        memcpy(send_copy.base, send.base, send.bytes + 2 * GUARD);
    }
    buffer a = buffer_make((size_t)(mine * me->extent), RECV_FILL);
    buffer b = buffer_make(a.bytes, RECV_FILL), want = buffer_make(a.bytes, RECV_FILL);
    store_block(me, want.data, mine, rank, salt);
    int skip = is_root && in_place;
    int rc = HSPLIT_Scatterv(send.data, is_root ? counts : NULL, is_root ? displs : NULL,
                             lr->type, skip ? MPI_IN_PLACE : a.data, (int)mine, me->type, root,
                             cc->comm);
    CHECK(rc == MPI_SUCCESS, "%s: HSPLIT_Scatterv returned %d (%s)", where, rc, error_text(rc));
    rc = MPI_Scatterv(send.data, is_root ? counts : NULL, is_root ? displs : NULL, lr->type,
                      skip ? MPI_IN_PLACE : b.data, (int)mine, me->type, root, cc->comm);
    CHECK(rc == MPI_SUCCESS, "%s: MPI_Scatterv returned %d (%s)", where, rc, error_text(rc));
    if (!skip) {
        CHECK(buffer_same(&a, &b), "%s: HSPLIT_Scatterv differs from MPI_Scatterv", where);
        CHECK(buffer_same(&b, &want), "%s: MPI_Scatterv differs from the inputs", where);
    }
    if (is_root) CHECK(buffer_same(&send, &send_copy), "%s: send buffer changed", where);
    free(a.base), free(b.base), free(want.base), free(send.base), free(send_copy.base);
    free(units), free(counts);
}

/* The reference allgatherv: MPI_Allgatherv of the packed blocks, unpacked
   into place. MPICH 4.0's own MPI_Allgatherv puts the block of a single
   process at displacement 0 whatever displs says, and its ring algorithm
   (large totals) cuts messages by each process's own datatype, which fails
   with MPI_ERR_TRUNCATE when type maps differ between processes; packed
   bytes give every process the same layout, and MPI_Allgatherv stays the
   reference for what MPI_Allgatherv means. */
static int reference_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, const int *counts, const int *displs,
                                MPI_Datatype recvtype, MPI_Comm comm)
{
    int rank, size, type_size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Type_size(recvtype, &type_size);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(recvtype, &lb, &extent);
    int *bytes = malloc(sizeof(int) * 2 * (size_t)size), *at = bytes + size, total = 0;
    for (int r = 0; r < size; r++) {
        bytes[r] = counts[r] * type_size;
        at[r] = total;
        total += bytes[r];
    }
    char *packed = malloc((size_t)total + 1);
    int pos = 0, rc;
    if (sendbuf == MPI_IN_PLACE)
        rc = MPI_Pack((char *)recvbuf + displs[rank] * extent, counts[rank], recvtype,
                      packed + at[rank], bytes[rank], &pos, comm);
    else
        rc = MPI_Pack(sendbuf, sendcount, sendtype, packed + at[rank], bytes[rank], &pos, comm);
    if (rc == MPI_SUCCESS)
        rc = MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, packed, bytes, at, MPI_PACKED,
                            comm);
    for (int r = 0; r < size && rc == MPI_SUCCESS; r++) {
        pos = 0;
        rc = MPI_Unpack(packed + at[r], bytes[r], &pos, (char *)recvbuf + displs[r] * extent,
                        counts[r], recvtype, comm);
    }
    free(packed);
    free(bytes);
    return rc;
}

static void run_allgatherv(const comm_case *cc, const type_case *tc, long c, int pattern,
                           int in_place, uint32_t salt)
{
    int rank = cc->rank, size = cc->size;
    describe("allgatherv", cc, tc, c, pattern, -1, in_place);
    const layout *me = layout_of(tc, rank);
    long *units = malloc(sizeof(long) * (size_t)size);
    int *counts = malloc(sizeof(int) * 2 * (size_t)size), *displs = counts + size;
    make_units(units, size, c, pattern);
    long mine = units[rank] * tc->unit / me->ncomp;
    buffer send = buffer_make((size_t)(mine * me->extent), SEND_FILL);
    store_block(me, send.data, mine, rank, salt);
    buffer send_copy = buffer_make(send.bytes, 0);
    memcpy(send_copy.base, send.base, send.bytes + 2 * GUARD);
    long span = make_counts(tc, me, units, size, pattern, counts, displs);
    buffer a = buffer_make((size_t)(span * me->extent), RECV_FILL);
    buffer b = buffer_make(a.bytes, RECV_FILL), want = buffer_make(a.bytes, RECV_FILL);
    for (int r = 0; r < size; r++)
        store_block(me, want.data + displs[r] * me->extent, counts[r], r, salt);
    if (in_place) {
        store_block(me, a.data + displs[rank] * me->extent, counts[rank], rank, salt);
        store_block(me, b.data + displs[rank] * me->extent, counts[rank], rank, salt);
    }
    const void *sb = in_place ? MPI_IN_PLACE : send.data;
    int rc = HSPLIT_Allgatherv(sb, (int)mine, me->type, a.data, counts, displs, me->type,
                               cc->comm);
    CHECK(rc == MPI_SUCCESS, "%s: HSPLIT_Allgatherv returned %d (%s)", where, rc, error_text(rc));
    rc = reference_allgatherv(sb, (int)mine, me->type, b.data, counts, displs, me->type,
                              cc->comm);
    CHECK(rc == MPI_SUCCESS, "%s: MPI_Allgatherv returned %d (%s)", where, rc, error_text(rc));
    CHECK(buffer_same(&a, &b), "%s: HSPLIT_Allgatherv differs from MPI_Allgatherv", where);
    CHECK(buffer_same(&b, &want), "%s: MPI_Allgatherv differs from the inputs", where);
    CHECK(buffer_same(&send, &send_copy), "%s: send buffer changed", where);
    free(a.base), free(b.base), free(want.base), free(send.base), free(send_copy.base);
    free(units), free(counts);
}

/* The matrix on one communicator. */
static void run_all(const comm_case *cc)
{
    int size = cc->size, roots[8], nroots = 0;
    if (size <= 8 && !light) {
        for (int r = 0; r < size; r++) roots[nroots++] = r;
    } else {
        int pick[4] = {0, 1, size / 2, size - 1};
        for (int i = 0; i < 4; i++) {
            if (light && i != 0 && i != 3) continue;
            int dup = 0;
            for (int j = 0; j < nroots; j++) dup |= roots[j] == pick[i];
            if (!dup) roots[nroots++] = pick[i];
        }
    }
    const long full_counts[] = {0, 1, 7, 1000}, light_counts[] = {0, 7, 1000};
    const long *classes = light ? light_counts : full_counts;
    int nclasses = light ? 3 : 4;
    uint32_t salt = 1;
    for (int t = 0; t < NCASES; t++) {
        const type_case *tc = &cases[t];
        for (int ci = 0; ci < nclasses; ci++) {
            long c = classes[ci];
            for (int ri = 0; ri < nroots; ri++) {
                int root = roots[ri], pattern = (ci + ri) % 2;
                int in_place = (ri + ci + t) % 3 == 0;
                run_gatherv(cc, tc, c, pattern, root, in_place, salt++);
                run_scatterv(cc, tc, c, pattern, root, in_place, salt++);
            }
            /* allgatherv: both displacement patterns, in place or not */
            run_allgatherv(cc, tc, c, ci % 2, (ci + t) % 2, salt++);
            if (!light) run_allgatherv(cc, tc, c, 1 - ci % 2, 1 - (ci + t) % 2, salt++);
        }
    }
    /* about 1 MiB in all, counts that differ per process */
    for (int t = 0; t < NCASES; t += 3) {
        const type_case *tc = &cases[t];
        long c = BIG_BYTES / ((long)size * tc->unit * 4) + 1;
        run_gatherv(cc, tc, c, 1, size - 1, 0, salt++);
        run_scatterv(cc, tc, c, 1, 0, t != 0, salt++);
        run_allgatherv(cc, tc, c, 1, t != 0, salt++);
    }
    /* repeated calls: the same call again, and again */
    for (int i = 0; i < 3; i++) {
        run_gatherv(cc, &cases[3], 7, 1, 0, 0, 7);
        run_scatterv(cc, &cases[3], 7, 1, size - 1, 0, 7);
        run_allgatherv(cc, &cases[3], 7, 1, 0, 7);
    }
}

/* ---------------------------------------------------------------- errors */

static void check_errors(MPI_Errhandler handler)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, handler);
    int in[64] = {0}, out[64 * 8], counts[64], displs[64], neg[64];
    for (int i = 0; i < size && i < 64; i++) counts[i] = 1, displs[i] = i, neg[i] = i == 1 ? -1 : 1;
    neg[0] = -1;
    /* negative counts: every process passes one MPI reads there */
    CHECK_ERROR(HSPLIT_Gatherv(in, -1, MPI_INT, out, neg, displs, MPI_INT, 0, comm),
                MPI_ERR_COUNT);
    CHECK_ERROR(HSPLIT_Scatterv(in, neg, displs, MPI_INT, out, -1, MPI_INT, 0, comm),
                MPI_ERR_COUNT);
    CHECK_ERROR(HSPLIT_Allgatherv(in, 1, MPI_INT, out, neg, displs, MPI_INT, comm),
                MPI_ERR_COUNT);
    CHECK_ERROR(HSPLIT_Allgatherv(in, -1, MPI_INT, out, counts, displs, MPI_INT, comm),
                MPI_ERR_COUNT);
    /* roots outside [0, size) */
    for (int root = -1; root <= size; root += size + 1) {
        CHECK_ERROR(HSPLIT_Gatherv(in, 1, MPI_INT, out, counts, displs, MPI_INT, root, comm),
                    MPI_ERR_ROOT);
        CHECK_ERROR(HSPLIT_Scatterv(in, counts, displs, MPI_INT, out, 1, MPI_INT, root, comm),
                    MPI_ERR_ROOT);
    }
    /* MPI_DATATYPE_NULL wherever MPI reads a datatype */
    CHECK_ERROR(HSPLIT_Gatherv(in, 1, MPI_DATATYPE_NULL, out, counts, displs, MPI_DATATYPE_NULL,
                               0, comm), MPI_ERR_TYPE);
    CHECK_ERROR(HSPLIT_Scatterv(in, counts, displs, MPI_DATATYPE_NULL, out, 1, MPI_DATATYPE_NULL,
                                size - 1, comm), MPI_ERR_TYPE);
    CHECK_ERROR(HSPLIT_Allgatherv(in, 1, MPI_INT, out, counts, displs, MPI_DATATYPE_NULL, comm),
                MPI_ERR_TYPE);
    CHECK_ERROR(HSPLIT_Allgatherv(in, 1, MPI_DATATYPE_NULL, out, counts, displs, MPI_INT, comm),
                MPI_ERR_TYPE);
    /* MPI_IN_PLACE where MPI does not allow it: both buffers (scatterv,
       allgatherv) fail everywhere at once */
    CHECK_ERROR(HSPLIT_Scatterv(MPI_IN_PLACE, counts, displs, MPI_INT, MPI_IN_PLACE, 1, MPI_INT,
                                0, comm), MPI_ERR_ARG);
    CHECK_ERROR(HSPLIT_Allgatherv(MPI_IN_PLACE, 1, MPI_INT, MPI_IN_PLACE, counts, displs, MPI_INT,
                                  comm), MPI_ERR_ARG);
    /* the root's recvbuf in place: the others complete, the root fails */
    for (int i = 0; i < 64; i++) in[i] = rank * 100 + i;
    int before = handler_calls;
    int rc = HSPLIT_Gatherv(in, 1, MPI_INT, rank == size - 1 ? MPI_IN_PLACE : out, counts, displs,
                            MPI_INT, size - 1, comm);
    if (rank == size - 1) {
        CHECK(error_class(rc) == MPI_ERR_ARG, "gatherv recvbuf in place at the root: %d", rc);
        CHECK_INT(handler_calls, before + 1);
    } else {
        CHECK_INT(rc, MPI_SUCCESS);
        CHECK_INT(handler_calls, before);
    }
    /* a process's recvbuf in place in allgatherv: it still gives its block */
    before = handler_calls;
    memset(out, 0, sizeof out);
    rc = HSPLIT_Allgatherv(in, 1, MPI_INT, rank == 0 ? MPI_IN_PLACE : out, counts, displs, MPI_INT,
                           comm);
    if (rank == 0) {
        CHECK(error_class(rc) == MPI_ERR_ARG, "allgatherv recvbuf in place: %d", rc);
        CHECK_INT(handler_calls, before + 1);
    } else {
        CHECK_INT(rc, MPI_SUCCESS);
        for (int r = 0; r < size && r < 64; r++) CHECK_INT(out[r], r * 100);
    }
    /* MPI_COMM_NULL (MPI_COMM_WORLD's handler) and an intercommunicator */
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 7, &inter);
    MPI_Comm_set_errhandler(inter, handler);
    MPI_Comm bad[2] = {MPI_COMM_NULL, inter};
    for (int i = 0; i < 2; i++) {
        CHECK_ERROR(HSPLIT_Gatherv(in, 1, MPI_INT, out, counts, displs, MPI_INT, 0, bad[i]),
                    MPI_ERR_COMM);
        CHECK_ERROR(HSPLIT_Scatterv(in, counts, displs, MPI_INT, out, 1, MPI_INT, 0, bad[i]),
                    MPI_ERR_COMM);
        CHECK_ERROR(HSPLIT_Allgatherv(in, 1, MPI_INT, out, counts, displs, MPI_INT, bad[i]),
                    MPI_ERR_COMM);
    }
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    /* the communicator still works */
    comm_case cc = {comm, "dup after errors", rank, size};
    for (int i = 0; i < 2; i++) {
        run_gatherv(&cc, &cases[0], 7, 1, size - 1, 0, 99);
        run_scatterv(&cc, &cases[3], 7, 0, 0, 1, 99);
        run_allgatherv(&cc, &cases[4], 7, 1, 1, 99);
    }
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int errors = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--light") == 0) light = 1;
        else if (strcmp(argv[i], "--errors") == 0) errors = 1;
        else {
            fprintf(stderr, "test_coll_vector: unknown argument %s\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    make_layouts();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (errors) {
        MPI_Errhandler handler;
        MPI_Comm_create_errhandler(counting_handler, &handler);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler);
        check_errors(handler);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Errhandler_free(&handler);
    } else {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        comm_case world = {MPI_COMM_WORLD, "world", rank, size};
        run_all(&world);
        MPI_Comm reversed, level;
        MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &reversed);
        MPI_Comm_set_errhandler(reversed, MPI_ERRORS_RETURN);
        comm_case rev = {reversed, "reversed", 0, size};
        MPI_Comm_rank(reversed, &rev.rank);
        run_all(&rev);
        MPI_Comm_free(&reversed);
        /* an hsplit level: the node, or the next level down on one node */
        CHECK_INT(HSPLIT_Comm_split_type(MPI_COMM_WORLD, HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY, rank,
                                         MPI_INFO_NULL, &level),
                  MPI_SUCCESS);
        if (level != MPI_COMM_NULL) {
            MPI_Comm_set_errhandler(level, MPI_ERRORS_RETURN);
            comm_case lc = {level, "hsplit level", 0, 0};
            MPI_Comm_rank(level, &lc.rank);
            MPI_Comm_size(level, &lc.size);
            run_all(&lc);
            MPI_Comm_free(&level);
        }
    }
    for (int i = 0; i < NLAYOUTS; i++)
        if (layouts[i].type != MPI_INT && layouts[i].type != MPI_DOUBLE)
            MPI_Type_free(&layouts[i].type);
    return test_finish();
}
