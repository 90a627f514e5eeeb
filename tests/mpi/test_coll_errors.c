/* SPDX-License-Identifier: BSD-3-Clause */
/* Errors of the hierarchical collectives: an error class through the right
   error handler (once per call), never a crash or a hang.

   Usage:
     test_coll_errors args
         MPI_COMM_NULL (MPI_ERR_COMM, on MPI_COMM_WORLD's handler) and an
         intercommunicator (MPI_ERR_COMM) for every collective, roots out of
         range (MPI_ERR_ROOT) for the rooted ones; then the collectives still
         work.
     test_coll_errors env VARIABLE
         VARIABLE (one of HSPLIT_COLL*) is malformed in the environment:
         every collective on every communicator returns MPI_ERR_ARG on every
         process without communicating (a hang would show as the test's
         timeout), rank 0's standard error names the variable, and once the
         variable is unset the collectives work again (it is read at every
         call). */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>
#include "test_util.h"
#include "test_stderr.h"
#include "test_errhandler.h"

enum { N = 4 };

/* Every collective on comm with the given root, expecting class cls. */
static void check_all(MPI_Comm comm, int root, int cls, int rooted_only)
{
    int in[N * 64] = {0}, out[N * 64];
    /* counts and displacements for up to 64 processes */
    int counts[64], displs[64];
    for (int i = 0; i < 64; i++) {
        counts[i] = N;
        displs[i] = N * i;
    }
    CHECK_ERROR(HSPLIT_Bcast(in, N, MPI_INT, root, comm), cls);
    CHECK_ERROR(HSPLIT_Reduce(in, out, N, MPI_INT, MPI_SUM, root, comm), cls);
    CHECK_ERROR(HSPLIT_Gather(in, N, MPI_INT, out, N, MPI_INT, root, comm), cls);
    CHECK_ERROR(HSPLIT_Scatter(in, N, MPI_INT, out, N, MPI_INT, root, comm), cls);
    CHECK_ERROR(HSPLIT_Gatherv(in, N, MPI_INT, out, counts, displs, MPI_INT, root, comm), cls);
    CHECK_ERROR(HSPLIT_Scatterv(in, counts, displs, MPI_INT, out, N, MPI_INT, root, comm), cls);
    if (rooted_only) return;
    CHECK_ERROR(HSPLIT_Allreduce(in, out, N, MPI_INT, MPI_SUM, comm), cls);
    CHECK_ERROR(HSPLIT_Allgather(in, N, MPI_INT, out, N, MPI_INT, comm), cls);
    CHECK_ERROR(HSPLIT_Barrier(comm), cls);
    CHECK_ERROR(HSPLIT_Allgatherv(in, N, MPI_INT, out, counts, displs, MPI_INT, comm), cls);
    CHECK_ERROR(HSPLIT_Alltoall(in, 1, MPI_INT, out, 1, MPI_INT, comm), cls);
    CHECK_ERROR(HSPLIT_Alltoallv(in, counts, displs, MPI_INT, out, counts, displs, MPI_INT, comm),
                cls);
    CHECK_ERROR(HSPLIT_Reduce_scatter_block(in, out, 1, MPI_INT, MPI_SUM, comm), cls);
    CHECK_ERROR(HSPLIT_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, comm), cls);
    CHECK_ERROR(HSPLIT_Scan(in, out, N, MPI_INT, MPI_SUM, comm), cls);
    CHECK_ERROR(HSPLIT_Exscan(in, out, N, MPI_INT, MPI_SUM, comm), cls);
}

