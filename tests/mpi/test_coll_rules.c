/* SPDX-License-Identifier: BSD-3-Clause */
/* HSPLIT_COLL_RULES in the collectives, on 2 emulated nodes (auto mode, one
   trial per path). Rules force plain MPI, the message-based hierarchy and
   shared memory for bcast and allreduce: the path is seen in the node
   segment's step counter and the calls the hierarchy served
   (hierarchy_calls), results are checked against values computed here, no
   trial runs for a ruled class (HSPLIT_COLL_REPORT=1 on rank 0's captured
   standard error says "rules file line N" and never "median" for it), and
   ruled classes take the fast paths of a measured decision (plain[] and
   shm_direct[] masks). An unmatched class is measured; a class ruled in
   part is decided per call. A malformed file, a missing file, and different
   files on different processes are MPI_ERR_ARG on every process (said on
   rank 0's standard error), and the communicator works again once the hint
   names a good file; outside auto mode the file is not read.
   Usage: test_coll_rules (hints), test_coll_rules env (HSPLIT_COLL_RULES
   set to tests/mpi/coll_rules_env.txt). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <unistd.h>
#include "coll_shm_private.h"
#include "test_util.h"
#include "test_stderr.h"

static int rank_of(MPI_Comm comm)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    return rank;
}

/* ---- what the calls took ---- */
static uint64_t steps(MPI_Comm comm)
{
    hsplit_hierarchy *h = NULL;
    if (hsplit_hierarchy_get(comm, &h) != MPI_SUCCESS || h == NULL || !h->shm_ready ||
        h->shm == NULL)
        return 0;
    return h->shm->step;
}

static unsigned long served(MPI_Comm comm)
{
    return hsplit_coll_hierarchy_calls(comm);
}

/* Every HSPLIT_ collective's full path starts by checking the communicator
   (MPI_Comm_test_inter); the fast path, where plain MPI is decided, goes to
   MPI's call at once. Counted here: the library is linked statically, so
   its calls resolve to this definition. */
static unsigned long test_inter_calls;
int MPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    test_inter_calls++;
    return PMPI_Comm_test_inter(comm, flag);
}

enum { PLAIN, TREE, SHM };
static const char *const path_name[] = {"plain", "tree", "shm"};

/* calls broadcasts of n ints from the last rank, checked; returns the path
   they all took (-1: not all the same one). */
static int bcasts(MPI_Comm comm, int n, int calls)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *buf = malloc(sizeof(int) * (size_t)n), path = -2;
    for (int k = 0; k < calls; k++) {
        for (int i = 0; i < n; i++) buf[i] = rank == size - 1 ? 7 * i + k : -1;
        uint64_t s0 = steps(comm);
        unsigned long h0 = served(comm);
        CHECK_INT(HSPLIT_Bcast(buf, n, MPI_INT, size - 1, comm), MPI_SUCCESS);
        int bad = 0;
        for (int i = 0; i < n; i++) bad += buf[i] != 7 * i + k;
        CHECK(bad == 0, "bcast of %d ints: %d wrong", n, bad);
        int p = served(comm) == h0 ? PLAIN : steps(comm) == s0 ? TREE : SHM;
        path = path == -2 || path == p ? p : -1;
    }
    free(buf);
    return path;
}

/* The same with allreduces (sum) of n ints. */
static int allreduces(MPI_Comm comm, int n, int calls)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *in = malloc(sizeof(int) * (size_t)n), *out = malloc(sizeof(int) * (size_t)n);
    int path = -2;
    for (int k = 0; k < calls; k++) {
        for (int i = 0; i < n; i++) in[i] = rank * 3 + i + k;
        uint64_t s0 = steps(comm);
        unsigned long h0 = served(comm);
        CHECK_INT(HSPLIT_Allreduce(in, out, n, MPI_INT, MPI_SUM, comm), MPI_SUCCESS);
        int bad = 0;
        for (int i = 0; i < n; i++) bad += out[i] != 3 * size * (size - 1) / 2 + size * (i + k);
        CHECK(bad == 0, "allreduce of %d ints: %d wrong", n, bad);
        int p = served(comm) == h0 ? PLAIN : steps(comm) == s0 ? TREE : SHM;
        path = path == -2 || path == p ? p : -1;
    }
    free(in);
    free(out);
    return path;
}

