/* SPDX-License-Identifier: BSD-3-Clause */
/* HSPLIT_Alltoall and HSPLIT_Alltoallv against MPI's own on the same input.

   Every call runs on the same communicator and input as MPI_Alltoall or
   MPI_Alltoallv and must leave the very same bytes: memcmp of the whole
   receive buffer, guard bytes and the gaps of strided types and between
   blocks included, and the send buffer unchanged. Both results are also
   compared with the bytes computed here from the inputs (value = hash of the
   source rank, the destination rank and the index in the block), so that a
   wrong expectation cannot pass.

   Covered: MPI_COMM_WORLD, a reversed-rank communicator and an hsplit level;
   counts 0, 1, 7, 1000 and about 1 MiB per process in all (MPI_INT and the
   mixed type maps); MPI_INT,
   MPI_DOUBLE, a strided vector (gaps inside and between elements) and type
   maps that differ between processes with equal signatures (pairs of ints
   sent, vectors received, and the other way round); MPI_IN_PLACE; for
   alltoallv counts that differ per pair (zeros, a process that sends and
   receives nothing), displacements out of order with gaps; repeated calls
   (count 7, three times).

   Usage: test_coll_alltoall [--light] [--errors]
     --light   counts 0, 7 and 1000, MPI_INT and the mixed type maps, world
               and the hsplit level (many processes, MPICH oversubscribed)
     --errors  the erroneous arguments instead: negative counts
               (MPI_ERR_COUNT), MPI_DATATYPE_NULL (MPI_ERR_TYPE), MPI_IN_PLACE
               as recvbuf (MPI_ERR_ARG, also on one process only, the others
               completing), MPI_COMM_NULL and an intercommunicator
               (MPI_ERR_COMM): the class on every process, the handler once,
               the communicator working after. */
#include <stdint.h>
#include "test_util.h"
#include "test_errhandler.h"

enum { GUARD = 64, RECV_FILL = 0xA5, SEND_FILL = 0x5A, BIG = -1 };

static int light;

/* ------------------------------------------------------------ datatypes */

/* How a process lays out the basic values of its elements: value c of
   element e at e * extent + c * stride. */
typedef struct {
    MPI_Datatype type;
    int is_double, ncomp;
    MPI_Aint stride, extent;
} side;

typedef struct {
    const char *name;
    side even_send, even_recv, odd_send, odd_recv; /* by comm rank parity */
} type_case;

static side int_side = {MPI_INT, 0, 1, 0, sizeof(int)};
static side double_side = {MPI_DOUBLE, 1, 1, 0, sizeof(double)};
static side vec_side, pair_side;

static void make_types(void)
{
    MPI_Datatype vec;
    /* two ints 12 bytes apart, elements 20 bytes apart: gaps in and between */
    MPI_Type_vector(2, 1, 3, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, 20, &vec_side.type);
    MPI_Type_free(&vec);
    MPI_Type_commit(&vec_side.type);
    vec_side.ncomp = 2;
    vec_side.stride = 12;
    vec_side.extent = 20;
    MPI_Type_contiguous(2, MPI_INT, &pair_side.type);
    MPI_Type_commit(&pair_side.type);
    pair_side.ncomp = 2;
    pair_side.stride = sizeof(int);
    pair_side.extent = 2 * sizeof(int);
}

static void free_types(void)
{
    MPI_Type_free(&vec_side.type);
    MPI_Type_free(&pair_side.type);
}

/* ------------------------------------------------------------ values */

static uint32_t hash(int src, int dst, long k)
{
    uint32_t h = (uint32_t)src * 2654435761u ^ ((uint32_t)dst + 0x9e37u) * 40503u ^
                 (uint32_t)k * 2246822519u;
    h ^= h >> 15;
    h *= 2654435769u;
    return h ^ (h >> 13);
}

