/* SPDX-License-Identifier: BSD-3-Clause */
/* HSPLIT_Comm_set_coll_info: the collectives' settings given as MPI_Info
   hints on a communicator. Run with HSPLIT_COLL=off in the environment, on
   emulated nodes (so that the communicators have a hierarchy).

   What auto mode decides is seen on rank 0's standard error
   (HSPLIT_COLL_REPORT=1: one line per decision), captured into a file: a
   communicator reports only when its settings (hints over the environment)
   are auto mode with measuring, and the message size within its thresholds.
   Every collective's result is compared with MPI's own under every setting.
   Errors: an unknown HSPLIT_COLL* key, a malformed value, or settings that
   differ between processes are MPI_ERR_ARG on every process, through the
   communicator's error handler, and change nothing; MPI_INFO_NULL changes
   nothing; MPI_COMM_NULL and an intercommunicator are MPI_ERR_COMM. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <unistd.h>
#include "test_util.h"
#include "test_stderr.h"
#include "test_errhandler.h"

enum { N = 1000 };

/* key=value pairs ("" ends) into a new info. */
static MPI_Info make_info(const char *const *pairs)
{
    MPI_Info info;
    MPI_Info_create(&info);
    for (int i = 0; pairs[i] != NULL && pairs[i][0] != '\0'; i += 2)
        MPI_Info_set(info, pairs[i], pairs[i + 1]);
    return info;
}

static int set_hints(MPI_Comm comm, const char *const *pairs)
{
    MPI_Info info = make_info(pairs);
    int rc = HSPLIT_Comm_set_coll_info(comm, info);
    MPI_Info_free(&info);
    return rc;
}

/* Lines of auto mode's reports on comm that contain what, during calls
   broadcasts of N ints (rank 0: the count; other ranks: -1). */
static int bcast_reports(MPI_Comm comm, int calls, const char *what)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    int *buf = malloc(sizeof(int) * N);
    test_stderr c;
    test_stderr_begin(&c, rank == 0);
    for (int k = 0; k < calls; k++) {
        for (int i = 0; i < N; i++) buf[i] = rank == 1 ? i + k : -1;
        CHECK_INT(HSPLIT_Bcast(buf, N, MPI_INT, 1, comm), MPI_SUCCESS);
        CHECK(buf[N - 1] == N - 1 + k, "bcast: got %d", buf[N - 1]);
    }
    int n = test_stderr_count(&c, what, NULL);
    test_stderr_end(&c);
    free(buf);
    return n;
}

/* Decisions auto mode reports on comm during calls broadcasts. */
static int reported_bcasts(MPI_Comm comm, int calls)
{
    return bcast_reports(comm, calls, "hsplit: bcast of");
}

/* Every collective on comm, repeated (auto mode alternates paths), against
   MPI's own on the same data. */
static void check_results(MPI_Comm comm, const char *what)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int counts[] = {1, N};
    int *in = malloc(sizeof(int) * N), *out = malloc(sizeof(int) * N * (size_t)size),
        *ref = malloc(sizeof(int) * N * (size_t)size),
        *all = malloc(sizeof(int) * N * (size_t)size);
    for (int rep = 0; rep < 4; rep++) {
        for (int ci = 0; ci < 2; ci++) {
            int n = counts[ci], root = (rep + ci) % size;
            for (int i = 0; i < n; i++) in[i] = (rank + 1) * 1000 + i * 7 + rep;
            for (int i = 0; i < n * size; i++) all[i] = rank * 100000 + i;
            /* bcast */
            memcpy(out, in, sizeof(int) * (size_t)n);
            memcpy(ref, in, sizeof(int) * (size_t)n);
            CHECK_INT(HSPLIT_Bcast(out, n, MPI_INT, root, comm), MPI_SUCCESS);
            MPI_Bcast(ref, n, MPI_INT, root, comm);
            CHECK(memcmp(out, ref, sizeof(int) * (size_t)n) == 0, "%s: bcast n=%d", what, n);
            /* reduce, allreduce */
            CHECK_INT(HSPLIT_Reduce(in, out, n, MPI_INT, MPI_SUM, root, comm), MPI_SUCCESS);
            MPI_Reduce(in, ref, n, MPI_INT, MPI_SUM, root, comm);
            if (rank == root)
                CHECK(memcmp(out, ref, sizeof(int) * (size_t)n) == 0, "%s: reduce n=%d", what, n);
            CHECK_INT(HSPLIT_Allreduce(in, out, n, MPI_INT, MPI_SUM, comm), MPI_SUCCESS);
            MPI_Allreduce(in, ref, n, MPI_INT, MPI_SUM, comm);
            CHECK(memcmp(out, ref, sizeof(int) * (size_t)n) == 0, "%s: allreduce n=%d", what, n);
            /* gather, allgather, scatter */
            size_t total = sizeof(int) * (size_t)n * (size_t)size;
            CHECK_INT(HSPLIT_Gather(in, n, MPI_INT, out, n, MPI_INT, root, comm), MPI_SUCCESS);
            MPI_Gather(in, n, MPI_INT, ref, n, MPI_INT, root, comm);
            if (rank == root) CHECK(memcmp(out, ref, total) == 0, "%s: gather n=%d", what, n);
            CHECK_INT(HSPLIT_Allgather(in, n, MPI_INT, out, n, MPI_INT, comm), MPI_SUCCESS);
            MPI_Allgather(in, n, MPI_INT, ref, n, MPI_INT, comm);
            CHECK(memcmp(out, ref, total) == 0, "%s: allgather n=%d", what, n);
            CHECK_INT(HSPLIT_Scatter(all, n, MPI_INT, out, n, MPI_INT, root, comm), MPI_SUCCESS);
            MPI_Scatter(all, n, MPI_INT, ref, n, MPI_INT, root, comm);
            CHECK(memcmp(out, ref, sizeof(int) * (size_t)n) == 0, "%s: scatter n=%d", what, n);
            CHECK_INT(HSPLIT_Barrier(comm), MPI_SUCCESS);
        }
    }
    free(in);
    free(out);
    free(ref);
    free(all);
}