/* (the calls, collectives, run once whatever the check finds) */
#define CHECK_PATH(calls, want)                                                         \
    do {                                                                                \
        int got_ = (calls);                                                             \
        CHECK(got_ == (want), "%s took %s, expected %s", #calls,                        \
              got_ >= 0 ? path_name[got_] : "several paths", path_name[want]);          \
    } while (0)

/* ---- files and hints ---- */
static char dir[64];

static void write_file(const char *name, const char *text)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    if (f == NULL) return;
    fputs(text, f);
    fclose(f);
}

/* A communicator of its own (fresh state), auto mode with one trial per
   path (plain MPI, the default tree, shared memory: none of the engine's
   other schedules), reports on, errors returned, and the rules file name
   (in dir; NULL: none) as a hint. */
static MPI_Comm fresh(const char *name)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "HSPLIT_COLL_REPORT", "1");
    MPI_Info_set(info, "HSPLIT_COLL_TRIALS", "1");
    MPI_Info_set(info, "HSPLIT_COLL_SCHEDULES", "none");
    char path[128];
    if (name != NULL) {
        snprintf(path, sizeof path, "%s/%s", dir, name);
        MPI_Info_set(info, "HSPLIT_COLL_RULES", path);
    }
    CHECK_INT(HSPLIT_Comm_set_coll_info(comm, info), MPI_SUCCESS);
    MPI_Info_free(&info);
    return comm;
}

/* The same with a rules file of this text, written by rank 0 of
   MPI_COMM_WORLD before any process reads it. */
static MPI_Comm fresh_rules(const char *name, const char *text)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) write_file(name, text);
    MPI_Barrier(MPI_COMM_WORLD);
    return fresh(name);
}

static int set_hint(MPI_Comm comm, const char *key, const char *value)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, key, value);
    int rc = HSPLIT_Comm_set_coll_info(comm, info);
    MPI_Info_free(&info);
    return rc;
}

static int set_rules(MPI_Comm comm, const char *name)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return set_hint(comm, "HSPLIT_COLL_RULES", path);
}

static int error_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* ---- the cases ---- */

/* Bytes of a size class: bcast/allreduce of n ints is 4n bytes. Classes
   used: 64-127 (16 ints), 2048-4095 (512), 4096-8191 (1024), 16384-32767
   (4096: no rule), 32-63 (8), 512-1023 (ruled in part: 1000 bytes = 250
   ints ruled, 600 bytes = 150 ints measured). */
