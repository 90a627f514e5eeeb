/* SPDX-License-Identifier: BSD-3-Clause */
/* HSPLIT_Coll_setting_count, _describe and _get: the declared settings and
   the value each has for a communicator. Run on two processes with
   HSPLIT_COLL_MIN_PROCS=7 and HSPLIT_COLL_SEGMENT_SIZE= (empty) in the
   environment and no other HSPLIT_COLL* variable. The expected names,
   defaults and values are written here from the user guide's table
   (section 8.2), not taken from the library.

   Strings follow MPI_Info_get_string: *len in is the buffer's size, out the
   size the whole string needs (NUL included); a short buffer gets a cut
   string. Precedence: HSPLIT_Comm_set_coll_info's hint over the
   communicator's own info key over the variable over the default; a
   communicator's values are read at its first collective and kept.
   The communicator's own info keys (MPI_Comm_dup_with_info,
   MPI_Comm_split_type): used where MPI_Comm_get_info gives them back
   (printed: Open MPI 4.1 does, MPICH 4.0 does not); malformed or different
   between processes: every collective on it returns MPI_ERR_ARG, on every
   process, without waiting. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include "test_util.h"
#include "test_errhandler.h"

enum { NSETTINGS = 14 };

static const char *const names[NSETTINGS] = {
    "HSPLIT_COLL", "HSPLIT_COLL_SEGMENT_SIZE", "HSPLIT_COLL_MIN_PROCS",
    "HSPLIT_COLL_MIN_BYTES", "HSPLIT_COLL_MAX_BYTES", "HSPLIT_COLL_RSAG_BYTES",
    "HSPLIT_COLL_TRIALS", "HSPLIT_COLL_REPORT", "HSPLIT_COLL_SHM",
    "HSPLIT_COLL_SHM_BYTES", "HSPLIT_COLL_SHM_FANOUT", "HSPLIT_COLL_RULES",
    "HSPLIT_COLL_SCHEDULE", "HSPLIT_COLL_SCHEDULES"};

/* Index of a setting by its name, through the API (-1: absent). */
static int index_of(const char *name)
{
    for (int i = 0; i < NSETTINGS; i++) {
        char buffer[64];
        int len = sizeof buffer;
        if (HSPLIT_Coll_setting_describe(i, buffer, &len, NULL, NULL, NULL, NULL, NULL, NULL) ==
                MPI_SUCCESS && strcmp(buffer, name) == 0)
            return i;
    }
    return -1;
}

/* Check the value, source and validity of one setting on comm. */
static void check_value(MPI_Comm comm, const char *name, const char *value, int source,
                        int valid, const char *what)
{
    char buffer[256] = "?";
    int len = sizeof buffer, got_source = -1, got_valid = -1;
    int rc = HSPLIT_Coll_setting_get(comm, index_of(name), buffer, &len, &got_source,
                                     &got_valid);
    CHECK(rc == MPI_SUCCESS, "%s: %s: rc %d", what, name, rc);
    CHECK(strcmp(buffer, value) == 0, "%s: %s = \"%s\", expected \"%s\"", what, name, buffer,
          value);
    CHECK(len == (int)strlen(value) + 1, "%s: %s: len %d", what, name, len);
    CHECK(got_source == source, "%s: %s: source %d, expected %d", what, name, got_source,
          source);
    CHECK(got_valid == valid, "%s: %s: valid %d, expected %d", what, name, got_valid, valid);
}

static MPI_Info info_of(const char *key, const char *value)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, key, value);
    return info;
}