/* Writes the values from src to dst into count elements at element first. */
static void put_block(char *buf, const side *s, long first, int count, int src, int dst)
{
    for (long e = 0; e < count; e++)
        for (int c = 0; c < s->ncomp; c++) {
            char *at = buf + (first + e) * s->extent + c * s->stride;
            uint32_t v = hash(src, dst, e * s->ncomp + c);
            if (s->is_double) {
                double d = (double)(v % 1000003u);
                memcpy(at, &d, sizeof d);
            } else {
                int i = (int)(v & 0x3fffffff);
                memcpy(at, &i, sizeof i);
            }
        }
}

/* A buffer of elems elements with guard bytes, all bytes `fill`; returns
   the data's start (the allocation is at minus GUARD). */
static char *guarded(long elems, const side *s, int fill, size_t *bytes)
{
    *bytes = (size_t)elems * (size_t)s->extent + 2 * GUARD;
    char *base = malloc(*bytes);
    memset(base, fill, *bytes);
    return base + GUARD;
}

/* ------------------------------------------------------------ counts */

/* Elements from src to dst for count class C: alltoall the same for every
   pair; alltoallv different per pair with zeros, the last process (of 3 and
   more) sending nothing, symmetric in place (MPI's rule: what i sends j is
   what j receives from i, both read from recvcounts). */
static int pair_count(int v, int in_place, int C, int src, int dst, int n)
{
    if (!v || C == 0) return C;
    if (in_place) return (src + dst) % 3 == 0 ? 0 : C + (src + dst) % 2;
    if (n > 2 && src == n - 1) return 0;
    return (src + 2 * dst) % 3 == 0 ? 0 : C + (src * 5 + dst) % 3;
}

typedef struct {
    int *scnt, *sdsp, *rcnt, *rdsp;
    long selems, relems; /* elements the buffers span */
} plan;

static void make_plan(plan *p, int v, int in_place, int C, int me, int n)
{
    p->scnt = malloc(sizeof(int) * 4 * (size_t)n);
    p->sdsp = p->scnt + n;
    p->rcnt = p->scnt + 2 * n;
    p->rdsp = p->scnt + 3 * n;
    long at = 0;
    /* alltoall: blocks in rank order, no gaps; alltoallv: send blocks in
       reverse rank order with 1-element gaps, receive blocks rotated by the
       rank with 2-element gaps */
    for (int j = 0; j < n; j++) {
        int d = v ? n - 1 - j : j;
        p->scnt[d] = pair_count(v, in_place, C, me, d, n);
        p->sdsp[d] = (int)at;
        at += p->scnt[d] + (v ? 1 : 0);
    }
    p->selems = at;
    at = 0;
    for (int j = 0; j < n; j++) {
        int s = v ? (j + me) % n : j;
        p->rcnt[s] = pair_count(v, in_place, C, s, me, n);
        p->rdsp[s] = (int)at;
        at += p->rcnt[s] + (v ? 2 : 0);
    }
    p->relems = at;
}

/* ------------------------------------------------------------ one case */

static const char *comm_name;