static void test_ruled(int size, int depth)
{
    char text[1024];
    snprintf(text, sizeof text,
             "# rules of test_coll_rules\n"
             "bcast      %d-*   *    0-1023       shm     # line 2: never (too few processes)\n"
             "allreduce  *      %d   *            plain   # line 3: never (other depth)\n"
             "bcast      %d     *    0-1023       plain   # line 4\n"
             "bcast      *      %d   1024-4095    tree    # line 5\n"
             "bcast      *      *    4096-8191    shm     # line 6\n"
             "allreduce  *      *    0-63         shm     # line 7\n"
             "allreduce  *      1-*  64-127       tree    # line 8\n"
             "allreduce  *      *    1000         plain   # line 9\n"
             "*          *      *    1048576-*    plain   # line 10\n",
             size + 1, depth + 1, size, depth);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm comm = fresh_rules("rules.txt", text);
    test_stderr c;
    test_stderr_begin(&c, rank_of(comm) == 0);
    CHECK_PATH(bcasts(comm, 16, 6), PLAIN);
    CHECK_PATH(bcasts(comm, 512, 6), TREE);
    CHECK_PATH(bcasts(comm, 1024, 6), SHM);
    CHECK_PATH(allreduces(comm, 8, 6), SHM);
    CHECK_PATH(allreduces(comm, 25, 6), TREE);
    /* ruled wholly: the fast paths of a second measurement */
    const hsplit_coll_state *s = hsplit_coll_state_find(comm);
    CHECK(s != NULL && s->rules_status == HSPLIT_RULES_OK, "rules not agreed");
    if (s != NULL) {
        CHECK(s->plain[HSPLIT_COLL_BCAST] >> 7 & 1, "bcast of 64-127 bytes not plain at once");
        CHECK(s->shm_direct[HSPLIT_COLL_BCAST] >> 13 & 1, "bcast 4096-8191 not direct");
        CHECK(s->shm_direct[HSPLIT_COLL_ALLREDUCE] >> 6 & 1, "allreduce 32-63 not direct");
        CHECK(!(s->shm_direct[HSPLIT_COLL_BCAST] >> 12 & 1) &&
                  !(s->plain[HSPLIT_COLL_BCAST] >> 12 & 1), "bcast 2048-4095 takes a shortcut");
    }
    /* one report per ruled class, no trial at all */
    if (rank == 0) {
        char who[64];
        snprintf(who, sizeof who, "on %d processes", size);
        CHECK_INT(test_stderr_count(&c, "rules file line", NULL), 5);
        CHECK_INT(test_stderr_count(&c, "median", NULL), 0);
        CHECK_INT(test_stderr_count(&c, "hsplit: bcast of 64 to 127 bytes", "plain MPI (rules file "
                                "line 4)"), 1);
        CHECK_INT(test_stderr_count(&c, "hsplit: bcast of 2048 to 4095 bytes", "hierarchy (rules "
                                "file line 5)"), 1);
        CHECK_INT(test_stderr_count(&c, "hsplit: bcast of 4096 to 8191 bytes", "hierarchy, shared "
                                "memory (rules file line 6)"), 1);
        CHECK_INT(test_stderr_count(&c, "hsplit: allreduce of 32 to 63 bytes", "hierarchy, shared "
                                "memory (rules file line 7)"), 1);
        CHECK_INT(test_stderr_count(&c, "hsplit: allreduce of 64 to 127 bytes", "hierarchy (rules "
                                "file line 8)"), 1);
        CHECK_INT(test_stderr_count(&c, "rules file", who), 5);
    }
    /* no rule: measured (one trial of each of 3 paths), then decided */
    int path = bcasts(comm, 4096, 3);
    (void)path;
    if (rank == 0)
        CHECK_INT(test_stderr_count(&c, "hsplit: bcast of 16384 to 32767 bytes", "median of 1"), 1);
    /* ruled in part (512-1023: 1000 bytes by line 9): 1000 bytes plain per
       call, before, during and after the class's measurement (600 bytes) */
    CHECK_PATH(allreduces(comm, 250, 2), PLAIN);
    allreduces(comm, 150, 1);
    CHECK_PATH(allreduces(comm, 250, 2), PLAIN);
    allreduces(comm, 150, 3);
    CHECK_PATH(allreduces(comm, 250, 3), PLAIN);
    if (rank == 0) {
        CHECK_INT(test_stderr_count(&c, "hsplit: allreduce of 1000 bytes (of 512 to 1023: rules per "
                                "call)", "plain MPI (rules file line 9)"), 1);
        CHECK_INT(test_stderr_count(&c, "hsplit: allreduce of 512 to 1023 bytes", "median of 1"), 1);
    }
    test_stderr_end(&c);
    /* outside auto mode the file is not consulted: HSPLIT_COLL=on, the tree */
    CHECK_INT(set_hint(comm, "HSPLIT_COLL", "on"), MPI_SUCCESS);
    CHECK(bcasts(comm, 16, 2) != PLAIN, "HSPLIT_COLL=on: plain");
    MPI_Comm_free(&comm);
}

/* Unsized kinds (scatterv, alltoallv, gatherv: each process knows its own
   counts only) fall in the size class the hierarchy's last call agreed on.
   Ruled "tree" for the first class (0: nothing agreed yet) and "plain" from
   16 bytes: the first call takes the hierarchy and agrees on its blocks'
   size (the largest block, 32-44 bytes, which gatherv's root hands down;
   alltoallv: the largest send of a process), every later call
   plain MPI, through the call's fast path (bit 0 of plain[], where a call
   of HSPLIT_COLL_ANY_SIZE looks), as a measured decision for MPI would. */
static int block_ints(int i)
{
    return 8 + i % 4; /* 32 to 44 bytes */
}

/* How a call went: the hierarchy, plain MPI through the full path, or
   MPI's call at once (no check of the communicator before it). */
enum { BY_TREE, BY_FULL_PATH, AT_ONCE };
static const char *const route_name[] = {"the hierarchy", "the full path", "MPI at once"};

static int route(MPI_Comm comm, unsigned long served_before, unsigned long checks_before)
{
    return served(comm) != served_before       ? BY_TREE
           : test_inter_calls != checks_before ? BY_FULL_PATH
                                               : AT_ONCE;
}

