/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_coll: plain MPI collectives against hsplit's hierarchical ones.
   For each collective and message size, times MPI_X and HSPLIT_X in the same
   run on MPI_COMM_WORLD, call by call interleaved (an untimed barrier before
   each call), after warm-up calls of both, and prints for each the largest
   over processes of the median time per call and the enhancement factor
   MPI time / HSPLIT time (> 1: hsplit is faster). Before timing a size, one
   call of each on the same input is compared ("check": ok or DIFF).
   Sizes are bytes per process: the buffer of bcast, reduce, allreduce, scan
   and exscan, each process's result block of reduce_scatter_block and
   reduce_scatter (reductions: MPI_INT, MPI_SUM), each process's block of
   gather, scatter, allgather and their v-variants (MPI_BYTE, every count the
   same, blocks in rank order), each block of alltoall and alltoallv (MPI_BYTE,
   one block per pair); the root, or every process, holds size blocks.
   The header names the MPI library, the emulated layout (HSPLIT_*) and the
   MPI's collective settings found in the environment (OMPI_MCA_coll*, which
   mpiexec --mca sets, and MPIR_CVAR_*), so that a table says what made it.
   Open MPI's tuned component forced to one algorithm (the hierarchy then
   uses it on every level), and Open MPI's HAN:
     mpiexec --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_bcast_algorithm 5 ...
     mpiexec --mca coll_han_priority 100 ...
   Under SimGrid's SMPI (scripts/simgrid) the times are simulated, hence
   deterministic: one iteration without warm-up says it all (--iters 1
   --warmup 0), and --no-check skips the comparison where SMPI shares the
   buffers of all ranks to save memory (smpi/auto-shared-malloc-thresh).
   --span: the time of a call is from the first process's start to the
   last process's end, which needs one clock for all processes (simulation);
   by default it is each process's own time, as OSU's benchmarks measure.
   --sync-start (with --span, simulation only): every process starts the
   timed call at one instant of the simulated clock, where otherwise they
   start as the barrier before lets them go, so that the barrier's exit
   skew counts as part of the call (at 2048 simulated processes the `ompi`
   selector's barrier left a floor of 49.3 us under every 32 KiB allreduce,
   docs/results.md).
   Usage: mpiexec -n N bench_coll [--coll NAMES] [--min BYTES] [--max BYTES]
          [--max-blocks BYTES] [--step K] [--sizes LIST] [--iters N] [--warmup N]
          [--root R] [--csv FILE] [--no-check] [--span [--sync-start]]
   NAMES: all, or a comma-separated list of bcast, reduce, allreduce,
   gather, scatter, allgather, barrier, gatherv, scatterv, allgatherv,
   alltoall, alltoallv, reduce_scatter_block, reduce_scatter, scan, exscan
   (run in this order). --max-blocks: the largest size of the collectives
   that hold size blocks (default --max), whose buffers grow with the
   process count: one run can then take bcast to 4 MiB and allgather to
   32 KiB. --sizes: these sizes (BYTES, digits only, at most 1 GiB, separated
   by commas, growing) instead
   of the series from --min to --max: 8,128,2048,32768,524288,4194304 is no
   geometric series; --max-blocks still bounds the block collectives.
   Defaults: 4 B to 4 MiB by powers of 4 (--step K: of K), 100 iterations
   and 10 warm-up calls up to 64 KiB, a tenth of them above (at least 10 and
   6, or what was asked if less: the warm-up covers the 2 x 3 calls auto
   mode measures before it chooses a path). Gather, scatter and allgather
   need size x max bytes at the root (allgather: everywhere), and so do
   their v-variants; alltoall(v) and the reduce-scatters size x max bytes
   everywhere for input and output; the others max bytes. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "bench_median.h"
#include "hsplit.h"
#include "sim_start.h"

extern char **environ;