static void test_describe(void)
{
    int count = -1;
    CHECK_INT(HSPLIT_Coll_setting_count(&count), MPI_SUCCESS);
    CHECK_INT(count, NSETTINGS);
    for (int i = 0; i < NSETTINGS; i++) CHECK(index_of(names[i]) == i, "%s", names[i]);
    /* defaults, as the user guide gives them */
    static const char *const defaults[][2] = {
        {"HSPLIT_COLL", "auto"}, {"HSPLIT_COLL_MIN_PROCS", "4"}, {"HSPLIT_COLL_MIN_BYTES", "0"},
        {"HSPLIT_COLL_MAX_BYTES", "-1"}, {"HSPLIT_COLL_RSAG_BYTES", "524288"},
        {"HSPLIT_COLL_TRIALS", "3"}, {"HSPLIT_COLL_REPORT", "0"}, {"HSPLIT_COLL_SHM", "auto"},
        {"HSPLIT_COLL_SHM_BYTES", "65536"}, {"HSPLIT_COLL_SHM_FANOUT", "16"}};
    for (size_t k = 0; k < sizeof defaults / sizeof defaults[0]; k++) {
        char buffer[64] = "";
        int len = sizeof buffer;
        HSPLIT_Coll_setting_describe(index_of(defaults[k][0]), NULL, NULL, buffer, &len, NULL,
                                     NULL, NULL, NULL);
        CHECK(strcmp(buffer, defaults[k][1]) == 0, "default of %s: \"%s\"", defaults[k][0],
              buffer);
    }
    /* every setting says what it takes and does */
    for (int i = 0; i < NSETTINGS; i++) {
        int allowed_len = 0, description_len = 0;
        CHECK_INT(HSPLIT_Coll_setting_describe(i, NULL, NULL, NULL, NULL, NULL, &allowed_len,
                                               NULL, &description_len), MPI_SUCCESS);
        CHECK(allowed_len > 1 && description_len > 1, "%s: %d %d", names[i], allowed_len,
              description_len);
    }

    /* truncation: "HSPLIT_COLL_TRIALS" is 18 characters */
    int trials = index_of("HSPLIT_COLL_TRIALS");
    char small[5] = "xxxx";
    int len = 5;
    CHECK_INT(HSPLIT_Coll_setting_describe(trials, small, &len, NULL, NULL, NULL, NULL, NULL,
                                           NULL), MPI_SUCCESS);
    CHECK_STR(small, "HSPL");
    CHECK_INT(len, 19);
    len = 0; /* the size only; nothing written */
    CHECK_INT(HSPLIT_Coll_setting_describe(trials, small, &len, NULL, NULL, NULL, NULL, NULL,
                                           NULL), MPI_SUCCESS);
    CHECK_STR(small, "HSPL");
    CHECK_INT(len, 19);
    len = 1;
    HSPLIT_Coll_setting_describe(trials, small, &len, NULL, NULL, NULL, NULL, NULL, NULL);
    CHECK_STR(small, "");
    CHECK_INT(len, 19);
    len = 19; /* exactly enough */
    char exact[19];
    HSPLIT_Coll_setting_describe(trials, exact, &len, NULL, NULL, NULL, NULL, NULL, NULL);
    CHECK_STR(exact, "HSPLIT_COLL_TRIALS");
    CHECK_INT(len, 19);
    /* a value cut the same way: MIN_PROCS is 7 in the environment */
    len = 1;
    char value[1] = {'x'};
    CHECK_INT(HSPLIT_Coll_setting_get(MPI_COMM_NULL, index_of("HSPLIT_COLL_MIN_PROCS"), value,
                                      &len, NULL, NULL), MPI_SUCCESS);
    CHECK(value[0] == '\0' && len == 2, "cut value: %d, len %d", value[0], len);

    /* errors: MPI_ERR_ARG through MPI_COMM_WORLD's handler, nothing written */
    char buffer[64] = "untouched";
    len = sizeof buffer;
    CHECK_ERROR(HSPLIT_Coll_setting_count(NULL), MPI_ERR_ARG);
    CHECK_ERROR(HSPLIT_Coll_setting_describe(-1, buffer, &len, NULL, NULL, NULL, NULL, NULL,
                                             NULL), MPI_ERR_ARG);
    CHECK_ERROR(HSPLIT_Coll_setting_describe(NSETTINGS, buffer, &len, NULL, NULL, NULL, NULL,
                                             NULL, NULL), MPI_ERR_ARG);
    CHECK_ERROR(HSPLIT_Coll_setting_get(MPI_COMM_NULL, NSETTINGS, buffer, &len, NULL, NULL),
                MPI_ERR_ARG);
    CHECK_ERROR(HSPLIT_Coll_setting_get(MPI_COMM_WORLD, -1, buffer, &len, NULL, NULL),
                MPI_ERR_ARG);
    int negative = -1;
    CHECK_ERROR(HSPLIT_Coll_setting_describe(0, buffer, &negative, NULL, NULL, NULL, NULL, NULL,
                                             NULL), MPI_ERR_ARG);
    CHECK_ERROR(HSPLIT_Coll_setting_describe(0, NULL, NULL, NULL, &len, NULL, NULL, NULL, NULL),
                MPI_ERR_ARG); /* a NULL buffer of 64 characters */
    CHECK_INT(negative, -1);
    CHECK_STR(buffer, "untouched");
    CHECK_INT(len, (int)sizeof buffer);
}