/* (the call, a collective, runs once whatever the check finds) */
#define CHECK_ROUTE(call, want, what, k)                                                \
    do {                                                                                \
        int got_ = (call);                                                              \
        CHECK(got_ == (want), "%s call %d: %s, expected %s", what, k, route_name[got_], \
              route_name[want]);                                                        \
    } while (0)

/* One scatterv from rank 1 of block_ints(i) ints to process i, checked;
   returns its route. */
static int scatterv_once(MPI_Comm comm, int k)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    int total = 0;
    for (int i = 0; i < size; i++) {
        counts[i] = block_ints(i);
        displs[i] = total;
        total += counts[i];
    }
    int *send = malloc(sizeof(int) * (size_t)total), recv[16];
    for (int i = 0; i < size; i++)
        for (int j = 0; j < counts[i]; j++) send[displs[i] + j] = 1000 * i + 10 * j + k;
    for (int j = 0; j < 16; j++) recv[j] = -1;
    unsigned long h0 = served(comm), t0 = test_inter_calls;
    CHECK_INT(HSPLIT_Scatterv(send, counts, displs, MPI_INT, recv, block_ints(rank), MPI_INT, 1,
                              comm),
              MPI_SUCCESS);
    int bad = 0;
    for (int j = 0; j < 16; j++)
        bad += recv[j] != (j < block_ints(rank) ? 1000 * rank + 10 * j + k : -1);
    CHECK(bad == 0, "scatterv %d: %d wrong", k, bad);
    free(counts);
    free(displs);
    free(send);
    return route(comm, h0, t0);
}

/* One alltoallv: process r sends block_ints(r) ints to each process,
   value 1000 r + 10 j + dest; checked. Returns its route. */
static int alltoallv_once(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int n = size, *sc = malloc(sizeof(int) * 4 * (size_t)n);
    int *sd = sc + n, *rc = sc + 2 * n, *rd = sc + 3 * n, st = 0, rt = 0;
    for (int i = 0; i < n; i++) {
        sc[i] = block_ints(rank);
        sd[i] = st;
        st += sc[i];
        rc[i] = block_ints(i);
        rd[i] = rt;
        rt += rc[i];
    }
    int *send = malloc(sizeof(int) * (size_t)st), *recv = malloc(sizeof(int) * (size_t)rt);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < sc[i]; j++) send[sd[i] + j] = 1000 * rank + 10 * j + i;
    unsigned long h0 = served(comm), t0 = test_inter_calls;
    CHECK_INT(HSPLIT_Alltoallv(send, sc, sd, MPI_INT, recv, rc, rd, MPI_INT, comm), MPI_SUCCESS);
    int bad = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < rc[i]; j++) bad += recv[rd[i] + j] != 1000 * i + 10 * j + rank;
    CHECK(bad == 0, "alltoallv: %d wrong", bad);
    free(sc);
    free(send);
    free(recv);
    return route(comm, h0, t0);
}

/* One gatherv to rank 0 of block_ints(i) ints from process i, checked;
   returns its route. */
static int gatherv_once(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *counts = malloc(sizeof(int) * 2 * (size_t)size), *displs = counts + size, total = 0;
    for (int i = 0; i < size; i++) {
        counts[i] = block_ints(i);
        displs[i] = total;
        total += counts[i];
    }
    int in[16], *out = malloc(sizeof(int) * (size_t)total);
    for (int j = 0; j < 16; j++) in[j] = 100 * rank + j;
    unsigned long h0 = served(comm), t0 = test_inter_calls;
    CHECK_INT(HSPLIT_Gatherv(in, block_ints(rank), MPI_INT, out, counts, displs, MPI_INT, 0, comm),
              MPI_SUCCESS);
    int bad = 0;
    for (int i = 0; rank == 0 && i < size; i++)
        for (int j = 0; j < counts[i]; j++) bad += out[displs[i] + j] != 100 * i + j;
    CHECK(bad == 0, "gatherv: %d wrong", bad);
    free(counts);
    free(out);
    return route(comm, h0, t0);
}

/* One allgatherv of ints(i) ints from process i (block_ints, or 2 each),
   checked; returns its route. */