enum {
    BCAST, REDUCE, ALLREDUCE, GATHER, SCATTER, ALLGATHER, BARRIER, GATHERV, SCATTERV,
    ALLGATHERV, ALLTOALL, ALLTOALLV, REDUCE_SCATTER_BLOCK, REDUCE_SCATTER, SCAN, EXSCAN, NCOLLS
};
static const char *const coll_names[NCOLLS] = {
    "bcast",      "reduce",   "allreduce", "gather",    "scatter",
    "allgather",  "barrier",  "gatherv",   "scatterv",  "allgatherv",
    "alltoall",   "alltoallv", "reduce_scatter_block", "reduce_scatter", "scan",
    "exscan"};
#define LARGE_BYTES 65536L
#define MAX_SIZES 64
#define MAX_SIZE (1L << 30) /* bytes of one --sizes entry */

typedef struct {
    const char *coll, *csv;
    long min, max, max_blocks;
    int step, iters, warmup, root, check, span, sync;
    long sizes[MAX_SIZES]; /* --sizes, growing; nsizes 0: the series */
    int nsizes;
} options;

/* One benchmarked call: its collective, size, and buffers (send and recv:
   bytes times the process count, enough for every collective), and the
   counts and displacements of the v-variants and reduce_scatter (every
   process the same count, blocks in rank order). */
typedef struct {
    int coll, root, rank, size;
    long bytes;
    char *send, *recv;
    int *counts, *displs;
} call;

/* --sizes: positive integers separated by commas, each larger than the one
   before, at most MAX_SIZES; sets min and max to the first and last. */
static int parse_sizes(const char *text, options *o)
{
    o->nsizes = 0;
    const char *at = text;
    for (;;) {
        /* digits only (strtol would take spaces and a sign), at most 1 GiB */
        char *end = NULL;
        errno = 0;
        long v = *at >= '0' && *at <= '9' ? strtol(at, &end, 10) : -1;
        if (v < 4 || v > MAX_SIZE || errno == ERANGE || o->nsizes == MAX_SIZES ||
            (o->nsizes > 0 && v <= o->sizes[o->nsizes - 1]))
            return 0;
        o->sizes[o->nsizes++] = v;
        if (*end == '\0') break;
        if (*end != ',') return 0;
        at = end + 1;
    }
    o->min = o->sizes[0];
    o->max = o->sizes[o->nsizes - 1];
    return 1;
}

static int parse(int argc, char **argv, options *o)
{
    *o = (options){"all", NULL, 4, 4L << 20, 0, 4, 100, 10, 0, 1, 0, 0, {0}, 0};
    int sizes_ok = 1, series = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--no-check") == 0) {
            o->check = 0;
            continue;
        }
        if (strcmp(argv[i], "--span") == 0 || strcmp(argv[i], "--sync-start") == 0) {
            if (strcmp(argv[i], "--span") == 0) o->span = 1;
            else o->sync = 1;
            continue;
        }
        if (!v) return 0;
        if (strcmp(argv[i], "--coll") == 0) o->coll = v;
        else if (strcmp(argv[i], "--csv") == 0) o->csv = v;
        else if (strcmp(argv[i], "--min") == 0) o->min = atol(v), series = 1;
        else if (strcmp(argv[i], "--max") == 0) o->max = atol(v), series = 1;
        else if (strcmp(argv[i], "--sizes") == 0) sizes_ok = parse_sizes(v, o);
        else if (strcmp(argv[i], "--max-blocks") == 0) o->max_blocks = atol(v);
        else if (strcmp(argv[i], "--step") == 0) o->step = atoi(v), series = 1;
        else if (strcmp(argv[i], "--iters") == 0) o->iters = atoi(v);
        else if (strcmp(argv[i], "--warmup") == 0) o->warmup = atoi(v);
        else if (strcmp(argv[i], "--root") == 0) o->root = atoi(v);
        else return 0;
        i++;
    }
    /* --sizes replaces the series: both given is a mistake, not a choice */
    if (!sizes_ok || (o->nsizes > 0 && series) || (o->sync && !o->span)) return 0;
    if (o->max_blocks == 0 || o->max_blocks > o->max) o->max_blocks = o->max;
    return o->min >= 4 && o->max >= o->min && o->max_blocks >= o->min && o->step >= 2 &&
           o->iters > 0 && o->warmup >= 0;
}

