/* SPDX-License-Identifier: BSD-3-Clause */
/* The shared-memory engine of the collectives (coll_shm*.c), called directly:
   every result byte for byte against MPI's own collective on the node
   communicator and against values computed here, for every root, counts 0,
   1, 7, 1000 and beyond the segment, five datatypes (int, double, a strided
   vector, a struct with a gap, a 2x2 int matrix), MPI_IN_PLACE, MPI_SUM,
   MPI_MAX and non-commutative user operations (checked in rank order), a
   bcast whose root and members give different datatypes of one signature;
   gather, scatter and allgather the same way (every root, in place, the
   vector and the matrix also against the ints of their signature, both
   ways), two communicators' segments used in turn, the barrier's semantics
   (through a shared window of the test), and the node group and leaders.
   Options: --light (fewer cases), --stress N (N thousand random calls with
   random short delays, every result checked), --time (ns per call against
   MPI's, median of blocks), --expect-null (no segment may be made). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include "hsplit_internal.h"
#include "test_util.h"

enum { T_INT, T_DOUBLE, T_VECTOR, T_STRUCT, T_MAT, T_WIDE, NTYPES };
enum { O_SUM, O_MAX, O_AFFINE, O_MATPROD };
static const char *type_names[NTYPES] = {"int", "double", "vector", "struct", "mat", "wide"};
static MPI_Datatype types[NTYPES];
static MPI_Op op_affine, op_matprod;
#define P 1009L
/* T_WIDE: a 2x2 matrix whose rows lie WIDE_STRIDE ints apart (608 bytes):
   wider than half an area of a 4096-byte segment, so that reductions go to
   MPI's own call there */
#define WIDE_STRIDE 150

typedef struct {
    int a, pad;
    double b;
} pair_struct;

static void sleep_us(long us)
{
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

static int nvals(int t) { return t == T_INT || t == T_DOUBLE ? 1 : t >= T_MAT ? 4 : 2; }

/* The values of element i of a buffer of type t. */
static void get_element(const char *buf, int t, long i, long v[4])
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(types[t], &lb, &extent);
    const char *e = buf + i * extent;
    v[0] = v[1] = v[2] = v[3] = 0;
    switch (t) {
    case T_INT: v[0] = *(const int *)e; break;
    case T_DOUBLE: v[0] = (long)*(const double *)e; break;
    case T_VECTOR: v[0] = ((const int *)e)[0]; v[1] = ((const int *)e)[3]; break;
    case T_STRUCT:
        v[0] = ((const pair_struct *)e)->a;
        v[1] = (long)((const pair_struct *)e)->b;
        break;
    case T_WIDE:
        for (int k = 0; k < 4; k++) v[k] = ((const int *)e)[k % 2 + k / 2 * WIDE_STRIDE];
        break;
    default: for (int k = 0; k < 4; k++) v[k] = ((const int *)e)[k];
    }
}

static void set_element(char *buf, int t, long i, const long v[4])
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(types[t], &lb, &extent);
    char *e = buf + i * extent;
    switch (t) {
    case T_INT: *(int *)e = (int)v[0]; break;
    case T_DOUBLE: *(double *)e = (double)v[0]; break;
    case T_VECTOR: ((int *)e)[0] = (int)v[0]; ((int *)e)[3] = (int)v[1]; break;
    case T_STRUCT: ((pair_struct *)e)->a = (int)v[0]; ((pair_struct *)e)->b = (double)v[1]; break;
    case T_WIDE:
        for (int k = 0; k < 4; k++) ((int *)e)[k % 2 + k / 2 * WIDE_STRIDE] = (int)v[k];
        break;
    default: for (int k = 0; k < 4; k++) ((int *)e)[k] = (int)v[k];
    }
}

/* in op inout, into out: the operations of the test on one element. */
static void apply(int op, int t, const long in[4], const long inout[4], long out[4])
{
    long r[4] = {0, 0, 0, 0};
    switch (op) {
    case O_SUM: for (int k = 0; k < nvals(t); k++) r[k] = in[k] + inout[k]; break;
    case O_MAX:
        for (int k = 0; k < nvals(t); k++) r[k] = in[k] > inout[k] ? in[k] : inout[k];
        break;
    case O_AFFINE: /* t -> a t + b maps composed: in after inout */
        r[0] = in[0] * inout[0] % P;
        r[1] = (in[0] * inout[1] + in[1]) % P;
        break;
    default: /* 2x2 matrices, row-major: in * inout */
        r[0] = (in[0] * inout[0] + in[1] * inout[2]) % P;
        r[1] = (in[0] * inout[1] + in[1] * inout[3]) % P;
        r[2] = (in[2] * inout[0] + in[3] * inout[2]) % P;
        r[3] = (in[2] * inout[1] + in[3] * inout[3]) % P;
    }
    memcpy(out, r, sizeof r);
}