static int allgatherv_once(MPI_Comm comm, int two_each)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *counts = malloc(sizeof(int) * 2 * (size_t)size), *displs = counts + size, total = 0;
    for (int i = 0; i < size; i++) {
        counts[i] = two_each ? 2 : block_ints(i);
        displs[i] = total;
        total += counts[i];
    }
    int in[16], *out = malloc(sizeof(int) * (size_t)total);
    for (int j = 0; j < 16; j++) in[j] = 100 * rank + j;
    unsigned long h0 = served(comm), t0 = test_inter_calls;
    CHECK_INT(HSPLIT_Allgatherv(in, counts[rank], MPI_INT, out, counts, displs, MPI_INT, comm),
              MPI_SUCCESS);
    int bad = 0;
    for (int i = 0; i < size; i++)
        for (int j = 0; j < counts[i]; j++) bad += out[displs[i] + j] != 100 * i + j;
    CHECK(bad == 0, "allgatherv: %d wrong", bad);
    free(counts);
    free(out);
    return route(comm, h0, t0);
}

static void test_unsized(int size)
{
    char text[512];
    snprintf(text, sizeof text,
             "scatterv    %d  *  0-15   tree\n"
             "scatterv    %d  *  16-*   plain\n"
             "alltoallv   %d  *  0-15   tree\n"
             "alltoallv   %d  *  16-*   plain\n"
             "gatherv     %d  *  0-15   tree\n"
             "gatherv     %d  *  16-*   plain\n"
             "allgatherv  %d  *  32-63  plain\n",
             size, size, size, size, size, size, size);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm comm = fresh_rules("unsized.txt", text);
    test_stderr c;
    test_stderr_begin(&c, rank_of(comm) == 0);
    /* the first calls: class 0 (nothing agreed yet), ruled tree */
    CHECK_ROUTE(scatterv_once(comm, 0), BY_TREE, "scatterv", 0);
    CHECK_ROUTE(alltoallv_once(comm), BY_TREE, "alltoallv", 0);
    CHECK_ROUTE(gatherv_once(comm), BY_TREE, "gatherv", 0);
    /* then the class they agreed on, ruled plain: decided at the first
       such call (the full path), MPI at once from the next one */
    CHECK_ROUTE(scatterv_once(comm, 1), BY_FULL_PATH, "scatterv", 1);
    CHECK_ROUTE(alltoallv_once(comm), BY_FULL_PATH, "alltoallv", 1);
    CHECK_ROUTE(gatherv_once(comm), BY_FULL_PATH, "gatherv", 1);
    /* allgatherv knows its size: the mean block, 32-47 bytes */
    CHECK_ROUTE(allgatherv_once(comm, 0), BY_FULL_PATH, "allgatherv", 1);
    for (int k = 2; k <= 4; k++) {
        CHECK_ROUTE(scatterv_once(comm, k), AT_ONCE, "scatterv", k);
        CHECK_ROUTE(alltoallv_once(comm), AT_ONCE, "alltoallv", k);
        CHECK_ROUTE(gatherv_once(comm), AT_ONCE, "gatherv", k);
        CHECK_ROUTE(allgatherv_once(comm, 0), AT_ONCE, "allgatherv", k);
    }
    /* an allgatherv of another class (8 bytes each), unruled: measured,
       one trial of plain MPI then of the hierarchy, never MPI at once */
    CHECK_ROUTE(allgatherv_once(comm, 1), BY_FULL_PATH, "allgatherv of 8 bytes", 1);
    CHECK_ROUTE(allgatherv_once(comm, 1), BY_TREE, "allgatherv of 8 bytes", 2);
    if (rank == 0) {
        CHECK_INT(test_stderr_count(&c, "hsplit: scatterv of 0 to 0 bytes", "hierarchy (rules "
                                    "file line 1)"), 1);
        CHECK_INT(test_stderr_count(&c, "hsplit: scatterv of 32 to 63 bytes (as last agreed)",
                                    "plain MPI (rules file line 2)"), 1);
        CHECK_INT(test_stderr_count(&c, "hsplit: alltoallv of 0 to 0 bytes", "hierarchy (rules "
                                    "file line 3)"), 1);
        CHECK_INT(test_stderr_count(&c, "hsplit: alltoallv of", "plain MPI (rules file line 4)"),
                  1);
        CHECK_INT(test_stderr_count(&c, "hsplit: gatherv of 0 to 0 bytes", "hierarchy (rules "
                                    "file line 5)"), 1);
        CHECK_INT(test_stderr_count(&c, "hsplit: gatherv of 32 to 63 bytes (as last agreed)",
                                    "plain MPI (rules file line 6)"), 1);
        CHECK_INT(test_stderr_count(&c, "hsplit: allgatherv of 32 to 63 bytes", "plain MPI (rules "
                                    "file line 7)"), 1);
        CHECK_INT(test_stderr_count(&c, "median", NULL), 1);
        CHECK_INT(test_stderr_count(&c, "hsplit: allgatherv of 8 to 15 bytes", "median of 1"), 1);
    }
    test_stderr_end(&c);
    MPI_Comm_free(&comm);
}