static void test_sources(int rank, int size)
{
    const int DEF = HSPLIT_SOURCE_DEFAULT, ENV = HSPLIT_SOURCE_ENVIRONMENT,
              HINT = HSPLIT_SOURCE_SET_COLL_INFO;
    /* the environment only */
    check_value(MPI_COMM_NULL, "HSPLIT_COLL_MIN_PROCS", "7", ENV, 1, "null");
    check_value(MPI_COMM_NULL, "HSPLIT_COLL_SEGMENT_SIZE", "", ENV, 1, "null");
    check_value(MPI_COMM_NULL, "HSPLIT_COLL_TRIALS", "3", DEF, 1, "null");
    check_value(MPI_COMM_NULL, "HSPLIT_COLL_RULES", "empty", DEF, 1, "null");
    check_value(MPI_COMM_NULL, "HSPLIT_COLL_SCHEDULE", "empty", DEF, 1, "null");
    check_value(MPI_COMM_NULL, "HSPLIT_COLL_SCHEDULES", "auto", DEF, 1, "null");

    /* a hint, before and after the first collective; the variable is read
       at the first collective and kept */
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Info info = info_of("HSPLIT_COLL_TRIALS", "1");
    MPI_Info_set(info, "HSPLIT_COLL_REPORT", ""); /* Open MPI 4.1 refuses empty values */
    int nkeys = 0;
    MPI_Info_get_nkeys(info, &nkeys);
    CHECK_INT(HSPLIT_Comm_set_coll_info(comm, info), MPI_SUCCESS);
    MPI_Info_free(&info);
    check_value(comm, "HSPLIT_COLL_TRIALS", "1", HINT, 1, "hinted, before");
    if (nkeys == 2) check_value(comm, "HSPLIT_COLL_REPORT", "", HINT, 1, "hinted empty, before");
    else check_value(comm, "HSPLIT_COLL_REPORT", "0", DEF, 1, "no empty hint, before");
    check_value(comm, "HSPLIT_COLL_MIN_PROCS", "7", ENV, 1, "variable, before");
    CHECK_INT(HSPLIT_Barrier(comm), MPI_SUCCESS);
    setenv("HSPLIT_COLL_MIN_PROCS", "5", 1);
    setenv("HSPLIT_COLL_SHM_FANOUT", "1", 1); /* malformed */
    check_value(comm, "HSPLIT_COLL_TRIALS", "1", HINT, 1, "hinted, after");
    check_value(comm, "HSPLIT_COLL_MIN_PROCS", "7", ENV, 1, "variable, kept");
    check_value(comm, "HSPLIT_COLL_SHM_FANOUT", "16", DEF, 1, "default, kept");
    check_value(comm, "HSPLIT_COLL", "auto", DEF, 1, "default");
    /* the environment as it is now */
    check_value(MPI_COMM_NULL, "HSPLIT_COLL_MIN_PROCS", "5", ENV, 1, "null, changed");
    check_value(MPI_COMM_NULL, "HSPLIT_COLL_SHM_FANOUT", "1", ENV, 0, "null, malformed");
    MPI_Comm fresh; /* no collective yet: what it would read now */
    MPI_Comm_dup(MPI_COMM_WORLD, &fresh);
    check_value(fresh, "HSPLIT_COLL_SHM_FANOUT", "1", ENV, 0, "fresh, malformed");
    MPI_Comm_free(&fresh);
    unsetenv("HSPLIT_COLL_SHM_FANOUT");
    setenv("HSPLIT_COLL_MIN_PROCS", "7", 1);
    /* a duplicate keeps the hints */
    MPI_Comm dup;
    MPI_Comm_dup(comm, &dup);
    check_value(dup, "HSPLIT_COLL_TRIALS", "1", HINT, 1, "duplicate");
    MPI_Comm_free(&dup);
    MPI_Comm_free(&comm);

    /* an intercommunicator: MPI_ERR_COMM, through its handler */
    if (size >= 2) {
        MPI_Comm half, inter;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 7, &inter);
        MPI_Errhandler handler;
        MPI_Comm_get_errhandler(MPI_COMM_WORLD, &handler);
        MPI_Comm_set_errhandler(inter, handler);
        MPI_Errhandler_free(&handler);
        char buffer[16];
        int len = sizeof buffer;
        CHECK_ERROR(HSPLIT_Coll_setting_get(inter, 0, buffer, &len, NULL, NULL), MPI_ERR_COMM);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
}

/* Does MPI_Comm_get_info give back a key MPI does not know? MPI's own
   behaviour, asked of MPI directly. */
