/* SPDX-License-Identifier: BSD-3-Clause */
/* A minimal PMPI tool, preloaded after libhsplit_pmpi to show that both work
   together: it counts the program's MPI_Comm_rank calls and prints the
   count in MPI_Finalize, which libhsplit_pmpi passes on to it. */
#include <stdatomic.h>
#include <stdio.h>
#include <mpi.h>

/* a test tool's per-process count, like any PMPI profiler's */
static atomic_long rank_calls;

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    atomic_fetch_add(&rank_calls, 1);
    return PMPI_Comm_rank(comm, rank);
}

int MPI_Finalize(void)
{
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "pmpi tool: rank %d: %ld MPI_Comm_rank calls\n", rank,
            (long)atomic_load(&rank_calls));
    return PMPI_Finalize();
}