/* Every process gets MPI_ERR_ARG from bcast and allreduce on comm, said
   once on rank 0 with what. */
static void check_fails(MPI_Comm comm, const char *what, const char *case_name)
{
    int rank, buf[4] = {1, 2, 3, 4}, out[4];
    MPI_Comm_rank(comm, &rank);
    test_stderr c;
    test_stderr_begin(&c, rank_of(comm) == 0);
    for (int k = 0; k < 2; k++) {
        int rc = HSPLIT_Bcast(buf, 4, MPI_INT, 0, comm);
        CHECK(error_class(rc) == MPI_ERR_ARG, "%s: bcast: class %d", case_name, error_class(rc));
        rc = HSPLIT_Allreduce(buf, out, 4, MPI_INT, MPI_SUM, comm);
        CHECK(error_class(rc) == MPI_ERR_ARG, "%s: allreduce: class %d", case_name,
              error_class(rc));
        /* the barrier, sizeless, fails all the same */
        rc = HSPLIT_Barrier(comm);
        CHECK(error_class(rc) == MPI_ERR_ARG, "%s: barrier: class %d", case_name,
              error_class(rc));
    }
    if (rank == 0) {
        CHECK(test_stderr_count(&c, "hsplit: HSPLIT_COLL_RULES: ", what) == 1,
              "%s: \"%s\" said %d times", case_name, what,
              test_stderr_count(&c, "hsplit: HSPLIT_COLL_RULES: ", what));
        CHECK_INT(test_stderr_count(&c, "MPI_ERR_ARG", NULL), 1);
    }
    test_stderr_end(&c);
}

/* After fixing the hint, the communicator works (results checked). */
static void check_fixed(MPI_Comm comm)
{
    CHECK_INT(set_rules(comm, "good.txt"), MPI_SUCCESS);
    CHECK_PATH(bcasts(comm, 512, 2), TREE);
    CHECK_PATH(allreduces(comm, 8, 2), PLAIN);
    CHECK_INT(HSPLIT_Barrier(comm), MPI_SUCCESS);
}

static void test_bad(int size)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        write_file("good.txt", "bcast * * 2048-4095 tree\nallreduce * * * plain\n");
        write_file("other.txt", "bcast * * 2048-4095 tree\nallreduce * * * shm\n");
        write_file("bad.txt", "# a typo on line 3\nbcast * * * tree\nallreduce * * * fast\n");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    char what[160];
    MPI_Comm comm = fresh("bad.txt");
    snprintf(what, sizeof what, "%s/bad.txt:3: unknown path \"fast\"", dir);
    check_fails(comm, what, "malformed");
    check_fixed(comm);
    MPI_Comm_free(&comm);

    comm = fresh("missing.txt");
    snprintf(what, sizeof what, "%s/missing.txt: cannot read the file (no such file)", dir);
    check_fails(comm, what, "missing");
    check_fixed(comm);
    MPI_Comm_free(&comm);

    /* different rules: ranks below half read good.txt, the others other.txt */
    comm = fresh(NULL);
    CHECK_INT(set_rules(comm, rank < size / 2 ? "good.txt" : "other.txt"), MPI_SUCCESS);
    check_fails(comm, "the processes read different rules", "different");
    check_fixed(comm);
    MPI_Comm_free(&comm);

    /* the file missing on the last process only */
    comm = fresh(NULL);
    CHECK_INT(set_rules(comm, rank == size - 1 ? "missing.txt" : "good.txt"), MPI_SUCCESS);
    snprintf(what, sizeof what, "process %d cannot read or parse its file", size - 1);
    check_fails(comm, what, "missing on one");
    check_fixed(comm);
    MPI_Comm_free(&comm);

    /* the thresholds send everything to plain MPI: a bad file fails all the
       same; HSPLIT_COLL=off: the file is not read */
    comm = fresh("bad.txt");
    CHECK_INT(set_hint(comm, "HSPLIT_COLL_MIN_PROCS", "1000"), MPI_SUCCESS);
    snprintf(what, sizeof what, "%s/bad.txt:3:", dir);
    check_fails(comm, what, "thresholds");
    CHECK_INT(set_hint(comm, "HSPLIT_COLL", "off"), MPI_SUCCESS);
    CHECK_PATH(bcasts(comm, 512, 2), PLAIN);
    MPI_Comm_free(&comm);
}

