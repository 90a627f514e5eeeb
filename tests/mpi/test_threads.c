/* SPDX-License-Identifier: BSD-3-Clause */
/* hsplit under MPI_THREAD_MULTIPLE: T threads per process, each on its own
   MPI_Comm_dup of MPI_COMM_WORLD (made by the main thread, in order), make
   hierarchies (HSPLIT_Comm_hsplit_all, HSPLIT_Comm_hsplit_with_roots, the
   collectives' own on first use) and run the collectives at once, every
   result compared with MPI's own collective on the same communicator and
   inputs, and MPI's result with what the inputs give.

   Creation is serialised by default, the way the user guide says (section
   Threads): communicators are made (by the application or by hsplit) in
   turns, thread 0, 1, ..., T-1 in every round, the same order on every
   process, and nothing else makes communicators meanwhile; collectives run
   concurrently. Open MPI 4.1 stalls in its communicator-id allocation when
   threads make communicators at once, hsplit or not: --concurrent-creation
   drops the turns, for stress runs (see the guide for what they gave).

   Rounds of creation: round 0 makes each thread's hierarchies (hsplit_all,
   with_roots, a first collective on the thread's communicator and on its
   first level); with --creation-heavy every iteration i also makes, in round
   i + 1, a fresh MPI_Comm_dup of the thread's communicator, its hsplit_all
   levels and its collectives' hierarchy, used then freed. The levels are
   checked against those of MPI_COMM_WORLD, made by the main thread before
   the threads start.

   --plain makes instead, every iteration, communicators with MPI alone, one
   inside the other (a duplicate, its halves, their single processes: see
   plain_round): the baseline of what MPI itself does when threads make
   communicators at once (with --concurrent-creation) or in turns.

   Usage: test_threads [--threads T] [--iterations N] [--creation-heavy]
                       [--concurrent-creation] [--plain]
   Exit status 77 (CTest's SKIP_RETURN_CODE) when MPI does not provide
   MPI_THREAD_MULTIPLE. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "hsplit.h"

enum { MAX_THREADS = 8, MAX_LEVELS = 16, BIG_COUNT = 1000, SKIP_CODE = 77 };
#define PRIME 1000003LL /* residues: products of two fit in a long long */

/* The levels of MPI_COMM_WORLD seen by this process: per level, the world
   ranks of its level communicator and of its roots communicator (none: 0). */
typedef struct {
    int n;
    int size[MAX_LEVELS], roots_size[MAX_LEVELS];
    int *ranks[MAX_LEVELS], *roots_ranks[MAX_LEVELS];
} levels_seen;

typedef struct {
    int nthreads, iterations, heavy, concurrent, plain;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    long turn;               /* creation turn now: round * nthreads + thread */
    MPI_Op sequence_op;      /* non-commutative, on sequence_type */
    MPI_Datatype sequence_type; /* two long longs */
    levels_seen world_all;   /* HSPLIT_Comm_hsplit_all of MPI_COMM_WORLD */
    levels_seen world_roots; /* HSPLIT_Comm_hsplit_with_roots: one level */
} shared;

typedef struct {
    shared *s;
    int id;
    MPI_Comm comm;
    long passed, failed;
} worker;

