/* SPDX-License-Identifier: BSD-3-Clause */
/* Hierarchical collectives against MPI's own.

   Every HSPLIT collective runs on the same input as the plain MPI collective,
   on the same communicator, and must leave the very same bytes: memcmp of
   every output buffer, gaps of strided datatypes and guard bytes around each
   buffer included (MPI leaves bytes outside the type map untouched), and send
   buffers unchanged. MPI's results are in turn checked against results
   computed here from the inputs, so that a wrong expectation cannot pass.

   Inputs hash (rank, index, case), so that a misplaced block shows; doubles
   hold multiples of 1/4 below 2^18, so that sums are exact in any order.

   Covered: Bcast, Reduce, Allreduce, Gather, Scatter, Allgather with every
   root up to 8 processes (else 0, 1, size/2, size-1 and a non-leader); counts
   0, 1, 7, 1000 and one above 512 KiB in all; MPI_INT, MPI_DOUBLE, MPI_2INT, a
   strided vector, a vector with negative stride and lower bound, a strided
   12-byte element, a 2x2 int matrix, one vector element larger than a
   segment, and type maps that differ between processes with equal
   signatures (run last: where they go wrong, processes may hang); SUM, MAX,
   MINLOC, a commutative user operation on strided types and a
   non-commutative one (matrix product modulo a prime) that must give rank
   order; MPI_IN_PLACE wherever MPI allows it; junk in the arguments MPI
   declares insignificant; Barrier synchronisation; repeated calls;
   communicators in other rank orders (reversed, split, hsplit levels,
   MPI_COMM_SELF); many communicators made and freed; calls on a duplicate of
   a freed communicator and after frees.

   Usage: test_coll [--quick | --light] [--verbose] [--coll NAME]
                    [--type NAME] [--skip-layout NAME] [--count N] [--root R]
     --quick    roots 0, size-1 and a non-leader, fewer counts and variants
                (large process counts, MPICH oversubscribed)
     --light    a few cases of each collective, counts 0, 7 and 1000 (valgrind)
     --verbose  rank 0 of each communicator prints each call before making it
     --coll, --type, --count, --root  run only the matching calls (NAME as
                printed in failure messages, --coll also a comma list of
                them; --count is the count class:
                0, 1, 7, 1000 or big)
     --skip-layout NAME  no call that uses that layout (e.g. negvec, whose
                negative stride SimGrid's SMPI 3.32 gets wrong in MPI's own
                collectives) */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <time.h>
#include "test_util.h"

enum { GUARD = 64, MAX_PRINTED = 12, MAX_ROOTS = 8 };
enum { RECV_FILL = 0xA5, SEND_FILL = 0x5A };
enum { BIG = -1 }; /* count class: a message above BIG_BYTES */
/* Above every threshold of the library's defaults: the reduce-scatter +
   allgather allreduce from 512 KiB (HSPLIT_COLL_RSAG_BYTES), the node
   segment's 64 KiB slices, the engine's candidates from 128 KiB, pipeline
   segments. 1 MiB crossed the same ones at twice the cost: on the paper's
   32 processes the big messages were 70% of a test's time. */
#define BIG_BYTES (1L << 19)
#define MATRIX_PRIME 1000003LL

/* ---------------------------------------------------------------- options */

typedef struct {
    int quick, light, verbose;
    const char *coll, *type, *skip_layout;
    long count; /* count class, or LONG_MIN for all */
    int root;   /* -1 for all */
} options;

static options opt = {0, 0, 0, NULL, NULL, NULL, LONG_MIN, -1};

