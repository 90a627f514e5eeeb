/* SPDX-License-Identifier: BSD-3-Clause */
/* The hierarchy the collectives build stays bounded (hierarchy.c): a split
   that makes no group strictly smaller ends the descent, its group being
   its own roots communicator, and past HSPLIT_MAX_LEVELS the build fails
   with MPI_ERR_INTERN instead of splitting on.

   First the rule itself (hsplit_levels_step). Then the state that a broken
   launcher left (an invalid local rank gave processes an empty binding,
   which lies inside every object: every split gave the same group again,
   one more level each time, until MPI ran out of communicators and the
   process crashed): the test empties the binding in this process's context
   before hsplit looks at it, on every process ("all") or on the odd world
   ranks ("odd"), and checks the depth of the collectives' hierarchy, that
   each of its roots communicators has at least two processes, and every
   collective against MPI's own, every root, on MPI_COMM_WORLD and on a
   duplicate.

   Usage: test_levels_bound all|odd DEPTH [--hsplit-all]
     DEPTH         the expected depth of the hierarchy (levels)
     --hsplit-all  also: no level of HSPLIT_Comm_hsplit_all is as large as
                   the communicator it splits (split.c's descent)
   Run with HSPLIT_TOPOLOGY (figure 1) and HSPLIT_COLL=on. */
#include "hsplit_internal.h"
#include "test_util.h"

enum { BIG = 1000, MAX_ALL = 16 };