static int type_index(MPI_Datatype dt)
{
    for (int t = 0; t < NTYPES; t++)
        if (types[t] == dt) return t;
    return -1;
}

static void user_op(void *in, void *inout, int *len, MPI_Datatype *dt, int op)
{
    int t = type_index(*dt);
    if (t < 0) abort();
    for (long i = 0; i < *len; i++) {
        long a[4], b[4], r[4];
        get_element(in, t, i, a);
        get_element(inout, t, i, b);
        apply(op, t, a, b, r);
        set_element(inout, t, i, r);
    }
}
static void affine_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    user_op(in, inout, len, dt, O_AFFINE);
}
static void matprod_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    user_op(in, inout, len, dt, O_MATPROD);
}

static MPI_Op mpi_op(int op)
{
    return op == O_SUM ? MPI_SUM : op == O_MAX ? MPI_MAX : op == O_AFFINE ? op_affine : op_matprod;
}

static void make_types(void)
{
    types[T_INT] = MPI_INT;
    types[T_DOUBLE] = MPI_DOUBLE;
    /* two ints, 3 apart: extent 16, size 8, gaps inside */
    MPI_Type_vector(2, 1, 3, MPI_INT, &types[T_VECTOR]);
    MPI_Type_commit(&types[T_VECTOR]);
    int lens[2] = {1, 1};
    MPI_Aint displs[2] = {offsetof(pair_struct, a), offsetof(pair_struct, b)};
    MPI_Datatype members[2] = {MPI_INT, MPI_DOUBLE}, tmp;
    MPI_Type_create_struct(2, lens, displs, members, &tmp);
    MPI_Type_create_resized(tmp, 0, sizeof(pair_struct), &types[T_STRUCT]);
    MPI_Type_free(&tmp);
    MPI_Type_commit(&types[T_STRUCT]);
    MPI_Type_contiguous(4, MPI_INT, &types[T_MAT]);
    MPI_Type_commit(&types[T_MAT]);
    MPI_Type_vector(2, 2, WIDE_STRIDE, MPI_INT, &types[T_WIDE]);
    MPI_Type_commit(&types[T_WIDE]);
    MPI_Op_create(affine_fn, 0, &op_affine);
    MPI_Op_create(matprod_fn, 0, &op_matprod);
}

static void free_types(void)
{
    for (int t = T_VECTOR; t < NTYPES; t++) MPI_Type_free(&types[t]);
    MPI_Op_free(&op_affine);
    MPI_Op_free(&op_matprod);
}

static size_t span_of(int t, long count)
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(types[t], &lb, &extent);
    return count > 0 ? (size_t)(count * extent) : 1;
}

/* The input of node rank r, element i, call seed: small values, so that sums
   and the double type are exact and matrices stay mod P. */
static void input_value(int op, int r, long i, unsigned seed, long v[4])
{
    for (int k = 0; k < 4; k++) {
        long x = (long)((r * 131u + (unsigned long)i * 31u + seed * 17u + (unsigned)k * 7u) % 97u);
        v[k] = op == O_SUM || op == O_MAX ? x - 48 : x % 7 + (k == 0 ? 1 : 0);
    }
}

/* A buffer of count elements of type t, gaps 0xA5, values of rank r. */
static char *filled(int t, int op, long count, int r, unsigned seed)
{
    size_t span = span_of(t, count);
    char *b = malloc(span);
    memset(b, 0xA5, span);
    for (long i = 0; i < count; i++) {
        long v[4];
        input_value(op, r, i, seed, v);
        set_element(b, t, i, v);
    }
    return b;
}

/* The expected combination over ranks 0..n-1 in rank order. */
static char *combined(int t, int op, long count, int n, unsigned seed)
{
    char *b = filled(t, op, count, n - 1, seed);
    for (long i = 0; i < count; i++) {
        long acc[4], x[4];
        get_element(b, t, i, acc);
        for (int r = n - 2; r >= 0; r--) {
            input_value(op, r, i, seed, x);
            apply(op, t, x, acc, acc);
        }
        set_element(b, t, i, acc);
    }
    return b;
}

typedef struct {
    hsplit_shm *shm;
    MPI_Comm node;
    int rank, size;
    const char *name;
} engine;