static void parse_options(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--quick") == 0) opt.quick = 1;
        else if (strcmp(argv[i], "--light") == 0) opt.light = opt.quick = 1;
        else if (strcmp(argv[i], "--verbose") == 0) opt.verbose = 1;
        else if (strcmp(argv[i], "--coll") == 0 && next) opt.coll = argv[++i];
        else if (strcmp(argv[i], "--type") == 0 && next) opt.type = argv[++i];
        else if (strcmp(argv[i], "--skip-layout") == 0 && next) opt.skip_layout = argv[++i];
        else if (strcmp(argv[i], "--count") == 0 && next)
            opt.count = strcmp(argv[++i], "big") == 0 ? BIG : atol(argv[i]);
        else if (strcmp(argv[i], "--root") == 0 && next) opt.root = atoi(argv[++i]);
        else {
            fprintf(stderr, "test_coll: unknown argument %s\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
}

/* ---------------------------------------------------------------- layouts */

typedef enum { BASIC_INT, BASIC_DOUBLE } basic_kind;

/* Where the basic values of a datatype lie: element e, value k (in type
   signature order) at e * extent + k * stride bytes from the buffer. */
typedef struct {
    char name[16];
    MPI_Datatype type;
    basic_kind basic;
    int ncomp;       /* basic values per element */
    MPI_Aint stride; /* bytes between values of an element (negative: backwards) */
    MPI_Aint extent; /* bytes between elements */
    MPI_Aint lb;     /* lower bound, <= 0 */
    int derived;     /* made here, freed here */
} layout;

static size_t basic_size(const layout *l)
{
    return l->basic == BASIC_INT ? sizeof(int) : sizeof(double);
}

static long type_bytes(const layout *l)
{
    return (long)l->ncomp * (long)basic_size(l);
}

/* The layout must be what MPI says the datatype is. */
static void check_layout(const layout *l)
{
    MPI_Aint lb, extent;
    int size;
    MPI_Type_get_extent(l->type, &lb, &extent);
    MPI_Type_size(l->type, &size);
    CHECK(lb == l->lb && extent == l->extent && size == type_bytes(l),
          "layout %s: lb %ld extent %ld size %d", l->name, (long)lb, (long)extent, size);
}

static layout predefined(const char *name, MPI_Datatype type, basic_kind basic, int ncomp)
{
    layout l = {.type = type, .basic = basic, .ncomp = ncomp};
    snprintf(l.name, sizeof l.name, "%s", name);
    l.stride = (MPI_Aint)basic_size(&l);
    l.extent = l.stride * ncomp;
    check_layout(&l);
    return l;
}

/* nblocks ints, one every stride_ints ints, resized to [lb, lb + extent). */
static layout strided(const char *name, int nblocks, int stride_ints, MPI_Aint lb,
                      MPI_Aint extent)
{
    layout l = {.basic = BASIC_INT, .ncomp = nblocks, .lb = lb, .extent = extent,
                .stride = stride_ints * (MPI_Aint)sizeof(int), .derived = 1};
    MPI_Datatype vector;
    snprintf(l.name, sizeof l.name, "%s", name);
    MPI_Type_vector(nblocks, 1, stride_ints, MPI_INT, &vector);
    MPI_Type_create_resized(vector, lb, extent, &l.type);
    MPI_Type_free(&vector);
    MPI_Type_commit(&l.type);
    check_layout(&l);
    return l;
}

/* One element of n ints at every other int: one element can exceed a segment. */
static layout big_vector(long n)
{
    return strided("bigvec", (int)n, 2, 0, (MPI_Aint)(2 * n - 1) * (MPI_Aint)sizeof(int));
}

static void layout_free(layout *l)
{
    if (l->derived) MPI_Type_free(&l->type);
}

enum { L_INT, L_DOUBLE, L_2INT, L_VEC, L_NEGVEC, L_VEC3, L_MAT, NLAYOUTS };
static layout layouts[NLAYOUTS];

static void make_layouts(void)
{
    layouts[L_INT] = predefined("int", MPI_INT, BASIC_INT, 1);
    layouts[L_DOUBLE] = predefined("double", MPI_DOUBLE, BASIC_DOUBLE, 1);
    layouts[L_2INT] = predefined("2int", MPI_2INT, BASIC_INT, 2);
    /* ints 0 and 2 of every 4: a gap inside each element and one between */
    layouts[L_VEC] = strided("vec", 2, 2, 0, 16);
    /* ints 0 and -2 of [-2, 2): values run backwards, data below the buffer */
    layouts[L_NEGVEC] = strided("negvec", 2, -2, -8, 16);
    /* 12 bytes of data: no power-of-two segment holds whole elements */
    layouts[L_VEC3] = strided("vec3", 3, 2, 0, 24);
    layout mat = {.basic = BASIC_INT, .ncomp = 4, .stride = 4, .extent = 16, .derived = 1};
    snprintf(mat.name, sizeof mat.name, "mat");
    MPI_Type_contiguous(4, MPI_INT, &mat.type);
    MPI_Type_commit(&mat.type);
    check_layout(&mat);
    layouts[L_MAT] = mat;
}

static const layout *find_layout(MPI_Datatype type)
{
    for (int i = 0; i < NLAYOUTS; i++)
        if (layouts[i].type == type) return &layouts[i];
    return NULL;
}

/* ---------------------------------------------------------------- values */

typedef enum { VALUES_WIDE, VALUES_MINLOC, VALUES_MATRIX } value_class;

static uint32_t mix(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* The idx-th basic value (type-signature order) of rank's input. Wide values
   stay below 2^20 so that int sums over 2047 processes do not overflow;
   MINLOC values tie often (lowest location wins) and carry the rank as
   location; matrix entries are small residues. */
static long input_value(value_class values, int rank, long idx, uint32_t salt)
{
    uint32_t h = mix(salt ^ mix((uint32_t)rank * 0x9e3779b9U ^ mix((uint32_t)idx)));
    switch (values) {
    case VALUES_MINLOC: return idx % 2 == 0 ? (long)(h % 5) : rank;
    case VALUES_MATRIX: return (long)(h % 97);
    default: return 1 + (long)(h % (1U << 20));
    }
}

static void store_value(const layout *l, char *at, long v)
{
    if (l->basic == BASIC_INT) {
        int x = (int)v;
        memcpy(at, &x, sizeof x);
    } else {
        double x = (double)v / 4.0; /* exact, and not an integer */
        memcpy(at, &x, sizeof x);
    }
}

static double load_value(const layout *l, const char *at)
{
    if (l->basic == BASIC_INT) {
        int x;
        memcpy(&x, at, sizeof x);
        return x;
    }
    double x;
    memcpy(&x, at, sizeof x);
    return x;
}

static char *value_at(const layout *l, char *base, long element, int k)
{
    return base + element * l->extent + k * l->stride;
}

/* ---------------------------------------------------------------- buffers */

/* count elements of a layout, with GUARD bytes on each side of the footprint;
   base is what the collective gets. */
typedef struct {
    unsigned char *alloc;
    size_t total;
    char *base;
    const layout *l;
    long count;
} buffer;

static buffer buffer_make(const layout *l, long count, int fill)
{
    buffer b = {NULL, 2 * GUARD + (size_t)(count * l->extent), NULL, l, count};
    b.alloc = malloc(b.total);
    if (!b.alloc) {
        fprintf(stderr, "test_coll: out of memory (%zu bytes)\n", b.total);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    memset(b.alloc, fill, b.total);
    b.base = (char *)b.alloc + GUARD - l->lb;
    return b;
}

static buffer buffer_copy(const buffer *from)
{
    buffer b = *from;
    if (!from->alloc) return b;
    b.alloc = malloc(b.total);
    memcpy(b.alloc, from->alloc, b.total);
    b.base = (char *)b.alloc + (from->base - (char *)from->alloc);
    return b;
}

static void buffer_free(buffer *b)
{
    free(b->alloc);
    b->alloc = NULL;
}

/* Write rank's input into elements [first, first + count) of b. */
static void fill_block(const buffer *b, long first, long count, int rank, uint32_t salt,
                       value_class values)
{
    const layout *l = b->l;
    for (long e = 0; e < count; e++)
        for (int k = 0; k < l->ncomp; k++)
            store_value(l, value_at(l, b->base, first + e, k),
                        input_value(values, rank, e * l->ncomp + k, salt));
}

/* What byte off of b is: "element E value K" (returns K >= 0, *element set),
   or a gap (-1) or a guard byte (-2). */
static int locate_byte(const buffer *b, size_t off, long *element)
{
    const layout *l = b->l;
    MPI_Aint rel = (MPI_Aint)((char *)b->alloc + off - b->base) - l->lb;
    if (rel < 0 || rel >= b->count * l->extent) return -2;
    *element = (long)(rel / l->extent);
    MPI_Aint within = rel - *element * l->extent + l->lb;
    for (int k = 0; k < l->ncomp; k++) {
        MPI_Aint start = k * l->stride;
        if (within >= start && within < start + (MPI_Aint)basic_size(l)) return k;
    }
    return -1;
}

/* Describe the first byte where got differs from want, into out. */
static void describe_difference(const buffer *got, const buffer *want, size_t off, char *out,
                                size_t n)
{
    long element = 0;
    int k = locate_byte(got, off, &element);
    const layout *l = got->l;
    if (k >= 0)
        snprintf(out, n, "element %ld value %d: got %.17g, expected %.17g", element, k,
                 load_value(l, value_at(l, got->base, element, k)),
                 load_value(l, value_at(l, want->base, element, k)));
    else
        snprintf(out, n, "%s byte %zu of the allocation (element %ld): got 0x%02x, expected 0x%02x",
                 k == -1 ? "gap" : "guard", off, k == -1 ? element : -1L, got->alloc[off],
                 want->alloc[off]);
}

/* Index of the first differing byte, or -1 (both buffers have one layout). */
static long first_difference(const buffer *a, const buffer *b)
{
    if (a->total != b->total) return 0;
    if (memcmp(a->alloc, b->alloc, a->total) == 0) return -1;
    for (size_t i = 0; i < a->total; i++)
        if (a->alloc[i] != b->alloc[i]) return (long)i;
    return -1;
}

/* ---------------------------------------------------------------- operations */

static void user_op_type_error(MPI_Datatype type)
{
    static int reported;
    test_state.failed++;
    if (reported++) return;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "[rank %d] FAIL: a user-defined operation was called with a datatype "
                    "(handle %#lx) that was not passed to the collective\n",
            rank, (unsigned long)(uintptr_t)type);
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

/* Commutative sum of the ints of strided layouts. */
static void vsum_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    const layout *l = find_layout(*type);
    if (!l || l->basic != BASIC_INT) {
        user_op_type_error(*type);
        return;
    }
    for (long e = 0; e < *len; e++)
        for (int k = 0; k < l->ncomp; k++) {
            char *y = value_at(l, inout, e, k);
            store_int(y, load_int(value_at(l, in, e, k)) + load_int(y));
        }
}

/* c = a * b for row-major 2x2 matrices modulo MATRIX_PRIME. */
static void matrix_product(const long long a[4], const long long b[4], long long c[4])
{
    c[0] = (a[0] * b[0] + a[1] * b[2]) % MATRIX_PRIME;
    c[1] = (a[0] * b[1] + a[1] * b[3]) % MATRIX_PRIME;
    c[2] = (a[2] * b[0] + a[3] * b[2]) % MATRIX_PRIME;
    c[3] = (a[2] * b[1] + a[3] * b[3]) % MATRIX_PRIME;
}

static void load_matrix(const layout *l, char *base, long e, long long m[4])
{
    for (int k = 0; k < 4; k++) m[k] = load_int(value_at(l, base, e, k));
}

static void store_matrix(const layout *l, char *base, long e, const long long m[4])
{
    for (int k = 0; k < 4; k++) store_int(value_at(l, base, e, k), (int)m[k]);
}

/* inout = in * inout: MPI's order (invec op inoutvec), not commutative. */
static void matprod_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    const layout *l = find_layout(*type);
    if (l != &layouts[L_MAT]) {
        user_op_type_error(*type);
        return;
    }
    for (long e = 0; e < *len; e++) {
        long long a[4], b[4], c[4];
        load_matrix(l, in, e, a);
        load_matrix(l, inout, e, b);
        matrix_product(a, b, c);
        store_matrix(l, inout, e, c);
    }
}

typedef struct {
    const char *name;
    MPI_Op op;
    value_class values;
} op_case;

enum { OP_SUM, OP_MAX, OP_MINLOC, OP_VSUM, OP_MATPROD, NOPS };
static op_case ops[NOPS] = {
    {"sum", MPI_OP_NULL, VALUES_WIDE},    {"max", MPI_OP_NULL, VALUES_WIDE},
    {"minloc", MPI_OP_NULL, VALUES_MINLOC}, {"vsum", MPI_OP_NULL, VALUES_WIDE},
    {"matprod", MPI_OP_NULL, VALUES_MATRIX},
};

static void make_ops(void)
{
    ops[OP_SUM].op = MPI_SUM;
    ops[OP_MAX].op = MPI_MAX;
    ops[OP_MINLOC].op = MPI_MINLOC;
    MPI_Op_create(vsum_fn, 1, &ops[OP_VSUM].op);
    MPI_Op_create(matprod_fn, 0, &ops[OP_MATPROD].op);
}

/* Datatype and operation pairs MPI allows (predefined operations only on
   predefined types). Not negvec: Open MPI 4.1's own ring allreduce (2 or 3
   processes, 1000 elements) frees a wrong pointer with a negative lower bound. */
typedef struct {
    int layout, op;
} reduction_case;

static const reduction_case reductions[] = {
    {L_INT, OP_SUM},  {L_INT, OP_MAX},    {L_DOUBLE, OP_SUM}, {L_DOUBLE, OP_MAX},
    {L_2INT, OP_MINLOC}, {L_VEC, OP_VSUM}, {L_MAT, OP_MATPROD},
};
enum { NREDUCTIONS = sizeof reductions / sizeof reductions[0] };

/* ---------------------------------------------------------------- calls */

typedef enum { BCAST, REDUCE, ALLREDUCE, GATHER, SCATTER, ALLGATHER, BARRIER, OTHER, NKINDS } coll_kind;
static const char *const coll_names[NKINDS] = {"bcast",   "reduce",    "allreduce", "gather",
                                               "scatter", "allgather", "barrier",   "other"};
static long failures_by_kind[NKINDS];

typedef struct {
    int (*bcast)(void *, int, MPI_Datatype, int, MPI_Comm);
    int (*reduce)(const void *, void *, int, MPI_Datatype, MPI_Op, int, MPI_Comm);
    int (*allreduce)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
    int (*gather)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm);
    int (*scatter)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm);
    int (*allgather)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
} coll_impl;

