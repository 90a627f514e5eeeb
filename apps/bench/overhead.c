/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-call cost of HSPLIT_ collectives against MPI's own calls, interleaved in
   one run: blocks of CALLS calls of one then of the other (which goes first
   alternates), BLOCKS blocks each, the median block per process and the
   largest median over processes. Meant for HSPLIT_COLL=off (hsplit only
   forwards to MPI) and for auto mode once it has decided, on 2 processes
   pinned to two cores: the ratio and the nanoseconds hsplit adds per call.

   Then the floor of that cost: what the two MPI calls an HSPLIT_ call still
   makes before MPI's collective (MPI_Comm_get_attr for the communicator's
   cached settings, MPI_Type_size for the size class) cost alone, 10^6 calls
   each, the median of BLOCKS repetitions.

   Usage: bench_overhead [--blocks N] [--calls N]
   Prints a table, then CSV lines prefixed "csv,". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "hsplit.h"
#include "bench_median.h"

enum { BCAST, REDUCE, ALLREDUCE, GATHER, SCATTER, ALLGATHER, BARRIER, NCOLL };
static const char *const coll_names[NCOLL] = {"bcast",   "reduce",    "allreduce", "gather",
                                              "scatter", "allgather", "barrier"};

typedef struct {
    char *send, *recv;
    int count; /* MPI_BYTE elements per process */
} buffers;

static int call(int coll, int use_hsplit, const buffers *b, MPI_Comm comm)
{
    int n = b->count;
    switch (coll) {
    case BCAST:
        return use_hsplit ? HSPLIT_Bcast(b->send, n, MPI_BYTE, 0, comm)
                          : MPI_Bcast(b->send, n, MPI_BYTE, 0, comm);
    /* reductions on unsigned chars with MPI_BOR: every byte count is valid */
    case REDUCE:
        return use_hsplit ? HSPLIT_Reduce(b->send, b->recv, n, MPI_UNSIGNED_CHAR, MPI_BOR, 0, comm)
                          : MPI_Reduce(b->send, b->recv, n, MPI_UNSIGNED_CHAR, MPI_BOR, 0, comm);
    case ALLREDUCE:
        return use_hsplit ? HSPLIT_Allreduce(b->send, b->recv, n, MPI_UNSIGNED_CHAR, MPI_BOR, comm)
                          : MPI_Allreduce(b->send, b->recv, n, MPI_UNSIGNED_CHAR, MPI_BOR, comm);
    case GATHER:
        return use_hsplit ? HSPLIT_Gather(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, 0, comm)
                          : MPI_Gather(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, 0, comm);
    case SCATTER:
        return use_hsplit ? HSPLIT_Scatter(b->recv, n, MPI_BYTE, b->send, n, MPI_BYTE, 0, comm)
                          : MPI_Scatter(b->recv, n, MPI_BYTE, b->send, n, MPI_BYTE, 0, comm);
    case ALLGATHER:
        return use_hsplit ? HSPLIT_Allgather(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, comm)
                          : MPI_Allgather(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, comm);
    default:
        return use_hsplit ? HSPLIT_Barrier(comm) : MPI_Barrier(comm);
    }
}

/* Seconds per call of one block of calls. */
static double block(int coll, int use_hsplit, const buffers *b, int calls, MPI_Comm comm)
{
    MPI_Barrier(comm);
    double t = MPI_Wtime();
    for (int i = 0; i < calls; i++)
        if (call(coll, use_hsplit, b, comm) != MPI_SUCCESS)
            MPI_Abort(comm, 3);
    return (MPI_Wtime() - t) / calls;
}

/* Nanoseconds per call of MPI_Comm_get_attr (an attribute set on comm) and
   of MPI_Type_size (MPI_DOUBLE): median of blocks repetitions of 10^6 calls. */
static void mpi_floor(MPI_Comm comm, int blocks, double ns[2])
{
    enum { N = 1000000 };
    int keyval, value = 1, found = 0, size = 0; /* external calls: not optimised away */
    void *got = NULL;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
    MPI_Comm_set_attr(comm, keyval, &value);
    double *t = malloc(sizeof(double) * (size_t)blocks * 2);
    if (t == NULL) MPI_Abort(MPI_COMM_WORLD, 2);
    for (int k = 0; k < blocks; k++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < N; i++) MPI_Comm_get_attr(comm, keyval, &got, &found);
        double t1 = MPI_Wtime();
        for (int i = 0; i < N; i++) MPI_Type_size(MPI_DOUBLE, &size);
        double t2 = MPI_Wtime();
        t[k] = (t1 - t0) / N * 1e9;
        t[blocks + k] = (t2 - t1) / N * 1e9;
    }
    ns[0] = median(t, blocks);
    ns[1] = median(t + blocks, blocks);
    free(t);
    MPI_Comm_delete_attr(comm, keyval);
    MPI_Comm_free_keyval(&keyval);
}