static void engine_of(MPI_Comm comm, const char *name, engine *e)
{
    hsplit_hierarchy *h;
    e->shm = NULL;
    e->name = name;
    CHECK_INT(hsplit_hierarchy_get(comm, &h), MPI_SUCCESS);
    CHECK_INT(hsplit_shm_get(h, &e->shm), MPI_SUCCESS);
    hsplit_shm *again;
    CHECK_INT(hsplit_shm_get(h, &again), MPI_SUCCESS);
    CHECK(again == e->shm, "a second hsplit_shm_get gives the same segment");
    if (e->shm == NULL) return;
    e->node = hsplit_shm_node(e->shm);
    e->rank = hsplit_shm_rank(e->shm);
    e->size = hsplit_shm_size(e->shm);
    /* the node's tree as HSPLIT_COLL_SHM_FANOUT sets it (default 16) */
    const char *fanout = getenv("HSPLIT_COLL_SHM_FANOUT");
    CHECK_INT(hsplit_shm_fanout(e->shm), fanout != NULL ? atoi(fanout) : 16);
}

static const char *what;

static void check_bytes(const char *got, const char *expected, size_t n, const char *against,
                        int t, long count, int root, int inplace)
{
    CHECK(memcmp(got, expected, n) == 0, "%s %s count %ld root %d in-place %d: differs from %s",
          what, type_names[t], count, root, inplace, against);
}

static void bcast_case(engine *e, int t, long count, int root, unsigned seed)
{
    size_t span = span_of(t, count);
    char *mine = filled(t, O_SUM, count, e->rank == root ? root : e->size + 5, seed);
    char *ref = malloc(span), *expected = filled(t, O_SUM, count, root, seed);
    memcpy(ref, mine, span);
    what = "bcast";
    CHECK_INT(hsplit_shm_bcast(e->shm, mine, (int)count, types[t], root), MPI_SUCCESS);
    MPI_Bcast(ref, (int)count, types[t], root, e->node);
    check_bytes(mine, expected, span, "the computed values", t, count, root, 0);
    check_bytes(mine, ref, span, "MPI_Bcast", t, count, root, 0);
    free(mine);
    free(ref);
    free(expected);
}

/* root < 0: allreduce. */
static void reduce_case(engine *e, int t, int op, long count, int root, int inplace,
                        unsigned seed)
{
    size_t span = span_of(t, count);
    int collects = root < 0 || e->rank == root;
    char *in = filled(t, op, count, e->rank, seed);
    char *out = malloc(span), *ref = malloc(span);
    char *expected = combined(t, op, count, e->size, seed);
    memset(out, 0xA5, span);
    memset(ref, 0xA5, span);
    const void *send = in;
    if (inplace && collects) {
        memcpy(out, in, span);
        send = MPI_IN_PLACE;
    }
    what = root < 0 ? "allreduce" : "reduce";
    if (root < 0) {
        CHECK_INT(hsplit_shm_allreduce(e->shm, send, out, (int)count, types[t], mpi_op(op)),
                  MPI_SUCCESS);
        MPI_Allreduce(in, ref, (int)count, types[t], mpi_op(op), e->node);
    } else {
        CHECK_INT(hsplit_shm_reduce(e->shm, send, collects ? out : NULL, (int)count, types[t],
                                    mpi_op(op), root),
                  MPI_SUCCESS);
        MPI_Reduce(in, collects ? ref : NULL, (int)count, types[t], mpi_op(op), root, e->node);
    }
    if (collects) {
        check_bytes(out, expected, span, "the computed values", t, count, root, inplace);
        check_bytes(out, ref, span, "MPI's own call", t, count, root, inplace);
    }
    free(in);
    free(out);
    free(ref);
    free(expected);
}

static const int type_ops[][3] = {
    [T_INT] = {O_SUM, O_MAX, -1},     [T_DOUBLE] = {O_SUM, O_MAX, -1},
    [T_VECTOR] = {O_AFFINE, -1, -1}, [T_STRUCT] = {O_AFFINE, -1, -1},
    [T_MAT] = {O_MATPROD, -1, -1},    [T_WIDE] = {O_MATPROD, -1, -1},
};

static void all_cases(engine *e, int light, long shm_bytes)
{
    for (int t = 0; t < NTYPES; t++) {
        MPI_Aint lb, extent;
        MPI_Type_get_extent(types[t], &lb, &extent);
        long counts[] = {0, 1, 7, 1000, 2 * shm_bytes / extent + 3};
        for (int c = 0; c < 5; c++) {
            for (int root = 0; root < e->size; root++) {
                if (light && root != 0 && root != e->size - 1) continue;
                bcast_case(e, t, counts[c], root, (unsigned)(c * 7 + root));
                for (int o = 0; o < 3 && type_ops[t][o] >= 0; o++)
                    for (int inplace = 0; inplace < 2; inplace++)
                        reduce_case(e, t, type_ops[t][o], counts[c], root, inplace,
                                    (unsigned)(c + root + o));
            }
            for (int o = 0; o < 3 && type_ops[t][o] >= 0; o++)
                for (int inplace = 0; inplace < 2; inplace++)
                    reduce_case(e, t, type_ops[t][o], counts[c], -1, inplace, (unsigned)(c + o));
        }
    }
}