/* The reference broadcast: MPI_Bcast of the packed bytes. Open MPI 4.1's
   scatter-allgather broadcast (its choice for about 1 MiB on 16 processes)
   cuts the message by each process's own datatype and hangs when processes
   use different datatypes of the same signature, which MPI allows; packing
   gives every process the same byte layout and MPI_Bcast then stays the
   reference for what MPI_Bcast means. */
static int reference_bcast(void *buffer, int count, MPI_Datatype datatype, int root,
                           MPI_Comm comm)
{
    int bytes, rank, pos = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Pack_size(count, datatype, comm, &bytes);
    char *packed = malloc(bytes > 0 ? (size_t)bytes : 1);
    if (rank == root) MPI_Pack(buffer, count, datatype, packed, bytes, &pos, comm);
    MPI_Bcast(&pos, 1, MPI_INT, root, comm);
    int rc = MPI_Bcast(packed, pos, MPI_PACKED, root, comm);
    if (rc == MPI_SUCCESS && rank != root) {
        int at = 0;
        rc = MPI_Unpack(packed, pos, &at, buffer, count, datatype, comm);
    }
    free(packed);
    return rc;
}

/* The reference reduce: MPICH 4.0.2 (Debian, ch4:ucx) crashes in MPI_Reduce
   with MPI_IN_PLACE at a root other than 0, so the root's input is first
   copied out of recvbuf and passed as a send buffer: the same reduction. */
static int reference_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                            MPI_Op op, int root, MPI_Comm comm)
{
    if (sendbuf != MPI_IN_PLACE || root == 0)
        return MPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
    MPI_Aint lb, extent, true_lb, true_extent;
    MPI_Type_get_extent(type, &lb, &extent);
    MPI_Type_get_true_extent(type, &true_lb, &true_extent);
    MPI_Aint span = count > 0 ? true_extent + (count - 1) * (extent < 0 ? -extent : extent) : 1;
    char *copy = malloc((size_t)span), *base = copy - true_lb - (extent < 0 && count > 0 ? (count - 1) * extent : 0);
    MPI_Sendrecv(recvbuf, count, type, 0, 0, base, count, type, 0, 0, MPI_COMM_SELF,
                 MPI_STATUS_IGNORE);
    int rc = MPI_Reduce(base, recvbuf, count, type, op, root, comm);
    free(copy);
    return rc;
}

static const coll_impl mpi_impl = {reference_bcast, reference_reduce, MPI_Allreduce,
                                   MPI_Gather,  MPI_Scatter, MPI_Allgather};
static const coll_impl hsplit_impl = {HSPLIT_Bcast,   HSPLIT_Reduce,
                                      HSPLIT_Allreduce, HSPLIT_Gather, HSPLIT_Scatter,
                                      HSPLIT_Allgather};

/* One call. In a mixed call, odd ranks (all ranks if b_everywhere) use
   layout b (b_count elements) for their own buffers, with the same type
   signature as a_count elements of a; the root's side (bcast buffer, gather
   receive, scatter send) always uses a. */
typedef struct {
    coll_kind coll;
    const layout *a, *b;
    long a_count, b_count;
    int b_everywhere;
    long count_class; /* 0, 1, 7, 1000 or BIG, for messages and filters */
    const op_case *op;
    int root, in_place;
    int junk; /* arguments MPI declares insignificant get junk values */
    MPI_Comm comm;
    const char *comm_name;
    uint32_t salt;
} call_spec;

