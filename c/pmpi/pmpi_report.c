/* SPDX-License-Identifier: BSD-3-Clause */
/* HSPLIT_PMPI_REPORT=1: what the intercepted calls did, per collective
   (calls, bytes, how many the hierarchy served and how many plain MPI, the
   time spent), printed by MPI_COMM_WORLD's rank 0 when the program calls
   MPI_Finalize, like mpiP's summary. Each process counts into a table kept
   as an attribute of its MPI_COMM_SELF (freed by MPI_Finalize), with atomic
   counters: threads of an MPI_THREAD_MULTIPLE program call collectives on
   different communicators at once. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include "pmpi_internal.h"
#include "hsplit_internal.h"

static const char *const row_names[HSPLIT_PMPI_NROWS] = {
    "bcast",     "reduce",   "allreduce",  "gather",   "scatter",
    "allgather", "barrier",  "gatherv",    "scatterv", "allgatherv",
    "alltoall",  "alltoallv", "reduce_scatter_block", "reduce_scatter", "scan",
    "exscan",    "comm_split_type"};

_Static_assert((int)HSPLIT_PMPI_EXSCAN == (int)HSPLIT_COLL_EXSCAN, "rows follow the core's kinds");

enum { CALLS, HIERARCHY, PLAIN, BYTES, NCOUNTERS };

typedef struct {
    _Atomic uint64_t count[HSPLIT_PMPI_NROWS][NCOUNTERS];
    _Atomic uint64_t nanoseconds[HSPLIT_PMPI_NROWS];
} report_table;

static int table_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm; (void)keyval; (void)extra;
    free(value);
    return MPI_SUCCESS;
}

/* The keyval and this process's table, made once (MPI is initialized: the
   first caller is an intercepted call or MPI_Finalize). */
static pthread_once_t table_once = PTHREAD_ONCE_INIT;
static int table_keyval = MPI_KEYVAL_INVALID;

static void table_create(void)
{
    report_table *t = calloc(1, sizeof *t);
    if (t == NULL) return;
    int k = MPI_KEYVAL_INVALID;
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, table_delete, &k, NULL) != MPI_SUCCESS ||
        PMPI_Comm_set_attr(MPI_COMM_SELF, k, t) != MPI_SUCCESS) {
        free(t);
        return;
    }
    table_keyval = k;
}

static report_table *get_table(void)
{
    pthread_once(&table_once, table_create);
    report_table *t = NULL;
    int found = 0;
    if (table_keyval == MPI_KEYVAL_INVALID ||
        PMPI_Comm_get_attr(MPI_COMM_SELF, table_keyval, &t, &found) != MPI_SUCCESS || !found)
        return NULL;
    return t;
}

uint64_t hsplit_pmpi_bytes(int64_t count, MPI_Datatype datatype)
{
    int size = 0;
    if (count <= 0 || datatype == MPI_DATATYPE_NULL ||
        PMPI_Type_size(datatype, &size) != MPI_SUCCESS || size <= 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

void hsplit_pmpi_begin(MPI_Comm comm, hsplit_pmpi_probe *p)
{
    p->hierarchy_before = comm != MPI_COMM_NULL ? hsplit_coll_hierarchy_calls(comm) : 0;
    p->start = PMPI_Wtime();
}

static void count(int row, int hierarchy, double start, uint64_t bytes)
{
    double elapsed = PMPI_Wtime() - start;
    report_table *t = get_table();
    if (t == NULL) return;
    atomic_fetch_add(&t->count[row][CALLS], 1);
    atomic_fetch_add(&t->count[row][hierarchy ? HIERARCHY : PLAIN], 1);
    atomic_fetch_add(&t->count[row][BYTES], bytes);
    atomic_fetch_add(&t->nanoseconds[row], (uint64_t)(elapsed > 0 ? elapsed * 1e9 : 0));
}

void hsplit_pmpi_end(int row, MPI_Comm comm, const hsplit_pmpi_probe *p, uint64_t bytes)
{
    unsigned long after = comm != MPI_COMM_NULL ? hsplit_coll_hierarchy_calls(comm) : 0;
    count(row, after != p->hierarchy_before, p->start, bytes);
}

void hsplit_pmpi_count_split(const hsplit_pmpi_probe *p, int by_hsplit)
{
    count(HSPLIT_PMPI_SPLIT_TYPE, by_hsplit, p->start, 0);
}

/* Sums of the counters and the largest time over MPI_COMM_WORLD, printed on
   rank 0's standard error as a table, then as CSV lines. */
static void print_report(void)
{
    report_table *t = get_table();
    uint64_t mine[HSPLIT_PMPI_NROWS * (NCOUNTERS + 1)] = {0};
    for (int r = 0; t != NULL && r < HSPLIT_PMPI_NROWS; r++) {
        for (int c = 0; c < NCOUNTERS; c++)
            mine[r * NCOUNTERS + c] = atomic_load(&t->count[r][c]);
        mine[HSPLIT_PMPI_NROWS * NCOUNTERS + r] = atomic_load(&t->nanoseconds[r]);
    }
    uint64_t sum[HSPLIT_PMPI_NROWS * NCOUNTERS], slowest[HSPLIT_PMPI_NROWS];
    int rank = 0, size = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    if (PMPI_Reduce(mine, sum, HSPLIT_PMPI_NROWS * NCOUNTERS, MPI_UINT64_T, MPI_SUM, 0,
                    MPI_COMM_WORLD) != MPI_SUCCESS ||
        PMPI_Reduce(mine + HSPLIT_PMPI_NROWS * NCOUNTERS, slowest, HSPLIT_PMPI_NROWS,
                    MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD) != MPI_SUCCESS ||
        rank != 0)
        return;
    const char *mode = getenv("HSPLIT_COLL");
    fprintf(stderr,
            "hsplit PMPI report: %d processes, HSPLIT_COLL=%s; calls, hierarchy, plain and "
            "bytes summed over the processes, time the largest process's\n"
            "%-21s %10s %10s %10s %14s %12s\n",
            size, mode != NULL && mode[0] != '\0' ? mode : "auto", "collective", "calls",
            "hierarchy", "plain", "bytes", "time (s)");
    for (int r = 0; r < HSPLIT_PMPI_NROWS; r++) {
        const uint64_t *c = &sum[r * NCOUNTERS];
        if (c[CALLS] == 0) continue;
        fprintf(stderr, "%-21s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %14" PRIu64 " %12.6f\n",
                row_names[r], c[CALLS], c[HIERARCHY], c[PLAIN], c[BYTES], slowest[r] * 1e-9);
    }
    fprintf(stderr, "csv,collective,calls,hierarchy,plain,bytes,time_s\n");
    for (int r = 0; r < HSPLIT_PMPI_NROWS; r++) {
        const uint64_t *c = &sum[r * NCOUNTERS];
        if (c[CALLS] == 0) continue;
        fprintf(stderr, "csv,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.9f\n",
                row_names[r], c[CALLS], c[HIERARCHY], c[PLAIN], c[BYTES], slowest[r] * 1e-9);
    }
    fflush(stderr);
}

/* MPI_Finalize is passed on to the next library that defines it: a PMPI
   tool preloaded after this one (mpiP and the like print their report
   there), else the MPI itself. */
HSPLIT_PMPI_EXPORT int MPI_Finalize(void)
{
    const hsplit_pmpi_settings *s = hsplit_pmpi_get_settings();
    if (s->enabled && s->report && !s->bad) print_report();
    int (*next)(void) = NULL;
    *(void **)&next = dlsym(RTLD_NEXT, "MPI_Finalize");
    return next != NULL ? next() : PMPI_Finalize();
}
