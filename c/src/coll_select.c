/* SPDX-License-Identifier: BSD-3-Clause */
/* The measured choice between a collective's hierarchical schedule and plain
   MPI (auto mode). Whether the hierarchy pays depends on the machine, the
   MPI library's own algorithms and the message size, so rather than guess,
   the first calls of each collective and size class alternate between both,
   timed, and the faster (by the slowest process's median) is kept for that
   size class on that communicator. Every process makes the same calls in the
   same order, so every process is in the same state and takes the same path
   without communicating, except once per size class to agree on the result. */
#include <stdio.h>
#include <stdlib.h>
#include "hsplit_internal.h"

static const char *const kind_names[HSPLIT_COLL_NKINDS] = {
    "bcast",    "reduce",    "allreduce", "gather",   "scatter",
    "allgather", "barrier",  "gatherv",   "scatterv", "allgatherv",
    "alltoall", "alltoallv", "reduce_scatter_block", "reduce_scatter", "scan",
    "exscan"};


/* The slot measuring size class c, taking a free one, or the next in turn
   when all are busy (its measurement starts again later). */
static hsplit_coll_trial_slot *slot_for(hsplit_coll_tuning *t, int c)
{
    hsplit_coll_trial_slot *free_slot = NULL;
    for (int i = 0; i < HSPLIT_COLL_TRIAL_SLOTS; i++) {
        if (t->slots[i].size_class == c && t->slots[i].calls > 0) return &t->slots[i];
        if (free_slot == NULL && t->slots[i].calls == 0) free_slot = &t->slots[i];
    }
    if (free_slot == NULL) {
        free_slot = &t->slots[t->next_slot];
        t->next_slot = (t->next_slot + 1) % HSPLIT_COLL_TRIAL_SLOTS;
    }
    free_slot->size_class = c;
    free_slot->calls = 0;
    return free_slot;
}

void hsplit_coll_choose(hsplit_hierarchy **h, int kind, long bytes, hsplit_coll_trial *t)
{
    hsplit_hierarchy *hier = *h;
    t->h = NULL;
    if (hier == NULL || hier->config.mode != HSPLIT_COLL_AUTO || hier->config.trials == 0)
        return;
    hsplit_coll_tuning *tuning = &hier->tuning[kind];
    int c = hsplit_coll_unsized(kind) ? tuning->learned_class : hsplit_size_class(bytes);
    uint64_t bit = (uint64_t)1 << c;
    if (tuning->decided & bit) {
        if (!(tuning->use_tree & bit)) *h = NULL;
        return;
    }
    t->h = hier;
    t->tuning = tuning;
    t->slot = slot_for(tuning, c);
    t->tree = t->slot->calls % 2;
    if (!t->tree) *h = NULL;
    /* time the collective, not the late arrival of the previous one's
       slowest process */
    MPI_Barrier(hier->base);
    t->start = MPI_Wtime();
}

void hsplit_coll_learn_size(hsplit_hierarchy *h, int kind, long bytes)
{
    h->tuning[kind].learned_class = hsplit_size_class(bytes);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int hsplit_coll_record(hsplit_coll_trial *t, int rc)
{
    if (t->h == NULL) return rc;
    double elapsed = MPI_Wtime() - t->start;
    hsplit_coll_trial_slot *s = t->slot;
    int trials = t->h->config.trials, i = s->calls / 2;
    if (t->tree) s->tree[i] = elapsed;
    else s->plain[i] = elapsed;
    if (++s->calls < 2 * trials) return rc;
    /* the last trial call: every process is here, agree on the slowest */
    double mine[2] = {median(s->plain, trials), median(s->tree, trials)}, slowest[2];
    int arc = MPI_Allreduce(mine, slowest, 2, MPI_DOUBLE, MPI_MAX, t->h->base);
    uint64_t bit = (uint64_t)1 << s->size_class;
    t->tuning->decided |= bit;
    if (arc == MPI_SUCCESS && slowest[1] < slowest[0]) t->tuning->use_tree |= bit;
    /* plain MPI chosen: from now on one branch at the top of the call */
    hsplit_coll_state *state = hsplit_coll_state_find(t->h->user);
    if (!(t->tuning->use_tree & bit) && state != NULL) {
        int kind = (int)(t->tuning - t->h->tuning);
        state->decided_plain[kind] |= bit;
        hsplit_coll_state_update(state);
    }
    if (arc == MPI_SUCCESS && t->h->config.report && t->h->rank == 0) {
        int kind = (int)(t->tuning - t->h->tuning), c = s->size_class;
        long low = c == 0 ? 0 : 1L << (c - 1), high = c == 0 ? 0 : (1L << c) - 1;
        char sizes[64];
        snprintf(sizes, sizeof sizes, "of %ld to %ld bytes%s", low, high,
                 hsplit_coll_unsized(kind) ? " (as last agreed)" : "");
        fprintf(stderr, "hsplit: %s %s on %d processes: %s (hierarchy %.1f us, "
                        "plain MPI %.1f us, slowest process's median of %d)\n",
                kind_names[kind], sizes, t->h->size,
                t->tuning->use_tree & bit ? "hierarchy" : "plain MPI", slowest[1] * 1e6,
                slowest[0] * 1e6, trials);
    }
    s->calls = 0;
    s->size_class = -1;
    return rc == MPI_SUCCESS ? arc : rc;
}

int hsplit_coll_finish(MPI_Comm comm, const hsplit_hierarchy *used, hsplit_coll_trial *t, int rc)
{
    int plain_failed = used == NULL && rc != MPI_SUCCESS;
    if (used != NULL) {
        hsplit_coll_state *state = hsplit_coll_state_find(comm);
        if (state != NULL) state->hierarchy_calls++;
    }
    rc = hsplit_coll_record(t, rc);
    return rc == MPI_SUCCESS || plain_failed ? rc : hsplit_raise_code(comm, rc);
}