static int uses_b(const call_spec *s, int rank)
{
    return s->b && (s->b_everywhere || rank % 2);
}

static const layout *own_layout(const call_spec *s, int rank)
{
    return uses_b(s, rank) ? s->b : s->a;
}

static long own_count(const call_spec *s, int rank)
{
    return uses_b(s, rank) ? s->b_count : s->a_count;
}

static value_class spec_values(const call_spec *s)
{
    return s->op ? s->op->values : VALUES_WIDE;
}

static int is_rooted(coll_kind c)
{
    return c == BCAST || c == REDUCE || c == GATHER || c == SCATTER;
}

static const char *const call_names[NKINDS] = {"Bcast",   "Reduce",    "Allreduce", "Gather",
                                               "Scatter", "Allgather", "Barrier",   "(setup)"};

/* "vec", "vec/int" (odd ranks use int), "vec/int:all" (all but the root's
   side use int). */
static void type_name(const call_spec *s, char *out, size_t n)
{
    snprintf(out, n, "%s%s%s%s", s->a->name, s->b ? "/" : "", s->b ? s->b->name : "",
             s->b_everywhere ? ":all" : "");
}

/* "HSPLIT_Gather comm=world type=vec/int count=7/14 root=3 in_place", and
   the options of this program that run that call alone. */
static void describe_spec(const call_spec *s, char *out, size_t n)
{
    char type[40], count[16], root[24] = "", repro_root[24] = "";
    if (s->coll == BARRIER) {
        snprintf(out, n, "HSPLIT_Barrier comm=%s late=%d [repro: --coll barrier]", s->comm_name,
                 s->root);
        return;
    }
    type_name(s, type, sizeof type);
    if (s->count_class == BIG) snprintf(count, sizeof count, "big");
    else snprintf(count, sizeof count, "%ld", s->count_class);
    if (is_rooted(s->coll)) {
        snprintf(root, sizeof root, " root=%d", s->root);
        snprintf(repro_root, sizeof repro_root, " --root %d", s->root);
    }
    char counts[48];
    if (s->b) snprintf(counts, sizeof counts, "%ld/%ld", s->a_count, s->b_count);
    else snprintf(counts, sizeof counts, "%ld", s->a_count);
    snprintf(out, n, "HSPLIT_%s comm=%s type=%s count=%s%s%s%s%s%s [repro: --coll %s --type %s "
             "--count %s%s]",
             call_names[s->coll], s->comm_name, type, counts, s->op ? " op=" : "",
             s->op ? s->op->name : "", root, s->in_place ? " in_place" : "",
             s->junk ? " junk_args" : "", coll_names[s->coll], type, count, repro_root);
}

static int printed_failures;

/* Count a check; print a failure with its call (the first MAX_PRINTED). */
static void record(int ok, const call_spec *s, const char *fmt, ...)
{
    if (ok) {
        test_state.passed++;
        return;
    }
    test_state.failed++;
    failures_by_kind[s ? s->coll : OTHER]++;
    if (printed_failures++ >= MAX_PRINTED) return;
    int rank;
    char what[512] = "", message[512];
    va_list args;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (s) describe_spec(s, what, sizeof what);
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    fprintf(stderr, "[world rank %d] FAIL %s: %s\n", rank, what, message);
}

/* The arguments of one call, and the buffers behind them. */
typedef struct {
    buffer send, recv; /* alloc NULL when the process has none */
    const void *send_arg;
    void *recv_arg;
    int scount, rcount;
    MPI_Datatype stype, rtype;
} call_args;

static void prepare_bcast(const call_spec *s, int rank, call_args *a)
{
    int root = rank == s->root;
    const layout *l = root ? s->a : own_layout(s, rank);
    long n = root ? s->a_count : own_count(s, rank);
    /* the root's gaps differ from the others': copying them shows */
    a->recv = buffer_make(l, n, root ? SEND_FILL : RECV_FILL);
    if (root) fill_block(&a->recv, 0, n, rank, s->salt, VALUES_WIDE);
    a->recv_arg = a->recv.base;
    a->rcount = (int)n;
    a->rtype = l->type;
}

/* Reduce (all = 0) and Allreduce (all = 1). */
static void prepare_reduce(const call_spec *s, int rank, int all, call_args *a)
{
    int out = all || rank == s->root;
    long n = s->a_count;
    if (s->in_place && out) {
        a->send_arg = MPI_IN_PLACE;
    } else {
        a->send = buffer_make(s->a, n, SEND_FILL);
        fill_block(&a->send, 0, n, rank, s->salt, spec_values(s));
        a->send_arg = a->send.base;
    }
    if (out) {
        a->recv = buffer_make(s->a, n, RECV_FILL);
        if (s->in_place) fill_block(&a->recv, 0, n, rank, s->salt, spec_values(s));
        a->recv_arg = a->recv.base;
    }
    a->scount = a->rcount = (int)n;
    a->stype = a->rtype = s->a->type;
}

/* The send side of a non-root process, or of a process whose input is in
   place (then sendcount and sendtype are ignored: junk when asked). */
static void prepare_own_send(const call_spec *s, int rank, int in_place, call_args *a)
{
    const layout *l = own_layout(s, rank);
    long n = own_count(s, rank);
    if (in_place) {
        a->send_arg = MPI_IN_PLACE;
        a->scount = s->junk ? 0 : (int)n;
        a->stype = s->junk ? MPI_DATATYPE_NULL : l->type;
        return;
    }
    a->send = buffer_make(l, n, SEND_FILL);
    fill_block(&a->send, 0, n, rank, s->salt, VALUES_WIDE);
    a->send_arg = a->send.base;
    a->scount = (int)n;
    a->stype = l->type;
}

static void prepare_gather(const call_spec *s, int rank, int size, call_args *a)
{
    int root = rank == s->root;
    prepare_own_send(s, rank, s->in_place && root, a);
    if (!root) { /* receive arguments are significant only at the root */
        a->recv_arg = NULL;
        a->rcount = s->junk ? 0 : (int)s->a_count;
        a->rtype = s->junk ? MPI_DATATYPE_NULL : s->a->type;
        return;
    }
    a->recv = buffer_make(s->a, s->a_count * size, RECV_FILL);
    if (s->in_place) fill_block(&a->recv, rank * s->a_count, s->a_count, rank, s->salt, VALUES_WIDE);
    a->recv_arg = a->recv.base;
    a->rcount = (int)s->a_count;
    a->rtype = s->a->type;
}

static void prepare_scatter(const call_spec *s, int rank, int size, call_args *a)
{
    int root = rank == s->root;
    const layout *l = own_layout(s, rank);
    long n = own_count(s, rank);
    if (root) {
        a->send = buffer_make(s->a, s->a_count * size, SEND_FILL);
        for (int r = 0; r < size; r++)
            fill_block(&a->send, r * s->a_count, s->a_count, r, s->salt, VALUES_WIDE);
        a->send_arg = a->send.base;
        a->scount = (int)s->a_count;
        a->stype = s->a->type;
    } else { /* send arguments are significant only at the root */
        a->send_arg = NULL;
        a->scount = s->junk ? 0 : (int)s->a_count;
        a->stype = s->junk ? MPI_DATATYPE_NULL : s->a->type;
    }
    if (root && s->in_place) { /* the root's block stays in the send buffer */
        a->recv_arg = MPI_IN_PLACE;
        a->rcount = s->junk ? 0 : (int)n;
        a->rtype = s->junk ? MPI_DATATYPE_NULL : l->type;
        return;
    }
    a->recv = buffer_make(l, n, RECV_FILL);
    a->recv_arg = a->recv.base;
    a->rcount = (int)n;
    a->rtype = l->type;
}