static void check_rule(void)
{
    static const struct {
        int level, psize, num, csize, expected;
    } cases[] = {
        {0, 4, 2, 2, HSPLIT_LEVELS_SPLIT},   /* two groups of two */
        {0, 4, 1, 3, HSPLIT_LEVELS_SPLIT},   /* one group, one process left alone */
        {1, 3, 1, 1, HSPLIT_LEVELS_SPLIT},   /* left alone here, in a group elsewhere */
        {0, 4, 0, 1, HSPLIT_LEVELS_FLAT},    /* nothing split */
        {2, 4, 4, 1, HSPLIT_LEVELS_FLAT},    /* single processes only */
        {0, 4, 1, 4, HSPLIT_LEVELS_FLAT},    /* the whole group again */
        {5, 2, 1, 2, HSPLIT_LEVELS_FLAT},
        {HSPLIT_MAX_LEVELS - 1, 4, 2, 2, HSPLIT_LEVELS_SPLIT},
        {HSPLIT_MAX_LEVELS, 4, 2, 2, HSPLIT_LEVELS_TOO_DEEP},
        {HSPLIT_MAX_LEVELS, 4, 1, 4, HSPLIT_LEVELS_TOO_DEEP},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(hsplit_levels_step(cases[i].level, cases[i].psize, cases[i].num, cases[i].csize) ==
                  cases[i].expected,
              "case %zu: level %d, %d processes, %d groups, mine of %d", i, cases[i].level,
              cases[i].psize, cases[i].num, cases[i].csize);
}

static int value(int rank, int i, int salt) { return rank * 1009 + i * 7 + salt; }

/* Every collective on comm, every root, counts 1 and BIG, against MPI's. */
static void collectives(MPI_Comm comm, const char *where)
{
    int size, rank;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    size_t all = (size_t)BIG * (size_t)size;
    int *in = malloc(sizeof(int) * all), *mine = malloc(sizeof(int) * all),
        *ref = malloc(sizeof(int) * all);
    if (in == NULL || mine == NULL || ref == NULL) MPI_Abort(MPI_COMM_WORLD, 2);
    for (int root = 0; root < size; root++) {
        for (int n = 1; n <= BIG; n += BIG - 1) {
            size_t bytes = sizeof(int) * (size_t)n;
            for (int i = 0; i < n; i++) {
                in[i] = value(rank, i, root);
                mine[i] = ref[i] = rank == root ? value(root, i, 1) : -1;
            }
            CHECK_INT(HSPLIT_Bcast(mine, n, MPI_INT, root, comm), MPI_SUCCESS);
            MPI_Bcast(ref, n, MPI_INT, root, comm);
            CHECK(memcmp(mine, ref, bytes) == 0 && ref[n - 1] == value(root, n - 1, 1),
                  "%s: Bcast root %d count %d", where, root, n);

            CHECK_INT(HSPLIT_Reduce(in, mine, n, MPI_INT, MPI_SUM, root, comm), MPI_SUCCESS);
            MPI_Reduce(in, ref, n, MPI_INT, MPI_SUM, root, comm);
            if (rank == root)
                CHECK(memcmp(mine, ref, bytes) == 0, "%s: Reduce root %d count %d", where, root, n);
            CHECK_INT(HSPLIT_Allreduce(in, mine, n, MPI_INT, MPI_MAX, comm), MPI_SUCCESS);
            MPI_Allreduce(in, ref, n, MPI_INT, MPI_MAX, comm);
            CHECK(memcmp(mine, ref, bytes) == 0 && ref[0] == value(size - 1, 0, root),
                  "%s: Allreduce count %d", where, n);

            memset(mine, 0xA5, bytes * (size_t)size);
            memset(ref, 0xA5, bytes * (size_t)size);
            CHECK_INT(HSPLIT_Gather(in, n, MPI_INT, mine, n, MPI_INT, root, comm), MPI_SUCCESS);
            MPI_Gather(in, n, MPI_INT, ref, n, MPI_INT, root, comm);
            if (rank == root)
                CHECK(memcmp(mine, ref, bytes * (size_t)size) == 0 &&
                          ref[(size_t)(size - 1) * (size_t)n] == value(size - 1, 0, root),
                      "%s: Gather root %d count %d", where, root, n);
            memset(mine, 0xA5, bytes);
            memset(in, 0x5A, bytes);
            CHECK_INT(HSPLIT_Scatter(ref, n, MPI_INT, mine, n, MPI_INT, root, comm), MPI_SUCCESS);
            MPI_Scatter(ref, n, MPI_INT, in, n, MPI_INT, root, comm);
            CHECK(memcmp(mine, in, bytes) == 0 && in[0] == value(rank, 0, root),
                  "%s: Scatter root %d count %d", where, root, n);
            memset(mine, 0xA5, bytes * (size_t)size);
            memset(ref, 0xA5, bytes * (size_t)size);
            CHECK_INT(HSPLIT_Allgather(in, n, MPI_INT, mine, n, MPI_INT, comm), MPI_SUCCESS);
            MPI_Allgather(in, n, MPI_INT, ref, n, MPI_INT, comm);
            CHECK(memcmp(mine, ref, bytes * (size_t)size) == 0, "%s: Allgather count %d", where, n);
        }
    }
    CHECK_INT(HSPLIT_Barrier(comm), MPI_SUCCESS);
    free(in);
    free(mine);
    free(ref);
}

/* The hierarchy of comm (built by the collectives above): its depth, and no
   roots communicator of a single process (what each repeated split made). */
static void check_hierarchy(MPI_Comm comm, int depth, const char *where)
{
    hsplit_hierarchy *h = NULL;
    CHECK_INT(hsplit_hierarchy_get(comm, &h), MPI_SUCCESS);
    if (h == NULL) return;
    CHECK(h->depth == depth, "%s: depth %d, expected %d", where, h->depth, depth);
    CHECK(h->nlevels <= depth, "%s: %d levels here, depth %d", where, h->nlevels, depth);
    for (int i = 0; i < h->nlevels; i++) {
        int n;
        MPI_Comm_size(h->roots[i], &n);
        CHECK(n >= 2, "%s: the roots communicator of level %d has %d process", where,
              h->first + i, n);
    }
}

/* split.c's descent: every level strictly smaller than its parent. */
static void check_hsplit_all(void)
{
    MPI_Comm levels[MAX_ALL], roots[MAX_ALL];
    int n = -1, parent;
    MPI_Comm_size(MPI_COMM_WORLD, &parent);
    CHECK_INT(HSPLIT_Comm_hsplit_all(MPI_COMM_WORLD, MPI_INFO_NULL, MAX_ALL, &n, levels, roots),
              MPI_SUCCESS);
    for (int i = 0; i < n; i++) {
        int size;
        MPI_Comm_size(levels[i], &size);
        CHECK(size < parent, "hsplit_all: level %d has %d processes, as many as its parent", i,
              size);
        parent = size;
        MPI_Comm_free(&levels[i]);
        if (roots[i] != MPI_COMM_NULL) MPI_Comm_free(&roots[i]);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 3 || (strcmp(argv[1], "all") != 0 && strcmp(argv[1], "odd") != 0)) {
        if (rank == 0) fprintf(stderr, "usage: test_levels_bound all|odd DEPTH [--hsplit-all]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int depth = atoi(argv[2]), with_all = argc > 3 && strcmp(argv[3], "--hsplit-all") == 0;
    check_rule();

    /* before anything looks at the bindings: empty, as the launcher left them */
    hsplit_context *ctx = hsplit_get_context();
    CHECK(ctx != NULL && ctx->error_kind == HSPLIT_KIND_OK, "no usable context");
    if (ctx == NULL || ctx->error_kind != HSPLIT_KIND_OK) MPI_Abort(MPI_COMM_WORLD, 1);
    if (strcmp(argv[1], "all") == 0 || rank % 2 == 1) hwloc_bitmap_zero(ctx->binding);

    collectives(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    check_hierarchy(MPI_COMM_WORLD, depth, "MPI_COMM_WORLD");
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    collectives(dup, "duplicate");
    check_hierarchy(dup, depth, "duplicate");
    MPI_Comm_free(&dup);
    if (with_all) check_hsplit_all();

    long mine[2] = {test_state.passed, test_state.failed}, total[2];
    MPI_Allreduce(mine, total, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_levels_bound %s: %ld passed, %ld failed\n", argv[1], total[0], total[1]);
    MPI_Finalize();
    return total[1] == 0 ? 0 : 1;
}