/* ---- gather, scatter, allgather ---- */

/* A block as a process gives or takes it: count elements of types[t], or
   (ints > 0) count * ints MPI_INTs holding the same values (one signature:
   sendtype != recvtype). */
typedef struct {
    int t, ints;
} view;

static MPI_Datatype view_type(view v) { return v.ints ? MPI_INT : types[v.t]; }
static int view_count(view v, long count) { return (int)(v.ints ? count * v.ints : count); }
static size_t view_span(view v, long count)
{
    return v.ints ? (count > 0 ? sizeof(int) * (size_t)(count * v.ints) : 1) : span_of(v.t, count);
}

/* Rank r's values into block b (count elements) of buf. */
static void set_block(char *buf, view v, long count, long b, int r, unsigned seed)
{
    for (long i = 0; i < count; i++) {
        long val[4];
        input_value(O_SUM, r, i, seed, val);
        if (v.ints)
            for (int k = 0; k < v.ints; k++) ((int *)buf)[(b * count + i) * v.ints + k] = (int)val[k];
        else
            set_element(buf, v.t, b * count + i, val);
    }
}

/* nblocks blocks, gaps 0xA5: block b holds rank b's values (rank >= 0:
   every block rank's). */
static char *blocks_of(view v, long count, int nblocks, int rank, unsigned seed)
{
    size_t span = view_span(v, count * nblocks);
    char *b = malloc(span);
    memset(b, 0xA5, span);
    for (int k = 0; k < nblocks; k++) set_block(b, v, count, k, rank >= 0 ? rank : k, seed);
    return b;
}

static void check_blocks(const char *got, const char *expected, size_t n, const char *against,
                         view s, view r, long count, int root, int inplace)
{
    CHECK(memcmp(got, expected, n) == 0,
          "%s %s%s -> %s%s count %ld root %d in-place %d: differs from %s", what,
          type_names[s.t], s.ints ? " as ints" : "", type_names[r.t], r.ints ? " as ints" : "",
          count, root, inplace, against);
}

/* n counts of count and their displacements (one allocation). MPICH 4.0's
   binomial MPI_Gather and MPI_Scatter truncate thousands of elements of the
   struct type (size 12, extent 16) at the processes that relay: the linear
   vector calls are the references. */
static int *equal_counts(int n, int count)
{
    int *counts = malloc(sizeof(int) * 2 * (size_t)n);
    for (int i = 0; i < n; i++) {
        counts[i] = count;
        counts[n + i] = i * count;
    }
    return counts;
}

static void gather_case(engine *e, view sv, view rv, long count, int root, int inplace,
                        unsigned seed)
{
    int n = e->size, me = e->rank, is_root = me == root;
    char *send = blocks_of(sv, count, 1, me, seed);
    char *recv = NULL, *ref = NULL, *expected = NULL;
    size_t span = view_span(rv, count * n);
    if (is_root) {
        recv = malloc(span);
        ref = malloc(span);
        memset(recv, 0xA5, span);
        memset(ref, 0xA5, span);
        if (inplace) set_block(recv, rv, count, root, root, seed);
        expected = blocks_of(rv, count, n, -1, seed);
    }
    what = "gather";
    CHECK_INT(hsplit_shm_gather(e->shm, is_root && inplace ? MPI_IN_PLACE : send,
                                view_count(sv, count), view_type(sv), recv, view_count(rv, count),
                                view_type(rv), root),
              MPI_SUCCESS);
    int *counts = equal_counts(n, view_count(rv, count)), *displs = counts + n;
    MPI_Gatherv(send, view_count(sv, count), view_type(sv), ref, counts, displs, view_type(rv),
                root, e->node);
    free(counts);
    if (is_root) {
        check_blocks(recv, expected, span, "the computed values", sv, rv, count, root, inplace);
        check_blocks(recv, ref, span, "MPI_Gatherv", sv, rv, count, root, inplace);
    }
    free(send);
    free(recv);
    free(ref);
    free(expected);
}