/* The collectives work on comm: an allreduce and a broadcast with results. */
static void check_working(MPI_Comm comm, const char *what)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int in[N], out[N];
    for (int i = 0; i < N; i++) in[i] = rank + i;
    CHECK_INT(HSPLIT_Allreduce(in, out, N, MPI_INT, MPI_SUM, comm), MPI_SUCCESS);
    for (int i = 0; i < N; i++)
        CHECK(out[i] == size * (size - 1) / 2 + size * i, "%s: allreduce [%d] = %d", what, i,
              out[i]);
    int value = rank == size - 1 ? 42 : -1;
    CHECK_INT(HSPLIT_Bcast(&value, 1, MPI_INT, size - 1, comm), MPI_SUCCESS);
    CHECK(value == 42, "%s: bcast got %d", what, value);
    CHECK_INT(HSPLIT_Barrier(comm), MPI_SUCCESS);
}

static void check_args(MPI_Errhandler handler)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* MPI_COMM_NULL: MPI_ERR_COMM, on MPI_COMM_WORLD's handler */
    check_all(MPI_COMM_NULL, 0, MPI_ERR_COMM, 0);
    /* an intercommunicator between the even and the odd ranks */
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 7, &inter);
    MPI_Comm_set_errhandler(inter, handler);
    check_all(inter, 0, MPI_ERR_COMM, 0);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    /* roots outside [0, size), on every process: none communicates */
    check_all(MPI_COMM_WORLD, -1, MPI_ERR_ROOT, 1);
    check_all(MPI_COMM_WORLD, size, MPI_ERR_ROOT, 1);
    check_working(MPI_COMM_WORLD, "world after errors");
}

/* Runs fn with this process's stderr going to a temporary file, and returns
   what it wrote (malloc'd), so that the library's message can be checked. */
static char *capture_stderr(MPI_Comm comm, void (*fn)(MPI_Comm))
{
    test_stderr c;
    test_stderr_begin(&c, 1);
    fn(comm);
    char *text = test_stderr_text(&c);
    test_stderr_end(&c);
    return text;
}

static void all_arg_errors(MPI_Comm comm)
{
    check_all(comm, 0, MPI_ERR_ARG, 0);
}

static void check_env(const char *variable)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *value = getenv(variable);
    CHECK(value != NULL, "%s is not set: the test needs it malformed", variable);
    char *text = capture_stderr(MPI_COMM_WORLD, all_arg_errors);
    if (rank == 0) {
        CHECK(text != NULL && strstr(text, variable) != NULL && strstr(text, "hsplit: ") != NULL,
              "standard error does not name %s: \"%s\"", variable, text ? text : "(not captured)");
    } else {
        CHECK(text != NULL && text[0] == '\0', "rank %d wrote \"%s\"", rank, text ? text : "");
    }
    free(text);
    /* other communicators: a duplicate, a split, MPI_COMM_SELF */
    MPI_Comm dup, half;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    check_all(dup, 0, MPI_ERR_ARG, 0);
    check_all(half, 0, MPI_ERR_ARG, 0);
    check_all(MPI_COMM_SELF, 0, MPI_ERR_ARG, 0);
    /* read once per communicator, at its first collective: the ones that
       read it keep failing once it is fixed, new ones work */
    unsetenv(variable);
    check_all(MPI_COMM_WORLD, 0, MPI_ERR_ARG, 0);
    check_all(dup, 0, MPI_ERR_ARG, 0);
    MPI_Comm fixed, fixed_half;
    MPI_Comm_dup(MPI_COMM_WORLD, &fixed);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &fixed_half);
    check_working(fixed, "dup made after the variable is unset");
    check_working(fixed_half, "split made after the variable is unset");
    MPI_Comm_free(&fixed);
    MPI_Comm_free(&fixed_half);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Errhandler handler;
    MPI_Comm_create_errhandler(counting_handler, &handler);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, handler);
    if (argc == 2 && strcmp(argv[1], "args") == 0) {
        check_args(handler);
    } else if (argc == 3 && strcmp(argv[1], "env") == 0) {
        check_env(argv[2]);
    } else {
        fprintf(stderr, "usage: test_coll_errors args | env VARIABLE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&handler);
    return test_finish();
}