static int is_reduction(int coll)
{
    return coll == REDUCE || coll == ALLREDUCE || coll == REDUCE_SCATTER_BLOCK ||
           coll == REDUCE_SCATTER || coll == SCAN || coll == EXSCAN;
}

/* Element count and type of a call: reductions add ints. */
static int count_of(const call *c)
{
    return (int)(is_reduction(c->coll) ? c->bytes / 4 : c->bytes);
}

static MPI_Datatype type_of(const call *c)
{
    return is_reduction(c->coll) ? MPI_INT : MPI_BYTE;
}

/* Every process's count n, blocks one after the other in rank order. */
static void set_counts(const call *c)
{
    int n = count_of(c);
    for (int i = 0; i < c->size; i++) {
        c->counts[i] = n;
        c->displs[i] = i * n;
    }
}

static int run_mpi(const call *c)
{
    int n = count_of(c);
    MPI_Datatype t = type_of(c);
    switch (c->coll) {
    case BCAST: return MPI_Bcast(c->recv, n, t, c->root, MPI_COMM_WORLD);
    case REDUCE: return MPI_Reduce(c->send, c->recv, n, t, MPI_SUM, c->root, MPI_COMM_WORLD);
    case ALLREDUCE: return MPI_Allreduce(c->send, c->recv, n, t, MPI_SUM, MPI_COMM_WORLD);
    case GATHER: return MPI_Gather(c->send, n, t, c->recv, n, t, c->root, MPI_COMM_WORLD);
    case SCATTER: return MPI_Scatter(c->recv, n, t, c->send, n, t, c->root, MPI_COMM_WORLD);
    case ALLGATHER: return MPI_Allgather(c->send, n, t, c->recv, n, t, MPI_COMM_WORLD);
    case GATHERV:
        return MPI_Gatherv(c->send, n, t, c->recv, c->counts, c->displs, t, c->root,
                           MPI_COMM_WORLD);
    case SCATTERV:
        return MPI_Scatterv(c->recv, c->counts, c->displs, t, c->send, n, t, c->root,
                            MPI_COMM_WORLD);
    case ALLGATHERV:
        return MPI_Allgatherv(c->send, n, t, c->recv, c->counts, c->displs, t, MPI_COMM_WORLD);
    case ALLTOALL: return MPI_Alltoall(c->send, n, t, c->recv, n, t, MPI_COMM_WORLD);
    case ALLTOALLV:
        return MPI_Alltoallv(c->send, c->counts, c->displs, t, c->recv, c->counts, c->displs, t,
                             MPI_COMM_WORLD);
    case REDUCE_SCATTER_BLOCK:
        return MPI_Reduce_scatter_block(c->send, c->recv, n, t, MPI_SUM, MPI_COMM_WORLD);
    case REDUCE_SCATTER:
        return MPI_Reduce_scatter(c->send, c->recv, c->counts, t, MPI_SUM, MPI_COMM_WORLD);
    case SCAN: return MPI_Scan(c->send, c->recv, n, t, MPI_SUM, MPI_COMM_WORLD);
    case EXSCAN: return MPI_Exscan(c->send, c->recv, n, t, MPI_SUM, MPI_COMM_WORLD);
    default: return MPI_Barrier(MPI_COMM_WORLD);
    }
}

