/* SPDX-License-Identifier: BSD-3-Clause */
/* The multi-leader schedules (coll_multileader.c), called directly on the
   hierarchy of MPI_COMM_WORLD and of a communicator with its ranks shuffled
   (groups that are no ranges of ranks, and carriers of different slices
   ranked differently across the groups): bcast, reduce, allreduce and
   allgather byte for byte against MPI's own call on the same communicator
   and against values computed here, for every root, counts 0, 1, 2, 3, 7,
   1000 (and 70000 ints), int, double and a strided vector (gaps that must
   stay untouched), MPI_IN_PLACE, MPI_SUM and MPI_MAX (the vector: the same
   as commutative user operations); processes giving
   different datatypes of one signature (bcast, allgather); a
   non-commutative operation refused by reduce. Options: --light (first and
   last roots only), --pieces N (the number of slices the layout must give),
   --cross mpi|rd|rab|ring (the algorithm of the step across the nodes).

   --levels all|net: the multi-leader allreduce and bcast over several
   levels (coll_ml_levels.c) instead, their cases only; --stages SPEC: the stages it
   must make on MPI_COMM_WORLD, written by hand from the layout: stages
   separated by '/', the last one the carriers across the top; a stage is
   PIECES:GROUP|GROUP|..., the top GROUP|GROUP|..., a group its world ranks
   separated by ','; a process in no group of a stage carries nothing
   there. */
#include <stdint.h>
#include "hsplit_internal.h"
#include "test_util.h"

enum { T_INT, T_DOUBLE, T_VECTOR, NTYPES };
static const char *type_names[NTYPES] = {"int", "double", "vector"};
static MPI_Datatype types[NTYPES];
/* MPI_SUM and MPI_MAX as commutative user operations, for the vector (Open
   MPI 4.1 refuses predefined operations on derived datatypes) */
static MPI_Op vector_sum, vector_max;
static const long counts[] = {0, 1, 2, 3, 7, 1000};
#define NCOUNTS ((int)(sizeof counts / sizeof counts[0]))
#define GAP 0xA5
/* the schedules' step across the nodes (--cross) */
static int cross = HSPLIT_SHAPE_MPI;
/* --levels: HSPLIT_ML_ALL or HSPLIT_ML_NET, -1: the two-level schedules */
static int levels = -1;

static int allreduce_under_test(hsplit_hierarchy *h, const void *sendbuf, void *recvbuf,
                                int count, MPI_Datatype datatype, MPI_Op op)
{
    if (levels >= 0)
        return hsplit_ml_levels_allreduce(h, levels, sendbuf, recvbuf, count, datatype, op, cross);
    return hsplit_ml_allreduce(h, sendbuf, recvbuf, count, datatype, op, cross);
}

static int bcast_under_test(hsplit_hierarchy *h, void *buf, int count, MPI_Datatype datatype,
                            int root)
{
    if (levels >= 0) return hsplit_ml_levels_bcast(h, levels, buf, count, datatype, root, cross);
    return hsplit_ml_bcast(h, buf, count, datatype, root, cross);
}

/* Basic values per element: the vector holds two ints, 3 ints apart
   (extent 16 bytes, 8 of data). */
static int values_per(int t) { return t == T_VECTOR ? 2 : 1; }

static size_t span_of(int t, long count)
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(types[t], &lb, &extent);
    return count > 0 ? (size_t)(count * extent) : 1;
}

/* Basic value s of a buffer of type t (the element's values in order). */
static void set_value(char *buf, int t, long s, int v)
{
    if (t == T_INT) ((int *)(void *)buf)[s] = v;
    else if (t == T_DOUBLE) ((double *)(void *)buf)[s] = (double)v;
    else ((int *)(void *)buf)[(s / 2) * 4 + 3 * (s % 2)] = v;
}

/* The input of rank r, basic value s: small, so that sums are exact. */
static int input_value(int r, long s, unsigned seed)
{
    return (int)((unsigned long)(r * 131L + s * 31L + seed * 17L) % 97UL) - 48;
}

