/* SPDX-License-Identifier: BSD-3-Clause */
/* The measured choice between a collective's hierarchical schedule and plain
   MPI (auto mode). Whether the hierarchy pays depends on the machine, the
   MPI library's own algorithms and the message size, so rather than guess,
   the first calls of each collective and size class alternate between the
   candidates (plain MPI, the hierarchy, and for barrier, bcast, reduce,
   allreduce, gather, scatter and allgather the hierarchy with the node's part
   in shared memory), timed,
   and the fastest (by the slowest process's median) is kept for that size
   class on that communicator. Every process makes the same calls in the
   same order, so every process is in the same state and takes the same path
   without communicating, except once per size class to agree on the result.
   A rules file (HSPLIT_COLL_RULES, coll_rules.c) fixes the choice of the
   calls it matches instead: a size class that one rule decides wholly is
   set as a second measurement would set it, so that its calls take the same
   fast paths; a class that rules decide in part is decided per call, its
   other sizes measured. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include "hsplit_internal.h"
#include "sim_start.h"

/* the rules file names the kinds and paths as this file does */
_Static_assert(HSPLIT_RULES_NKINDS == HSPLIT_COLL_NKINDS, "kinds of the rules file");
_Static_assert((int)HSPLIT_RULE_SCHEDULE == 3, "the rules file's schedule path");
_Static_assert((int)HSPLIT_RULE_PLAIN == (int)HSPLIT_PATH_PLAIN &&
                   (int)HSPLIT_RULE_TREE == (int)HSPLIT_PATH_TREE &&
                   (int)HSPLIT_RULE_SHM == (int)HSPLIT_PATH_SHM,
               "paths of the rules file");
_Static_assert(HSPLIT_NPATHS <= 32, "finalists: a bit per path in 32 bits");
#define kind_names hsplit_coll_kind_names

static const char *const path_names[3] = {"plain MPI", "hierarchy",
                                           "hierarchy, shared memory"};

/* The schedule a path runs (NULL: not the engine's). */
static const hsplit_schedule *path_schedule(const hsplit_hierarchy *h, int path)
{
    if (path == HSPLIT_PATH_FORCED) return &h->config.schedule;
    if (path >= HSPLIT_PATH_ENGINE && path < HSPLIT_PATH_FORCED) return &h->config.candidates[path - HSPLIT_PATH_ENGINE].schedule;
    return NULL;
}

/* A path's name in reports: the engine's as "hierarchy, " and its schedule. */
static const char *path_name(const hsplit_hierarchy *h, int path, char *buf, size_t size)
{
    const hsplit_schedule *s = path_schedule(h, path);
    if (s == NULL) return path_names[path];
    char text[HSPLIT_SCHEDULE_TEXT];
    hsplit_schedule_format(s, text, sizeof text);
    snprintf(buf, size, "hierarchy, %s", text);
    return buf;
}

/* The bytes of size class c: [2^(c-1), 2^c - 1], class 0 no bytes. */
static long class_low(int c)
{
    return c == 0 ? 0 : 1L << (c - 1);
}

static long class_high(int c)
{
    return c == 0 ? 0 : c == 63 ? LONG_MAX : (1L << c) - 1;
}


/* The slot measuring size class c, taking a free one, or the next in turn
   when all are busy (its measurement starts again later). */
static hsplit_coll_trial_slot *slot_for(hsplit_coll_tuning *t, int c, const int *paths,
                                        int npaths, int samples)
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
    free_slot->npaths = npaths;
    free_slot->samples = samples;
    for (int i = 0; i < npaths; i++) free_slot->paths[i] = paths[i];
    return free_slot;
}

/* The paths of a second measurement: those of the n candidates that are
   finalists (all of them when none is known), in their order; plain MPI,
   the first, always is one. */
static int keep_finalists(int *paths, int n, uint32_t finalists)
{
    if (finalists == 0) return n;
    int kept = 0;
    for (int i = 0; i < n; i++)
        if (i == 0 || (finalists >> paths[i] & 1)) paths[kept++] = paths[i];
    return kept;
}

/* After a first measurement: plain MPI and the HSPLIT_COLL_FINALISTS
   fastest other paths (the earlier one of equal times), from times every
   process agreed on. */
static uint32_t pick_finalists(const hsplit_coll_trial_slot *s, const double *slowest)
{
    uint32_t finalists = (uint32_t)1 << HSPLIT_PATH_PLAIN;
    for (int k = 0; k < HSPLIT_COLL_FINALISTS; k++) {
        int best = -1;
        for (int i = 1; i < s->npaths; i++) {
            int p = s->paths[i];
            if (!(finalists >> p & 1) && (best < 0 || slowest[p] < slowest[best])) best = p;
        }
        if (best >= 0) finalists |= (uint32_t)1 << best;
    }
    return finalists;
}