static int mpi_keeps(MPI_Comm comm, const char *key)
{
    MPI_Info used;
    char value[64];
    int flag = 0;
    MPI_Comm_get_info(comm, &used);
    MPI_Info_get(used, key, sizeof value - 1, value, &flag);
    MPI_Info_free(&used);
    return flag;
}

static void test_comm_info(int rank)
{
    const int ENV = HSPLIT_SOURCE_ENVIRONMENT, INFO = HSPLIT_SOURCE_COMM_INFO,
              HINT = HSPLIT_SOURCE_SET_COLL_INFO;
    MPI_Info info = info_of("HSPLIT_COLL_MIN_PROCS", "3");
    MPI_Comm comm;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
    MPI_Info_free(&info);
    int kept = mpi_keeps(comm, "HSPLIT_COLL_MIN_PROCS");
    if (rank == 0)
        printf("MPI_Comm_dup_with_info keeps key HSPLIT_COLL_MIN_PROCS: %s\n",
               kept ? "yes" : "no");
    check_value(comm, "HSPLIT_COLL_MIN_PROCS", kept ? "3" : "7", kept ? INFO : ENV, 1,
                "dup_with_info, before");
    int in = rank + 1, out = 0;
    CHECK_INT(HSPLIT_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm), MPI_SUCCESS);
    int size;
    MPI_Comm_size(comm, &size);
    CHECK_INT(out, size * (size + 1) / 2);
    check_value(comm, "HSPLIT_COLL_MIN_PROCS", kept ? "3" : "7", kept ? INFO : ENV, 1,
                "dup_with_info, after");
    /* a hint overrides the info key */
    info = info_of("HSPLIT_COLL_MIN_PROCS", "2");
    CHECK_INT(HSPLIT_Comm_set_coll_info(comm, info), MPI_SUCCESS);
    MPI_Info_free(&info);
    check_value(comm, "HSPLIT_COLL_MIN_PROCS", "2", HINT, 1, "hint over info");
    MPI_Comm_free(&comm);

    /* MPI_Comm_split_type with an info */
    info = info_of("HSPLIT_COLL_SHM", "off");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, info, &comm);
    MPI_Info_free(&info);
    kept = mpi_keeps(comm, "HSPLIT_COLL_SHM");
    if (rank == 0)
        printf("MPI_Comm_split_type keeps key HSPLIT_COLL_SHM: %s\n", kept ? "yes" : "no");
    check_value(comm, "HSPLIT_COLL_SHM", kept ? "off" : "auto",
                kept ? INFO : HSPLIT_SOURCE_DEFAULT, 1, "split_type");
    MPI_Comm_free(&comm);

    /* a malformed key: every collective fails, on every process */
    info = info_of("HSPLIT_COLL_TRIALS", "9");
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
    MPI_Info_free(&info);
    kept = mpi_keeps(comm, "HSPLIT_COLL_TRIALS");
    if (kept) {
        check_value(comm, "HSPLIT_COLL_TRIALS", "9", INFO, 0, "malformed info");
        CHECK_ERROR(HSPLIT_Barrier(comm), MPI_ERR_ARG);
        CHECK_ERROR(HSPLIT_Bcast(&in, 1, MPI_INT, 0, comm), MPI_ERR_ARG);
    } else {
        CHECK_INT(HSPLIT_Barrier(comm), MPI_SUCCESS);
    }
    MPI_Comm_free(&comm);

    /* different keys on different processes: MPI_ERR_ARG everywhere, no wait */
    info = info_of("HSPLIT_COLL_TRIALS", rank == 0 ? "1" : "2");
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
    MPI_Info_free(&info);
    if (size >= 2 && kept) {
        CHECK_ERROR(HSPLIT_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm), MPI_ERR_ARG);
        CHECK_ERROR(HSPLIT_Barrier(comm), MPI_ERR_ARG);
    } else {
        CHECK_INT(HSPLIT_Barrier(comm), MPI_SUCCESS);
    }
    MPI_Comm_free(&comm);

    /* the same values written differently are the same settings */
    info = info_of("HSPLIT_COLL_TRIALS", rank == 0 ? "2" : "02");
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
    MPI_Info_free(&info);
    CHECK_INT(HSPLIT_Barrier(comm), MPI_SUCCESS);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Errhandler handler;
    MPI_Comm_create_errhandler(counting_handler, &handler);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler);
    test_describe();
    test_sources(rank, size);
    test_comm_info(rank);
    MPI_Errhandler_free(&handler);
    return test_finish();
}
