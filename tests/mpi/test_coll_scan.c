/* SPDX-License-Identifier: BSD-3-Clause */
/* HSPLIT_Reduce_scatter_block, HSPLIT_Reduce_scatter, HSPLIT_Scan and
   HSPLIT_Exscan against MPI's own, and against results computed here.

   Every call runs on the same input as MPI's own call on the same
   communicator; both results are compared byte for byte (guard bytes around
   the buffer and the gaps of strided types included) with a buffer built
   here from the inputs: the operation folded over the ranks in rank order.
   Send buffers must be unchanged. Inputs hash (rank, index, case) so that a
   misplaced block shows; doubles are multiples of 1/4 below 2^18, so sums
   are exact in any order; the non-commutative operation (2x2 matrix product
   modulo a prime) must give exactly the rank-order product.

   Covered: counts 0, 1, 7, 1000 and one of about 1 MiB (reduce-scatter: the
   whole vector), reduce_scatter counts that differ per process with zeros;
   MPI_INT and MPI_DOUBLE with SUM and MAX, MPI_2INT with MINLOC, a strided
   vector with a commutative user operation, a 2x2 matrix with a
   non-commutative one; MPI_IN_PLACE; repeated calls; MPI_COMM_WORLD, a
   reversed communicator and an hsplit level.

   Usage: test_coll_scan [--light | --minimal] [--errors]
     --light   counts 0, 7 and 1000 only (other communicators: 7), no MAX
               (many processes, MPICH)
     --minimal --light without MPI_DOUBLE, in place with int/SUM and the matrix
               only (MPICH on 10 processes)
     --errors  the erroneous arguments instead: the same error class on every
               process, the handler called once, the communicator usable after */
#include <stdint.h>
#include "test_util.h"
#include "test_errhandler.h"

enum { GUARD = 64, RECV_FILL = 0xA5, SEND_FILL = 0x5A };
#define MATRIX_PRIME 1000003LL
#define BIG_BYTES (1L << 20)

static int light, minimal;

/* ---------------------------------------------------------------- layouts */

typedef struct {
    const char *name;
    MPI_Datatype type;
    int is_double;
    int ncomp;       /* basic values per element */
    MPI_Aint stride; /* bytes between the values of an element */
    MPI_Aint extent;
} layout;

enum { L_INT, L_DOUBLE, L_2INT, L_VEC, L_MAT, NLAYOUTS };
static layout layouts[NLAYOUTS];

static void make_layouts(void)
{
    layouts[L_INT] = (layout){"int", MPI_INT, 0, 1, 4, 4};
    layouts[L_DOUBLE] = (layout){"double", MPI_DOUBLE, 1, 1, 8, 8};
    layouts[L_2INT] = (layout){"2int", MPI_2INT, 0, 2, 4, 8};
    /* ints 0 and 2 of every 4: a gap inside each element and one after */
    MPI_Datatype v;
    MPI_Type_vector(2, 1, 2, MPI_INT, &v);
    layouts[L_VEC] = (layout){"vec", MPI_DATATYPE_NULL, 0, 2, 8, 16};
    MPI_Type_create_resized(v, 0, 16, &layouts[L_VEC].type);
    MPI_Type_free(&v);
    MPI_Type_commit(&layouts[L_VEC].type);
    layouts[L_MAT] = (layout){"mat", MPI_DATATYPE_NULL, 0, 4, 4, 16};
    MPI_Type_contiguous(4, MPI_INT, &layouts[L_MAT].type);
    MPI_Type_commit(&layouts[L_MAT].type);
}

static char *value_at(const layout *l, char *base, long e, int k)
{
    return base + e * l->extent + k * l->stride;
}

static int load_int(const char *at)
{
    int x;
    memcpy(&x, at, sizeof x);
    return x;
}

static void store_int(char *at, int x)
{
    memcpy(at, &x, sizeof x);
}

/* ---------------------------------------------------------------- operations */

typedef enum { V_WIDE, V_MINLOC, V_MATRIX } value_class;

/* inout[k] += in[k] for the strided vector (commutative). */
static void vsum_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    const layout *l = &layouts[L_VEC];
    CHECK(*type == l->type, "vsum called with another datatype");
    for (long e = 0; e < *len; e++)
        for (int k = 0; k < 2; k++) {
            char *y = value_at(l, inout, e, k);
            store_int(y, load_int(value_at(l, in, e, k)) + load_int(y));
        }
}