/* count elements of type t holding rank r's values (gaps GAP). */
static char *filled(int t, long count, int r, unsigned seed)
{
    size_t span = span_of(t, count);
    char *b = malloc(span);
    memset(b, GAP, span);
    for (long s = 0; s < count * values_per(t); s++) set_value(b, t, s, input_value(r, s, seed));
    return b;
}

/* The combination of all n ranks' inputs (sum or max). */
static char *combined(int t, long count, int n, int max, unsigned seed)
{
    size_t span = span_of(t, count);
    char *b = malloc(span);
    memset(b, GAP, span);
    for (long s = 0; s < count * values_per(t); s++) {
        int acc = input_value(0, s, seed);
        for (int r = 1; r < n; r++) {
            int x = input_value(r, s, seed);
            acc = max ? (x > acc ? x : acc) : acc + x;
        }
        set_value(b, t, s, acc);
    }
    return b;
}

static void vector_combine(void *in, void *inout, int *len, int max)
{
    for (int i = 0; i < *len; i++)
        for (int k = 0; k < 2; k++) {
            int x = ((int *)in)[i * 4 + 3 * k], *acc = &((int *)inout)[i * 4 + 3 * k];
            *acc = max ? (x > *acc ? x : *acc) : *acc + x;
        }
}
static void vector_sum_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    vector_combine(in, inout, len, 0);
}
static void vector_max_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    vector_combine(in, inout, len, 1);
}

static MPI_Op op_of(int t, int max)
{
    if (t == T_VECTOR) return max ? vector_max : vector_sum;
    return max ? MPI_MAX : MPI_SUM;
}

typedef struct {
    MPI_Comm comm;
    hsplit_hierarchy *h;
    int rank, size, light;
    const char *name;
} setup;

static void same_bytes(const setup *e, const char *what, const void *got, const void *expected,
                       size_t n, const char *against, int t, long count, int root, int in_place)
{
    CHECK(memcmp(got, expected, n) == 0, "%s: %s %s count %ld root %d in-place %d: differs from %s",
          e->name, what, type_names[t], count, root, in_place, against);
}

static int root_skipped(const setup *e, int root)
{
    return e->light && root != 0 && root != e->size - 1;
}

static void bcast_cases(const setup *e)
{
    unsigned seed = 1;
    for (int t = 0; t < NTYPES; t++)
        for (int c = 0; c < NCOUNTS; c++)
            for (int root = 0; root < e->size; root++, seed++) {
                if (root_skipped(e, root)) continue;
                long count = counts[c];
                size_t span = span_of(t, count);
                /* non-roots start with other values: what arrives replaces them */
                char *mine = filled(t, count, e->rank == root ? root : e->size + 3, seed);
                char *ref = malloc(span), *expected = filled(t, count, root, seed);
                memcpy(ref, mine, span);
                CHECK_INT(bcast_under_test(e->h, mine, (int)count, types[t], root), MPI_SUCCESS);
                MPI_Bcast(ref, (int)count, types[t], root, e->comm);
                same_bytes(e, "bcast", mine, expected, span, "computed", t, count, root, 0);
                same_bytes(e, "bcast", mine, ref, span, "MPI_Bcast", t, count, root, 0);
                free(mine);
                free(ref);
                free(expected);
            }
}

/* Types of one signature on different processes: the root gives n vectors
   (2n ints), every other process alternately 2n ints or n vectors. */
static void bcast_mixed(const setup *e)
{
    long n = 333;
    for (int root = 0; root < e->size; root++) {
        if (root_skipped(e, root)) continue;
        int t = e->rank == root || e->rank % 2 ? T_VECTOR : T_INT;
        long count = t == T_VECTOR ? n : 2 * n;
        char *mine = filled(t, count, e->rank == root ? root : e->size + 3, 77);
        char *expected = filled(t, count, root, 77);
        CHECK_INT(bcast_under_test(e->h, mine, (int)count, types[t], root), MPI_SUCCESS);
        same_bytes(e, "bcast mixed", mine, expected, span_of(t, count), "computed", t, count,
                   root, 0);
        free(mine);
        free(expected);
    }
}