int main(int argc, char **argv)
{
    int blocks = 41, calls = 200;
    MPI_Init(&argc, &argv);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--blocks") == 0) blocks = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--calls") == 0) calls = atoi(argv[i + 1]);
    }
    if (blocks < 1 || calls < 1) MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    static const int sizes[] = {8, 1024, 65536};
    const char *mode = getenv("HSPLIT_COLL");
    mode = mode != NULL ? mode : "auto";
    double *mpi_t = malloc(sizeof(double) * (size_t)blocks);
    double *hs_t = malloc(sizeof(double) * (size_t)blocks);
    buffers b;
    b.send = calloc((size_t)65536 * (size_t)size, 1);
    b.recv = calloc((size_t)65536 * (size_t)size, 1);
    if (rank == 0) {
        printf("hsplit per-call cost against MPI's own call: %d processes, HSPLIT_COLL=%s, "
               "%d blocks of %d calls, median block, slowest process\n", size, mode, blocks,
               calls);
        printf("%-10s %8s %12s %12s %8s %12s\n", "collective", "bytes", "MPI (us)",
               "HSPLIT (us)", "ratio", "added (ns)");
    }
    char csv[NCOLL * 3][160];
    int ncsv = 0;
    for (int coll = 0; coll < NCOLL; coll++) {
        for (int s = 0; s < 3; s++) {
            if (coll == BARRIER && s > 0) break;
            b.count = coll == BARRIER ? 0 : sizes[s];
            /* warm-up: connections, hierarchy, auto mode's trials */
            for (int i = 0; i < 50; i++) {
                call(coll, 0, &b, comm);
                call(coll, 1, &b, comm);
            }
            for (int k = 0; k < blocks; k++) {
                int hsplit_first = k % 2;
                double first = block(coll, hsplit_first, &b, calls, comm);
                double second = block(coll, !hsplit_first, &b, calls, comm);
                hs_t[k] = hsplit_first ? first : second;
                mpi_t[k] = hsplit_first ? second : first;
            }
            double mine[2] = {median(mpi_t, blocks), median(hs_t, blocks)}, worst[2];
            MPI_Reduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, 0, comm);
            if (rank == 0) {
                double ratio = worst[1] / worst[0], added = (worst[1] - worst[0]) * 1e9;
                printf("%-10s %8d %12.3f %12.3f %8.3f %12.1f\n", coll_names[coll], b.count,
                       worst[0] * 1e6, worst[1] * 1e6, ratio, added);
                snprintf(csv[ncsv++], sizeof csv[0], "csv,%s,%d,%d,%s,%.9f,%.9f,%.4f,%.1f",
                         coll_names[coll], b.count, size, mode, worst[0], worst[1], ratio,
                         added);
            }
        }
    }
    double floor_ns[2], worst_floor[2];
    mpi_floor(comm, blocks, floor_ns);
    MPI_Reduce(floor_ns, worst_floor, 2, MPI_DOUBLE, MPI_MAX, 0, comm);
    if (rank == 0) {
        printf("floor: MPI_Comm_get_attr %.1f ns, MPI_Type_size %.1f ns per call (alone, "
               "slowest process)\n", worst_floor[0], worst_floor[1]);
        printf("csv,collective,bytes,processes,mode,mpi_s,hsplit_s,ratio,added_ns\n");
        for (int i = 0; i < ncsv; i++) printf("%s\n", csv[i]);
        /* the floor in the added_ns column: what those calls add alone */
        printf("csv,floor_get_attr,0,%d,%s,,,,%.1f\n", size, mode, worst_floor[0]);
        printf("csv,floor_type_size,0,%d,%s,,,,%.1f\n", size, mode, worst_floor[1]);
    }
    free(b.send);
    free(b.recv);
    free(mpi_t);
    free(hs_t);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
