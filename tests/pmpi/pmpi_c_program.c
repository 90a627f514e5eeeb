/* SPDX-License-Identifier: BSD-3-Clause */
/* An unmodified MPI program: it calls the MPI_ collectives and
   MPI_Comm_split_type only (hsplit.h for its split-type constants, no hsplit
   function), and checks every result against values computed here from the
   inputs. Run with libhsplit_pmpi preloaded or linked, and without it; the
   driver (pmpi_c_check.sh) checks what the library's report says.

   Options: --hsplit-split  also split with hsplit's split types through
                            MPI_Comm_split_type (the library must serve them)
            --refused       the library refuses every call (a malformed
                            HSPLIT_PMPI): each collective fails with
                            MPI_ERR_ARG, and the program says so */
#include <string.h>
#include "../mpi/test_util.h"

enum { N = 5 }; /* elements per block: not a power of two */

static int value(int rank, int i) { return 1000 * rank + 7 * i + 3; }

static void check_rooted(int rank, int size, MPI_Comm comm)
{
    int root = size - 1; /* not the first process: a root that is no leader */
    int block[N], all[64 * N];
    for (int i = 0; i < N; i++) block[i] = rank == root ? value(root, i) : -1;
    MPI_Bcast(block, N, MPI_INT, root, comm);
    for (int i = 0; i < N; i++) CHECK_INT(block[i], value(root, i));

    int mine[N], sum[N];
    for (int i = 0; i < N; i++) mine[i] = value(rank, i);
    MPI_Reduce(mine, sum, N, MPI_INT, MPI_SUM, root, comm);
    for (int i = 0; rank == root && i < N; i++) {
        long expected = 0;
        for (int r = 0; r < size; r++) expected += value(r, i);
        CHECK_INT(sum[i], expected);
    }
    MPI_Gather(mine, N, MPI_INT, all, N, MPI_INT, root, comm);
    for (int r = 0; rank == root && r < size; r++)
        for (int i = 0; i < N; i++) CHECK_INT(all[r * N + i], value(r, i));
    if (rank == root)
        for (int r = 0; r < size; r++)
            for (int i = 0; i < N; i++) all[r * N + i] = value(r, i) + 1;
    MPI_Scatter(all, N, MPI_INT, block, N, MPI_INT, root, comm);
    for (int i = 0; i < N; i++) CHECK_INT(block[i], value(rank, i) + 1);

    /* v-variants: process r gives r % 3 + 1 elements */
    int counts[64], displs[64], total = 0;
    for (int r = 0; r < size; r++) {
        counts[r] = r % 3 + 1;
        displs[r] = total;
        total += counts[r];
    }
    MPI_Gatherv(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT, root, comm);
    for (int r = 0; rank == root && r < size; r++)
        for (int i = 0; i < counts[r]; i++) CHECK_INT(all[displs[r] + i], value(r, i));
    if (rank == root)
        for (int r = 0; r < size; r++)
            for (int i = 0; i < counts[r]; i++) all[displs[r] + i] = value(r, i) + 2;
    MPI_Scatterv(all, counts, displs, MPI_INT, block, counts[rank], MPI_INT, root, comm);
    for (int i = 0; i < counts[rank]; i++) CHECK_INT(block[i], value(rank, i) + 2);
}