/* The hints that make auto mode measure and report (2 calls decide: plain
   MPI and the default tree; none of the engine's other schedules, whose
   measurement test_coll_engine_auto checks). */
#define MEASURE "HSPLIT_COLL", "auto", "HSPLIT_COLL_MIN_PROCS", "1", "HSPLIT_COLL_TRIALS", "1", \
                "HSPLIT_COLL_REPORT", "1", "HSPLIT_COLL_SCHEDULES", "none"

static MPI_Comm dup_world(void)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    return comm;
}

static void check_expect(int rank, int got, int expected, const char *what)
{
    if (rank == 0) CHECK(got == expected, "%s: %d reports, expected %d", what, got, expected);
}

static void test_hints_decide(int rank)
{
    /* the environment: off, no reports */
    MPI_Comm plain = dup_world();
    check_expect(rank, reported_bcasts(plain, 4), 0, "environment off");
    /* hints before the first collective: auto, measured, reported once */
    MPI_Comm hinted = dup_world();
    const char *const measure[] = {MEASURE, "some_other_hint", "x", ""};
    CHECK_INT(set_hints(hinted, measure), MPI_SUCCESS);
    check_expect(rank, reported_bcasts(hinted, 4), 1, "hinted auto");
    /* the same hints again: what was measured is forgotten, measured again */
    CHECK_INT(set_hints(hinted, measure), MPI_SUCCESS);
    check_expect(rank, reported_bcasts(hinted, 4), 1, "hinted again");
    /* MPI_INFO_NULL: nothing changes (decided: no more reports) */
    CHECK_INT(HSPLIT_Comm_set_coll_info(hinted, MPI_INFO_NULL), MPI_SUCCESS);
    check_expect(rank, reported_bcasts(hinted, 4), 0, "info null");
    /* a duplicate keeps the hints (its own measurements) */
    MPI_Comm dup;
    MPI_Comm_dup(hinted, &dup);
    check_expect(rank, reported_bcasts(dup, 4), 1, "duplicate");
    MPI_Comm_free(&dup);
    /* thresholds by hint, after the first collective: above max bytes, plain */
    const char *const max0[] = {"HSPLIT_COLL_MAX_BYTES", "0", ""};
    CHECK_INT(set_hints(hinted, max0), MPI_SUCCESS);
    check_expect(rank, reported_bcasts(hinted, 4), 0, "max bytes 0");
    const char *const max_big[] = {"HSPLIT_COLL_MAX_BYTES", "-1", ""};
    CHECK_INT(set_hints(hinted, max_big), MPI_SUCCESS);
    check_expect(rank, reported_bcasts(hinted, 4), 1, "max bytes -1");
    /* HSPLIT_COLL=off by hint */
    const char *const off[] = {"HSPLIT_COLL", "off", ""};
    CHECK_INT(set_hints(hinted, off), MPI_SUCCESS);
    check_expect(rank, reported_bcasts(hinted, 4), 0, "hint off");
    /* the same value spelled differently on different processes is the same */
    const char *const trials_a[] = {MEASURE, "HSPLIT_COLL_MAX_BYTES", "4000", ""};
    const char *const trials_b[] = {MEASURE, "HSPLIT_COLL_MAX_BYTES", "04000", ""};
    CHECK_INT(set_hints(hinted, rank % 2 ? trials_a : trials_b), MPI_SUCCESS);
    check_expect(rank, reported_bcasts(hinted, 4), 1, "4000 bytes");
    MPI_Comm_free(&hinted);
    MPI_Comm_free(&plain);
}