static int run_hsplit(const call *c)
{
    int n = count_of(c);
    MPI_Datatype t = type_of(c);
    switch (c->coll) {
    case BCAST: return HSPLIT_Bcast(c->recv, n, t, c->root, MPI_COMM_WORLD);
    case REDUCE: return HSPLIT_Reduce(c->send, c->recv, n, t, MPI_SUM, c->root, MPI_COMM_WORLD);
    case ALLREDUCE: return HSPLIT_Allreduce(c->send, c->recv, n, t, MPI_SUM, MPI_COMM_WORLD);
    case GATHER: return HSPLIT_Gather(c->send, n, t, c->recv, n, t, c->root, MPI_COMM_WORLD);
    case SCATTER: return HSPLIT_Scatter(c->recv, n, t, c->send, n, t, c->root, MPI_COMM_WORLD);
    case ALLGATHER: return HSPLIT_Allgather(c->send, n, t, c->recv, n, t, MPI_COMM_WORLD);
    case GATHERV:
        return HSPLIT_Gatherv(c->send, n, t, c->recv, c->counts, c->displs, t, c->root,
                              MPI_COMM_WORLD);
    case SCATTERV:
        return HSPLIT_Scatterv(c->recv, c->counts, c->displs, t, c->send, n, t, c->root,
                               MPI_COMM_WORLD);
    case ALLGATHERV:
        return HSPLIT_Allgatherv(c->send, n, t, c->recv, c->counts, c->displs, t,
                                 MPI_COMM_WORLD);
    case ALLTOALL: return HSPLIT_Alltoall(c->send, n, t, c->recv, n, t, MPI_COMM_WORLD);
    case ALLTOALLV:
        return HSPLIT_Alltoallv(c->send, c->counts, c->displs, t, c->recv, c->counts, c->displs,
                                t, MPI_COMM_WORLD);
    case REDUCE_SCATTER_BLOCK:
        return HSPLIT_Reduce_scatter_block(c->send, c->recv, n, t, MPI_SUM, MPI_COMM_WORLD);
    case REDUCE_SCATTER:
        return HSPLIT_Reduce_scatter(c->send, c->recv, c->counts, t, MPI_SUM, MPI_COMM_WORLD);
    case SCAN: return HSPLIT_Scan(c->send, c->recv, n, t, MPI_SUM, MPI_COMM_WORLD);
    case EXSCAN: return HSPLIT_Exscan(c->send, c->recv, n, t, MPI_SUM, MPI_COMM_WORLD);
    default: return HSPLIT_Barrier(MPI_COMM_WORLD);
    }
}

/* Where a call leaves its result on this process (scatter: in send), and
   how many bytes of it; 0 where nothing arrives. */
static long result_bytes(const call *c, char **where)
{
    int root = c->rank == c->root;
    *where = c->coll == SCATTER || c->coll == SCATTERV ? c->send : c->recv;
    switch (c->coll) {
    case BCAST: case ALLREDUCE: case SCATTER: case SCATTERV: case REDUCE_SCATTER_BLOCK:
    case REDUCE_SCATTER: case SCAN: return c->bytes;
    case EXSCAN: return c->rank > 0 ? c->bytes : 0; /* undefined on process 0 */
    case REDUCE: return root ? c->bytes : 0;
    case GATHER: case GATHERV: return root ? c->bytes * c->size : 0;
    case ALLGATHER: case ALLGATHERV: case ALLTOALL: case ALLTOALLV: return c->bytes * c->size;
    default: return 0;
    }
}

/* n bytes of ints made from rank and index: small, so that sums cannot
   overflow; the bytes after the last whole int are zero. */
static void fill_ints(char *buf, long n, int rank)
{
    memset(buf, 0, (size_t)n);
    for (long i = 0; i < n / 4; i++) {
        int v = (int)((rank * 7 + i) % 61);
        memcpy(buf + 4 * i, &v, sizeof v);
    }
}

/* Does a collective use size blocks in its receive buffer (the root's
   send buffer for scatter)? In its send buffer? */
static int uses_blocks(int coll)
{
    return coll == GATHER || coll == SCATTER || coll == ALLGATHER || coll == GATHERV ||
           coll == SCATTERV || coll == ALLGATHERV || coll == ALLTOALL || coll == ALLTOALLV;
}

static int sends_blocks(int coll)
{
    return coll == ALLTOALL || coll == ALLTOALLV || coll == REDUCE_SCATTER_BLOCK ||
           coll == REDUCE_SCATTER;
}