static void run_case(MPI_Comm comm, int v, const type_case *tc, int C, int in_place, int repeat)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    const side *ss = me % 2 ? &tc->odd_send : &tc->even_send;
    const side *rs = me % 2 ? &tc->odd_recv : &tc->even_recv;
    if (C == BIG) C = (1 << 18) / n / ss->ncomp; /* about 1 MiB per process */
    plan p;
    make_plan(&p, v, in_place, C, me, n);
    size_t sbytes, rbytes;
    char *send = guarded(p.selems, ss, SEND_FILL, &sbytes);
    char *send_copy = malloc(sbytes);
    char *mine = guarded(p.relems, rs, RECV_FILL, &rbytes);
    char *theirs = guarded(p.relems, rs, RECV_FILL, &rbytes);
    char *expect = guarded(p.relems, rs, RECV_FILL, &rbytes);
    for (int d = 0; d < n; d++) put_block(send, ss, p.sdsp[d], p.scnt[d], me, d);
    for (int s = 0; s < n; s++) put_block(expect, rs, p.rdsp[s], p.rcnt[s], s, me);
    memcpy(send_copy, send - GUARD, sbytes);
    for (int r = 0; r < repeat; r++) {
        memset(mine - GUARD, RECV_FILL, rbytes);
        memset(theirs - GUARD, RECV_FILL, rbytes);
        if (in_place) /* the data to send, where it would be received */
            for (int d = 0; d < n; d++) {
                put_block(mine, rs, p.rdsp[d], p.rcnt[d], me, d);
                put_block(theirs, rs, p.rdsp[d], p.rcnt[d], me, d);
            }
        const void *sb = in_place ? MPI_IN_PLACE : send;
        int rc_h, rc_m;
        if (v) {
            rc_h = HSPLIT_Alltoallv(sb, p.scnt, p.sdsp, ss->type, mine, p.rcnt, p.rdsp,
                                    rs->type, comm);
            rc_m = MPI_Alltoallv(sb, p.scnt, p.sdsp, ss->type, theirs, p.rcnt, p.rdsp,
                                 rs->type, comm);
        } else {
            rc_h = HSPLIT_Alltoall(sb, C, ss->type, mine, C, rs->type, comm);
            /* Open MPI 4.1's Bruck MPI_Alltoall (small blocks, a dozen
               processes and more) corrupts memory when type maps differ
               between processes: MPI's reference is then its alltoallv of
               the same blocks */
            rc_m = ss->type != rs->type
                       ? MPI_Alltoallv(sb, p.scnt, p.sdsp, ss->type, theirs, p.rcnt, p.rdsp,
                                       rs->type, comm)
                       : MPI_Alltoall(sb, C, ss->type, theirs, C, rs->type, comm);
        }
        const char *what = v ? "alltoallv" : "alltoall";
        CHECK(rc_h == MPI_SUCCESS, "%s %s %s count %d%s: rc %d", what, comm_name, tc->name, C,
              in_place ? " in place" : "", rc_h);
        CHECK(rc_m == MPI_SUCCESS, "MPI %s rc %d", what, rc_m);
        CHECK(memcmp(mine - GUARD, theirs - GUARD, rbytes) == 0,
              "%s %s %s count %d%s (call %d): differs from MPI's", what, comm_name, tc->name, C,
              in_place ? " in place" : "", r);
        CHECK(memcmp(theirs - GUARD, expect - GUARD, rbytes) == 0,
              "MPI's %s %s %s count %d%s: differs from the values expected", what, comm_name,
              tc->name, C, in_place ? " in place" : "");
        CHECK(memcmp(mine - GUARD, expect - GUARD, rbytes) == 0,
              "%s %s %s count %d%s (call %d): differs from the values expected", what,
              comm_name, tc->name, C, in_place ? " in place" : "", r);
        CHECK(memcmp(send - GUARD, send_copy, sbytes) == 0, "%s: send buffer changed", what);
    }
    free(send - GUARD);
    free(send_copy);
    free(mine - GUARD);
    free(theirs - GUARD);
    free(expect - GUARD);
    free(p.scnt);
}

static void run_comm(MPI_Comm comm, const char *name)
{
    if (comm == MPI_COMM_NULL) return;
    comm_name = name;
    type_case cases[] = {
        {"int", int_side, int_side, int_side, int_side},
        {"mixed", pair_side, vec_side, vec_side, pair_side},
        {"double", double_side, double_side, double_side, double_side},
        {"vector", vec_side, vec_side, vec_side, vec_side},
    };
    static const int counts[] = {0, 1, 7, 1000, BIG}, light_counts[] = {0, 7, 1000};
    int ncases = light ? 2 : 4;
    const int *cl = light ? light_counts : counts;
    int ncounts = light ? 3 : 5;
    for (int t = 0; t < ncases; t++)
        for (int c = 0; c < ncounts; c++)
            for (int v = 0; v < 2; v++)
                for (int in_place = 0; in_place < 2; in_place++) {
                    /* in place, one type on both sides (MPI uses recvtype) */
                    if (in_place && cases[t].even_send.type != cases[t].even_recv.type) continue;
                    /* about 1 MiB per process: the int and mixed cases (time) */
                    if (cl[c] == BIG && t >= 2) continue;
                    run_case(comm, v, &cases[t], cl[c], in_place, cl[c] == 7 && !light ? 3 : 1);
                }
}