static void scatter_case(engine *e, view sv, view rv, long count, int root, int inplace,
                         unsigned seed)
{
    int n = e->size, me = e->rank, is_root = me == root;
    char *send = is_root ? blocks_of(sv, count, n, -1, seed) : NULL;
    char *kept = is_root ? blocks_of(sv, count, n, -1, seed) : NULL;
    size_t span = view_span(rv, count);
    char *recv = malloc(span), *ref = malloc(span), *expected = blocks_of(rv, count, 1, me, seed);
    memset(recv, 0xA5, span);
    memset(ref, 0xA5, span);
    what = "scatter";
    CHECK_INT(hsplit_shm_scatter(e->shm, send, view_count(sv, count), view_type(sv),
                                 is_root && inplace ? MPI_IN_PLACE : recv, view_count(rv, count),
                                 view_type(rv), root),
              MPI_SUCCESS);
    int *counts = equal_counts(n, view_count(sv, count)), *displs = counts + n;
    MPI_Scatterv(send, counts, displs, view_type(sv), ref, view_count(rv, count), view_type(rv),
                 root, e->node);
    free(counts);
    if (!(is_root && inplace))
        check_blocks(recv, expected, span, "the computed values", sv, rv, count, root, inplace);
    check_blocks(ref, expected, span, "MPI_Scatterv's (the test's values)", sv, rv, count, root,
                 inplace);
    if (is_root)
        check_blocks(send, kept, view_span(sv, count * n), "the root's unchanged sendbuf", sv,
                     rv, count, root, inplace);
    free(send);
    free(kept);
    free(recv);
    free(ref);
    free(expected);
}

static void allgather_case(engine *e, view sv, view rv, long count, int inplace, unsigned seed)
{
    int n = e->size, me = e->rank;
    char *send = blocks_of(sv, count, 1, me, seed);
    size_t span = view_span(rv, count * n);
    char *recv = malloc(span), *ref = malloc(span), *expected = blocks_of(rv, count, n, -1, seed);
    memset(recv, 0xA5, span);
    memset(ref, 0xA5, span);
    if (inplace) set_block(recv, rv, count, me, me, seed);
    what = "allgather";
    CHECK_INT(hsplit_shm_allgather(e->shm, inplace ? MPI_IN_PLACE : send, view_count(sv, count),
                                   view_type(sv), recv, view_count(rv, count), view_type(rv)),
              MPI_SUCCESS);
    MPI_Allgather(send, view_count(sv, count), view_type(sv), ref, view_count(rv, count),
                  view_type(rv), e->node);
    check_blocks(recv, expected, span, "the computed values", sv, rv, count, -1, inplace);
    check_blocks(recv, ref, span, "MPI_Allgather", sv, rv, count, -1, inplace);
    free(send);
    free(recv);
    free(ref);
    free(expected);
}

/* The three with every root, in place or not, sendtype sv, recvtype rv. */
static void block_cases(engine *e, view sv, view rv, long count, int light, unsigned seed)
{
    for (int inplace = 0; inplace < 2; inplace++) {
        /* in place the own block keeps the receiving type */
        for (int root = 0; root < e->size; root++) {
            if (light && root != 0 && root != e->size - 1) continue;
            gather_case(e, sv, rv, count, root, inplace, seed + (unsigned)root);
            scatter_case(e, sv, rv, count, root, inplace, seed + (unsigned)root);
        }
        allgather_case(e, sv, rv, count, inplace, seed);
    }
}

/* Every type as itself; the vector and the 2x2 matrix also against the
   ints of their signature, both ways (packed against flat, contiguous
   against MPI_INT). */
static void all_block_cases(engine *e, int light, long shm_bytes)
{
    for (int t = 0; t < NTYPES; t++) {
        MPI_Aint lb, extent;
        MPI_Type_get_extent(types[t], &lb, &extent);
        long counts[] = {0, 1, 7, 1000, 2 * shm_bytes / extent + 3};
        for (int c = 0; c < 5; c++) {
            view same = {t, 0};
            block_cases(e, same, same, counts[c], light, (unsigned)(c * 11 + t));
            if (t != T_VECTOR && t != T_MAT) continue;
            view ints = {t, t == T_VECTOR ? 2 : 4};
            block_cases(e, same, ints, counts[c], light, (unsigned)(c * 13 + t));
            block_cases(e, ints, same, counts[c], light, (unsigned)(c * 17 + t));
        }
    }
}

/* Root gives count vectors, the others 2 * count ints: one signature. */
static void mixed_types(engine *e)
{
    long counts[] = {1, 1000, 20000};
    for (int c = 0; c < 3; c++) {
        for (int root = 0; root < e->size; root++) {
            long n = counts[c];
            int *ints = malloc(sizeof(int) * 2 * (size_t)n);
            char *vec = filled(T_VECTOR, O_SUM, n, root, (unsigned)c);
            for (long i = 0; i < 2 * n; i++) ints[i] = -1;
            int rc = e->rank == root
                         ? hsplit_shm_bcast(e->shm, vec, (int)n, types[T_VECTOR], root)
                         : hsplit_shm_bcast(e->shm, ints, (int)(2 * n), MPI_INT, root);
            CHECK_INT(rc, MPI_SUCCESS);
            if (e->rank != root) {
                int good = 1;
                for (long i = 0; i < n; i++) {
                    long v[4];
                    input_value(O_SUM, root, i, (unsigned)c, v);
                    good = good && ints[2 * i] == v[0] && ints[2 * i + 1] == v[1];
                }
                CHECK(good, "bcast of %ld vectors from root %d into ints", n, root);
            }
            free(ints);
            free(vec);
        }
    }
}