static void fill_inputs(const call *c)
{
    fill_ints(c->send, c->bytes * (sends_blocks(c->coll) ? c->size : 1), c->rank);
    fill_ints(c->recv, c->bytes * (uses_blocks(c->coll) ? c->size : 1), c->rank + 1);
}

/* One call of each on the same input: 1 if all results agree everywhere. */
static int results_agree(call *c)
{
    char *where;
    long n = result_bytes(c, &where);
    char *mpi_result = malloc((size_t)n + 1);
    fill_inputs(c);
    run_mpi(c);
    memcpy(mpi_result, where, (size_t)n);
    fill_inputs(c);
    run_hsplit(c);
    int same = memcmp(mpi_result, where, (size_t)n) == 0, all;
    free(mpi_result);
    MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all;
}

static int iterations(const options *o, long bytes, int warmup)
{
    /* the warm-up is what it is asked to be at every size: in auto mode it
       must cover the measured calls (HSPLIT_COLL_TRIALS of each path), or
       the timed calls are trials of other paths */
    if (warmup) return o->warmup;
    int n = o->iters;
    if (bytes <= LARGE_BYTES) return n;
    n /= 10;
    int least = 10 < o->iters ? 10 : o->iters;
    return n < least ? least : n;
}

/* Time per call of MPI (t[0]) and HSPLIT (t[1]): each process's median over
   the calls, then the largest over processes. A call in which a process
   waited for a scheduler time slice (several ms where processes outnumber
   cores) moves a mean by the whole delay, a median only if most calls are
   hit. The calls are interleaved, and which goes first alternates from one
   iteration to the next (MPI first in iteration 0): the call after the other
   one runs in another state of caches and scheduler queues, and always
   timing the same one second biased the comparison. */
/* --sync-start's lead: how far after the latest process's clock, once an
   allreduce has told every process that time, they all start. The
   allreduce's own exit skew must stay below it (a few tens of us at 2048
   simulated processes); sleeping costs a simulation no wall time. */
#define SYNC_LEAD 1e-3
#define SYNC_LEAD_MAX 1.0

/* One timed call from its start on this process: (start, end). Under
   --sync-start every process starts at one instant `lead` after the latest
   clock, *late set where this process was already past it; else after a
   barrier (exactly the calls of earlier versions: the published tables'
   harness). */
static void timed_call(const call *c, int h, int sync, double lead, double *start, double *end,
                       int *late)
{
    *late = 0;
    if (sync) {
        *start = hsplit_sim_start_together(MPI_COMM_WORLD, lead, late);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        *start = MPI_Wtime();
    }
    if (h) run_hsplit(c);
    else run_mpi(c);
    *end = MPI_Wtime();
}