static void prepare_allgather(const call_spec *s, int rank, int size, call_args *a)
{
    const layout *l = own_layout(s, rank);
    long n = own_count(s, rank);
    prepare_own_send(s, rank, s->in_place, a);
    a->recv = buffer_make(l, n * size, RECV_FILL);
    if (s->in_place) fill_block(&a->recv, rank * n, n, rank, s->salt, VALUES_WIDE);
    a->recv_arg = a->recv.base;
    a->rcount = (int)n;
    a->rtype = l->type;
}

static void prepare(const call_spec *s, int rank, int size, call_args *a)
{
    memset(a, 0, sizeof *a);
    switch (s->coll) {
    case BCAST: prepare_bcast(s, rank, a); break;
    case REDUCE: prepare_reduce(s, rank, 0, a); break;
    case ALLREDUCE: prepare_reduce(s, rank, 1, a); break;
    case GATHER: prepare_gather(s, rank, size, a); break;
    case SCATTER: prepare_scatter(s, rank, size, a); break;
    default: prepare_allgather(s, rank, size, a); break;
    }
}

static int invoke(const coll_impl *impl, const call_spec *s, call_args *a)
{
    switch (s->coll) {
    case BCAST: return impl->bcast(a->recv_arg, a->rcount, a->rtype, s->root, s->comm);
    case REDUCE:
        return impl->reduce(a->send_arg, a->recv_arg, a->rcount, a->rtype, s->op->op, s->root,
                            s->comm);
    case ALLREDUCE:
        return impl->allreduce(a->send_arg, a->recv_arg, a->rcount, a->rtype, s->op->op, s->comm);
    case GATHER:
        return impl->gather(a->send_arg, a->scount, a->stype, a->recv_arg, a->rcount, a->rtype,
                            s->root, s->comm);
    case SCATTER:
        return impl->scatter(a->send_arg, a->scount, a->stype, a->recv_arg, a->rcount, a->rtype,
                             s->root, s->comm);
    default:
        return impl->allgather(a->send_arg, a->scount, a->stype, a->recv_arg, a->rcount,
                               a->rtype, s->comm);
    }
}

static void free_args(call_args *a)
{
    buffer_free(&a->send);
    buffer_free(&a->recv);
}

/* ---------------------------------------------------------------- expected results */

/* a0 op a1 op ... op a(size-1), right to left with MPI_Reduce_local. */
static buffer reduce_by_mpi(const call_spec *s, int size)
{
    long n = s->a_count;
    buffer acc = buffer_make(s->a, n, RECV_FILL), in = buffer_make(s->a, n, SEND_FILL);
    fill_block(&acc, 0, n, size - 1, s->salt, s->op->values);
    for (int r = size - 2; r >= 0; r--) {
        fill_block(&in, 0, n, r, s->salt, s->op->values);
        MPI_Reduce_local(in.base, acc.base, (int)n, s->a->type, s->op->op);
    }
    buffer_free(&in);
    return acc;
}

/* The matrix product A0 A1 ... A(size-1), left to right, without MPI. */
static buffer matrix_product_by_hand(const call_spec *s, int size)
{
    long n = s->a_count;
    const layout *l = s->a;
    buffer acc = buffer_make(l, n, RECV_FILL), in = buffer_make(l, n, SEND_FILL);
    fill_block(&acc, 0, n, 0, s->salt, VALUES_MATRIX);
    for (int r = 1; r < size; r++) {
        fill_block(&in, 0, n, r, s->salt, VALUES_MATRIX);
        for (long e = 0; e < n; e++) {
            long long x[4], y[4], z[4];
            load_matrix(l, acc.base, e, x);
            load_matrix(l, in.base, e, y);
            matrix_product(x, y, z);
            store_matrix(l, acc.base, e, z);
        }
    }
    buffer_free(&in);
    return acc;
}

/* Reductions are costly to compute here: the last result is kept, since
   every root and in-place variant of one case shares it. */
static struct {
    buffer result;
    const layout *l;
    const op_case *op;
    long count;
    int size;
    uint32_t salt;
} reduction_cache;

static buffer expected_reduction(const call_spec *s, int size)
{
    if (!reduction_cache.result.alloc || reduction_cache.l != s->a || reduction_cache.op != s->op ||
        reduction_cache.count != s->a_count || reduction_cache.size != size ||
        reduction_cache.salt != s->salt) {
        buffer_free(&reduction_cache.result);
        reduction_cache.result = s->op == &ops[OP_MATPROD] ? matrix_product_by_hand(s, size)
                                                           : reduce_by_mpi(s, size);
        reduction_cache.l = s->a;
        reduction_cache.op = s->op;
        reduction_cache.count = s->a_count;
        reduction_cache.size = size;
        reduction_cache.salt = s->salt;
    }
    return buffer_copy(&reduction_cache.result);
}

/* nblocks blocks of count elements, holding rank rank_of_block's input (-1:
   block r holds rank r's), gaps filled with fill. */
static buffer expected_blocks(const layout *l, long count, int nblocks, int rank_of_block,
                              uint32_t salt, int fill)
{
    buffer b = buffer_make(l, count * nblocks, fill);
    for (int r = 0; r < nblocks; r++)
        fill_block(&b, r * count, count, rank_of_block < 0 ? r : rank_of_block, salt, VALUES_WIDE);
    return b;
}

/* What this process's receive buffer must hold after the call (alloc NULL:
   it has none). */
static buffer expected_output(const call_spec *s, int rank, int size)
{
    buffer none = {0};
    int root = rank == s->root;
    switch (s->coll) {
    case BCAST:
        return root ? expected_blocks(s->a, s->a_count, 1, s->root, s->salt, SEND_FILL)
                    : expected_blocks(own_layout(s, rank), own_count(s, rank), 1, s->root,
                                      s->salt, RECV_FILL);
    case REDUCE: return root ? expected_reduction(s, size) : none;
    case ALLREDUCE: return expected_reduction(s, size);
    case GATHER:
        return root ? expected_blocks(s->a, s->a_count, size, -1, s->salt, RECV_FILL) : none;
    case SCATTER:
        return root && s->in_place
                   ? none
                   : expected_blocks(own_layout(s, rank), own_count(s, rank), 1, rank, s->salt,
                                     RECV_FILL);
    default:
        return expected_blocks(own_layout(s, rank), own_count(s, rank), size, -1, s->salt,
                               RECV_FILL);
    }
}

/* ---------------------------------------------------------------- checking one call */

static const char *error_text(int rc)
{
    static char text[MPI_MAX_ERROR_STRING];
    int len;
    if (rc == MPI_SUCCESS) return "MPI_SUCCESS";
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "code %d", rc);
    return text;
}