/* Whether this call may run its node part in shared memory: the setting
   allows it and the node segment exists (made here on first use; every
   process of the hierarchy is in the same call, and makes the same
   choice: the segment's existence is agreed). */
static int shm_usable(hsplit_hierarchy *h, int kind)
{
    if (!hsplit_coll_shm_kind(kind) || h->config.shm == HSPLIT_COLL_OFF) return 0;
    hsplit_shm *shm = NULL;
    return hsplit_shm_get(h, &shm) == MPI_SUCCESS && shm != NULL;
}

/* A hierarchy of one level with no shared memory: plain MPI for every
   collective of the communicator from now on, at the top of the call. */
static void mark_flat(hsplit_hierarchy *h)
{
    hsplit_coll_state *state = hsplit_coll_state_find(h->user);
    if (state != NULL && !state->flat) {
        state->flat = 1;
        hsplit_coll_state_update(state);
    }
}

/* Size classes (bits) of a kind that take the shared-memory schedule for
   good: from now on at the top of the call (hsplit_coll_shm_direct). */
static void mark_shm_direct(hsplit_hierarchy *h, int kind, uint64_t bits)
{
    hsplit_coll_state *state = hsplit_coll_state_find(h->user);
    if (state == NULL) return;
    state->shm_direct[kind] |= bits;
    state->shm_hierarchy = h;
}

/* Size class `bit` of kind decided for path, by a measurement or a rule;
   for good (direct), also the route at the top of the call: plain MPI's
   call or the node's segment. */
static void settle_class(hsplit_hierarchy *h, int kind, uint64_t bit, int path, int direct)
{
    hsplit_coll_tuning *tuning = &h->tuning[kind];
    tuning->decided |= bit;
    tuning->use_tree &= ~bit;
    tuning->use_shm &= ~bit;
    if (path != HSPLIT_PATH_PLAIN) tuning->use_tree |= bit;
    if (path == HSPLIT_PATH_SHM) tuning->use_shm |= bit;
    int c = 0;
    while (c < 63 && !((bit >> c) & 1)) c++;
    tuning->chosen[c] = (uint8_t)path;
    if (!direct) return;
    if (path == HSPLIT_PATH_SHM) mark_shm_direct(h, kind, bit);
    hsplit_coll_state *state = path == HSPLIT_PATH_PLAIN ? hsplit_coll_state_find(h->user) : NULL;
    if (state != NULL) {
        state->decided_plain[kind] |= bit;
        /* an unsized kind's calls all fall in the class last agreed on, and
           stay there while plain MPI serves them: the call's fast path
           (class 0, hsplit_coll_plain with HSPLIT_COLL_ANY_SIZE) too */
        if (hsplit_coll_unsized(kind) && bit == (uint64_t)1 << h->tuning[kind].learned_class)
            state->decided_plain[kind] |= 1;
        hsplit_coll_state_update(state);
    }
}

/* The path a decided size class takes. */
static int decided_path(const hsplit_coll_tuning *tuning, int c)
{
    uint64_t bit = (uint64_t)1 << c;
    if (!(tuning->use_tree & bit)) return HSPLIT_PATH_PLAIN;
    if (tuning->use_shm & bit) return HSPLIT_PATH_SHM;
    return tuning->chosen[c] >= HSPLIT_PATH_ENGINE ? tuning->chosen[c] : HSPLIT_PATH_TREE;
}

/* What a rule's path is where it runs: shared memory needs a kind that has
   it and a segment, the message-based hierarchy a second level; else the
   next one down (shm, tree, plain). */
static int runnable_path(int path, int flat, int shm)
{
    if (path == HSPLIT_RULE_SCHEDULE) path = HSPLIT_PATH_RULED;
    if (path == HSPLIT_PATH_SHM && !shm) path = HSPLIT_PATH_TREE;
    if ((path == HSPLIT_PATH_TREE || path == HSPLIT_PATH_RULED) && flat) path = HSPLIT_PATH_PLAIN;
    return path;
}