static void time_calls(const call *c, int warmup, int iters, int span, int sync, double t[2])
{
    double *mine = malloc(2 * (size_t)iters * sizeof *mine);
    if (!mine) {
        fprintf(stderr, "bench_coll: cannot allocate %d timings\n", 2 * iters);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < warmup; i++) {
        run_mpi(c);
        run_hsplit(c);
    }
    /* every timed call comes after the same calls: a span's allreduce, then
       the barrier. Without this one, the first timed call (MPI's) came right
       after the warm-up's, and on a simulated clock it took another time
       (NTW10E5's barrier: 13.74 us against 14.36 for the same MPI call
       later), which read as a 4% loss of hsplit where both are MPI's call */
    int n = sync ? 3 : 2; /* the span's allreduce: the late flag too */
    if (span) {
        double edges[3] = {0, 0, 0}, all[3];
        MPI_Allreduce(edges, all, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    for (int i = 0; i < iters; i++)
        for (int k = 0; k < 2; k++) {
            int h = (k + i) % 2, late;
            double start, end;
            for (double lead = SYNC_LEAD;; lead *= 2) {
                timed_call(c, h, sync, lead, &start, &end, &late);
                if (!span) {
                    mine[h * iters + i] = end - start;
                    break;
                }
                /* one clock for all: first start to last end */
                double edges[3] = {-start, end, (double)late}, all[3] = {0, 0, 0};
                MPI_Allreduce(edges, all, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                mine[h * iters + i] = all[1] + all[0];
                if (all[2] == 0) break;
                if (lead > SYNC_LEAD_MAX) { /* the same on every process */
                    fprintf(stderr, "bench_coll: --sync-start: processes late by %g s\n", lead);
                    MPI_Abort(MPI_COMM_WORLD, 1);
                }
            }
        }
    double own[2];
    for (int h = 0; h < 2; h++) own[h] = median(mine + h * iters, iters);
    MPI_Allreduce(own, t, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    free(mine);
}

/* Environment variables that decide what is measured: hsplit's, Open MPI's
   coll framework (mpiexec --mca coll_... sets OMPI_MCA_coll_...), MPICH's
   collective control variables. */
static int describes_setup(const char *var)
{
    static const char *const mpich_words[] = {"BCAST", "REDUCE", "GATHER", "SCATTER",
                                              "BARRIER", "COLL"};
    if (strncmp(var, "HSPLIT_", 7) == 0 || strncmp(var, "OMPI_MCA_coll", 13) == 0) return 1;
    if (strncmp(var, "MPIR_CVAR_", 10) != 0) return 0;
    const char *end = strchr(var, '=');
    for (size_t i = 0; i < sizeof mpich_words / sizeof mpich_words[0]; i++) {
        const char *at = strstr(var, mpich_words[i]);
        if (at && (!end || at < end)) return 1;
    }
    return 0;
}

static void print_header(FILE *out, const char *prefix, const options *o, int size)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(version, &len);
    char *newline = strchr(version, '\n');
    if (newline) *newline = '\0';
    fprintf(out, "%sbench_coll: MPI_* against HSPLIT_* on MPI_COMM_WORLD, %d processes, root %d\n",
            prefix, size, o->root);
    fprintf(out, "%sMPI: %s\n", prefix, version);
    for (char **e = environ; *e; e++)
        if (describes_setup(*e)) fprintf(out, "%s  %s\n", prefix, *e);
    fprintf(out, "%stimes: largest over processes of the median per call (us); "
                 "factor = MPI / HSPLIT (> 1: hsplit faster)\n",
            prefix);
}

typedef struct {
    int coll, iters, ok;
    long bytes;
    double t[2];
} row;

static void print_row(FILE *table, FILE *csv, const row *r, int size)
{
    double factor = r->t[1] > 0 ? r->t[0] / r->t[1] : 0;
    const char *check = r->ok < 0 ? "-" : r->ok ? "ok" : "DIFF";
    fprintf(table, "%-10s %10ld %7d %12.2f %12.2f %8.3f  %s\n", coll_names[r->coll], r->bytes,
            r->iters, r->t[0] * 1e6, r->t[1] * 1e6, factor, check);
    fflush(table);
    if (csv)
        fprintf(csv, "%s,%ld,%d,%d,%.3f,%.3f,%.4f,%s\n", coll_names[r->coll], r->bytes, size,
                r->iters, r->t[0] * 1e6, r->t[1] * 1e6, factor, check);
}

/* The largest size of a collective: its buffers hold size blocks of it? */
static long largest_bytes(int coll, const options *o)
{
    return uses_blocks(coll) || sends_blocks(coll) ? o->max_blocks : o->max;
}

/* The size after bytes: the next of --sizes, or of the series (0: none). */
static long next_size(const options *o, long bytes)
{
    if (o->nsizes == 0) return bytes * o->step;
    for (int i = 0; i < o->nsizes; i++)
        if (o->sizes[i] > bytes) return o->sizes[i];
    return 0;
}

/* Every size of one collective (barrier: one row). */
static void bench_coll(int coll, const options *o, call *c, FILE *csv)
{
    long last = coll == BARRIER ? o->min : largest_bytes(coll, o);
    for (long bytes = o->min; bytes > 0 && bytes <= last; bytes = next_size(o, bytes)) {
        row r = {coll, iterations(o, bytes, 0), 1, coll == BARRIER ? 0 : bytes, {0, 0}};
        c->coll = coll;
        c->bytes = r.bytes;
        set_counts(c);
        if (o->check) {
            r.ok = results_agree(c);
        } else { /* still one call of each first: the hierarchy is built untimed */
            r.ok = -1;
            run_mpi(c);
            run_hsplit(c);
        }
        time_calls(c, iterations(o, bytes, 1), r.iters, o->span, o->sync, r.t);
        if (c->rank == 0) print_row(stdout, csv, &r, c->size);
    }
}

/* Is collective k one of NAMES ("all", or names separated by commas)? */
static int selected(const char *names, int k)
{
    if (strcmp(names, "all") == 0) return 1;
    size_t len = strlen(coll_names[k]);
    for (const char *at = names; at; at = strchr(at, ',')) {
        if (*at == ',') at++;
        if (strncmp(at, coll_names[k], len) == 0 && (at[len] == ',' || at[len] == '\0'))
            return 1;
    }
    return 0;
}

/* Is every name of NAMES known (and none empty)? */
static int known_colls(const char *names)
{
    if (strcmp(names, "all") == 0) return 1;
    int named = 0;
    for (int k = 0; k < NCOLLS; k++) named += selected(names, k);
    int commas = 0;
    for (const char *at = names; *at; at++) commas += *at == ',';
    /* each known name counted once: a repeated or unknown name leaves fewer */
    return named == commas + 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    options o;
    call c = {0};
    int parsed = parse(argc, argv, &o);
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c.size);
    if (!parsed || !known_colls(o.coll) || o.root < 0 || o.root >= c.size) {
        if (c.rank == 0)
            fprintf(stderr, "usage: bench_coll [--coll NAMES] [--min BYTES] [--max BYTES] "
                            "[--max-blocks BYTES] [--step K] [--sizes LIST] [--iters N] "
                            "[--warmup N] [--root R] [--csv FILE] [--no-check] [--span [--sync-start]]\n");
        MPI_Finalize();
        return 2;
    }
    c.root = o.root;
    size_t send_bytes = 0, recv_bytes = 0;
    for (int k = 0; k < NCOLLS; k++)
        if (selected(o.coll, k)) {
            size_t top = (size_t)largest_bytes(k, &o);
            size_t s = top * (sends_blocks(k) ? (size_t)c.size : 1);
            size_t r = top * (uses_blocks(k) ? (size_t)c.size : 1);
            if (s > send_bytes) send_bytes = s;
            if (r > recv_bytes) recv_bytes = r;
        }
    c.send = malloc(send_bytes);
    c.recv = malloc(recv_bytes);
    c.counts = malloc(2 * sizeof(int) * (size_t)c.size);
    if (!c.send || !c.recv || !c.counts) {
        fprintf(stderr, "bench_coll: cannot allocate %zu bytes\n", send_bytes + recv_bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    c.displs = c.counts + c.size;
    FILE *csv = NULL;
    if (c.rank == 0) {
        print_header(stdout, "", &o, c.size);
        printf("\n%-10s %10s %7s %12s %12s %8s  %s\n", "collective", "bytes", "iters", "mpi_us",
               "hsplit_us", "factor", "check");
        csv = o.csv ? fopen(o.csv, "w") : NULL;
        if (csv) {
            print_header(csv, "# ", &o, c.size);
            fprintf(csv, "collective,bytes,processes,iterations,mpi_us,hsplit_us,factor,check\n");
        }
    }
    for (int k = 0; k < NCOLLS; k++)
        if (selected(o.coll, k)) bench_coll(k, &o, &c, csv);
    if (csv) fclose(csv);
    free(c.send);
    free(c.recv);
    free(c.counts);
    MPI_Finalize();
    return 0;
}