static void reduce_cases(const setup *e)
{
    unsigned seed = 3;
    for (int t = 0; t < NTYPES; t++)
        for (int max = 0; max < 2; max++)
            for (int c = 0; c < NCOUNTS; c++)
                for (int root = 0; root < e->size; root++)
                    for (int in_place = 0; in_place < 2; in_place++, seed++) {
                        if (root_skipped(e, root)) continue;
                        long count = counts[c];
                        size_t span = span_of(t, count);
                        MPI_Op op = op_of(t, max);
                        int is_root = e->rank == root;
                        char *input = filled(t, count, e->rank, seed);
                        char *out = NULL, *ref = NULL;
                        if (is_root) {
                            out = in_place ? filled(t, count, e->rank, seed) : malloc(span);
                            if (!in_place) memset(out, GAP, span);
                            ref = malloc(span);
                            memset(ref, GAP, span);
                        }
                        CHECK_INT(hsplit_ml_reduce(e->h, in_place && is_root ? MPI_IN_PLACE : input,
                                                   out, (int)count, types[t], op, root, cross),
                                  MPI_SUCCESS);
                        /* MPI's reference never in place (MPICH 4.0.2 crashes
                           with MPI_IN_PLACE at a root other than 0) */
                        MPI_Reduce(input, ref, (int)count, types[t], op, root, e->comm);
                        if (is_root) {
                            char *expected = combined(t, count, e->size, max, seed);
                            const char *what = max ? "reduce max" : "reduce sum";
                            same_bytes(e, what, out, expected, span, "computed", t, count, root,
                                       in_place);
                            same_bytes(e, what, out, ref, span, "MPI_Reduce", t, count, root,
                                       in_place);
                            free(expected);
                        }
                        free(input);
                        free(out);
                        free(ref);
                    }
}

static void allreduce_cases(const setup *e)
{
    unsigned seed = 5;
    for (int t = 0; t < NTYPES; t++)
        for (int max = 0; max < 2; max++)
            for (int c = 0; c < NCOUNTS; c++)
                for (int in_place = 0; in_place < 2; in_place++, seed++) {
                    long count = counts[c];
                    size_t span = span_of(t, count);
                    MPI_Op op = op_of(t, max);
                    char *input = filled(t, count, e->rank, seed);
                    char *out = in_place ? filled(t, count, e->rank, seed) : malloc(span);
                    char *ref = malloc(span), *expected = combined(t, count, e->size, max, seed);
                    if (!in_place) memset(out, GAP, span);
                    memset(ref, GAP, span);
                    CHECK_INT(allreduce_under_test(e->h, in_place ? MPI_IN_PLACE : input, out,
                                                   (int)count, types[t], op),
                              MPI_SUCCESS);
                    MPI_Allreduce(input, ref, (int)count, types[t], op, e->comm);
                    const char *what = max ? "allreduce max" : "allreduce sum";
                    same_bytes(e, what, out, expected, span, "computed", t, count, -1, in_place);
                    same_bytes(e, what, out, ref, span, "MPI_Allreduce", t, count, -1, in_place);
                    free(input);
                    free(out);
                    free(ref);
                    free(expected);
                }
}

/* The blocks of all ranks, each its own values (count elements of t each). */
static char *all_blocks(int t, long count, int n, unsigned seed)
{
    size_t block = span_of(t, count);
    char *b = malloc(block * (size_t)n);
    for (int r = 0; r < n; r++) {
        char *one = filled(t, count, r, seed);
        memcpy(b + (size_t)r * block, one, block);
        free(one);
    }
    return b;
}

static void allgather_cases(const setup *e)
{
    unsigned seed = 9;
    for (int t = 0; t < NTYPES; t++)
        for (int c = 0; c < NCOUNTS; c++)
            for (int in_place = 0; in_place < 2; in_place++, seed++) {
                long count = counts[c];
                size_t block = span_of(t, count), span = block * (size_t)e->size;
                if (count == 0) span = 1;
                char *input = filled(t, count, e->rank, seed);
                char *out = malloc(span), *ref = malloc(span);
                memset(out, GAP, span);
                memset(ref, GAP, span);
                if (in_place && count > 0) memcpy(out + (size_t)e->rank * block, input, block);
                CHECK_INT(hsplit_ml_allgather(e->h, in_place ? MPI_IN_PLACE : input, (int)count,
                                              types[t], out, (int)count, types[t]),
                          MPI_SUCCESS);
                MPI_Allgather(input, (int)count, types[t], ref, (int)count, types[t], e->comm);
                same_bytes(e, "allgather", out, ref, span, "MPI_Allgather", t, count, -1,
                           in_place);
                if (count > 0) {
                    char *expected = all_blocks(t, count, e->size, seed);
                    same_bytes(e, "allgather", out, expected, span, "computed", t, count, -1,
                               in_place);
                    free(expected);
                }
                free(input);
                free(out);
                free(ref);
            }
}