static void report_rule(const hsplit_hierarchy *h, int kind, int c, long bytes, int path,
                        const hsplit_schedule *schedule, int line)
{
    char name[HSPLIT_SCHEDULE_TEXT + 16];
    if (path == HSPLIT_PATH_RULED) {
        char text[HSPLIT_SCHEDULE_TEXT];
        hsplit_schedule_format(schedule, text, sizeof text);
        snprintf(name, sizeof name, "hierarchy, %s", text);
    } else {
        snprintf(name, sizeof name, "%s", path_names[path]);
    }
    if (!h->config.report || h->rank != 0) return;
    char sizes[96];
    if (bytes < 0) /* the whole class */
        snprintf(sizes, sizeof sizes, "of %ld to %ld bytes%s", class_low(c), class_high(c),
                 hsplit_coll_unsized(kind) ? " (as last agreed)" : "");
    else
        snprintf(sizes, sizeof sizes, "of %ld bytes (of %ld to %ld: rules per call)", bytes,
                 class_low(c), class_high(c));
    fprintf(stderr, "hsplit: %s %s on %d processes: %s (rules file line %d)\n",
            kind_names[kind], sizes, h->size, name, line);
}

/* The path the rules file gives this call (size class c), or -1 when it
   gives none (measured). The first call of a class looks the class up: one
   rule for all of it sets the class as decided for good (direct routes
   included); rules for part of it are matched per call. Unsized kinds match
   the lower bound of their class: one rule or none for all of it. */
/* A rule's path for kind where it runs; a schedule the engine does not
   serve for this kind, or for a size class it cannot take (no bytes, more
   than an int), is the default tree. */
static int rule_path(const hsplit_coll_rule *rule, int kind, int c, int flat, int shm)
{
    int path = runnable_path(rule->path, flat, shm);
    if (path == HSPLIT_PATH_RULED &&
        (!hsplit_engine_serves(kind, &rule->schedule) || c == 0 || c > 31))
        path = HSPLIT_PATH_TREE;
    return path;
}

static int ruled_path(hsplit_hierarchy *hier, int kind, long bytes, int c, int flat, int shm,
                      const hsplit_schedule **schedule)
{
    hsplit_coll_tuning *tuning = &hier->tuning[kind];
    uint64_t bit = (uint64_t)1 << c;
    *schedule = &tuning->ruled_schedule[c];
    if (!(tuning->rules_seen & bit)) {
        tuning->rules_seen |= bit;
        long low = class_low(c), high = hsplit_coll_unsized(kind) ? low : class_high(c);
        const hsplit_coll_rule *rule = NULL;
        int cover = hsplit_coll_rules_cover(hier->rules, kind, hier->size, hier->depth, low,
                                            high, &rule);
        if (cover < 0) tuning->rules_split |= bit;
        if (cover > 0) {
            int path = rule_path(rule, kind, c, flat, shm);
            tuning->ruled |= bit;
            tuning->final |= bit;
            tuning->ruled_schedule[c] = rule->schedule;
            settle_class(hier, kind, bit, path, 1);
            report_rule(hier, kind, c, -1, path, &rule->schedule, rule->line);
        }
    }
    if (tuning->ruled & bit) return decided_path(tuning, c);
    if (!(tuning->rules_split & bit)) return -1;
    const hsplit_coll_rule *rule =
        hsplit_coll_rules_match(hier->rules, kind, hier->size, hier->depth, bytes);
    if (rule == NULL) return -1;
    int path = rule_path(rule, kind, c, flat, shm);
    *schedule = &rule->schedule;
    if (!(tuning->rules_said & bit)) {
        tuning->rules_said |= bit;
        report_rule(hier, kind, c, bytes, path, &rule->schedule, rule->line);
    }
    return path;
}

/* Under SMPI every process starts a trial call this long (simulated
   seconds) after the latest process's clock. */
#define SMPI_TRIAL_LEAD 1e-4

/* Where a trial call starts. On a real machine: after a barrier, each
   process from its own exit (the closing barrier would add its noise), so
   that the collective is timed and not the late arrival of the previous
   one's slowest process. Under SMPI, whose clock is one for all processes:
   every process at one instant, a lead after the latest clock, so that a
   trial measures what a benchmark with a synchronized start does, the
   first start to the last end. From a barrier's skewed exits to a closing
   barrier the times were others, and ranked the paths otherwise (EPYC16
   under the `mpich` selector, 32 KiB allreduce: ml 98.4 us there, 29.4
   from one instant). */
static double trial_start(MPI_Comm base)
{
    if (!HSPLIT_UNDER_SMPI) {
        MPI_Barrier(base);
        return MPI_Wtime();
    }
    /* a process that is past the instant starts late: its lateness counts
       in the sample, which the lead keeps from happening below a few
       thousand processes (the allreduce's exit skew is tens of us there) */
    int late;
    return hsplit_sim_start_together(base, SMPI_TRIAL_LEAD, &late);
}

