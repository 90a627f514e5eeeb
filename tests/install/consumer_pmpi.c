/* SPDX-License-Identifier: BSD-3-Clause */
/* An MPI program that knows nothing of hsplit, linked with the installed
   libhsplit_pmpi: its MPI_Allreduce goes through hsplit (the check script
   reads the library's report). */
#include <stdio.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, sum = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int ok = sum == size * (size - 1) / 2;
    printf("rank %d: sum %d: %s\n", rank, sum, ok ? "ok" : "WRONG");
    MPI_Finalize();
    return ok ? 0 : 1;
}