/* Barrier semantics: before barrier k every process stores k in its slot of
   a window shared by all processes of comm (one real node); after it, every
   slot holds k or more. halves: arrive, MPI_Barrier of the leaders, release. */
static void barrier_cases(engine *e, hsplit_shm *shm, MPI_Comm world, int halves, int rounds)
{
    MPI_Comm shared;
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
    int n, me, wsize;
    MPI_Comm_size(shared, &n);
    MPI_Comm_rank(shared, &me);
    MPI_Comm_size(world, &wsize);
    MPI_Comm check = halves ? shared : e->node;
    int cn, cme;
    MPI_Comm_size(check, &cn);
    MPI_Comm_rank(check, &cme);
    if (halves && n != wsize) { /* the nodes are not one real node: nothing to look at */
        MPI_Comm_free(&shared);
        return;
    }
    _Atomic long *mine;
    MPI_Win win;
    MPI_Win_allocate_shared(sizeof(_Atomic long), sizeof(_Atomic long), MPI_INFO_NULL, check,
                            &mine, &win);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    atomic_store(mine, 0);
    MPI_Win_sync(win);
    MPI_Barrier(check);
    _Atomic long **slots = malloc(sizeof *slots * (size_t)cn);
    for (int i = 0; i < cn; i++) {
        MPI_Aint size;
        int unit;
        MPI_Win_shared_query(win, i, &size, &unit, &slots[i]);
    }
    int bad = 0;
    for (long k = 1; k <= rounds; k++) {
        if ((k + cme) % 5 == 0) sleep_us((k % 3) * 200);
        atomic_store_explicit(mine, k, memory_order_release);
        if (halves) {
            hsplit_shm_barrier_arrive(shm);
            MPI_Comm leaders = hsplit_shm_leaders(shm);
            if (leaders != MPI_COMM_NULL) MPI_Barrier(leaders);
            hsplit_shm_barrier_release(shm);
        } else {
            CHECK_INT(hsplit_shm_barrier(shm), MPI_SUCCESS);
        }
        for (int i = 0; i < cn; i++)
            if (atomic_load_explicit(slots[i], memory_order_acquire) < k) bad++;
    }
    CHECK(bad == 0, "%s: %d processes not yet arrived after a %s", e->name, bad,
          halves ? "barrier across nodes" : "barrier");
    free(slots);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Comm_free(&shared);
}

/* The node group: the processes of this node (emulated, or the whole of
   comm), in rank order; the leaders: node rank 0 of every node. */
static void check_groups(engine *e, MPI_Comm comm)
{
    int wsize, wrank, key = 0;
    MPI_Comm_size(comm, &wsize);
    MPI_Comm_rank(comm, &wrank);
    const hsplit_context *ctx = hsplit_get_context();
    if (ctx->emulated_nodes) key = ctx->node;
    MPI_Comm same;
    MPI_Comm_split(comm, key, wrank, &same);
    int result;
    MPI_Comm_compare(same, e->node, &result);
    CHECK(result == MPI_CONGRUENT, "%s: the node group is this node's processes in rank order",
          e->name);
    MPI_Comm leaders = hsplit_shm_leaders(e->shm);
    CHECK((leaders != MPI_COMM_NULL) == (e->rank == 0), "%s: leaders iff node rank 0", e->name);
    int nodes = e->rank == 0, total;
    MPI_Allreduce(MPI_IN_PLACE, &nodes, 1, MPI_INT, MPI_SUM, comm);
    if (leaders != MPI_COMM_NULL) {
        MPI_Comm_size(leaders, &total);
        CHECK_INT(total, nodes);
    }
    MPI_Comm_free(&same);
}

/* Two segments, calls interleaved, sizes changing. */
static void interleaved(engine *a, engine *b)
{
    for (int i = 0; i < 40; i++) {
        long count = (i * 977) % 5000;
        engine *x = i % 2 ? a : b, *y = i % 2 ? b : a;
        reduce_case(x, T_INT, O_SUM, count, -1, i % 3 == 0, (unsigned)i);
        bcast_case(y, T_MAT, count / 3, i % y->size, (unsigned)i);
        reduce_case(x, T_MAT, O_MATPROD, count / 5, (i * 3) % x->size, 0, (unsigned)i);
        view ints = {T_INT, 0}, vec = {T_VECTOR, 0};
        gather_case(y, ints, ints, count / 7, i % y->size, i % 2, (unsigned)i);
        scatter_case(x, vec, vec, count / 11, (i * 5) % x->size, i % 3 == 1, (unsigned)i);
        view vec_ints = {T_VECTOR, 2};
        allgather_case(y, vec, vec_ints, count / 9, i % 4 == 0, (unsigned)i);
        CHECK_INT(hsplit_shm_barrier(y->shm), MPI_SUCCESS);
    }
}