static void compare(const call_spec *s, const buffer *got, const buffer *want, const char *what)
{
    long off = first_difference(got, want);
    char detail[256] = "";
    if (off >= 0) describe_difference(got, want, (size_t)off, detail, sizeof detail);
    record(off < 0, s, "%s: %s", what, detail);
}

/* filter: NULL (any), a name, or a comma list of names */
static int selected_name(const char *filter, const char *name)
{
    if (!filter) return 1;
    size_t n = strlen(name);
    for (const char *at = filter; *at != '\0';) {
        const char *end = strchr(at, ',');
        size_t len = end != NULL ? (size_t)(end - at) : strlen(at);
        if (len == n && strncmp(at, name, n) == 0) return 1;
        at += len + (end != NULL);
    }
    return 0;
}

static int selected(const call_spec *s)
{
    char type[40];
    type_name(s, type, sizeof type);
    int skipped = opt.skip_layout != NULL &&
                  (strcmp(s->a->name, opt.skip_layout) == 0 ||
                   (s->b != NULL && strcmp(s->b->name, opt.skip_layout) == 0));
    return !skipped && selected_name(opt.coll, coll_names[s->coll]) &&
           selected_name(opt.type, type) &&
           (opt.count == LONG_MIN || opt.count == s->count_class) &&
           (opt.root < 0 || !is_rooted(s->coll) || opt.root == s->root);
}

static long calls_made;

static void print_call(const call_spec *s, int rank)
{
    if (!opt.verbose || rank != 0) return;
    char what[512];
    describe_spec(s, what, sizeof what);
    printf("  %s\n", what);
    fflush(stdout);
}

/* Run one call with MPI and with HSPLIT on the same input and compare: with
   each other, and MPI's result with the one computed here. */
static void check_call(const call_spec *s)
{
    if (!selected(s)) return;
    int rank, size;
    MPI_Comm_rank(s->comm, &rank);
    MPI_Comm_size(s->comm, &size);
    print_call(s, rank);
    call_args ref, got;
    prepare(s, rank, size, &ref);
    prepare(s, rank, size, &got);
    buffer sent = buffer_copy(&got.send);
    int rc_ref = invoke(&mpi_impl, s, &ref);
    int rc = invoke(&hsplit_impl, s, &got);
    calls_made++;
    record(rc_ref == MPI_SUCCESS, s, "the MPI collective itself failed: %s", error_text(rc_ref));
    record(rc == MPI_SUCCESS, s, "returned %s", error_text(rc));
    if (got.recv.alloc) {
        char what[64];
        snprintf(what, sizeof what, "receive buffer differs from MPI_%s's", call_names[s->coll]);
        compare(s, &got.recv, &ref.recv, what);
    }
    /* an allreduce result is the same everywhere: one process computes it */
    if (ref.recv.alloc && (s->coll != ALLREDUCE || rank == (int)(s->salt % (uint32_t)size))) {
        buffer want = expected_output(s, rank, size);
        compare(s, &ref.recv, &want, "MPI's own result differs from the expected one (test bug?)");
        buffer_free(&want);
    }
    if (sent.alloc) compare(s, &got.send, &sent, "send buffer modified");
    buffer_free(&sent);
    free_args(&ref);
    free_args(&got);
}

/* ---------------------------------------------------------------- test plans */

/* Which communicator, roots and count classes a plan covers. */
typedef struct {
    MPI_Comm comm;
    const char *name;
    int roots[MAX_ROOTS], nroots;
    long counts[5];
    int ncounts;
    int light; /* a few representative cases only */
} plan;

static uint32_t case_salt(coll_kind coll, const char *type, const char *op, long count_class)
{
    uint32_t h = mix((uint32_t)coll * 7919U + (uint32_t)count_class);
    for (const char *c = type; *c; c++) h = mix(h ^ (uint32_t)*c);
    for (const char *c = op ? op : ""; *c; c++) h = mix(h ^ (uint32_t)*c);
    return h;
}

/* Elements of l per message for a count class: a big message spans more than
   BIG_BYTES in all (the whole buffer of gather, scatter and allgather). */
static long elements(const layout *l, long count_class, coll_kind coll, int size)
{
    if (count_class != BIG) return count_class;
    long bytes = BIG_BYTES;
    if (coll == GATHER || coll == SCATTER || coll == ALLGATHER) bytes = BIG_BYTES / size;
    return bytes / type_bytes(l) + 3;
}

/* The variants of a type for data-movement collectives: predefined and
   derived types, one element of bigvec (count ints in one element), and
   mixed calls where odd ranks, or all ranks but on the root's side, use
   plain ints. */
enum { V_PLAIN, V_BIGVEC, V_MIXED, V_BIGVEC_MIXED, V_MIXED_ALL };

typedef struct {
    int layout; /* index in layouts[], for V_PLAIN and V_MIXED */
    int variant;
} move_case;

static const move_case moves[] = {
    {L_INT, V_PLAIN},    {L_DOUBLE, V_PLAIN}, {L_2INT, V_PLAIN}, {L_VEC, V_PLAIN},
    {L_NEGVEC, V_PLAIN}, {L_VEC3, V_PLAIN},   {L_MAT, V_PLAIN},  {L_INT, V_BIGVEC},
    {L_VEC, V_MIXED},    {L_NEGVEC, V_MIXED}, {L_VEC3, V_MIXED}, {L_INT, V_BIGVEC_MIXED},
    {L_VEC, V_MIXED_ALL},
};
enum { NMOVES = sizeof moves / sizeof moves[0] };

/* The cases a plan runs: all; a few for other communicators; and, for big
   messages in quick mode, one of each kind (predefined, derived, mixed,
   one element above a segment; a predefined and a non-commutative op). */
typedef struct {
    const move_case *moves;
    int nmoves;
    const reduction_case *reductions;
    int nreductions;
} case_set;

static const move_case few_moves[] = {{L_NEGVEC, V_PLAIN}, {L_VEC, V_MIXED},
                                      {L_VEC, V_MIXED_ALL}};
static const move_case big_moves[] = {{L_INT, V_PLAIN},        {L_NEGVEC, V_PLAIN},
                                      {L_INT, V_BIGVEC},       {L_VEC3, V_MIXED},
                                      {L_INT, V_BIGVEC_MIXED}, {L_VEC, V_MIXED_ALL}};
static const reduction_case few_reductions[] = {{L_MAT, OP_MATPROD}, {L_DOUBLE, OP_SUM}};

static const case_set all_cases = {moves, NMOVES, reductions, NREDUCTIONS};
static const case_set light_cases = {few_moves, 3, few_reductions, 2};
static const case_set quick_big_cases = {big_moves, 6, few_reductions, 2};

/* Run coll over the roots (if rooted) and in-place choices of a plan. */
static void over_roots(const plan *p, call_spec *s, int in_place_allowed)
{
    int nroots = is_rooted(s->coll) ? p->nroots : 1;
    for (int i = 0; i < nroots; i++) {
        s->root = is_rooted(s->coll) ? p->roots[i] : 0;
        for (s->in_place = 0; s->in_place <= in_place_allowed; s->in_place++) check_call(s);
    }
}

static int is_mixed(const move_case *m)
{
    return m->variant == V_MIXED || m->variant == V_BIGVEC_MIXED || m->variant == V_MIXED_ALL;
}

