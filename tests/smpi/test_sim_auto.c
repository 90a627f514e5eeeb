/* SPDX-License-Identifier: BSD-3-Clause */
/* Times for the check of auto mode's measured choice on a simulated clock
   (SimGrid SMPI: deterministic, so the check cannot be noise; the checking
   is check_auto_choice.py's, which runs this program with HSPLIT_COLL=on
   and in auto mode). For every collective and size given, on
   MPI_COMM_WORLD, it prints "coll bytes plain_us hsplit_us": the MPI
   collective itself, then the HSPLIT collective after 12 x
   HSPLIT_COLL_TRIALS calls (auto mode's trials, when auto: at most plain
   MPI, the default tree, shared memory and the schedules of the engine, each
   measured that many times; under SMPI a size class is measured once). A
   time is from one instant at which every process starts the call to the
   slowest process's end, of the second of two calls. The mode is set per
   run, in the environment of smpirun: all simulated ranks share one
   process, and one rank changing the environment for the others in the
   middle of a run is not something SMPI supports.
   Usage: test_sim_auto BYTES...  (block sizes per process, multiples of 4) */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include "../mpi/test_util.h"
#include "sim_start.h"

enum { BCAST, REDUCE, ALLREDUCE, GATHER, SCATTER, ALLGATHER, BARRIER, NCOLLS };
static const char *const names[NCOLLS] = {"bcast",   "reduce",    "allreduce", "gather",
                                          "scatter", "allgather", "barrier"};

typedef struct {
    char *send, *recv;
    int bytes, size;
} buffers;

static void call(int coll, int hsplit, const buffers *b)
{
    int n = b->bytes, ints = b->bytes / 4;
    MPI_Comm w = MPI_COMM_WORLD;
    switch (coll) {
    case BCAST:
        if (hsplit) HSPLIT_Bcast(b->send, n, MPI_BYTE, 0, w);
        else MPI_Bcast(b->send, n, MPI_BYTE, 0, w);
        break;
    case REDUCE:
        if (hsplit) HSPLIT_Reduce(b->send, b->recv, ints, MPI_INT, MPI_SUM, 0, w);
        else MPI_Reduce(b->send, b->recv, ints, MPI_INT, MPI_SUM, 0, w);
        break;
    case ALLREDUCE:
        if (hsplit) HSPLIT_Allreduce(b->send, b->recv, ints, MPI_INT, MPI_SUM, w);
        else MPI_Allreduce(b->send, b->recv, ints, MPI_INT, MPI_SUM, w);
        break;
    case GATHER:
        if (hsplit) HSPLIT_Gather(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, 0, w);
        else MPI_Gather(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, 0, w);
        break;
    case SCATTER:
        if (hsplit) HSPLIT_Scatter(b->recv, n, MPI_BYTE, b->send, n, MPI_BYTE, 0, w);
        else MPI_Scatter(b->recv, n, MPI_BYTE, b->send, n, MPI_BYTE, 0, w);
        break;
    case ALLGATHER:
        if (hsplit) HSPLIT_Allgather(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, w);
        else MPI_Allgather(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, w);
        break;
    default:
        if (hsplit) HSPLIT_Barrier(w);
        else MPI_Barrier(w);
    }
}

/* One call's time: every process starts it at one instant of the simulated
   clock, 100 us after the latest process's (what auto mode's trials and
   bench_coll --sync-start do: a barrier before would let its exit skew
   count), until the slowest process is done. */
static double timed(int coll, int hsplit, const buffers *b)
{
    int late;
    double start = hsplit_sim_start_together(MPI_COMM_WORLD, 1e-4, &late);
    CHECK(!late, "process late for the common start by %g s", MPI_Wtime() - start);
    call(coll, hsplit, b);
    double mine = MPI_Wtime() - start, all;
    MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return all;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    setvbuf(stdout, NULL, _IOLBF, 0);
    CHECK(argc > 1, "usage: test_sim_auto BYTES...");
    const char *trials_env = getenv("HSPLIT_COLL_TRIALS");
    int trials = trials_env != NULL ? atoi(trials_env) : 3;
    for (int a = 1; a < argc; a++) {
        buffers b = {NULL, NULL, atoi(argv[a]), size};
        CHECK(b.bytes >= 4 && b.bytes % 4 == 0, "size %s", argv[a]);
        if (b.bytes < 4 || b.bytes % 4 != 0) continue;
        b.send = calloc((size_t)b.bytes, 1);
        b.recv = calloc((size_t)b.bytes * (size_t)size, 1);
        for (int coll = 0; coll < NCOLLS; coll++) {
            if (coll == BARRIER && a > 1) continue; /* no size */
            double plain = 0, hsplit = 0;
            for (int rep = 0; rep < 2; rep++) plain = timed(coll, 0, &b);
            for (int t = 0; t < 12 * trials; t++) timed(coll, 1, &b);
            for (int rep = 0; rep < 2; rep++) hsplit = timed(coll, 1, &b);
            if (rank == 0)
                printf("%s %d %.3f %.3f\n", names[coll], coll == BARRIER ? 0 : b.bytes,
                       plain * 1e6, hsplit * 1e6);
        }
        free(b.send);
        free(b.recv);
    }
    return test_finish();
}
