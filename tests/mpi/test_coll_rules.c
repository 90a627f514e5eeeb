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

#define CHECK_PATH(got, want)                                                       \
    CHECK((got) == (want), "%s took %s, expected %s", #got,                         \
          (got) >= 0 ? path_name[got] : "several paths", path_name[want])

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
    if (rank == 0) write_file("rules.txt", text);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm comm = fresh("rules.txt");
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
    if (rank == 0)
        write_file("schedules.txt", "bcast     * * 64-127 two:binomial   # line 1\n"
                                    "allreduce * * 64-127 ml             # line 2\n");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm comm = fresh("schedules.txt");
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
    test_bad(size);
    test_schedules();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        const char *names[] = {"rules.txt", "good.txt", "other.txt", "bad.txt",
                               "schedules.txt"};
        for (int i = 0; i < 5; i++) {
            char path[128];
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            unlink(path);
        }
        rmdir(dir);
    }
    return test_finish();
}