/* HSPLIT_COLL_RULES from the environment (coll_rules_env.txt): read by a
   communicator without hints, at its first collective. */
/* Rules that name schedules of the engine: the class takes that schedule
   (chosen for good, said by the report), results checked. */
static void test_schedules(void)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm comm = fresh_rules("schedules.txt", "bcast     * * 64-127 two:binomial   # line 1\n"
                                                 "allreduce * * 64-127 ml             # line 2\n");
    test_stderr c;
    test_stderr_begin(&c, rank_of(comm) == 0);
    /* 16 ints: 64 bytes, size class 7; the hierarchy without the segment */
    CHECK_PATH(bcasts(comm, 16, 4), TREE);
    CHECK_PATH(allreduces(comm, 16, 4), TREE);
    hsplit_hierarchy *h = NULL;
    CHECK_INT(hsplit_hierarchy_get(comm, &h), MPI_SUCCESS);
    if (h != NULL) {
        CHECK(h->tuning[HSPLIT_COLL_BCAST].chosen[7] == HSPLIT_PATH_RULED &&
                  h->tuning[HSPLIT_COLL_BCAST].ruled_schedule[7].view == HSPLIT_VIEW_TWO,
              "bcast of 64-127 bytes: not the rule's schedule");
        CHECK(h->tuning[HSPLIT_COLL_ALLREDUCE].chosen[7] == HSPLIT_PATH_RULED &&
                  h->tuning[HSPLIT_COLL_ALLREDUCE].ruled_schedule[7].view == HSPLIT_VIEW_ML,
              "allreduce of 64-127 bytes: not the rule's schedule");
    }
    if (rank == 0) {
        CHECK_INT(test_stderr_count(&c, "hsplit: bcast of 64 to 127 bytes",
                                "hierarchy, two:binomial (rules file line 1)"), 1);
        CHECK_INT(test_stderr_count(&c, "hsplit: allreduce of 64 to 127 bytes",
                                "hierarchy, ml (rules file line 2)"), 1);
    }
    test_stderr_end(&c);
    MPI_Comm_free(&comm);
}

static void test_environment(void)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    CHECK_PATH(bcasts(comm, 512, 4), TREE);
    CHECK_PATH(allreduces(comm, 8, 4), PLAIN);
    CHECK_PATH(allreduces(comm, 5000, 2), PLAIN);
    const hsplit_coll_state *s = hsplit_coll_state_find(comm);
    CHECK(s != NULL && s->rules_status == HSPLIT_RULES_OK && s->rules.n == 2, "rules not read");
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc > 1 && strcmp(argv[1], "env") == 0) {
        test_environment();
        return test_finish();
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        snprintf(dir, sizeof dir, "/tmp/hsplit_rules_XXXXXX");
        if (mkdtemp(dir) == NULL) dir[0] = '\0';
    }
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    /* the depth the rules see: the hierarchy's */
    hsplit_hierarchy *h = NULL;
    CHECK_INT(hsplit_hierarchy_get(MPI_COMM_WORLD, &h), MPI_SUCCESS);
    int depth = h != NULL ? h->depth : 0;
    CHECK(depth >= 2, "depth %d: expected several levels (2 emulated nodes)", depth);
    test_ruled(size, depth);
    test_unsized(size);
    test_bad(size);
    test_schedules();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        const char *names[] = {"rules.txt", "good.txt", "other.txt", "bad.txt",
                               "schedules.txt", "unsized.txt"};
        for (int i = 0; i < 6; i++) {
            char path[128];
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            unlink(path);
        }
        rmdir(dir);
    }
    return test_finish();
}
