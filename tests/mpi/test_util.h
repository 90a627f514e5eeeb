/* SPDX-License-Identifier: BSD-3-Clause */
/* Assertions for the MPI tests: every process counts its checks, rank 0 prints
   the totals ("N passed, M failed") and the exit status says if all held. */
#ifndef HSPLIT_TEST_UTIL_H
#define HSPLIT_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "hsplit.h"

typedef struct {
    long passed, failed;
} test_counts;

static test_counts test_state;

#define CHECK(cond, ...)                                                         \
    do {                                                                         \
        if (cond) {                                                              \
            test_state.passed++;                                                 \
        } else {                                                                 \
            int world_rank_;                                                     \
            MPI_Comm_rank(MPI_COMM_WORLD, &world_rank_);                         \
            test_state.failed++;                                                 \
            fprintf(stderr, "[rank %d] %s:%d: check failed: %s: ", world_rank_,  \
                    __FILE__, __LINE__, #cond);                                  \
            fprintf(stderr, __VA_ARGS__);                                        \
            fprintf(stderr, "\n");                                               \
        }                                                                        \
    } while (0)

#define CHECK_INT(actual, expected)                                              \
    do {                                                                         \
        long a_ = (long)(actual), e_ = (long)(expected);                         \
        CHECK(a_ == e_, "%s = %ld, expected %ld", #actual, a_, e_);              \
    } while (0)

#define CHECK_STR(actual, expected)                                              \
    do {                                                                         \
        const char *a_ = (actual), *e_ = (expected);                             \
        CHECK(strcmp(a_, e_) == 0, "%s = \"%s\", expected \"%s\"", #actual, a_, e_); \
    } while (0)

/* World ranks of comm's processes in comm-rank order, into out (size *n). */
static inline void test_world_ranks(MPI_Comm comm, int *out, int *n)
{
    MPI_Group group, world;
    MPI_Comm_size(comm, n);
    int *in = malloc(sizeof(int) * (size_t)*n);
    for (int i = 0; i < *n; i++) in[i] = i;
    MPI_Comm_group(comm, &group);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_translate_ranks(group, *n, in, world, out);
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    free(in);
}

/* Check that comm holds exactly the world ranks expected[0..n-1], in order. */
static inline void test_check_members(MPI_Comm comm, const int *expected, int n,
                                      const char *what)
{
    CHECK(comm != MPI_COMM_NULL, "%s is MPI_COMM_NULL", what);
    if (comm == MPI_COMM_NULL) return;
    int size, *ranks = malloc(sizeof(int) * 4096);
    test_world_ranks(comm, ranks, &size);
    int same = size == n;
    for (int i = 0; same && i < n; i++) same = ranks[i] == expected[i];
    CHECK(same, "%s: members differ (size %d, expected %d; first %d, expected %d)", what,
          size, n, size > 0 ? ranks[0] : -1, n > 0 ? expected[0] : -1);
    free(ranks);
}

/* Check comm's level info. */
static inline void test_check_level(MPI_Comm comm, const char *type, int num_comms,
                                    int index)
{
    int num = -1, idx = -1, len = -1;
    char name[HSPLIT_MAX_HLEVEL_NAME] = "";
    int rc = HSPLIT_Comm_get_hlevel_info(comm, &num, &idx, name, &len);
    CHECK_INT(rc, MPI_SUCCESS);
    CHECK_STR(name, type);
    CHECK_INT(len, (long)strlen(type));
    CHECK_INT(num, num_comms);
    CHECK_INT(idx, index);
}

/* Sum the counts over MPI_COMM_WORLD, print them on rank 0, finalize, and
   return the exit status. */
static inline int test_finish(void)
{
    long local[2] = {test_state.passed, test_state.failed}, total[2];
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Reduce(local, total, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Bcast(total, 2, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%ld passed, %ld failed\n", total[0], total[1]);
    MPI_Finalize();
    return total[1] == 0 && total[0] > 0 ? 0 : 1;
}

#endif