/* Send and receive types of one signature that differ within a process and
   between processes: n vectors or 2n ints. */
static void allgather_mixed(const setup *e)
{
    long n = 251;
    int st = e->rank % 2 ? T_VECTOR : T_INT, rt = (e->rank / 2) % 2 ? T_VECTOR : T_INT;
    long scount = st == T_VECTOR ? n : 2 * n, rcount = rt == T_VECTOR ? n : 2 * n;
    char *input = filled(st, scount, e->rank, 11);
    size_t span = span_of(rt, rcount) * (size_t)e->size;
    char *out = malloc(span);
    memset(out, GAP, span);
    CHECK_INT(hsplit_ml_allgather(e->h, input, (int)scount, types[st], out, (int)rcount,
                                  types[rt]),
              MPI_SUCCESS);
    char *expected = all_blocks(rt, rcount, e->size, 11);
    same_bytes(e, "allgather mixed", out, expected, span, "computed", rt, rcount, -1, 0);
    free(input);
    free(out);
    free(expected);
}

/* Messages of 70000 elements (280 KB of ints, 560 KB of vectors), one
   root: slices of many bytes, which even groups allgather by neighbour
   exchange (from 128 KiB); allreduce in place too; an allgather of blocks
   of 20000 ints. */
static void large_allreduce(const setup *e);

/* 70000 ints from the last rank and from one in the middle (another path
   through the groups). */
static void large_bcast(const setup *e)
{
    long count = 70000;
    int roots[2] = {e->size - 1, e->size / 2};
    for (int k = 0; k < 2; k++) {
        int root = roots[k];
        char *buf = filled(T_INT, count, e->rank == root ? root : -1, 21);
        char *expected = filled(T_INT, count, root, 21);
        CHECK_INT(bcast_under_test(e->h, buf, (int)count, MPI_INT, root), MPI_SUCCESS);
        same_bytes(e, "bcast large", buf, expected, span_of(T_INT, count), "computed", T_INT,
                   count, root, 0);
        free(buf);
        free(expected);
    }
}

static void large_cases(const setup *e)
{
    long count = 70000;
    int root = e->size - 1;
    large_bcast(e);
    char *expected, *input = filled(T_INT, count, e->rank, 22), *out = malloc(span_of(T_INT, count));
    CHECK_INT(hsplit_ml_reduce(e->h, input, out, (int)count, MPI_INT, MPI_SUM, root, cross),
              MPI_SUCCESS);
    if (e->rank == root) {
        expected = combined(T_INT, count, e->size, 0, 22);
        same_bytes(e, "reduce large", out, expected, span_of(T_INT, count), "computed", T_INT,
                   count, root, 0);
        free(expected);
    }
    free(input);
    free(out);
    large_allreduce(e);
    long block = 20000;
    input = filled(T_INT, block, e->rank, 24);
    size_t span = span_of(T_INT, block) * (size_t)e->size;
    out = malloc(span);
    CHECK_INT(hsplit_ml_allgather(e->h, input, (int)block, MPI_INT, out, (int)block, MPI_INT),
              MPI_SUCCESS);
    expected = all_blocks(T_INT, block, e->size, 24);
    same_bytes(e, "allgather large", out, expected, span, "computed", T_INT, block, -1, 0);
    free(expected);
    free(input);
    free(out);
}