void hsplit_coll_choose(hsplit_hierarchy **h, int kind, long bytes, hsplit_coll_trial *t)
{
    hsplit_hierarchy *hier = *h;
    t->h = NULL;
    t->shm = 0;
    t->schedule = NULL;
    t->path = HSPLIT_PATH_PLAIN;
    if (hier == NULL) return;
    /* one level: only the node's shared memory can beat MPI's own call */
    int flat = hier->depth < 2, shm = shm_usable(hier, kind);
    if (flat && !shm) {
        *h = NULL;
        if (hsplit_coll_shm_kind(kind) || hier->config.shm == HSPLIT_COLL_OFF) mark_flat(hier);
        return;
    }
    /* the hierarchical candidates: with messages, in shared memory
       (HSPLIT_COLL_SHM=on: the only one) */
    int paths[HSPLIT_NPATHS] = {HSPLIT_PATH_PLAIN}, n = 1;
    int forced = shm && hier->config.shm == HSPLIT_COLL_ON;
    /* the engine: HSPLIT_COLL_SCHEDULE's schedule instead of the default
       tree; else its candidates besides it (auto mode) */
    int engine = hsplit_coll_engine_kind(kind) && bytes > 0 && bytes <= INT_MAX;
    int schedule = engine && hier->config.has_schedule &&
                   hsplit_engine_serves(kind, &hier->config.schedule);
    if (!flat && !forced) paths[n++] = schedule ? HSPLIT_PATH_FORCED : HSPLIT_PATH_TREE;
    const hsplit_engine_candidate *cand = hier->config.candidates;
    for (int i = 0; !flat && !forced && engine && !schedule && i < hier->config.ncandidates; i++)
        if ((cand[i].kinds >> kind & 1u) && bytes >= cand[i].min_bytes)
            paths[n++] = HSPLIT_PATH_ENGINE + i;
    if (shm && (forced || flat || hier->config.shm == HSPLIT_COLL_AUTO)) paths[n++] = HSPLIT_PATH_SHM;
    int auto_mode = hier->config.mode == HSPLIT_COLL_AUTO, ruled = -1;
    const hsplit_schedule *ruled_schedule = NULL;
    if (auto_mode && hier->rules != NULL) {
        int c = hsplit_coll_unsized(kind) ? hier->tuning[kind].learned_class
                                          : hsplit_size_class(bytes);
        ruled = ruled_path(hier, kind, hsplit_coll_unsized(kind) ? class_low(c) : bytes, c,
                           flat, shm, &ruled_schedule);
        /* a size the engine cannot take (more than an int of bytes) */
        if (ruled == HSPLIT_PATH_RULED && !engine) ruled = HSPLIT_PATH_TREE;
    }
    if (ruled >= 0) {
        t->path = ruled; /* no trial */
    } else if (!auto_mode || hier->config.trials == 0) {
        /* not measured: the message-based hierarchy, shared memory when
           forced; plain MPI when one level leaves nothing else */
        t->path = forced     ? HSPLIT_PATH_SHM
                  : flat     ? HSPLIT_PATH_PLAIN
                  : schedule ? HSPLIT_PATH_FORCED
                             : HSPLIT_PATH_TREE;
        if (forced) mark_shm_direct(hier, kind, ~(uint64_t)0);
    } else {
        hsplit_coll_tuning *tuning = &hier->tuning[kind];
        int c = hsplit_coll_unsized(kind) ? tuning->learned_class : hsplit_size_class(bytes);
        uint64_t bit = (uint64_t)1 << c;
        /* decided once, and not yet measured again: count the call, and
           measure again at the count (the same call everywhere) */
        if (!HSPLIT_UNDER_SMPI && (tuning->decided & bit) && !(tuning->final & bit) &&
            ++tuning->since[c] >= HSPLIT_COLL_RECHECK_CALLS) {
            tuning->decided &= ~bit;
            tuning->use_tree &= ~bit;
            tuning->use_shm &= ~bit;
            tuning->final |= bit;
        }
        if (tuning->decided & bit) {
            t->path = decided_path(tuning, c);
        } else {
            t->h = hier;
            t->tuning = tuning;
            /* the second measurement of a class takes more samples */
            int samples = hier->config.trials;
            if (tuning->final & bit) {
                samples *= HSPLIT_COLL_RECHECK_FACTOR;
                n = keep_finalists(paths, n, tuning->finalists[c]);
            }
            if (samples > HSPLIT_COLL_MAX_SAMPLES) samples = HSPLIT_COLL_MAX_SAMPLES;
            t->slot = slot_for(tuning, c, paths, n, samples);
            t->path = t->slot->paths[t->slot->calls % t->slot->npaths];
        }
    }
    t->shm = t->path == HSPLIT_PATH_SHM;
    t->schedule = t->path == HSPLIT_PATH_RULED ? ruled_schedule : path_schedule(hier, t->path);
    if (t->path == HSPLIT_PATH_PLAIN) *h = NULL;
    /* a schedule's levels are made before it is timed (collective: every
       process takes the same path), so that their making is not measured */
    if (t->h != NULL && t->schedule != NULL) hsplit_engine_prepare(hier, t->schedule);
    if (t->h != NULL) t->start = trial_start(hier->base);
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
    /* this process's end from the common start (trial_start): the slowest
       process's time, agreed below, is the call's span under SMPI */
    double elapsed = MPI_Wtime() - t->start;
    /* and under SMPI no process goes on before all are done: one that
       left the call early would send the next operation's messages while
       the call still runs, and slow it down (NTW10E5, 512 KiB reduce under
       the `mpich` selector: two:mpi read 760.8 us in a trial followed by
       the caller's next reduce, 630.5 in the last of a round, followed by
       the allreduce below) */
    if (HSPLIT_UNDER_SMPI) MPI_Barrier(t->h->base);
    hsplit_coll_trial_slot *s = t->slot;
    int trials = s->samples, n = s->npaths;
    s->time[t->path][s->calls / n] = elapsed;
    if (++s->calls < n * trials) return rc;
    /* the last trial call: every process is here, agree on the slowest
       (indexed by path; a path that is no candidate stays 0) */
    double mine[HSPLIT_NPATHS] = {0}, slowest[HSPLIT_NPATHS] = {0};
    for (int i = 0; i < n; i++) mine[s->paths[i]] = median(s->time[s->paths[i]], trials);
    int arc = MPI_Allreduce(mine, slowest, HSPLIT_NPATHS, MPI_DOUBLE, MPI_MAX, t->h->base);
    uint64_t bit = (uint64_t)1 << s->size_class;
    /* simulated time (SMPI) knows no warm-up: one measurement is final */
    int best = HSPLIT_PATH_PLAIN, again = (t->tuning->final & bit) != 0;
    int final = again || HSPLIT_UNDER_SMPI;
    /* a class that rules decide in part takes no direct route: its ruled
       calls must still reach the rules */
    int direct = final && !(t->tuning->rules_split & bit);
    for (int i = 1; arc == MPI_SUCCESS && i < n; i++)
        if (slowest[s->paths[i]] < slowest[best]) best = s->paths[i];
    settle_class(t->h, (int)(t->tuning - t->h->tuning), bit, best, direct);
    if (arc == MPI_SUCCESS && !final)
        t->tuning->finalists[s->size_class] = pick_finalists(s, slowest);
    if (arc == MPI_SUCCESS && t->h->config.report && t->h->rank == 0) {
        int kind = (int)(t->tuning - t->h->tuning), c = s->size_class;
        long low = class_low(c), high = class_high(c);
        char sizes[64], times[512] = "", name[HSPLIT_SCHEDULE_TEXT + 16];
        snprintf(sizes, sizeof sizes, "of %ld to %ld bytes%s", low, high,
                 hsplit_coll_unsized(kind) ? " (as last agreed)" : "");
        /* the candidates' times, the hierarchical ones first */
        for (int i = 1, at = 0; i < n && at < (int)sizeof times; i++)
            at += snprintf(times + at, sizeof times - (size_t)at, "%s %.1f us, ",
                           path_name(t->h, s->paths[i], name, sizeof name),
                           slowest[s->paths[i]] * 1e6);
        fprintf(stderr, "hsplit: %s %s on %d processes: %s (%splain MPI %.1f us, slowest "
                        "process's median of %d%s)\n",
                kind_names[kind], sizes, t->h->size, path_name(t->h, best, name, sizeof name), times,
                slowest[HSPLIT_PATH_PLAIN] * 1e6, trials, again ? "; measured again" : "");
    }
    s->calls = 0;
    s->size_class = -1;
    return rc == MPI_SUCCESS ? arc : rc;
}

int hsplit_coll_direct_done(MPI_Comm comm, hsplit_coll_state *s, int rc)
{
    s->hierarchy_calls++;
    return rc == MPI_SUCCESS ? rc : hsplit_raise_code(comm, rc);
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
