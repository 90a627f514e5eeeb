/* SPDX-License-Identifier: BSD-3-Clause */
/* Which path the public collectives take with the node's shared memory:
   with HSPLIT_COLL_SHM=on (and HSPLIT_COLL=on) every HSPLIT_Barrier, Bcast,
   Reduce, Allreduce, Gather, Scatter and Allgather must go through the node
   segment (its step and barrier counters advance), with =off no segment may
   exist, and in auto
   mode (one trial per path) the segment must be used by the measured calls;
   every result is checked against values computed here.
   Usage: test_coll_shm_paths on|off|auto */
#include <string.h>
#include "coll_shm_private.h"
#include "test_util.h"

/* The communicator's segment (NULL: none), through its cached hierarchy. */
static const struct hsplit_shm *segment_of(MPI_Comm comm)
{
    hsplit_hierarchy *h = NULL;
    if (hsplit_hierarchy_get(comm, &h) != MPI_SUCCESS || h == NULL || !h->shm_ready) return NULL;
    return h->shm;
}

/* Uses since the last look: data steps and barriers. */
typedef struct {
    uint64_t step, barriers;
} counters;

static counters look(MPI_Comm comm)
{
    const struct hsplit_shm *shm = segment_of(comm);
    counters c = {0, 0};
    if (shm != NULL) {
        c.step = shm->step;
        c.barriers = shm->barriers;
    }
    return c;
}

#define NKINDS 7

/* One round of the seven collectives, results checked; what the segment
   counted during each is added to used[] (barrier, bcast, reduce,
   allreduce, gather, scatter, allgather). */
static void round_of_calls(MPI_Comm comm, int count, long used[NKINDS])
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *in = malloc(sizeof(int) * (size_t)count), *out = malloc(sizeof(int) * (size_t)count);
    counters before = look(comm), after;
    CHECK_INT(HSPLIT_Barrier(comm), MPI_SUCCESS);
    after = look(comm);
    used[0] += (long)(after.barriers - before.barriers) + (long)(after.step - before.step);
    int root = size - 1;
    for (int i = 0; i < count; i++) in[i] = rank == root ? 3 * i + 1 : -1;
    before = after;
    CHECK_INT(HSPLIT_Bcast(in, count, MPI_INT, root, comm), MPI_SUCCESS);
    after = look(comm);
    used[1] += (long)(after.step - before.step);
    for (int i = 0; i < count; i++) CHECK_INT(in[i], 3 * i + 1);
    for (int i = 0; i < count; i++) in[i] = rank + i;
    before = after;
    CHECK_INT(HSPLIT_Reduce(in, out, count, MPI_INT, MPI_SUM, root, comm), MPI_SUCCESS);
    after = look(comm);
    used[2] += (long)(after.step - before.step);
    for (int i = 0; rank == root && i < count; i++)
        CHECK_INT(out[i], (long)size * (size - 1) / 2 + (long)size * i);
    before = after;
    CHECK_INT(HSPLIT_Allreduce(in, out, count, MPI_INT, MPI_MAX, comm), MPI_SUCCESS);
    after = look(comm);
    used[3] += (long)(after.step - before.step);
    for (int i = 0; i < count; i++) CHECK_INT(out[i], size - 1 + i);
    /* blocks of count ints: rank r's block holds 100 r + i */
    int *all = malloc(sizeof(int) * (size_t)(count * size));
    for (int i = 0; i < count; i++) in[i] = 100 * rank + i;
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < count * size; i++) all[i] = -1;
        before = after;
        if (k == 0) {
            CHECK_INT(HSPLIT_Gather(in, count, MPI_INT, all, count, MPI_INT, root, comm),
                      MPI_SUCCESS);
        } else if (k == 2) {
            CHECK_INT(HSPLIT_Allgather(in, count, MPI_INT, all, count, MPI_INT, comm),
                      MPI_SUCCESS);
        } else {
            for (int i = 0; i < count * size; i++) all[i] = 100 * (i / count) + i % count;
            for (int i = 0; i < count; i++) out[i] = -1;
            CHECK_INT(HSPLIT_Scatter(all, count, MPI_INT, out, count, MPI_INT, root, comm),
                      MPI_SUCCESS);
            for (int i = 0; i < count; i++) CHECK_INT(out[i], 100 * rank + i);
        }
        after = look(comm);
        used[4 + k] += (long)(after.step - before.step);
        for (int i = 0; k != 1 && (rank == root || k == 2) && i < count * size; i++)
            CHECK_INT(all[i], 100 * (i / count) + i % count);
    }
    free(all);
    free(in);
    free(out);
}

/* With the segment forced, the calls after each kind's first go to it at
   the top of the call (the communicator's state says so for every size),
   and every call counts as the hierarchy's. */
static void check_direct(MPI_Comm comm, int kinds, const int *kind_ids, long calls)
{
    const hsplit_coll_state *s = hsplit_coll_state_find(comm);
    CHECK(s != NULL, "no collective state");
    if (s == NULL) return;
    for (int k = 0; k < kinds; k++)
        CHECK(s->shm_direct[kind_ids[k]] == ~(uint64_t)0 && s->shm_hierarchy != NULL,
              "kind %d not sent to the segment directly", kind_ids[k]);
    CHECK(s->hierarchy_calls == (unsigned long)calls, "%lu calls counted as the hierarchy's, "
          "expected %ld", s->hierarchy_calls, calls);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "on";
    static const char *const names[NKINDS] = {"barrier", "bcast",   "reduce",   "allreduce",
                                               "gather",  "scatter", "allgather"};
    long used[NKINDS] = {0};
    int rounds = strcmp(mode, "auto") == 0 ? 6 : 2;
    for (int r = 0; r < rounds; r++) round_of_calls(MPI_COMM_WORLD, 5, used);
    const struct hsplit_shm *shm = segment_of(MPI_COMM_WORLD);
    if (strcmp(mode, "on") == 0) {
        static const int kinds[NKINDS] = {HSPLIT_COLL_BARRIER, HSPLIT_COLL_BCAST,
                                          HSPLIT_COLL_REDUCE,  HSPLIT_COLL_ALLREDUCE,
                                          HSPLIT_COLL_GATHER,  HSPLIT_COLL_SCATTER,
                                          HSPLIT_COLL_ALLGATHER};
        check_direct(MPI_COMM_WORLD, NKINDS, kinds, (long)NKINDS * rounds);
    }
    if (strcmp(mode, "off") == 0) {
        CHECK(shm == NULL, "HSPLIT_COLL_SHM=off made a segment");
        for (int k = 0; k < NKINDS; k++) CHECK(used[k] == 0, "%s used the segment", names[k]);
    } else {
        CHECK(shm != NULL, "no segment with HSPLIT_COLL_SHM=%s", mode);
        /* on: every call (rounds of each); auto: the measured calls, one of
           each three per size class at least */
        for (int k = 0; k < NKINDS; k++)
            CHECK(used[k] >= (strcmp(mode, "on") == 0 ? rounds : 1),
                  "%s: the segment served %ld steps in %d rounds", names[k], used[k], rounds);
    }
    return test_finish();
}