static void large_allreduce(const setup *e)
{
    long count = 70000;
    const int large_types[] = {T_INT, T_VECTOR};
    for (int k = 0; k < 2; k++) {
        int t = large_types[k];
        MPI_Op sum = t == T_VECTOR ? vector_sum : MPI_SUM;
        for (int in_place = 0; in_place < 2; in_place++) {
            char *input = filled(t, count, e->rank, 23);
            char *out = in_place ? input : filled(t, count, -1, 23);
            CHECK_INT(allreduce_under_test(e->h, in_place ? MPI_IN_PLACE : input, out,
                                           (int)count, types[t], sum),
                      MPI_SUCCESS);
            char *expected = combined(t, count, e->size, 0, 23);
            same_bytes(e, "allreduce large", out, expected, span_of(t, count), "computed", t,
                       count, -1, in_place);
            free(expected);
            if (!in_place) free(out);
            free(input);
        }
    }
}

/* Whether world rank me is in the group text (ranks separated by ','),
   and if so the group's ranks, ascending as MPI ranks them, in *n. */
static int parse_group(const char *text, size_t len, int me, int *members, int *n)
{
    int found = 0;
    *n = 0;
    for (size_t i = 0; i < len;) {
        int r = atoi(text + i);
        members[(*n)++] = r;
        found |= r == me;
        while (i < len && text[i] != ',') i++;
        i++;
    }
    return found;
}

/* The world ranks of comm's members, in its rank order. */
static void world_members(MPI_Comm comm, int *members, int *n)
{
    MPI_Group group, world;
    MPI_Comm_size(comm, n);
    MPI_Comm_group(comm, &group);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int *ranks = malloc(sizeof(int) * (size_t)*n);
    for (int i = 0; i < *n; i++) ranks[i] = i;
    MPI_Group_translate_ranks(group, *n, ranks, world, members);
    free(ranks);
    MPI_Group_free(&group);
    MPI_Group_free(&world);
}

/* One stage (or the top: pieces NULL) against its text. */
static void check_stage(const char *what, const char *text, size_t len, MPI_Comm got, int pieces,
                        int me, int size)
{
    int expected_pieces = 0, n = 0, m = 0, found = 0;
    int *members = malloc(sizeof(int) * 2 * (size_t)size), *actual = members + size;
    if (what[0] != 't') {
        expected_pieces = atoi(text);
        const char *colon = memchr(text, ':', len);
        CHECK(colon != NULL, "--stages: no PIECES: in %.*s", (int)len, text);
        if (colon == NULL) {
            free(members);
            return;
        }
        len -= (size_t)(colon + 1 - text);
        text = colon + 1;
    }
    for (size_t i = 0; i < len && !found;) {
        size_t end = i;
        while (end < len && text[end] != '|') end++;
        found = parse_group(text + i, end - i, me, members, &n);
        i = end + 1;
    }
    if (!found) {
        CHECK(got == MPI_COMM_NULL, "rank %d: %s: a group where it carries nothing", me, what);
    } else {
        CHECK(got != MPI_COMM_NULL, "rank %d: %s: no group", me, what);
        if (got != MPI_COMM_NULL) {
            world_members(got, actual, &m);
            int same = m == n;
            for (int i = 0; same && i < n; i++) same = actual[i] == members[i];
            CHECK(same, "rank %d: %s: its %d members are not the %d expected", me, what, m, n);
            if (what[0] != 't')
                CHECK(pieces == expected_pieces, "rank %d: %s: %d pieces, expected %d", me, what,
                      pieces, expected_pieces);
        }
    }
    free(members);
}

static void check_stages(const setup *e, const char *spec)
{
    hsplit_ml_levels *m;
    CHECK_INT(hsplit_ml_levels_get(e->h, levels, &m), MPI_SUCCESS);
    int nstages = 0;
    for (const char *c = spec; *c; c++) nstages += *c == '/';
    CHECK_INT(m->nstages, nstages);
    const char *at = spec;
    for (int s = 0; s <= nstages && s <= m->nstages; s++) {
        const char *end = strchr(at, '/');
        size_t len = end != NULL ? (size_t)(end - at) : strlen(at);
        char what[32];
        snprintf(what, sizeof what, s < nstages ? "stage %d" : "top", s);
        if (s < nstages)
            check_stage(what, at, len, m->stage[s].group, m->stage[s].pieces, e->rank, e->size);
        else
            check_stage(what, at, len, m->top, 0, e->rank, e->size);
        at += len + 1;
    }
}

static void noncommutative_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] = 2 * ((int *)inout)[i] - ((int *)in)[i];
}