/* A size class is measured twice: at its first calls, and again after
   HSPLIT_COLL_RECHECK_CALLS (32) decided calls, past the MPI's own warm-up,
   with 4 times the samples; then never again. At most 3 candidates of 1
   trial each: 3 calls, then 32, then at most 12. */
static void test_measured_again(int rank)
{
    MPI_Comm comm = dup_world();
    const char *const measure[] = {MEASURE, ""};
    CHECK_INT(set_hints(comm, measure), MPI_SUCCESS);
    check_expect(rank, reported_bcasts(comm, 3), 1, "first measurement");
    check_expect(rank, bcast_reports(comm, 30, "measured again"), 0, "before 32 calls");
    check_expect(rank, bcast_reports(comm, 2, "measured again"), 0, "while measuring again");
    check_expect(rank, bcast_reports(comm, 12, "median of 4; measured again"), 1,
                 "after 32 calls");
    check_expect(rank, reported_bcasts(comm, 80), 0, "measured twice only");
    MPI_Comm_free(&comm);
}

/* The paths a report line names with their times: "(NAME T us, NAME T us,
   ..., plain MPI T us, slowest ...": up to max of them into names/times;
   returns how many. */
static int report_paths(const char *line, char names[][96], double *times, int max)
{
    const char *at = strchr(line, '(');
    int n = 0;
    while (at != NULL && n < max) {
        at++;
        while (*at == ' ') at++;
        const char *us = strstr(at, " us");
        const char *end = strchr(at, ')');
        if (us == NULL || (end != NULL && end < us)) break;
        const char *num = us; /* back over the number */
        while (num > at && num[-1] != ' ') num--;
        size_t len = (size_t)(num - at) - 1;
        if (len >= 96) len = 95;
        memcpy(names[n], at, len);
        names[n][len] = '\0';
        times[n] = atof(num);
        n++;
        at = strchr(us, ',');
        if (at == NULL || (end != NULL && at > end)) break;
    }
    return n;
}

/* The second measurement takes plain MPI and the two fastest other paths
   of the first (by the times the first report gives), not every candidate:
   with the library's candidates (HSPLIT_COLL_SCHEDULES=auto) the first
   report names more than 3 paths, the second exactly those 3. */
static void test_finalists(int rank)
{
    MPI_Comm comm = dup_world();
    const char *const measure[] = {"HSPLIT_COLL", "auto", "HSPLIT_COLL_MIN_PROCS", "1",
                                   "HSPLIT_COLL_TRIALS", "1", "HSPLIT_COLL_REPORT", "1",
                                   "HSPLIT_COLL_SCHEDULES", "auto", ""};
    CHECK_INT(set_hints(comm, measure), MPI_SUCCESS);
    int *buf = malloc(sizeof(int) * N);
    test_stderr c;
    test_stderr_begin(&c, rank == 0);
    for (int k = 0; k < 200; k++) {
        for (int i = 0; i < N; i++) buf[i] = rank == 0 ? i + k : -1;
        CHECK_INT(HSPLIT_Bcast(buf, N, MPI_INT, 0, comm), MPI_SUCCESS);
        CHECK(buf[N - 1] == N - 1 + k, "finalists: bcast got %d", buf[N - 1]);
    }
    char *text = rank == 0 ? test_stderr_text(&c) : NULL;
    test_stderr_end(&c);
    if (rank == 0) {
        CHECK(text != NULL, "finalists: nothing captured");
        char *first = text != NULL ? strstr(text, "hsplit: bcast of") : NULL;
        char *second = first ? strstr(first + 1, "hsplit: bcast of") : NULL;
        CHECK(first != NULL && second != NULL && strstr(second, "measured again") != NULL,
              "finalists: two reports, the second measured again:\n%s", text ? text : "");
        if (first != NULL && second != NULL) {
            second[-1] = '\0'; /* the first line alone */
            char names1[16][96], names2[16][96];
            double t1[16], t2[16];
            int n1 = report_paths(first, names1, t1, 16);
            int n2 = report_paths(second, names2, t2, 16);
            CHECK(n1 > 3, "finalists: the first measurement has %d paths, expected > 3", n1);
            CHECK(n2 == 3, "finalists: the second measurement has %d paths, expected 3", n2);
            /* the two fastest of the first, other than plain MPI (the
               earlier of equal times): each must be in the second */
            int picked[2] = {-1, -1};
            for (int k = 0; k < 2; k++)
                for (int i = 0; i < n1; i++) {
                    if (strcmp(names1[i], "plain MPI") == 0 || i == picked[0]) continue;
                    if (picked[k] < 0 || t1[i] < t1[picked[k]]) picked[k] = i;
                }
            /* each other path of the second is one of them, or ties with
               the second fastest at the report's 0.1 us (the library
               compares the unrounded times) */
            for (int j = 0; j < n2 && n1 > 3 && picked[1] >= 0; j++) {
                if (strcmp(names2[j], "plain MPI") == 0) continue;
                int i = 0;
                while (i < n1 && strcmp(names1[i], names2[j]) != 0) i++;
                CHECK(i < n1 && t1[i] <= t1[picked[1]] + 0.05,
                      "finalists: '%s' measured again, but the two fastest were '%s' (%.1f us) "
                      "and '%s' (%.1f us)", names2[j], names1[picked[0]], t1[picked[0]],
                      names1[picked[1]], t1[picked[1]]);
            }
            int plain = 0;
            for (int j = 0; j < n2; j++) plain |= strcmp(names2[j], "plain MPI") == 0;
            CHECK(plain, "finalists: plain MPI not measured again");
        }
        free(text);
    }
    free(buf);
    MPI_Comm_free(&comm);
}

