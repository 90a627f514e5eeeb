/* SPDX-License-Identifier: BSD-3-Clause */
/* The neighbour-exchange allgatherv (hsplit_level_allgatherv_nx,
   coll_level_algo.c), called directly on the first k ranks of
   MPI_COMM_WORLD for every even k up to the size (k / 2 pairs: 1 to 4 with
   8 processes, so that pairs travel both ways round for several steps):
   blocks of different counts, some empty, placed in reverse order with
   gaps between them; ints and a strided vector (gaps inside the elements
   that must stay untouched); the whole buffer compared byte for byte with
   one filled here from the block's owner and index alone, and with MPI's
   own MPI_Allgatherv. An odd number of members is refused. */
#include "hsplit_internal.h"
#include "test_util.h"

#define GAP 0x5A

/* Elements of member i's block: 0 for every third member. */
static int count_of(int i) { return i % 3 == 2 ? 0 : 1 + (i * 7) % 5; }

/* Member i's value s (basic ints of its block in order). */
static int value_of(int i, int s) { return 1000 * (i + 1) + s; }

/* Basic int s of element layout t at `elem` of an int buffer: the vector
   holds two ints, 3 ints apart (extent 4 ints). */
static int *slot(int *elem, int vector, int s)
{
    return vector ? elem + (s / 2) * 4 + 3 * (s % 2) : elem + s;
}

/* A buffer of every member's block, block i at displs[i] (in extents),
   holding member i's values for member `only` (-1: every member), GAP
   elsewhere. */
static void fill(char *buf, size_t bytes, int k, const int *displs, int vector, int only)
{
    memset(buf, GAP, bytes);
    int per = vector ? 2 : 1, extent = vector ? 16 : 4;
    for (int i = 0; i < k; i++) {
        if (only >= 0 && i != only) continue;
        for (int s = 0; s < count_of(i) * per; s++)
            *slot((int *)(void *)(buf + (size_t)displs[i] * (size_t)extent), vector, s) =
                value_of(i, s);
    }
}

static void one_case(int k, int vector, MPI_Datatype type)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, rank < k ? 0 : MPI_UNDEFINED, rank, &comm);
    if (comm == MPI_COMM_NULL) return;
    int *counts = malloc(sizeof(int) * 2 * (size_t)k), *displs = counts + k;
    /* reverse order, one element of gap after each block */
    int at = 0;
    for (int i = k - 1; i >= 0; i--) {
        counts[i] = count_of(i);
        displs[i] = at;
        at += counts[i] + 1;
    }
    size_t bytes = (size_t)at * (vector ? 16 : 4);
    char *got = malloc(bytes), *want = malloc(bytes), *mpi = malloc(bytes);
    fill(got, bytes, k, displs, vector, rank);
    fill(mpi, bytes, k, displs, vector, rank);
    fill(want, bytes, k, displs, vector, -1);
    hsplit_view_level l = {comm, k, rank, 0, NULL};
    CHECK_INT(hsplit_level_allgatherv_nx(comm, &l, got, counts, displs, type), MPI_SUCCESS);
    CHECK(memcmp(got, want, bytes) == 0, "%d members, %s: the blocks differ from the computed",
          k, vector ? "vector" : "int");
    CHECK_INT(MPI_Allgatherv(MPI_IN_PLACE, 0, type, mpi, counts, displs, type, comm),
              MPI_SUCCESS);
    CHECK(memcmp(got, mpi, bytes) == 0, "%d members, %s: the blocks differ from MPI_Allgatherv",
          k, vector ? "vector" : "int");
    free(got);
    free(want);
    free(mpi);
    free(counts);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype vector;
    MPI_Type_vector(2, 1, 3, MPI_INT, &vector);
    MPI_Type_commit(&vector);
    for (int k = 2; k <= size; k += 2) {
        one_case(k, 0, MPI_INT);
        one_case(k, 1, vector);
    }
    /* odd: refused, nothing sent (3 members of MPI_COMM_SELF's kind: the
       call returns before any message) */
    int one = 7;
    hsplit_view_level odd = {MPI_COMM_SELF, 3, 0, 0, NULL};
    int counts[3] = {1, 1, 1}, displs[3] = {0, 0, 0};
    CHECK_INT(hsplit_level_allgatherv_nx(MPI_COMM_SELF, &odd, &one, counts, displs, MPI_INT),
              MPI_ERR_INTERN);
    CHECK_INT(one, 7);
    MPI_Type_free(&vector);
    return test_finish();
}