/* Refused on every process alike, before any communication. */
static void noncommutative_refused(const setup *e)
{
    MPI_Op op;
    MPI_Op_create(noncommutative_fn, 0, &op);
    int in[4] = {1, 2, 3, 4}, out[4] = {0, 0, 0, 0};
    for (int root = 0; root < e->size; root++)
        CHECK_INT(hsplit_ml_reduce(e->h, in, out, 4, MPI_INT, op, root, cross), MPI_ERR_OP);
    CHECK(out[0] == 0 && out[3] == 0, "%s: a refused reduce wrote its result", e->name);
    MPI_Op_free(&op);
}

static void run(MPI_Comm comm, const char *name, int light, int pieces, const char *stages)
{
    setup e = {comm, NULL, 0, 0, light, name};
    MPI_Comm_rank(comm, &e.rank);
    MPI_Comm_size(comm, &e.size);
    CHECK_INT(hsplit_hierarchy_get(comm, &e.h), MPI_SUCCESS);
    if (e.h == NULL) return;
    if (levels >= 0) {
        if (stages != NULL && comm == MPI_COMM_WORLD) check_stages(&e, stages);
        bcast_cases(&e);
        bcast_mixed(&e);
        allreduce_cases(&e);
        if (!light) { /* --light: valgrind, small counts suffice */
            large_bcast(&e);
            large_allreduce(&e);
        }
        return;
    }
    bcast_cases(&e); /* makes the groups: rsag_pieces known after */
    if (pieces > 0) CHECK_INT(e.h->rsag_pieces, pieces);
    if (e.rank == 0)
        printf("%s: %d processes, %d groups, %d slices, several nodes %d\n", name, e.size,
               e.h->nnodes, e.h->rsag_pieces, e.h->multi_node);
    bcast_mixed(&e);
    reduce_cases(&e);
    allreduce_cases(&e);
    allgather_cases(&e);
    allgather_mixed(&e);
    large_cases(&e);
    noncommutative_refused(&e);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int light = 0, pieces = 0;
    const char *stages = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--light") == 0) light = 1;
        else if (strcmp(argv[i], "--pieces") == 0 && i + 1 < argc) pieces = atoi(argv[++i]);
        else if (strcmp(argv[i], "--stages") == 0 && i + 1 < argc) stages = argv[++i];
        else if (strcmp(argv[i], "--levels") == 0 && i + 1 < argc) {
            const char *name = argv[++i];
            levels = strcmp(name, "all") == 0 ? HSPLIT_ML_ALL
                     : strcmp(name, "net") == 0 ? HSPLIT_ML_NET : -2;
            if (levels < -1) {
                fprintf(stderr, "unknown --levels %s\n", name);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
        }
        else if (strcmp(argv[i], "--cross") == 0 && i + 1 < argc) {
            const char *name = argv[++i];
            cross = -1;
            for (int k = 0; k < HSPLIT_NSHAPES; k++)
                if (strcmp(name, hsplit_shape_names[k]) == 0) cross = k;
            if (cross < 0) {
                fprintf(stderr, "unknown --cross %s\n", name);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
        }
    }
    types[T_INT] = MPI_INT;
    types[T_DOUBLE] = MPI_DOUBLE;
    MPI_Type_vector(2, 1, 3, MPI_INT, &types[T_VECTOR]);
    MPI_Type_commit(&types[T_VECTOR]);
    MPI_Op_create(vector_sum_fn, 1, &vector_sum);
    MPI_Op_create(vector_max_fn, 1, &vector_max);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    run(MPI_COMM_WORLD, "world", light, pieces, stages);
    /* ranks shuffled (a permutation when 5 and the size are coprime, else
       reversed): the groups keep their members, in another rank order */
    MPI_Comm shuffled;
    int key = size % 5 != 0 ? (rank * 5 + 3) % size : size - 1 - rank;
    MPI_Comm_split(MPI_COMM_WORLD, 0, key, &shuffled);
    run(shuffled, "shuffled", 1, pieces, stages);
    MPI_Comm_free(&shuffled);
    MPI_Type_free(&types[T_VECTOR]);
    MPI_Op_free(&vector_sum);
    MPI_Op_free(&vector_max);
    return test_finish();
}