/* ------------------------------------------------------------ errors */

/* Every process passes the same bad argument. */
static void check_errors(MPI_Comm comm, MPI_Errhandler handler)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    int *sb = calloc((size_t)n * 4, sizeof(int)), *rb = calloc((size_t)n * 4, sizeof(int));
    int *ones = malloc(sizeof(int) * 4 * (size_t)n), *displs = ones + n, *bad = ones + 2 * n,
        *bad_displs = ones + 3 * n;
    for (int i = 0; i < n; i++) {
        ones[i] = 1;
        displs[i] = i;
        bad[i] = i == n - 1 ? -1 : 1;
        bad_displs[i] = i;
    }
    /* a first good call: the settings are read, the fast paths ready */
    CHECK_INT(HSPLIT_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, comm), MPI_SUCCESS);
    CHECK_ERROR(HSPLIT_Alltoall(sb, -1, MPI_INT, rb, 1, MPI_INT, comm), MPI_ERR_COUNT);
    CHECK_ERROR(HSPLIT_Alltoall(sb, 1, MPI_INT, rb, -1, MPI_INT, comm), MPI_ERR_COUNT);
    CHECK_ERROR(HSPLIT_Alltoall(sb, 1, MPI_DATATYPE_NULL, rb, 1, MPI_INT, comm), MPI_ERR_TYPE);
    CHECK_ERROR(HSPLIT_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_DATATYPE_NULL, comm), MPI_ERR_TYPE);
    CHECK_ERROR(HSPLIT_Alltoall(sb, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, comm), MPI_ERR_ARG);
    CHECK_ERROR(HSPLIT_Alltoall(MPI_IN_PLACE, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, comm),
                MPI_ERR_ARG);
    CHECK_ERROR(HSPLIT_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, MPI_COMM_NULL), MPI_ERR_COMM);
    CHECK_ERROR(HSPLIT_Alltoallv(sb, bad, displs, MPI_INT, rb, ones, displs, MPI_INT, comm),
                MPI_ERR_COUNT);
    CHECK_ERROR(HSPLIT_Alltoallv(sb, ones, displs, MPI_INT, rb, bad, bad_displs, MPI_INT, comm),
                MPI_ERR_COUNT);
    CHECK_ERROR(HSPLIT_Alltoallv(sb, ones, displs, MPI_DATATYPE_NULL, rb, ones, displs, MPI_INT,
                                 comm), MPI_ERR_TYPE);
    CHECK_ERROR(HSPLIT_Alltoallv(sb, ones, displs, MPI_INT, rb, ones, displs, MPI_DATATYPE_NULL,
                                 comm), MPI_ERR_TYPE);
    CHECK_ERROR(HSPLIT_Alltoallv(sb, ones, displs, MPI_INT, MPI_IN_PLACE, ones, displs, MPI_INT,
                                 comm), MPI_ERR_ARG);
    CHECK_ERROR(HSPLIT_Alltoallv(MPI_IN_PLACE, ones, displs, MPI_INT, MPI_IN_PLACE, ones, displs,
                                 MPI_INT, comm), MPI_ERR_ARG);
    CHECK_ERROR(HSPLIT_Alltoallv(sb, ones, displs, MPI_INT, rb, ones, displs, MPI_INT,
                                 MPI_COMM_NULL), MPI_ERR_COMM);
    if (n >= 2) { /* an intercommunicator between the even and the odd ranks */
        MPI_Comm half, inter;
        MPI_Comm_split(comm, me % 2, me, &half);
        MPI_Intercomm_create(half, 0, comm, me % 2 == 0 ? 1 : 0, 7, &inter);
        MPI_Comm_set_errhandler(inter, handler);
        CHECK_ERROR(HSPLIT_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, inter), MPI_ERR_COMM);
        CHECK_ERROR(HSPLIT_Alltoallv(sb, ones, displs, MPI_INT, rb, ones, displs, MPI_INT, inter),
                    MPI_ERR_COMM);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    /* MPI_IN_PLACE as recvbuf on process 0 only: it fails, the others
       complete with its data */
    for (int v = 0; v < 2; v++) {
        for (int i = 0; i < n; i++) {
            sb[i] = (int)(hash(me, i, 0) & 0xffff);
            rb[i] = -1;
        }
        int rc = v ? HSPLIT_Alltoallv(sb, ones, displs, MPI_INT, me == 0 ? MPI_IN_PLACE : rb,
                                      ones, displs, MPI_INT, comm)
                   : HSPLIT_Alltoall(sb, 1, MPI_INT, me == 0 ? MPI_IN_PLACE : rb, 1, MPI_INT,
                                     comm);
        if (me == 0) {
            CHECK(error_class(rc) == MPI_ERR_ARG, "in place recvbuf on rank 0: class %d",
                  error_class(rc));
        } else {
            CHECK_INT(rc, MPI_SUCCESS);
            for (int s = 0; s < n; s++)
                CHECK(rb[s] == (int)(hash(s, me, 0) & 0xffff), "v %d: from %d got %d", v, s,
                      rb[s]);
        }
    }
    /* still working, with results */
    for (int v = 0; v < 2; v++) {
        for (int i = 0; i < n; i++) {
            sb[i] = me * 1000 + i;
            rb[i] = -1;
        }
        int rc = v ? HSPLIT_Alltoallv(sb, ones, displs, MPI_INT, rb, ones, displs, MPI_INT, comm)
                   : HSPLIT_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, comm);
        CHECK_INT(rc, MPI_SUCCESS);
        for (int s = 0; s < n; s++)
            CHECK(rb[s] == s * 1000 + me, "after errors, v %d: from %d got %d", v, s, rb[s]);
    }
    free(sb);
    free(rb);
    free(ones);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int errors = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--light") == 0) light = 1;
        else if (strcmp(argv[i], "--errors") == 0) errors = 1;
        else {
            fprintf(stderr, "usage: test_coll_alltoall [--light] [--errors]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (errors) {
        MPI_Errhandler handler;
        MPI_Comm_create_errhandler(counting_handler, &handler);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, handler);
        check_errors(MPI_COMM_WORLD, handler);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        MPI_Errhandler_free(&handler);
        return test_finish();
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    make_types();
    run_comm(MPI_COMM_WORLD, "world");
    if (!light) {
        MPI_Comm reversed;
        MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &reversed);
        MPI_Comm_set_errhandler(reversed, MPI_ERRORS_RETURN);
        run_comm(reversed, "reversed");
        MPI_Comm_free(&reversed);
    }
    MPI_Comm level = MPI_COMM_NULL, roots = MPI_COMM_NULL;
    CHECK_INT(HSPLIT_Comm_hsplit_with_roots(MPI_COMM_WORLD, MPI_INFO_NULL, &level, &roots),
              MPI_SUCCESS);
    if (level != MPI_COMM_NULL) MPI_Comm_set_errhandler(level, MPI_ERRORS_RETURN);
    run_comm(level, "level");
    if (level != MPI_COMM_NULL) MPI_Comm_free(&level);
    if (roots != MPI_COMM_NULL) MPI_Comm_free(&roots);
    free_types();
    return test_finish();
}