static void matrix_product(const long long a[4], const long long b[4], long long c[4])
{
    c[0] = (a[0] * b[0] + a[1] * b[2]) % MATRIX_PRIME;
    c[1] = (a[0] * b[1] + a[1] * b[3]) % MATRIX_PRIME;
    c[2] = (a[2] * b[0] + a[3] * b[2]) % MATRIX_PRIME;
    c[3] = (a[2] * b[1] + a[3] * b[3]) % MATRIX_PRIME;
}

/* inout = in * inout (MPI's order: in is the earlier ranks' part). */
static void matprod_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    const layout *l = &layouts[L_MAT];
    CHECK(*type == l->type, "matprod called with another datatype");
    for (long e = 0; e < *len; e++) {
        long long a[4], b[4], c[4];
        for (int k = 0; k < 4; k++) {
            a[k] = load_int(value_at(l, in, e, k));
            b[k] = load_int(value_at(l, inout, e, k));
        }
        matrix_product(a, b, c);
        for (int k = 0; k < 4; k++) store_int(value_at(l, inout, e, k), (int)c[k]);
    }
}

typedef struct {
    const char *name;
    int layout;
    MPI_Op op;
    value_class values;
    int kind; /* 0 sum, 1 max, 2 minloc, 3 matrix product */
} op_case;

enum { NCASES = 7 };
static op_case cases[NCASES];

static void make_cases(void)
{
    MPI_Op vsum, matprod;
    MPI_Op_create(vsum_fn, 1, &vsum);
    MPI_Op_create(matprod_fn, 0, &matprod);
    cases[0] = (op_case){"int/SUM", L_INT, MPI_SUM, V_WIDE, 0};
    cases[1] = (op_case){"int/MAX", L_INT, MPI_MAX, V_WIDE, 1};
    cases[2] = (op_case){"double/SUM", L_DOUBLE, MPI_SUM, V_WIDE, 0};
    cases[3] = (op_case){"double/MAX", L_DOUBLE, MPI_MAX, V_WIDE, 1};
    cases[4] = (op_case){"2int/MINLOC", L_2INT, MPI_MINLOC, V_MINLOC, 2};
    cases[5] = (op_case){"vec/user-sum", L_VEC, vsum, V_WIDE, 0};
    cases[6] = (op_case){"mat/matprod", L_MAT, matprod, V_MATRIX, 3};
}

