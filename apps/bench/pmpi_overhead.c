/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-call cost of an interposed MPI_ entry point (libhsplit_pmpi's wrapper,
   under LD_PRELOAD) against the MPI library's own PMPI_ function, in one
   run: blocks of CALLS calls of MPI_X then of PMPI_X or the other way round
   (which goes first alternates), BLOCKS blocks each, the median block per
   process and the largest median over processes (apps/bench/overhead.c's
   method). Cheap calls, where the wrapper's cost shows: MPI_Barrier, and
   MPI_Bcast and MPI_Allreduce of one int on MPI_COMM_WORLD, and
   MPI_Allreduce of one int on MPI_COMM_SELF (no other process: the
   cheapest, the wrapper's own cost shows best).

   Run it three ways (scripts/bench-pmpi):
     no preload: MPI_X and PMPI_X are the same function, so the difference
       is the noise floor of the method;
     LD_PRELOAD=libhsplit_pmpi.so HSPLIT_PMPI=off: the wrapper reads its
       settings and calls PMPI_X (the cost of leaving the library preloaded
       and switched off; target below 50 ns);
     LD_PRELOAD=libhsplit_pmpi.so HSPLIT_COLL=off: the wrapper calls
       HSPLIT_X, which forwards to PMPI_X (interception on, hsplit's
       collectives off).
   "added" is the difference of the two medians; "paired" the median over
   blocks of the difference of the block and its neighbour of the other
   kind (one pair of blocks shares the machine's state: less disturbed by
   other work on the machine), the largest over processes.

   Usage: bench_pmpi_overhead [--blocks N] [--calls N]
   Prints a table, then CSV lines prefixed "csv,". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "bench_median.h"

enum { BARRIER_WORLD, BCAST_WORLD, ALLREDUCE_WORLD, ALLREDUCE_SELF, NCASES };
static const char *const case_names[NCASES] = {"barrier", "bcast", "allreduce", "allreduce"};
static const char *const comm_names[NCASES] = {"world", "world", "world", "self"};

/* One call of a case, through the MPI_ name (interposed under the preload)
   or the PMPI_ name (always the MPI library's). */
static int call(int c, int through_mpi, int *in, int *out)
{
    switch (c) {
    case BARRIER_WORLD:
        return through_mpi ? MPI_Barrier(MPI_COMM_WORLD) : PMPI_Barrier(MPI_COMM_WORLD);
    case BCAST_WORLD:
        return through_mpi ? MPI_Bcast(in, 1, MPI_INT, 0, MPI_COMM_WORLD)
                           : PMPI_Bcast(in, 1, MPI_INT, 0, MPI_COMM_WORLD);
    case ALLREDUCE_WORLD:
        return through_mpi ? MPI_Allreduce(in, out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD)
                           : PMPI_Allreduce(in, out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    default:
        return through_mpi ? MPI_Allreduce(in, out, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF)
                           : PMPI_Allreduce(in, out, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
    }
}

/* Seconds per call of one block. The processes start it together (a
   PMPI_Barrier: never the wrapper, whichever kind is timed). */
static double block(int c, int through_mpi, int calls, int *in, int *out)
{
    PMPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    for (int i = 0; i < calls; i++)
        if (call(c, through_mpi, in, out) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 3);
    return (MPI_Wtime() - t) / calls;
}

static const char *env_or(const char *name, const char *fallback)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' ? v : fallback;
}

int main(int argc, char **argv)
{
    int blocks = 101, calls = 1000;
    MPI_Init(&argc, &argv);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--blocks") == 0) blocks = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--calls") == 0) calls = atoi(argv[i + 1]);
    }
    if (blocks < 1 || calls < 1) MPI_Abort(MPI_COMM_WORLD, 2);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* Without interposition the two names are one function (weak aliases in
       Open MPI and MPICH): the table then measures the method's noise. */
    int interposed = MPI_Allreduce != PMPI_Allreduce;
    const char *pmpi = env_or("HSPLIT_PMPI", "on"), *mode = env_or("HSPLIT_COLL", "auto");
    double *mpi_t = malloc(sizeof(double) * (size_t)blocks);
    double *pmpi_t = malloc(sizeof(double) * (size_t)blocks);
    double *diff_t = malloc(sizeof(double) * (size_t)blocks);
    if (mpi_t == NULL || pmpi_t == NULL || diff_t == NULL) MPI_Abort(MPI_COMM_WORLD, 2);
    if (rank == 0) {
        printf("MPI_X against PMPI_X: %d processes, MPI_Allreduce %s PMPI_Allreduce (%s), "
               "HSPLIT_PMPI=%s, HSPLIT_COLL=%s, %d blocks of %d calls, median block, slowest "
               "process\n",
               size, interposed ? "is not" : "is",
               interposed ? "interposed: the MPI_ calls go through a wrapper"
                          : "no interposition: the difference is noise",
               pmpi, mode, blocks, calls);
        printf("%-10s %-6s %12s %12s %8s %11s %11s\n", "collective", "comm", "MPI_X (ns)",
               "PMPI_X (ns)", "ratio", "added (ns)", "paired (ns)");
    }
    char csv[NCASES][200];
    for (int c = 0; c < NCASES; c++) {
        int in = rank + 1, out = 0;
        for (int i = 0; i < 100; i++) { /* warm-up: connections, the wrapper's settings */
            call(c, 1, &in, &out);
            call(c, 0, &in, &out);
        }
        for (int k = 0; k < blocks; k++) {
            int mpi_first = k % 2;
            double first = block(c, mpi_first, calls, &in, &out);
            double second = block(c, !mpi_first, calls, &in, &out);
            mpi_t[k] = mpi_first ? first : second;
            pmpi_t[k] = mpi_first ? second : first;
            diff_t[k] = mpi_t[k] - pmpi_t[k];
        }
        double mine[3] = {median(mpi_t, blocks), median(pmpi_t, blocks), median(diff_t, blocks)};
        double worst[3];
        PMPI_Reduce(mine, worst, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            double ratio = worst[0] / worst[1], added = (worst[0] - worst[1]) * 1e9;
            printf("%-10s %-6s %12.1f %12.1f %8.3f %11.1f %11.1f\n", case_names[c], comm_names[c],
                   worst[0] * 1e9, worst[1] * 1e9, ratio, added, worst[2] * 1e9);
            snprintf(csv[c], sizeof csv[c], "csv,%s,%s,%d,%d,%s,%s,%.2f,%.2f,%.4f,%.2f,%.2f",
                     case_names[c], comm_names[c], size, interposed, pmpi, mode, worst[0] * 1e9,
                     worst[1] * 1e9, ratio, added, worst[2] * 1e9);
        }
    }
    if (rank == 0) {
        printf("csv,collective,comm,processes,interposed,hsplit_pmpi,hsplit_coll,mpi_ns,pmpi_ns,"
               "ratio,added_ns,paired_ns\n");
        for (int c = 0; c < NCASES; c++) printf("%s\n", csv[c]);
    }
    free(mpi_t);
    free(pmpi_t);
    free(diff_t);
    MPI_Finalize();
    return 0;
}