static void test_read_once(int rank)
{
    MPI_Comm early = dup_world();
    check_expect(rank, reported_bcasts(early, 2), 0, "before setenv");
    setenv("HSPLIT_COLL", "auto", 1);
    setenv("HSPLIT_COLL_MIN_PROCS", "1", 1);
    setenv("HSPLIT_COLL_TRIALS", "1", 1);
    setenv("HSPLIT_COLL_REPORT", "1", 1);
    setenv("HSPLIT_COLL_SCHEDULES", "none", 1);
    /* read at its first collective: the variables do not change it */
    check_expect(rank, reported_bcasts(early, 4), 0, "read once");
    /* a new communicator reads them */
    MPI_Comm late = dup_world();
    check_expect(rank, reported_bcasts(late, 4), 1, "new communicator");
    /* a hinted one that had no collective yet: hints over the variables */
    MPI_Comm hinted = dup_world();
    const char *const off[] = {"HSPLIT_COLL", "off", ""};
    CHECK_INT(set_hints(hinted, off), MPI_SUCCESS);
    check_expect(rank, reported_bcasts(hinted, 4), 0, "hint over environment");
    setenv("HSPLIT_COLL", "off", 1);
    unsetenv("HSPLIT_COLL_MIN_PROCS");
    unsetenv("HSPLIT_COLL_TRIALS");
    unsetenv("HSPLIT_COLL_REPORT");
    unsetenv("HSPLIT_COLL_SCHEDULES");
    MPI_Comm_free(&hinted);
    MPI_Comm_free(&late);
    MPI_Comm_free(&early);
}

static void test_results(void)
{
    static const char *const settings[][18] = {
        {"HSPLIT_COLL", "on", ""},
        {"HSPLIT_COLL", "off", ""},
        {MEASURE, "HSPLIT_COLL_REPORT", "0", ""},
        {"HSPLIT_COLL", "on", "HSPLIT_COLL_SEGMENT_SIZE", "64", "HSPLIT_COLL_RSAG_BYTES", "0", ""},
        {"HSPLIT_COLL", "on", "HSPLIT_COLL_RSAG_BYTES", "-1", ""},
        {MEASURE, "HSPLIT_COLL_REPORT", "0", "HSPLIT_COLL_MIN_BYTES", "100",
         "HSPLIT_COLL_MAX_BYTES", "1000", ""},
        {"HSPLIT_COLL", "auto", "HSPLIT_COLL_TRIALS", "0", "HSPLIT_COLL_MIN_PROCS", "1", ""},
        /* the engine's candidates measured too */
        {"HSPLIT_COLL", "auto", "HSPLIT_COLL_TRIALS", "1", "HSPLIT_COLL_MIN_PROCS", "1", ""},
        {"HSPLIT_COLL", "auto", "HSPLIT_COLL_TRIALS", "1", "HSPLIT_COLL_MIN_PROCS", "1",
         "HSPLIT_COLL_SCHEDULES", "ml all+v2:chain/64", ""},
        /* the most a list takes: 12 schedules (one more is an error below) */
        {"HSPLIT_COLL", "auto", "HSPLIT_COLL_TRIALS", "1", "HSPLIT_COLL_MIN_PROCS", "1",
         "HSPLIT_COLL_SCHEDULES", "two:mpi all:binomial all:mpi,binomial all:binary all:chain "
         "ml ml:ring mlall mlnet ml:rab ml:rd two:binomial", ""},
    };
    int nsettings = (int)(sizeof settings / sizeof settings[0]);
    MPI_Comm comm = dup_world();
    for (int k = 0; k < nsettings; k++) {
        char what[64];
        snprintf(what, sizeof what, "settings %d", k);
        /* one communicator changed again and again, and a new one each time */
        CHECK_INT(set_hints(comm, settings[k]), MPI_SUCCESS);
        check_results(comm, what);
        MPI_Comm fresh = dup_world();
        CHECK_INT(set_hints(fresh, settings[k]), MPI_SUCCESS);
        check_results(fresh, what);
        MPI_Comm_free(&fresh);
    }
    MPI_Comm_free(&comm);
}