#define CHECK(w, cond, ...)                                                       \
    do {                                                                          \
        if (cond) {                                                               \
            (w)->passed++;                                                        \
        } else {                                                                  \
            int wr_;                                                              \
            MPI_Comm_rank(MPI_COMM_WORLD, &wr_);                                  \
            (w)->failed++;                                                        \
            char m_[256];                                                         \
            snprintf(m_, sizeof m_, __VA_ARGS__);                                 \
            fprintf(stderr, "[rank %d thread %d] %s:%d: check failed: %s: %s\n", wr_, \
                    (w)->id, __FILE__, __LINE__, #cond, m_);                       \
        }                                                                         \
    } while (0)

#define CHECK_RC(w, rc, what) CHECK(w, (rc) == MPI_SUCCESS, "%s returned %d", what, rc)

/* ------------------------------------------------------------ the turns */

static void turn_begin(worker *w, int round)
{
    shared *s = w->s;
    if (s->concurrent) return;
    long mine = (long)round * s->nthreads + w->id;
    pthread_mutex_lock(&s->lock);
    while (s->turn != mine) pthread_cond_wait(&s->changed, &s->lock);
    pthread_mutex_unlock(&s->lock);
}

static void turn_end(worker *w)
{
    shared *s = w->s;
    if (s->concurrent) return;
    pthread_mutex_lock(&s->lock);
    s->turn++;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

/* ------------------------------------------------- a non-commutative op */

/* A sequence of values as (B^length mod P, polynomial hash mod P), one
   element of sequence_type:
   concatenation is associative and not commutative, so a reduction that
   combines out of rank order gives another value. */
static void sequence_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const long long *a = in;
    long long *b = inout;
    for (int i = 0; i < *len; i++) {
        long long pow_a = a[2 * i], hash_a = a[2 * i + 1];
        long long pow_b = b[2 * i], hash_b = b[2 * i + 1];
        b[2 * i] = pow_a * pow_b % PRIME;
        b[2 * i + 1] = (hash_a * pow_b + hash_b) % PRIME;
    }
}

enum { BASE = 257 };

static long long value_of(int rank, int i, int salt)
{
    return ((long long)rank * 7919 + (long long)i * 104729 + salt * 31) % 1000 + 1;
}

/* ------------------------------------------------------ the collectives */

static int same(const void *a, const void *b, size_t n) { return memcmp(a, b, n) == 0; }

/* Every collective once on comm, with roots and counts from salt; each
   result equals MPI's on the same inputs and what the inputs give. */
static void collectives(worker *w, MPI_Comm comm, int salt, const char *where)
{
    int size, rank, rc;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    int counts[2] = {1 + salt % 3, BIG_COUNT};
    size_t maxn = (size_t)BIG_COUNT * (size_t)size;
    int *in = malloc(sizeof(int) * maxn), *mine = malloc(sizeof(int) * maxn),
        *ref = malloc(sizeof(int) * maxn);
    long long *seq_in = malloc(sizeof(long long) * 2 * BIG_COUNT),
              *seq_mine = malloc(sizeof(long long) * 2 * BIG_COUNT),
              *seq_ref = malloc(sizeof(long long) * 2 * BIG_COUNT);
    if (!in || !mine || !ref || !seq_in || !seq_mine || !seq_ref) {
        fprintf(stderr, "test_threads: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int c = 0; c < 2; c++) {
        int n = counts[c], root = (salt + c) % size;
        size_t bytes = sizeof(int) * (size_t)n;

        /* Bcast */
        for (int i = 0; i < n; i++) mine[i] = ref[i] = rank == root ? (int)value_of(root, i, salt) : -1;
        rc = HSPLIT_Bcast(mine, n, MPI_INT, root, comm);
        CHECK_RC(w, rc, "HSPLIT_Bcast");
        MPI_Bcast(ref, n, MPI_INT, root, comm);
        CHECK(w, same(mine, ref, bytes), "%s: Bcast n=%d root=%d differs from MPI_Bcast", where, n, root);
        CHECK(w, ref[n - 1] == (int)value_of(root, n - 1, salt), "%s: MPI_Bcast wrong", where);

        /* Allreduce, MPI_SUM */
        for (int i = 0; i < n; i++) in[i] = (int)value_of(rank, i, salt);
        rc = HSPLIT_Allreduce(in, mine, n, MPI_INT, MPI_SUM, comm);
        CHECK_RC(w, rc, "HSPLIT_Allreduce");
        MPI_Allreduce(in, ref, n, MPI_INT, MPI_SUM, comm);
        CHECK(w, same(mine, ref, bytes), "%s: Allreduce n=%d differs from MPI_Allreduce", where, n);
        long long sum = 0;
        for (int r = 0; r < size; r++) sum += value_of(r, 0, salt);
        CHECK(w, ref[0] == sum, "%s: MPI_Allreduce gave %d, expected %lld", where, ref[0], sum);

        /* Reduce with the non-commutative operation: rank order */
        for (int i = 0; i < n; i++) {
            seq_in[2 * i] = BASE;
            seq_in[2 * i + 1] = value_of(rank, i, salt);
        }
        memset(seq_mine, 0, sizeof(long long) * 2 * (size_t)n);
        memset(seq_ref, 0, sizeof(long long) * 2 * (size_t)n);
        MPI_Datatype pair = w->s->sequence_type;
        rc = HSPLIT_Reduce(seq_in, seq_mine, n, pair, w->s->sequence_op, root, comm);
        CHECK_RC(w, rc, "HSPLIT_Reduce");
        MPI_Reduce(seq_in, seq_ref, n, pair, w->s->sequence_op, root, comm);
        if (rank == root) {
            CHECK(w, same(seq_mine, seq_ref, sizeof(long long) * 2 * (size_t)n),
                  "%s: Reduce (non-commutative) n=%d root=%d differs from MPI_Reduce", where, n, root);
            long long pw = 1, hash = 0;
            for (int r = 0; r < size; r++) {
                pw = pw * BASE % PRIME;
                hash = (hash * BASE + value_of(r, 0, salt)) % PRIME;
            }
            CHECK(w, seq_ref[0] == pw && seq_ref[1] == hash, "%s: MPI_Reduce not in rank order", where);
        }

        /* Gather, Scatter, Allgather */
        for (int i = 0; i < n; i++) in[i] = (int)value_of(rank, i, salt + 1);
        memset(mine, 0xA5, bytes * (size_t)size);
        memset(ref, 0xA5, bytes * (size_t)size);
        rc = HSPLIT_Gather(in, n, MPI_INT, mine, n, MPI_INT, root, comm);
        CHECK_RC(w, rc, "HSPLIT_Gather");
        MPI_Gather(in, n, MPI_INT, ref, n, MPI_INT, root, comm);
        if (rank == root) {
            CHECK(w, same(mine, ref, bytes * (size_t)size), "%s: Gather n=%d root=%d differs", where, n, root);
            CHECK(w, ref[(size - 1) * n] == (int)value_of(size - 1, 0, salt + 1), "%s: MPI_Gather wrong", where);
        }
        int *blocks = rank == root ? ref : NULL; /* the root's gathered blocks */
        memset(mine, 0xA5, bytes);
        memset(in, 0x5A, bytes);
        rc = HSPLIT_Scatter(blocks, n, MPI_INT, mine, n, MPI_INT, root, comm);
        CHECK_RC(w, rc, "HSPLIT_Scatter");
        MPI_Scatter(blocks, n, MPI_INT, in, n, MPI_INT, root, comm);
        CHECK(w, same(mine, in, bytes), "%s: Scatter n=%d root=%d differs", where, n, root);
        CHECK(w, in[0] == (int)value_of(rank, 0, salt + 1), "%s: MPI_Scatter wrong", where);
        memset(mine, 0xA5, bytes * (size_t)size);
        memset(ref, 0xA5, bytes * (size_t)size);
        rc = HSPLIT_Allgather(in, n, MPI_INT, mine, n, MPI_INT, comm);
        CHECK_RC(w, rc, "HSPLIT_Allgather");
        MPI_Allgather(in, n, MPI_INT, ref, n, MPI_INT, comm);
        CHECK(w, same(mine, ref, bytes * (size_t)size), "%s: Allgather n=%d differs", where, n);
        CHECK(w, ref[(size - 1) * n] == (int)value_of(size - 1, 0, salt + 1), "%s: MPI_Allgather wrong", where);
    }
    CHECK_RC(w, HSPLIT_Barrier(comm), "HSPLIT_Barrier");
    free(in);
    free(mine);
    free(ref);
    free(seq_in);
    free(seq_mine);
    free(seq_ref);
}

/* ---------------------------------------------------------- the levels */

/* World ranks of comm's processes in comm-rank order (malloc'd), size in *n. */
static int *world_ranks(MPI_Comm comm, int *n)
{
    MPI_Group group, world;
    MPI_Comm_size(comm, n);
    int *in = malloc(sizeof(int) * (size_t)*n), *out = malloc(sizeof(int) * (size_t)*n);
    if (in == NULL || out == NULL) MPI_Abort(MPI_COMM_WORLD, 2);
    for (int i = 0; i < *n; i++) in[i] = i;
    MPI_Comm_group(comm, &group);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_translate_ranks(group, *n, in, world, out);
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    free(in);
    return out;
}

static void record(levels_seen *l, int n, const MPI_Comm *levels, const MPI_Comm *roots)
{
    l->n = n;
    for (int i = 0; i < n; i++) {
        l->ranks[i] = world_ranks(levels[i], &l->size[i]);
        l->roots_size[i] = 0;
        l->roots_ranks[i] = roots[i] != MPI_COMM_NULL ? world_ranks(roots[i], &l->roots_size[i])
                                                      : NULL;
    }
}

static void forget(levels_seen *l)
{
    for (int i = 0; i < l->n; i++) {
        free(l->ranks[i]);
        free(l->roots_ranks[i]);
    }
}

/* The same processes in the same order as MPI_COMM_WORLD's levels (the
   thread's communicator is a duplicate of it). */
static void compare(worker *w, const levels_seen *expected, int n, const MPI_Comm *levels,
                    const MPI_Comm *roots, const char *what)
{
    CHECK(w, n == expected->n, "%s: %d levels, MPI_COMM_WORLD has %d", what, n, expected->n);
    for (int i = 0; i < n && i < expected->n; i++) {
        int size, rsize = 0;
        int *ranks = world_ranks(levels[i], &size);
        int *rranks = roots[i] != MPI_COMM_NULL ? world_ranks(roots[i], &rsize) : NULL;
        CHECK(w, size == expected->size[i] &&
                     same(ranks, expected->ranks[i], sizeof(int) * (size_t)size),
              "%s: level %d differs from MPI_COMM_WORLD's", what, i);
        CHECK(w, rsize == expected->roots_size[i] &&
                     (rsize == 0 || same(rranks, expected->roots_ranks[i], sizeof(int) * (size_t)rsize)),
              "%s: roots communicator %d differs from MPI_COMM_WORLD's", what, i);
        free(ranks);
        free(rranks);
    }
}

static void free_levels(int n, MPI_Comm *levels, MPI_Comm *roots)
{
    for (int i = 0; i < n; i++) {
        MPI_Comm_free(&levels[i]);
        if (roots[i] != MPI_COMM_NULL) MPI_Comm_free(&roots[i]);
    }
}

/* hsplit_all of comm, checked; the levels are kept in levels/roots. */
static int split_all(worker *w, MPI_Comm comm, MPI_Comm *levels, MPI_Comm *roots)
{
    int n = 0;
    int rc = HSPLIT_Comm_hsplit_all(comm, MPI_INFO_NULL, MAX_LEVELS, &n, levels, roots);
    CHECK_RC(w, rc, "HSPLIT_Comm_hsplit_all");
    if (rc != MPI_SUCCESS) return 0;
    compare(w, &w->s->world_all, n, levels, roots, "hsplit_all");
    return n;
}

/* ------------------------------------------------- plain MPI baseline */

/* Communicators made with MPI alone, one inside the other as hierarchies
   are: a duplicate of the thread's communicator, its halves (split), their
   single processes (split of a half); an allreduce on the last, then all
   are freed. */
static void plain_round(worker *w, int round)
{
    MPI_Comm dup, half, single;
    int rank, hrank, one = 1, sum = 0;
    turn_begin(w, round);
    MPI_Comm_dup(w->comm, &dup);
    MPI_Comm_rank(dup, &rank);
    MPI_Comm_split(dup, rank / 2, rank, &half);
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_split(half, hrank, rank, &single);
    turn_end(w);
    CHECK_RC(w, MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, single), "MPI_Allreduce");
    CHECK(w, sum == 1, "plain: a single process sums %d", sum);
    MPI_Comm_free(&single);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
}

/* ---------------------------------------------------------- the threads */

static void *run(void *arg)
{
    worker *w = arg;
    const shared *s = w->s;
    MPI_Comm levels[MAX_LEVELS], roots[MAX_LEVELS];
    MPI_Comm level = MPI_COMM_NULL, level_roots = MPI_COMM_NULL;
    if (s->plain) {
        for (int it = 0; it < s->iterations; it++) plain_round(w, it);
        return NULL;
    }

    /* round 0: this thread's hierarchies */
    turn_begin(w, 0);
    int n = split_all(w, w->comm, levels, roots);
    int rc = HSPLIT_Comm_hsplit_with_roots(w->comm, MPI_INFO_NULL, &level, &level_roots);
    CHECK_RC(w, rc, "HSPLIT_Comm_hsplit_with_roots");
    if (rc == MPI_SUCCESS) {
        compare(w, &w->s->world_roots, level != MPI_COMM_NULL, &level, &level_roots,
                "hsplit_with_roots");
        if (level != MPI_COMM_NULL) MPI_Comm_free(&level);
        if (level_roots != MPI_COMM_NULL) MPI_Comm_free(&level_roots);
    }
    /* the first collectives build the hierarchies of both communicators */
    collectives(w, w->comm, w->id, "thread comm, first call");
    if (n > 0) collectives(w, levels[0], w->id, "level 0, first call");
    turn_end(w);

    for (int it = 0; it < s->iterations; it++) {
        int salt = it * MAX_THREADS + w->id;
        MPI_Comm fresh = MPI_COMM_NULL;
        if (s->heavy) {
            MPI_Comm fl[MAX_LEVELS], fr[MAX_LEVELS];
            turn_begin(w, it + 1);
            CHECK_RC(w, MPI_Comm_dup(w->comm, &fresh), "MPI_Comm_dup");
            free_levels(split_all(w, fresh, fl, fr), fl, fr);
            collectives(w, fresh, salt, "fresh duplicate, first call");
            turn_end(w);
        }
        collectives(w, w->comm, salt, "thread comm");
        if (n > 0) collectives(w, levels[0], salt, "level 0");
        if (fresh != MPI_COMM_NULL) {
            collectives(w, fresh, salt + 1, "fresh duplicate");
            MPI_Comm_free(&fresh);
        }
    }
    free_levels(n, levels, roots);
    return NULL;
}

static void usage(void)
{
    fprintf(stderr, "usage: test_threads [--threads T] [--iterations N] [--creation-heavy] "
                    "[--concurrent-creation] [--plain]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf("test_threads: MPI provides thread level %d, not MPI_THREAD_MULTIPLE (%d): "
                   "skipped\n", provided, MPI_THREAD_MULTIPLE);
        MPI_Finalize();
        return SKIP_CODE;
    }
    shared s = {.nthreads = 4, .iterations = 10};
    for (int i = 1; i < argc; i++) {
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--threads") == 0 && next) s.nthreads = atoi(argv[++i]);
        else if (strcmp(argv[i], "--iterations") == 0 && next) s.iterations = atoi(argv[++i]);
        else if (strcmp(argv[i], "--creation-heavy") == 0) s.heavy = 1;
        else if (strcmp(argv[i], "--concurrent-creation") == 0) s.concurrent = 1;
        else if (strcmp(argv[i], "--plain") == 0) s.plain = 1;
        else usage();
    }
    if (s.nthreads < 1 || s.nthreads > MAX_THREADS || s.iterations < 0) usage();
    pthread_mutex_init(&s.lock, NULL);
    pthread_cond_init(&s.changed, NULL);
    MPI_Op_create(sequence_fn, 0, &s.sequence_op);
    MPI_Type_contiguous(2, MPI_LONG_LONG, &s.sequence_type);
    MPI_Type_commit(&s.sequence_type);

    /* what every thread's levels must be: MPI_COMM_WORLD's, made before any
       thread starts */
    MPI_Comm levels[MAX_LEVELS], roots[MAX_LEVELS];
    MPI_Comm level = MPI_COMM_NULL, level_roots = MPI_COMM_NULL;
    int n = 0;
    if (HSPLIT_Comm_hsplit_all(MPI_COMM_WORLD, MPI_INFO_NULL, MAX_LEVELS, &n, levels, roots) !=
            MPI_SUCCESS ||
        HSPLIT_Comm_hsplit_with_roots(MPI_COMM_WORLD, MPI_INFO_NULL, &level, &level_roots) !=
            MPI_SUCCESS) {
        fprintf(stderr, "test_threads: the splits of MPI_COMM_WORLD failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    record(&s.world_all, n, levels, roots);
    free_levels(n, levels, roots);
    record(&s.world_roots, level != MPI_COMM_NULL, &level, &level_roots);
    if (level != MPI_COMM_NULL) MPI_Comm_free(&level);
    if (level_roots != MPI_COMM_NULL) MPI_Comm_free(&level_roots);

    worker w[MAX_THREADS];
    pthread_t threads[MAX_THREADS];
    for (int t = 0; t < s.nthreads; t++) {
        w[t] = (worker){&s, t, MPI_COMM_NULL, 0, 0};
        MPI_Comm_dup(MPI_COMM_WORLD, &w[t].comm);
    }
    for (int t = 0; t < s.nthreads; t++)
        if (pthread_create(&threads[t], NULL, run, &w[t]) != 0) MPI_Abort(MPI_COMM_WORLD, 2);
    long counts[2] = {0, 0}, totals[2];
    for (int t = 0; t < s.nthreads; t++) {
        pthread_join(threads[t], NULL);
        counts[0] += w[t].passed;
        counts[1] += w[t].failed;
        MPI_Comm_free(&w[t].comm);
    }
    MPI_Allreduce(counts, totals, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_threads: %d threads, %d iterations%s%s%s: %ld passed, %ld failed\n",
               s.nthreads, s.iterations, s.plain ? ", plain MPI" : "",
               s.heavy ? ", creation-heavy" : "", s.concurrent ? ", concurrent creation" : "",
               totals[0], totals[1]);
    forget(&s.world_all);
    forget(&s.world_roots);
    MPI_Op_free(&s.sequence_op);
    MPI_Type_free(&s.sequence_type);
    pthread_cond_destroy(&s.changed);
    pthread_mutex_destroy(&s.lock);
    MPI_Finalize();
    return totals[1] == 0 ? 0 : 1;
}