static unsigned long next_random(unsigned long *state)
{
    *state = *state * 6364136223846793005UL + 1442695040888963407UL;
    return *state >> 33;
}

/* kind 4, 5, 6: gather, scatter, allgather of count elements of t per
   block; 0 if right. */
static int stress_blocks(engine *e, int kind, int t, long count, int root, unsigned seed)
{
    view v = {t, 0};
    int n = e->size, me = e->rank, wrong = 0, rc;
    size_t one = view_span(v, count), all = view_span(v, count * n);
    char *expected = blocks_of(v, count, n, -1, seed);
    if (kind == 5) {
        char *send = me == root ? blocks_of(v, count, n, -1, seed) : NULL, *recv = malloc(one);
        rc = hsplit_shm_scatter(e->shm, send, (int)count, types[t], recv, (int)count, types[t],
                                root);
        char *mine = blocks_of(v, count, 1, me, seed);
        wrong = rc != MPI_SUCCESS || (count > 0 && memcmp(recv, mine, one) != 0);
        free(mine);
        free(send);
        free(recv);
    } else {
        char *send = blocks_of(v, count, 1, me, seed), *recv = malloc(all);
        rc = kind == 4 ? hsplit_shm_gather(e->shm, send, (int)count, types[t], recv, (int)count,
                                           types[t], root)
                       : hsplit_shm_allgather(e->shm, send, (int)count, types[t], recv,
                                              (int)count, types[t]);
        wrong = rc != MPI_SUCCESS ||
                ((kind == 6 || me == root) && count > 0 && memcmp(recv, expected, all) != 0);
        free(send);
        free(recv);
    }
    free(expected);
    return wrong;
}

/* thousands x 1000 calls: the same random choices everywhere, delays on
   random processes; every result checked against the computed values. */
static void stress(engine *e, long thousands)
{
    unsigned long state = 12345;
    long bad = 0;
    for (long call = 0; call < thousands * 1000; call++) {
        unsigned long kind = next_random(&state) % 7, size = next_random(&state);
        long count = size % 8 == 0 ? (long)(size / 8 % 40000) : (long)(size / 8 % 300);
        int root = (int)(next_random(&state) % (unsigned long)e->size);
        unsigned long sleeper = next_random(&state) % (unsigned long)(2 * e->size);
        if ((int)sleeper == e->rank) sleep_us((long)(next_random(&state) % 51));
        else next_random(&state);
        int t = call % 3 == 0 ? T_MAT : T_INT, op = t == T_MAT ? O_MATPROD : O_SUM;
        if (kind == 0) {
            if (hsplit_shm_barrier(e->shm) != MPI_SUCCESS) bad++;
            continue;
        }
        if (kind >= 4) {
            if (stress_blocks(e, (int)kind, t, count / 4, root, (unsigned)call) != 0) bad++;
            continue;
        }
        size_t span = span_of(t, count);
        if (kind == 1) {
            char *mine = filled(t, op, count, e->rank == root ? root : -1, (unsigned)call);
            char *expected = filled(t, op, count, root, (unsigned)call);
            if (hsplit_shm_bcast(e->shm, mine, (int)count, types[t], root) != MPI_SUCCESS ||
                memcmp(mine, expected, span) != 0)
                bad++;
            free(mine);
            free(expected);
            continue;
        }
        int r = kind == 2 ? root : -1, collects = r < 0 || r == e->rank;
        char *in = filled(t, op, count, e->rank, (unsigned)call), *out = malloc(span);
        int rc = r < 0 ? hsplit_shm_allreduce(e->shm, in, out, (int)count, types[t], mpi_op(op))
                       : hsplit_shm_reduce(e->shm, in, out, (int)count, types[t], mpi_op(op), r);
        if (rc != MPI_SUCCESS) bad++;
        if (collects && count > 0) {
            char *expected = combined(t, op, count, e->size, (unsigned)call);
            if (memcmp(out, expected, span) != 0) bad++;
            free(expected);
        }
        free(in);
        free(out);
    }
    CHECK(bad == 0, "stress: %ld of %ld calls wrong", bad, thousands * 1000);
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ns per call, median of 15 blocks (slowest process of each). */
#define TIME_BLOCKS 15
static double timed(engine *e, int which, int shm, int bytes, double *buf, double *out)
{
    double samples[TIME_BLOCKS];
    int count = bytes / 8, calls = bytes <= 1024 ? 2000 : bytes <= 65536 ? 200 : 20;
    for (int b = 0; b < TIME_BLOCKS; b++) {
        MPI_Barrier(e->node);
        double t0 = MPI_Wtime();
        for (int i = 0; i < calls; i++) {
            switch (which) {
            case 0: shm ? hsplit_shm_barrier(e->shm) : MPI_Barrier(e->node); break;
            case 1: shm ? hsplit_shm_bcast(e->shm, buf, count, MPI_DOUBLE, 0)
                        : MPI_Bcast(buf, count, MPI_DOUBLE, 0, e->node); break;
            case 2: shm ? hsplit_shm_reduce(e->shm, buf, out, count, MPI_DOUBLE, MPI_SUM, 0)
                        : MPI_Reduce(buf, out, count, MPI_DOUBLE, MPI_SUM, 0, e->node); break;
            default: shm ? hsplit_shm_allreduce(e->shm, buf, out, count, MPI_DOUBLE, MPI_SUM)
                         : MPI_Allreduce(buf, out, count, MPI_DOUBLE, MPI_SUM, e->node);
            }
        }
        double mine = (MPI_Wtime() - t0) / calls * 1e9, slowest;
        MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, e->node);
        samples[b] = slowest;
    }
    qsort(samples, TIME_BLOCKS, sizeof samples[0], compare_double);
    return samples[TIME_BLOCKS / 2];
}