static void check_all(int rank, int size, MPI_Comm comm)
{
    int mine[N], out[64 * N], got[64 * N];
    for (int i = 0; i < N; i++) mine[i] = value(rank, i);
    MPI_Allreduce(mine, out, N, MPI_INT, MPI_MAX, comm);
    for (int i = 0; i < N; i++) CHECK_INT(out[i], value(size - 1, i));
    for (int i = 0; i < N; i++) out[i] = mine[i];
    MPI_Allreduce(MPI_IN_PLACE, out, N, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < N; i++) {
        long expected = 0;
        for (int r = 0; r < size; r++) expected += value(r, i);
        CHECK_INT(out[i], expected);
    }
    MPI_Allgather(mine, N, MPI_INT, out, N, MPI_INT, comm);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < N; i++) CHECK_INT(out[r * N + i], value(r, i));
    int counts[64], displs[64], total = 0;
    for (int r = 0; r < size; r++) {
        counts[r] = (r + 1) % 3;  /* zero counts too */
        displs[r] = total + r; /* gaps between blocks */
        total += counts[r] + r;
    }
    for (int i = 0; i < total; i++) out[i] = -7;
    MPI_Allgatherv(mine, counts[rank], MPI_INT, out, counts, displs, MPI_INT, comm);
    for (int r = 0; r < size; r++) {
        for (int i = 0; i < counts[r]; i++) CHECK_INT(out[displs[r] + i], value(r, i));
        for (int g = displs[r] - r; g < displs[r]; g++) CHECK_INT(out[g], -7); /* gap kept */
    }
    /* alltoall: block for process d from r holds value(r, d) + i */
    int send[64 * N];
    for (int d = 0; d < size; d++)
        for (int i = 0; i < N; i++) send[d * N + i] = value(rank, d) + i;
    MPI_Alltoall(send, N, MPI_INT, got, N, MPI_INT, comm);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < N; i++) CHECK_INT(got[r * N + i], value(r, rank) + i);
    /* alltoallv: r sends d % 2 + 1 elements to d */
    int scounts[64], sdispls[64], rcounts[64], rdispls[64], at = 0;
    for (int d = 0; d < size; d++) {
        scounts[d] = d % 2 + 1;
        sdispls[d] = d * N;
        rcounts[d] = rank % 2 + 1;
        rdispls[d] = at;
        at += rcounts[d];
    }
    MPI_Alltoallv(send, scounts, sdispls, MPI_INT, got, rcounts, rdispls, MPI_INT, comm);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < rcounts[r]; i++) CHECK_INT(got[rdispls[r] + i], value(r, rank) + i);
    /* reduce-scatter: block d of the sums to d */
    MPI_Reduce_scatter_block(send, got, N, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < N; i++) {
        long expected = 0;
        for (int r = 0; r < size; r++) expected += value(r, rank) + i;
        CHECK_INT(got[i], expected);
    }
    int rsc[64], first = 0;
    for (int d = 0; d < size; d++) rsc[d] = d % 2 + 1;
    for (int d = 0; d < rank; d++) first += rsc[d];
    MPI_Reduce_scatter(send, got, rsc, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < rsc[rank]; i++) {
        long expected = 0;
        int j = first + i; /* element j of r's send buffer: value(r, j / N) + j % N */
        for (int r = 0; r < size; r++) expected += value(r, j / N) + j % N;
        CHECK_INT(got[i], expected);
    }
    MPI_Scan(mine, got, N, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < N; i++) {
        long expected = 0;
        for (int r = 0; r <= rank; r++) expected += value(r, i);
        CHECK_INT(got[i], expected);
    }
    MPI_Exscan(mine, got, N, MPI_INT, MPI_SUM, comm);
    for (int i = 0; rank > 0 && i < N; i++) {
        long expected = 0;
        for (int r = 0; r < rank; r++) expected += value(r, i);
        CHECK_INT(got[i], expected);
    }
    CHECK_INT(MPI_Barrier(comm), MPI_SUCCESS);
}

/* MPI_COMM_TYPE_SHARED goes to the MPI: one real node here. With
   --hsplit-split, hsplit's split type and MPI-4.0's HW_UNGUIDED (where
   mpi.h has it) split the emulated nodes: HSPLIT_NODES=2 puts ranks 2k and
   2k+1 together. */
static void check_split(int rank, int size, int hsplit_split)
{
    MPI_Comm shared;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
    int n = 0;
    MPI_Comm_size(shared, &n);
    CHECK_INT(n, size);
    MPI_Comm_free(&shared);
    if (!hsplit_split) return;
    int pair[2] = {rank - rank % 2, rank - rank % 2 + 1};
    int types[2] = {HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY, HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY};
#ifdef MPI_COMM_TYPE_HW_UNGUIDED
    types[1] = MPI_COMM_TYPE_HW_UNGUIDED;
#endif
    for (int t = 0; t < 2; t++) {
        MPI_Comm node;
        MPI_Comm_split_type(MPI_COMM_WORLD, types[t], rank, MPI_INFO_NULL, &node);
        test_check_members(node, pair, size - pair[0] >= 2 ? 2 : 1, "node");
        if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
    }
#ifdef MPI_COMM_TYPE_HW_GUIDED
    /* the two processes of a node are bound to cores 0 and 1 of its first
       package ("pack:2 core:2"): one Package communicator per node */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_hw_resource_type", "Package");
    MPI_Comm package;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, info, &package);
    test_check_members(package, pair, size - pair[0] >= 2 ? 2 : 1, "package");
    if (package != MPI_COMM_NULL) MPI_Comm_free(&package);
    MPI_Info_free(&info);
#endif
}

/* Every collective fails alike when the library refuses. */
static void check_refused(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int x = 1, y = 0, cls = -1;
    MPI_Error_class(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), &cls);
    CHECK_INT(cls, MPI_ERR_ARG);
    MPI_Error_class(MPI_Barrier(MPI_COMM_WORLD), &cls);
    CHECK_INT(cls, MPI_ERR_ARG);
    /* the MPI itself still works */
    CHECK_INT(PMPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_INT(y, size);
    long passed = test_state.passed, failed = test_state.failed;
    printf("rank: %ld passed, %ld failed\n", passed, failed);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, hsplit_split = 0, refused = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        hsplit_split |= strcmp(argv[i], "--hsplit-split") == 0;
        refused |= strcmp(argv[i], "--refused") == 0;
    }
    if (size > 64) MPI_Abort(MPI_COMM_WORLD, 2);
    if (refused) {
        check_refused();
        MPI_Finalize();
        return test_state.failed == 0 && test_state.passed > 0 ? 0 : 1;
    }
    /* repeated: auto mode measures in its first calls and decides after */
    for (int round = 0; round < 8; round++) {
        check_rooted(rank, size, MPI_COMM_WORLD);
        check_all(rank, size, MPI_COMM_WORLD);
    }
    check_split(rank, size, hsplit_split);
    return test_finish();
}