static void check_move(const plan *p, coll_kind coll, const move_case *m, long count_class)
{
    int size;
    MPI_Comm_size(p->comm, &size);
    layout big = {0}, *flat = &layouts[L_INT];
    call_spec s = {.coll = coll, .comm = p->comm, .comm_name = p->name,
                   .count_class = count_class, .junk = count_class == 7};
    long n = elements(&layouts[m->layout], count_class, coll, size);
    if (m->variant == V_BIGVEC || m->variant == V_BIGVEC_MIXED) {
        if (n == 0) return; /* no zero-length vector type */
        big = big_vector(n);
        s.a = &big;
        s.a_count = 1;
    } else {
        s.a = &layouts[m->layout];
        s.a_count = n;
    }
    if (is_mixed(m)) {
        s.b = flat;
        s.b_count = s.a_count * s.a->ncomp;
        s.b_everywhere = m->variant == V_MIXED_ALL;
    }
    s.salt = case_salt(coll, s.a->name, s.b ? "mixed" : NULL, count_class);
    over_roots(p, &s, coll != BCAST);
    if (big.derived) layout_free(&big);
}

static void check_reduction(const plan *p, coll_kind coll, const reduction_case *r,
                            long count_class)
{
    int size;
    MPI_Comm_size(p->comm, &size);
    const layout *l = &layouts[r->layout];
    /* reduce and allreduce share inputs, so the expected result is computed once */
    call_spec s = {.coll = coll, .comm = p->comm, .comm_name = p->name, .a = l,
                   .a_count = elements(l, count_class, coll, size), .count_class = count_class,
                   .op = &ops[r->op],
                   .salt = case_salt(REDUCE, l->name, ops[r->op].name, count_class)};
    over_roots(p, &s, 1);
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void section_done(MPI_Comm comm, const char *name, double start, long calls)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    (void)comm;
    if (rank == 0) {
        printf("%-28s %6ld calls %8.2f s\n", name, calls, seconds() - start);
        fflush(stdout);
    }
}


/* Data movement with one type map (mixed = 0) or two (mixed = 1). */
static void run_moves(const plan *p, const case_set *set, long count_class, coll_kind coll,
                      int mixed)
{
    for (int i = 0; i < set->nmoves; i++)
        if (is_mixed(&set->moves[i]) == mixed) check_move(p, coll, &set->moves[i], count_class);
}

/* One count class: data movement with one type map and reductions
   (mixed = 0), or data movement with two type maps (mixed = 1). */
static void run_cases(const plan *p, const case_set *set, long count_class, int mixed)
{
    static const coll_kind moving[] = {BCAST, GATHER, SCATTER, ALLGATHER};
    run_moves(p, set, count_class, BCAST, mixed);
    for (int i = 0; i < set->nreductions && !mixed; i++) {
        check_reduction(p, REDUCE, &set->reductions[i], count_class);
        check_reduction(p, ALLREDUCE, &set->reductions[i], count_class);
    }
    for (int k = 1; k < 4; k++) run_moves(p, set, count_class, moving[k], mixed);
}

static void run_plan(const plan *p, int mixed)
{
    for (int c = 0; c < p->ncounts; c++) {
        const case_set *set = p->light ? &light_cases
                              : opt.quick && p->counts[c] == BIG ? &quick_big_cases
                                                                 : &all_cases;
        run_cases(p, set, p->counts[c], mixed);
    }
}

/* A rank that is not rank 0 of its first-level hsplit communicator (the
   node level when there are several nodes), preferably above size/2:
   non-leader roots take other paths through a hierarchy. -1 if none. */
static int pick_nonleader(MPI_Comm comm)
{
    int rank, size, local = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (size == 1) return -1;
    MPI_Comm level = MPI_COMM_NULL, roots = MPI_COMM_NULL;
    int rc = HSPLIT_Comm_hsplit_with_roots(comm, MPI_INFO_NULL, &level, &roots);
    record(rc == MPI_SUCCESS, NULL, "HSPLIT_Comm_hsplit_with_roots: %s", error_text(rc));
    if (level != MPI_COMM_NULL) MPI_Comm_rank(level, &local);
    int mine[2] = {local > 0 && rank > size / 2 ? rank : INT_MAX, local > 0 ? rank : INT_MAX};
    int best[2];
    MPI_Allreduce(mine, best, 2, MPI_INT, MPI_MIN, comm);
    if (level != MPI_COMM_NULL) MPI_Comm_free(&level);
    if (roots != MPI_COMM_NULL) MPI_Comm_free(&roots);
    int pick = best[0] != INT_MAX ? best[0] : best[1];
    return pick == INT_MAX ? -1 : pick;
}

static void add_root(plan *p, int root)
{
    if (root < 0) return;
    for (int i = 0; i < p->nroots; i++)
        if (p->roots[i] == root) return;
    if (p->nroots < MAX_ROOTS) p->roots[p->nroots++] = root;
}

/* Every root up to 8 processes, else 0, 1, size/2, size-1 and a non-leader;
   quick or light: 0, size-1 and a non-leader. */
static plan make_plan(MPI_Comm comm, const char *name, int light)
{
    light |= opt.light;
    plan p = {.comm = comm, .name = name, .light = light};
    int size, few = light || opt.quick;
    MPI_Comm_size(comm, &size);
    int nonleader = pick_nonleader(comm);
    if (size <= MAX_ROOTS && !few) {
        for (int r = 0; r < size; r++) add_root(&p, r);
    } else {
        add_root(&p, 0);
        if (!few) add_root(&p, 1);
        if (!few) add_root(&p, size / 2);
        add_root(&p, size - 1);
    }
    add_root(&p, nonleader);
    static const long all[] = {0, 1, 7, 1000, BIG}, quick[] = {0, 7, 1000, BIG},
                      lightc[] = {0, 7, 1000};
    const long *c = light ? lightc : opt.quick ? quick : all;
    p.ncounts = light ? 3 : opt.quick ? 4 : 5;
    memcpy(p.counts, c, sizeof(long) * (size_t)p.ncounts);
    return p;
}

/* ---------------------------------------------------------------- barrier */

static int same_host; /* all processes on one host: one clock for all */

static void find_same_host(void)
{
    char name[MPI_MAX_PROCESSOR_NAME] = "", first[MPI_MAX_PROCESSOR_NAME] = "";
    int len, differ;
    MPI_Get_processor_name(name, &len);
    memcpy(first, name, sizeof name);
    MPI_Bcast(first, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
    int mine = strcmp(first, name) != 0;
    MPI_Allreduce(&mine, &differ, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    same_host = !differ;
}

static void sleep_seconds(double s)
{
    struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&t, NULL);
}

/* Process late enters 0.2 s after the others: nobody may leave before it
   entered. On one host CLOCK_MONOTONIC is shared, so enter and leave times
   compare across processes; elsewhere each process must have waited. */
static void check_barrier_once(MPI_Comm comm, const char *name, int late)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    call_spec s = {.coll = BARRIER, .comm = comm, .comm_name = name, .a = &layouts[L_INT],
                   .root = late};
    MPI_Barrier(comm);
    if (rank == late) sleep_seconds(0.2);
    double t[2];
    t[0] = seconds();
    int rc = HSPLIT_Barrier(comm);
    t[1] = seconds();
    record(rc == MPI_SUCCESS, &s, "returned %s", error_text(rc));
    double *all = malloc(sizeof(double) * 2 * (size_t)size);
    MPI_Gather(t, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, comm);
    if (rank == 0 && same_host) {
        int early = -1;
        for (int r = 0; r < size; r++)
            if (all[2 * r + 1] + 1e-4 < all[2 * late] && early < 0) early = r;
        record(early < 0, &s, "rank %d left %.3f s before rank %d (late) entered", early,
               early < 0 ? 0.0 : all[2 * late] - all[2 * early + 1], late);
    }
    if (!same_host && rank != late)
        record(t[1] - t[0] > 0.1, &s, "left after %.3f s, the late process slept 0.2 s",
               t[1] - t[0]);
    free(all);
}

