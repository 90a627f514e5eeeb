/* SPDX-License-Identifier: BSD-3-Clause */
/* Splits MPI_COMM_WORLD once on the paper's 2-node emulated cluster and checks
   the first level: one Machine communicator per node. */
#include <stdio.h>
#include <string.h>
#include <mpi.h>
#include <hsplit.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm node, roots;
    int num, index, len, rank, size, ok;
    char type[HSPLIT_MAX_HLEVEL_NAME];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    HSPLIT_Comm_hsplit_with_roots(MPI_COMM_WORLD, MPI_INFO_NULL, &node, &roots);
    HSPLIT_Comm_get_hlevel_info(node, &num, &index, type, &len);
    MPI_Comm_size(node, &size);
    ok = strcmp(type, "Machine") == 0 && num == 2 && index == rank / 2 && size == 2;
    printf("rank %d: %s %d/%d size %d: %s\n", rank, type, index, num, size, ok ? "ok" : "WRONG");
    MPI_Comm_free(&node);
    if (roots != MPI_COMM_NULL) MPI_Comm_free(&roots);
    MPI_Finalize();
    return ok ? 0 : 1;
}