/* MPI first, then the segment, for each call and size. */
static void timing(engine *e)
{
    static const char *names[] = {"barrier", "bcast", "reduce", "allreduce"};
    static const int sizes[] = {8, 1024, 65536, 1048576};
    double *buf = calloc(1048576 / 8, sizeof(double)), *out = calloc(1048576 / 8, sizeof(double));
    if (e->rank == 0)
        printf("%d processes, ns per call (median of %d blocks, slowest process)\n"
               "%-10s %8s %10s %10s %8s\n", e->size, TIME_BLOCKS, "call", "bytes", "shm", "MPI",
               "MPI/shm");
    for (int which = 0; which < 4; which++) {
        for (int s = 0; s < (which == 0 ? 1 : 4); s++) {
            int bytes = which == 0 ? 0 : sizes[s];
            double tmpi = timed(e, which, 0, bytes, buf, out);
            double tshm = timed(e, which, 1, bytes, buf, out);
            if (e->rank == 0)
                printf("%-10s %8d %10.0f %10.0f %8.2f\n", names[which], bytes, tshm, tmpi,
                       tmpi / tshm);
        }
    }
    free(buf);
    free(out);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int light = 0, expect_null = 0, do_time = 0;
    long stress_thousands = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--light") == 0) light = 1;
        else if (strcmp(argv[i], "--expect-null") == 0) expect_null = 1;
        else if (strcmp(argv[i], "--time") == 0) do_time = 1;
        else if (strcmp(argv[i], "--stress") == 0 && i + 1 < argc)
            stress_thousands = atol(argv[++i]);
    }
    make_types();
    int wsize;
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    engine world, dup;
    engine_of(MPI_COMM_WORLD, "world", &world);
    int have = world.shm != NULL, everywhere;
    MPI_Allreduce(&have, &everywhere, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    CHECK_INT(everywhere, have); /* NULL everywhere alike */
    if (expect_null || wsize == 1) {
        CHECK(world.shm == NULL, "no segment expected");
    } else {
        CHECK(world.shm != NULL, "a segment expected");
    }
    if (world.shm != NULL) {
        hsplit_hierarchy *h;
        hsplit_hierarchy_get(MPI_COMM_WORLD, &h);
        long shm_bytes = h->config.shm_bytes;
        check_groups(&world, MPI_COMM_WORLD);
        if (do_time) {
            timing(&world);
        } else if (stress_thousands > 0) {
            stress(&world, stress_thousands);
        } else {
            barrier_cases(&world, world.shm, MPI_COMM_WORLD, 0, light ? 50 : 300);
            barrier_cases(&world, world.shm, MPI_COMM_WORLD, 1, light ? 50 : 300);
            all_cases(&world, light, shm_bytes);
            all_block_cases(&world, light, shm_bytes);
            mixed_types(&world);
            MPI_Comm other;
            MPI_Comm_dup(MPI_COMM_WORLD, &other);
            engine_of(other, "dup", &dup);
            CHECK(dup.shm != NULL && dup.shm != world.shm, "the dup has its own segment");
            if (dup.shm != NULL) interleaved(&world, &dup);
            MPI_Comm_free(&other);
        }
    }
    free_types();
    return test_finish();
}