static void check_barrier(MPI_Comm comm, const char *name, int full)
{
    if (!selected_name(opt.coll, "barrier")) return;
    int size;
    MPI_Comm_size(comm, &size);
    call_spec s = {.coll = BARRIER, .comm = comm, .comm_name = name, .a = &layouts[L_INT]};
    for (int i = 0; i < 20; i++) { /* repeated calls return at once and succeed */
        int rc = HSPLIT_Barrier(comm);
        record(rc == MPI_SUCCESS, &s, "returned %s", error_text(rc));
    }
    if (size == 1) return;
    check_barrier_once(comm, name, size - 1);
    if (!full) return;
    check_barrier_once(comm, name, 0);
    int nonleader = pick_nonleader(comm);
    if (nonleader > 0 && nonleader != size - 1) check_barrier_once(comm, name, nonleader);
}

/* ---------------------------------------------------------------- communicators */

/* The plan of comm, with one type map per call (and Barrier) or two. */
static void run_on(MPI_Comm comm, const char *name, int light, int mixed)
{
    double start = seconds();
    long calls = calls_made;
    if (comm != MPI_COMM_NULL) {
        plan p = make_plan(comm, name, light);
        run_plan(&p, mixed);
        if (!mixed) check_barrier(comm, name, !light);
    }
    char label[64];
    snprintf(label, sizeof label, "%s%s", name, mixed ? ", mixed types" : "");
    section_done(comm, label, start, calls_made - calls);
}

/* Small calls on comm, for the tests that make and free communicators. */
static void few_calls(MPI_Comm comm, const char *name, int i)
{
    int size;
    MPI_Comm_size(comm, &size);
    call_spec s = {.comm = comm, .comm_name = name, .count_class = 7, .a_count = 7,
                   .salt = (uint32_t)i};
    s.coll = ALLREDUCE, s.a = &layouts[L_MAT], s.op = &ops[OP_MATPROD];
    check_call(&s);
    s.op = NULL;
    s.coll = BCAST, s.a = &layouts[L_NEGVEC], s.root = i % size;
    check_call(&s);
    s.coll = GATHER, s.root = size - 1 - i % size, s.in_place = i % 2;
    check_call(&s);
    s.coll = ALLGATHER, s.a = &layouts[L_INT];
    check_call(&s);
}

/* The same communicator again and again, inputs changing each time. */
static void check_repeated(void)
{
    double start = seconds();
    long calls = calls_made;
    int times = opt.light ? 10 : 50;
    for (int i = 0; i < times; i++) few_calls(MPI_COMM_WORLD, "world(repeated)", 1000 + i);
    section_done(MPI_COMM_WORLD, "world, repeated calls", start, calls_made - calls);
}

/* Communicators made, used once and freed: 20 times (6 with --light, enough
   for valgrind's leak check to see a hierarchy not freed), duplicates and
   splits in reversed order. */
static void check_many_comms(void)
{
    double start = seconds();
    long calls = calls_made;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int times = opt.light ? 6 : 20;
    for (int i = 0; i < times; i++) {
        MPI_Comm comm;
        if (i % 2) MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        else MPI_Comm_split(MPI_COMM_WORLD, rank % 3, size - rank, &comm);
        few_calls(comm, i % 2 ? "dup(world)" : "split(world,rank%3,reversed)", i);
        MPI_Comm_free(&comm);
    }
    section_done(MPI_COMM_WORLD, "many communicators", start, calls_made - calls);
}

/* A hierarchy cached on a communicator must neither outlive it nor be shared
   wrongly: a duplicate of a used communicator is used after the original is
   freed, and new communicators (which may reuse the freed handles) get their
   own hierarchy. */
static void check_after_free(void)
{
    double start = seconds();
    long calls = calls_made;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm half, copy, reversed;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    few_calls(half, "split(world,rank%2)", 1);
    MPI_Comm_dup(half, &copy);
    MPI_Comm_free(&half);
    few_calls(copy, "dup(freed split)", 2);
    MPI_Comm_free(&copy);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
    few_calls(reversed, "reversed(after free)", 3);
    MPI_Comm_free(&reversed);
    MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &half);
    few_calls(half, "split(world,halves)", 4);
    MPI_Comm_free(&half);
    section_done(MPI_COMM_WORLD, "after free", start, calls_made - calls);
}

/* Communicators whose rank order differs from the nodes' (non-commutative
   operations must follow it), subsets, hsplit's own levels, and SELF. */
static void check_other_comms(int mixed)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm reversed, parity, level = MPI_COMM_NULL, roots = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
    run_on(reversed, "reversed(world)", 1, mixed);
    MPI_Comm_free(&reversed);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &parity);
    run_on(parity, "split(world,rank%2)", 1, mixed);
    MPI_Comm_free(&parity);
    int rc = HSPLIT_Comm_hsplit_with_roots(MPI_COMM_WORLD, MPI_INFO_NULL, &level, &roots);
    record(rc == MPI_SUCCESS, NULL, "HSPLIT_Comm_hsplit_with_roots: %s", error_text(rc));
    run_on(level, "hsplit level 1", 1, mixed);
    run_on(roots, "hsplit roots 1", 1, mixed);
    if (level != MPI_COMM_NULL) MPI_Comm_free(&level);
    if (roots != MPI_COMM_NULL) MPI_Comm_free(&roots);
    run_on(MPI_COMM_SELF, "self", 1, mixed);
}

static void print_summary(void)
{
    long total[NKINDS];
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Reduce(failures_by_kind, total, NKINDS, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank != 0) return;
    for (int k = 0; k < NKINDS; k++)
        if (total[k]) printf("failures in %s: %ld\n", coll_names[k], total[k]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    parse_options(argc, argv);
    /* failed calls are reported, not fatal (new communicators inherit this) */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    make_layouts();
    make_ops();
    find_same_host();

    run_on(MPI_COMM_WORLD, "world", 0, 0);
    check_repeated();
    check_many_comms();
    check_after_free();
    check_other_comms(0);
    /* type maps that differ between processes come last: where they are
       mishandled, processes disagree on messages and may hang, and all the
       rest has been reported by then */
    run_on(MPI_COMM_WORLD, "world", 0, 1);
    check_other_comms(1);

    buffer_free(&reduction_cache.result);
    for (int i = 0; i < NLAYOUTS; i++) layout_free(&layouts[i]);
    MPI_Op_free(&ops[OP_VSUM].op);
    MPI_Op_free(&ops[OP_MATPROD].op);
    print_summary();
    return test_finish();
}