static void test_errors(int rank, MPI_Errhandler handler)
{
    MPI_Comm comm = dup_world();
    MPI_Comm_set_errhandler(comm, handler);
    const char *const measure[] = {MEASURE, ""};
    CHECK_INT(set_hints(comm, measure), MPI_SUCCESS);
    static const char *const bad[][2] = {
        {"HSPLIT_COLL", "maybe"},          {"HSPLIT_COLL", "ON"},
        {"HSPLIT_COLL_TRIALS", "6"},       {"HSPLIT_COLL_TRIALS", "-1"},
        {"HSPLIT_COLL_SEGMENT_SIZE", "0"}, {"HSPLIT_COLL_MIN_BYTES", "12abc"},
        {"HSPLIT_COLL_MAX_BYTES", "-2"},   {"HSPLIT_COLL_REPORT", "2"},
        {"HSPLIT_COLL_MIN_PROCS", "99999999999999999999"},
        {"HSPLIT_COLL_FOO", "1"},          {"HSPLIT_COLLECTIVES", "on"},
        {"HSPLIT_COLL_SCHEDULES", "ml:bogus"},
        {"HSPLIT_COLL_SCHEDULES", "ml ml ml ml ml ml ml ml ml ml ml ml ml"}, /* 13 */
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        const char *const pairs[] = {"HSPLIT_COLL", "off", bad[k][0], bad[k][1], ""};
        /* everywhere */
        CHECK_ERROR(set_hints(comm, pairs), MPI_ERR_ARG);
        /* on one process only: still every process */
        const char *const good[] = {"HSPLIT_COLL", "off", ""};
        CHECK_ERROR(set_hints(comm, rank == 1 ? pairs : good), MPI_ERR_ARG);
    }
    /* different values, and a key some processes give and others not */
    const char *const on[] = {"HSPLIT_COLL", "on", ""}, *const off[] = {"HSPLIT_COLL", "off", ""};
    CHECK_ERROR(set_hints(comm, rank == 0 ? on : off), MPI_ERR_ARG);
    const char *const none[] = {"other", "1", ""};
    CHECK_ERROR(set_hints(comm, rank == 2 ? none : off), MPI_ERR_ARG);
    /* none of them changed anything: still measuring, not off */
    check_expect(rank, reported_bcasts(comm, 4), 1, "after errors");
    /* keys of others only: nothing changes, no error */
    int before = handler_calls;
    CHECK_INT(set_hints(comm, none), MPI_SUCCESS);
    CHECK_INT(HSPLIT_Comm_set_coll_info(comm, MPI_INFO_NULL), MPI_SUCCESS);
    CHECK_INT(handler_calls, before);
    check_results(comm, "after errors");
    /* communicators */
    MPI_Info info = make_info(on);
    CHECK_ERROR(HSPLIT_Comm_set_coll_info(MPI_COMM_NULL, info), MPI_ERR_COMM);
    MPI_Comm half, inter;
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &inter);
    MPI_Comm_set_errhandler(inter, handler);
    CHECK_ERROR(HSPLIT_Comm_set_coll_info(inter, info), MPI_ERR_COMM);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    MPI_Info_free(&info);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *env = getenv("HSPLIT_COLL");
    CHECK(size >= 3 && env != NULL && strcmp(env, "off") == 0,
          "run with HSPLIT_COLL=off and at least 3 processes");
    MPI_Errhandler handler;
    MPI_Comm_create_errhandler(counting_handler, &handler);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler);
    test_hints_decide(rank);
    test_measured_again(rank);
    test_finalists(rank);
    test_read_once(rank);
    test_results();
    test_errors(rank, handler);
    MPI_Errhandler_free(&handler);
    return test_finish();
}