static uint32_t mix(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* Basic value idx (signature order) of the vector of `rank`: wide values
   below 2^20; MINLOC pairs tie often and carry the rank as location;
   matrix entries small residues. */
static long input_value(value_class v, int rank, long idx, uint32_t salt)
{
    uint32_t h = mix(salt ^ mix((uint32_t)rank * 0x9e3779b9U ^ mix((uint32_t)idx)));
    switch (v) {
    case V_MINLOC: return idx % 2 == 0 ? (long)(h % 5) : rank;
    case V_MATRIX: return (long)(h % 97);
    default: return 1 + (long)(h % (1U << 20));
    }
}

/* ---------------------------------------------------------------- buffers */

typedef struct {
    unsigned char *alloc;
    size_t total;
    char *base;
} buffer;

static buffer buffer_make(const layout *l, long count, int fill)
{
    buffer b = {NULL, 2 * GUARD + (size_t)count * (size_t)l->extent, NULL};
    b.alloc = malloc(b.total);
    if (b.alloc == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
    memset(b.alloc, fill, b.total);
    b.base = (char *)b.alloc + GUARD;
    return b;
}

static buffer buffer_copy(const buffer *from)
{
    buffer b = *from;
    b.alloc = malloc(b.total);
    if (b.alloc == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
    memcpy(b.alloc, from->alloc, b.total);
    b.base = (char *)b.alloc + GUARD;
    return b;
}

/* Store values of `rank` for vector elements [from, from + n) at element 0.. */
static void fill_input(const op_case *c, char *base, long from, long n, int rank, uint32_t salt)
{
    const layout *l = &layouts[c->layout];
    for (long e = 0; e < n; e++)
        for (int k = 0; k < l->ncomp; k++) {
            long v = input_value(c->values, rank, (from + e) * l->ncomp + k, salt);
            if (l->is_double) {
                double x = (double)v / 4.0;
                memcpy(value_at(l, base, e, k), &x, sizeof x);
            } else {
                store_int(value_at(l, base, e, k), (int)v);
            }
        }
}

/* The fold over ranks [lo, hi) of vector elements [from, from + n), in rank
   order, stored at element 0.. of base (nothing stored when lo == hi). */
static void fold(const op_case *c, char *base, long from, long n, int lo, int hi, uint32_t salt)
{
    const layout *l = &layouts[c->layout];
    if (lo >= hi) return;
    for (long e = 0; e < n; e++) {
        long long acc[4];
        double dacc = 0;
        for (int r = lo; r < hi; r++) {
            long long x[4];
            for (int k = 0; k < l->ncomp; k++)
                x[k] = input_value(c->values, r, (from + e) * l->ncomp + k, salt);
            if (r == lo) {
                memcpy(acc, x, sizeof x);
                dacc = (double)x[0] / 4.0;
                continue;
            }
            if (c->kind == 3) {
                long long p[4];
                matrix_product(acc, x, p);
                memcpy(acc, p, sizeof p);
            } else if (c->kind == 2) {
                if (x[0] < acc[0]) acc[0] = x[0], acc[1] = x[1];
                else if (x[0] == acc[0] && x[1] < acc[1]) acc[1] = x[1];
            } else if (l->is_double) {
                double d = (double)x[0] / 4.0;
                dacc = c->kind == 0 ? dacc + d : (d > dacc ? d : dacc);
            } else {
                for (int k = 0; k < l->ncomp; k++)
                    acc[k] = c->kind == 0 ? acc[k] + x[k] : (x[k] > acc[k] ? x[k] : acc[k]);
            }
        }
        for (int k = 0; k < l->ncomp; k++) {
            if (l->is_double) memcpy(value_at(l, base, e, k), &dacc, sizeof dacc);
            else store_int(value_at(l, base, e, k), (int)acc[k]);
        }
    }
}

/* ---------------------------------------------------------------- checks */

static long failures;

static void check_same(const buffer *got, const buffer *want, size_t bytes, const char *who,
                       const char *what, MPI_Comm comm)
{
    int ok = memcmp(got->alloc, want->alloc, bytes) == 0;
    CHECK(ok, "%s: %s differs", what, who);
    if (!ok && failures++ < 5) {
        int r;
        MPI_Comm_rank(comm, &r);
        for (size_t i = 0; i < bytes; i++)
            if (got->alloc[i] != want->alloc[i]) {
                fprintf(stderr, "  comm rank %d: first difference at byte %zu (guard %d): "
                                "0x%02x, expected 0x%02x\n", r, i, GUARD, got->alloc[i],
                        want->alloc[i]);
                break;
            }
    }
}

enum { F_RSB, F_RS, F_SCAN, F_EXSCAN, NFUNCS };
static const char *const func_names[NFUNCS] = {"Reduce_scatter_block", "Reduce_scatter", "Scan",
                                               "Exscan"};

static int call(int f, int hsplit, const void *sb, void *rb, const int *counts,
                MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    switch (f) {
    case F_RSB:
        return hsplit ? HSPLIT_Reduce_scatter_block(sb, rb, counts[0], t, op, comm)
                      : MPI_Reduce_scatter_block(sb, rb, counts[0], t, op, comm);
    case F_RS:
        return hsplit ? HSPLIT_Reduce_scatter(sb, rb, counts, t, op, comm)
                      : MPI_Reduce_scatter(sb, rb, counts, t, op, comm);
    case F_SCAN:
        return hsplit ? HSPLIT_Scan(sb, rb, counts[rank], t, op, comm)
                      : MPI_Scan(sb, rb, counts[rank], t, op, comm);
    default:
        return hsplit ? HSPLIT_Exscan(sb, rb, counts[rank], t, op, comm)
                      : MPI_Exscan(sb, rb, counts[rank], t, op, comm);
    }
}

/* One function, operation, count class and in-place choice on comm. */
static void run_case(MPI_Comm comm, const char *cname, int f, const op_case *c, long cls,
                     int in_place, uint32_t salt)
{
    int rank, size, world_rank;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    const layout *l = &layouts[c->layout];
    long type_bytes = (long)l->ncomp * (l->is_double ? 8 : 4);
    /* counts: the scans' count, or each process's block */
    int *counts = malloc(sizeof(int) * (size_t)size);
    long per = cls >= 0 ? cls : BIG_BYTES / type_bytes;
    if (cls < 0 && f <= F_RS) per = per / size + 1; /* reduce-scatter: the vector */
    for (int i = 0; i < size; i++)
        counts[i] = f == F_RS ? (i % 3 == 1 ? 0 : (int)per + i % 4) : (int)per;
    if (f == F_RS && cls == 0) /* zeros everywhere but one process */
        for (int i = 0; i < size; i++) counts[i] = i == size - 1 ? 3 : 0;
    long vector = 0, first = 0; /* reduce-scatter: vector length, my first element */
    for (int i = 0; i < size; i++) {
        if (i < rank) first += counts[i];
        vector += counts[i];
    }
    int scan = f >= F_SCAN;
    long in_n = scan ? counts[rank] : vector, out_n = counts[rank];
    /* the value indices of element e are the same on every process for
       reduce-scatter (vector element e) and the scans (element e) */
    buffer send = buffer_make(l, in_place ? 0 : in_n, SEND_FILL);
    buffer recv = buffer_make(l, in_place ? in_n : out_n, RECV_FILL);
    if (in_place) fill_input(c, recv.base, 0, in_n, rank, salt);
    else fill_input(c, send.base, 0, in_n, rank, salt);
    buffer send0 = buffer_copy(&send), recv0 = buffer_copy(&recv);
    /* expected: the fold of my block (reduce-scatter), of ranks 0..rank
       (scan) or 0..rank-1 (exscan) */
    buffer want = buffer_copy(&recv);
    if (scan) fold(c, want.base, 0, out_n, 0, f == F_SCAN ? rank + 1 : rank, salt);
    else fold(c, want.base, first, out_n, 0, size, salt);
    /* compared: all of recv, but in place with reduce-scatter only my block
       and what precedes it (MPI leaves the rest undefined); exscan's rank 0
       not at all */
    size_t compared = in_place && !scan ? GUARD + (size_t)out_n * (size_t)l->extent : recv.total;
    int check_result = !(f == F_EXSCAN && rank == 0);
    char what[160];
    snprintf(what, sizeof what, "%s %s %s count %ld%s", func_names[f], cname, c->name,
             cls, in_place ? " in place" : "");
    const void *sb = in_place ? MPI_IN_PLACE : send.base;
    int reps = cls == 7 ? 2 : 1; /* repeated calls give the same result */
    for (int rep = 0; rep < reps; rep++) {
        buffer got = buffer_copy(&recv0);
        int rc = call(f, 1, in_place ? MPI_IN_PLACE : send.base, got.base, counts, l->type,
                      c->op, comm);
        CHECK(rc == MPI_SUCCESS, "%s: HSPLIT returned %d", what, rc);
        if (check_result) check_same(&got, &want, compared, "HSPLIT", what, comm);
        CHECK(memcmp(send.alloc, send0.alloc, send.total) == 0, "%s: sendbuf changed", what);
        free(got.alloc);
    }
    buffer mpi = buffer_copy(&recv0);
    int rc = call(f, 0, sb, mpi.base, counts, l->type, c->op, comm);
    CHECK(rc == MPI_SUCCESS, "%s: MPI returned %d", what, rc);
    if (check_result) check_same(&mpi, &want, compared, "MPI's own", what, comm);
    free(mpi.alloc);
    free(want.alloc);
    free(send.alloc);
    free(send0.alloc);
    free(recv.alloc);
    free(recv0.alloc);
    free(counts);
    (void)world_rank;
}

/* --light: the other communicators (not all_counts) with count 7 only */
static void run_on(MPI_Comm comm, const char *cname, int all_counts)
{
    if (comm == MPI_COMM_NULL) return;
    static const long full[] = {0, 1, 7, 1000, -1}, light_counts[] = {0, 7, 1000};
    const long *cls = !light ? full : all_counts ? light_counts : light_counts + 1;
    int ncls = !light ? 5 : all_counts ? 3 : 1;
    uint32_t salt = 1;
    for (int f = 0; f < NFUNCS; f++)
        for (int i = 0; i < NCASES; i++)
            for (int k = 0; k < ncls; k++) {
                /* the big vector with the cheap operations only; --light
                   without the MAX cases (SUM covers the same paths) */
                if (cls[k] < 0 && i != 0 && i != 6) continue;
                if (light && (i == 1 || i == 3)) continue;
                if (minimal && i == 2) continue; /* --minimal: no double either */
                for (int in_place = 0; in_place < 2; in_place++) {
                    /* in place: one count class and operation apart from 7 */
                    if (in_place && cls[k] != 7 && !(cls[k] == 1000 && i == 6)) continue;
                    if (in_place && minimal && i != 0 && i != 6) continue;
                    run_case(comm, cname, f, &cases[i], cls[k], in_place, salt++);
                }
            }
}

/* ---------------------------------------------------------------- errors */

static void agree_class(int code, const char *what)
{
    int cls = error_class(code), lo, hi;
    MPI_Allreduce(&cls, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&cls, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lo == hi, "%s: error classes %d to %d across processes", what, lo, hi);
}

/* The call failed with class cls, through the handler once, and every
   process got the same class. */
#define CHECK_ERROR_ALL(call, cls)                                               \
    do {                                                                         \
        int before_ = handler_calls;                                             \
        int rc_ = (call);                                                        \
        CHECK(error_class(rc_) == (cls), "%s: class %d, expected %d", #call,      \
              error_class(rc_), (cls));                                          \
        CHECK(handler_calls == before_ + 1, "%s: handler called %d times", #call, \
              handler_calls - before_);                                          \
        agree_class(rc_, #call);                                                 \
    } while (0)

static void run_errors(void)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(counting_handler, &eh);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    int in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8];
    int *vin = malloc(sizeof(int) * (size_t)size), *counts = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++) vin[i] = i + 1, counts[i] = 1;
    int *bad = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++) bad[i] = i == size - 1 ? -1 : 1;
    /* every function: negative count, no datatype, no operation, MPI_IN_PLACE
       as recvbuf, no communicator */
    CHECK_ERROR_ALL(HSPLIT_Scan(in, out, -1, MPI_INT, MPI_SUM, comm), MPI_ERR_COUNT);
    CHECK_ERROR_ALL(HSPLIT_Exscan(in, out, -1, MPI_INT, MPI_SUM, comm), MPI_ERR_COUNT);
    CHECK_ERROR_ALL(HSPLIT_Reduce_scatter_block(vin, out, -1, MPI_INT, MPI_SUM, comm),
                    MPI_ERR_COUNT);
    CHECK_ERROR_ALL(HSPLIT_Reduce_scatter(vin, out, bad, MPI_INT, MPI_SUM, comm), MPI_ERR_COUNT);
    CHECK_ERROR_ALL(HSPLIT_Scan(in, out, 1, MPI_DATATYPE_NULL, MPI_SUM, comm), MPI_ERR_TYPE);
    CHECK_ERROR_ALL(HSPLIT_Exscan(in, out, 1, MPI_DATATYPE_NULL, MPI_SUM, comm), MPI_ERR_TYPE);
    CHECK_ERROR_ALL(HSPLIT_Reduce_scatter_block(vin, out, 1, MPI_DATATYPE_NULL, MPI_SUM, comm),
                    MPI_ERR_TYPE);
    CHECK_ERROR_ALL(HSPLIT_Reduce_scatter(vin, out, counts, MPI_DATATYPE_NULL, MPI_SUM, comm),
                    MPI_ERR_TYPE);
    CHECK_ERROR_ALL(HSPLIT_Scan(in, out, 1, MPI_INT, MPI_OP_NULL, comm), MPI_ERR_OP);
    CHECK_ERROR_ALL(HSPLIT_Exscan(in, out, 1, MPI_INT, MPI_OP_NULL, comm), MPI_ERR_OP);
    CHECK_ERROR_ALL(HSPLIT_Reduce_scatter_block(vin, out, 1, MPI_INT, MPI_OP_NULL, comm),
                    MPI_ERR_OP);
    CHECK_ERROR_ALL(HSPLIT_Reduce_scatter(vin, out, counts, MPI_INT, MPI_OP_NULL, comm),
                    MPI_ERR_OP);
    CHECK_ERROR_ALL(HSPLIT_Scan(in, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER);
    CHECK_ERROR_ALL(HSPLIT_Exscan(in, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER);
    CHECK_ERROR_ALL(HSPLIT_Scan(MPI_IN_PLACE, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, comm),
                    MPI_ERR_BUFFER);
    CHECK_ERROR_ALL(HSPLIT_Reduce_scatter_block(vin, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, comm),
                    MPI_ERR_BUFFER);
    CHECK_ERROR_ALL(HSPLIT_Reduce_scatter(vin, MPI_IN_PLACE, counts, MPI_INT, MPI_SUM, comm),
                    MPI_ERR_BUFFER);
    CHECK_ERROR_ALL(HSPLIT_Scan(in, out, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL), MPI_ERR_COMM);
    CHECK_ERROR_ALL(HSPLIT_Exscan(in, out, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL), MPI_ERR_COMM);
    CHECK_ERROR_ALL(HSPLIT_Reduce_scatter_block(vin, out, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL),
                    MPI_ERR_COMM);
    CHECK_ERROR_ALL(HSPLIT_Reduce_scatter(vin, out, counts, MPI_INT, MPI_SUM, MPI_COMM_NULL),
                    MPI_ERR_COMM);
    /* an intercommunicator (two halves) */
    if (size >= 2) {
        MPI_Comm half, inter;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 7, &inter);
        MPI_Comm_set_errhandler(inter, eh);
        CHECK_ERROR_ALL(HSPLIT_Scan(in, out, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM);
        CHECK_ERROR_ALL(HSPLIT_Exscan(in, out, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM);
        CHECK_ERROR_ALL(HSPLIT_Reduce_scatter_block(vin, out, 1, MPI_INT, MPI_SUM, inter),
                        MPI_ERR_COMM);
        CHECK_ERROR_ALL(HSPLIT_Reduce_scatter(vin, out, counts, MPI_INT, MPI_SUM, inter),
                        MPI_ERR_COMM);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    /* the communicator still works: each call's result */
    int before = handler_calls, x = rank + 1, y = -1;
    CHECK_INT(HSPLIT_Scan(&x, &y, 1, MPI_INT, MPI_SUM, comm), MPI_SUCCESS);
    CHECK_INT(y, (rank + 1) * (rank + 2) / 2);
    y = -1;
    CHECK_INT(HSPLIT_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, comm), MPI_SUCCESS);
    if (rank > 0) CHECK_INT(y, rank * (rank + 1) / 2);
    y = -1;
    CHECK_INT(HSPLIT_Reduce_scatter_block(vin, &y, 1, MPI_INT, MPI_SUM, comm), MPI_SUCCESS);
    CHECK_INT(y, (rank + 1) * size);
    y = -1;
    CHECK_INT(HSPLIT_Reduce_scatter(vin, &y, counts, MPI_INT, MPI_SUM, comm), MPI_SUCCESS);
    CHECK_INT(y, (rank + 1) * size);
    CHECK_INT(handler_calls, before);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_free(&comm);
    MPI_Errhandler_free(&eh);
    free(vin);
    free(counts);
    free(bad);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int errors = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--light") == 0) light = 1;
        else if (strcmp(argv[i], "--minimal") == 0) light = minimal = 1;
        else if (strcmp(argv[i], "--errors") == 0) errors = 1;
        else {
            fprintf(stderr, "test_coll_scan: unknown argument %s\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    make_layouts();
    make_cases();
    if (errors) {
        run_errors();
    } else {
        int rank, size;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        run_on(MPI_COMM_WORLD, "world", 1);
        MPI_Comm reversed, level = MPI_COMM_NULL, roots = MPI_COMM_NULL;
        MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
        run_on(reversed, "reversed", 0);
        MPI_Comm_free(&reversed);
        int rc = HSPLIT_Comm_hsplit_with_roots(MPI_COMM_WORLD, MPI_INFO_NULL, &level, &roots);
        CHECK_INT(rc, MPI_SUCCESS);
        run_on(level, "hsplit level", 0);
        if (level != MPI_COMM_NULL) MPI_Comm_free(&level);
        if (roots != MPI_COMM_NULL) MPI_Comm_free(&roots);
    }
    MPI_Op_free(&cases[5].op);
    MPI_Op_free(&cases[6].op);
    MPI_Type_free(&layouts[L_VEC].type);
    MPI_Type_free(&layouts[L_MAT].type);
    return test_finish();
}
