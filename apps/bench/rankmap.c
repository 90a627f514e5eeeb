/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_rankmap: compressed rank maps against plain int arrays, for the
   communicators applications make in a world of 1,048,576 processes
   (1024 nodes x 1024 cores; a 1024 x 1024 process grid, row-major; and a
   5-level hierarchy of 64 switches x 128 nodes x 2 packages x 4 L3 x 16
   cores). For each communicator, in one run: the mode detected, the bytes of
   the map and of the plain world-index array, the detection time per element,
   the lookup time in rank order and in random order for the map and for the
   array (each lookup stored to a volatile), and their ratio. Where MPI runs
   with W = 2^k >= 16 processes, the same patterns on a W-process layout are
   given as MPI groups to MPI_Group_translate_ranks (to the world group), in
   ns per rank translated, next to the map's lookup at the same n (MPI groups
   cannot hold more processes than the world). Medians of --reps runs
   (default 7), map and array timed in turn and the ratios the medians of the
   per-run ratios; times from clock_gettime(CLOCK_MONOTONIC).
   Usage: [mpiexec -n W] bench_rankmap [--reps R] [--csv FILE] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <mpi.h>
#include "rankmap.h"

enum { MIN_LOOKUPS = 1 << 22, MIN_DETECTED = 1 << 21, MAX_REPS = 51 };

typedef struct {
    int n;            /* processes */
    int nodes, cores; /* also the grid: nodes rows of cores columns */
    int levels[5];    /* hierarchy, outermost first; product n */
} layout;

typedef enum {
    P_WORLD, P_ROW, P_COLUMN, P_ODD, P_NODE, P_NODE_ROOTS, P_PACKAGE0, P_WORKER_ROOTS,
    P_LEVEL1, P_LEVEL2, P_LEVEL3, P_LEVEL4, P_ROOTS1, P_ROOTS2, P_ROOTS3, P_ROOTS4, P_CYCLIC_TREE,
    P_RANDOM, P_COUNT
} pattern_kind;

static const char *const pattern_names[P_COUNT] = {
    "world dup", "grid row", "grid column", "odd ranks", "node", "node-roots",
    "package 0 of every node", "workers' node-roots", "h1 switch", "h2 node", "h3 package",
    "h4 L3", "h1 roots (switch leaders)", "h2 roots (node leaders of a switch)",
    "h3 roots (package leaders of a node)", "h4 roots (L3 leaders of a package)",
    "cyclic placement in node order", "random permutation"};

typedef struct {
    const char *name;
    int n;
    hsplit_rankmap_mode mode;
    size_t map_bytes, array_bytes;
    double detect_ns, map_seq, map_rand, plain_seq, plain_rand;
    double seq_ratio, rand_ratio; /* medians of the per-repetition ratios */
    double map_range, plain_range, range_ratio; /* ranges of RANGE ranks, ns per rank */
    double mpi_ns, mpi_map_ns; /* < 0: not measured */
} result;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *x, int k)
{
    qsort(x, (size_t)k, sizeof *x, compare_doubles);
    return x[k / 2];
}

/* xorshift, state passed along: no global state */
static unsigned long long next_random(unsigned long long *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void shuffle(int *a, int n, unsigned long long seed)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(next_random(&seed) % (unsigned long long)(i + 1));
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* Processes under one element of hierarchy depth d (0: the world). */
static int size_below(const layout *L, int d)
{
    int size = 1;
    for (int l = d; l < 5; l++) size *= L->levels[l];
    return size;
}

/* World indices of the pattern's communicator (the one holding a process in
   the middle of the world, for the per-node and hierarchy ones); its size. */
static int build_pattern(pattern_kind kind, const layout *L, int *out)
{
    int n = 0, mid = L->n / 2 + L->n / 7, row = mid / L->cores, half = L->cores / 2;
    switch (kind) {
    case P_WORLD: for (int i = 0; i < L->n; i++) out[n++] = i; break;
    case P_ROW:
    case P_NODE: for (int c = 0; c < L->cores; c++) out[n++] = row * L->cores + c; break;
    case P_COLUMN: for (int r = 0; r < L->nodes; r++) out[n++] = r * L->cores + mid % L->cores; break;
    case P_ODD: for (int i = 1; i < L->n; i += 2) out[n++] = i; break;
    case P_NODE_ROOTS: for (int r = 0; r < L->nodes; r++) out[n++] = r * L->cores; break;
    case P_PACKAGE0:
        for (int r = 0; r < L->nodes; r++)
            for (int c = 0; c < half; c++) out[n++] = r * L->cores + c;
        break;
    case P_WORKER_ROOTS: /* rank 0 a master, the others workers: first worker of each node */
        for (int r = 0; r < L->nodes; r++) out[n++] = r == 0 ? 1 : r * L->cores;
        break;
    case P_LEVEL1: case P_LEVEL2: case P_LEVEL3: case P_LEVEL4: {
        int size = size_below(L, kind - P_LEVEL1 + 1), base = mid - mid % size;
        for (int i = 0; i < size; i++) out[n++] = base + i;
        break;
    }
    case P_ROOTS1: case P_ROOTS2: case P_ROOTS3: case P_ROOTS4: {
        int d = kind - P_ROOTS1, parent = size_below(L, d), child = size_below(L, d + 1);
        for (int i = 0; i < L->levels[d]; i++) out[n++] = mid - mid % parent + i * child;
        break;
    }
    case P_CYCLIC_TREE: /* world rank r on node r % nodes: the ranks node by node */
        for (int i = 0; i < L->n; i++) out[n++] = (i % L->cores) * L->nodes + i / L->cores;
        break;
    case P_RANDOM:
        for (int i = 0; i < L->n; i++) out[n++] = i;
        shuffle(out, n, 0x2545f4914f6cdd1dull);
        break;
    case P_COUNT: break;
    }
    return n;
}

/* ---- timings: ns per element or per lookup, median of reps ---- */

static double time_detect(const int *a, int n, int reps)
{
    double t[MAX_REPS];
    int inner = n >= MIN_DETECTED ? 1 : MIN_DETECTED / n;
    for (int k = 0; k < reps; k++) {
        double start = now();
        for (int i = 0; i < inner; i++) {
            hsplit_rankmap m;
            hsplit_rankmap_detect(a, n, &m);
            hsplit_rankmap_free(&m);
        }
        t[k] = (now() - start) / ((double)inner * n) * 1e9;
    }
    return median(t, reps);
}

/* One timing of MIN_LOOKUPS or more lookups, ns each; order == NULL: ranks
   0..n-1, else order[0..n-1]. */
static double time_map(const hsplit_rankmap *m, const int *order, int n)
{
    volatile int sink;
    long long passes = (MIN_LOOKUPS + n - 1) / n;
    double start = now();
    for (long long p = 0; p < passes; p++) {
        if (order)
            for (int i = 0; i < n; i++) sink = hsplit_rankmap_lookup(m, order[i]);
        else
            for (int r = 0; r < n; r++) sink = hsplit_rankmap_lookup(m, r);
    }
    (void)sink;
    return (now() - start) / ((double)passes * n) * 1e9;
}

static double time_array(const int *a, const int *order, int n)
{
    volatile int sink;
    long long passes = (MIN_LOOKUPS + n - 1) / n;
    double start = now();
    for (long long p = 0; p < passes; p++) {
        if (order)
            for (int i = 0; i < n; i++) sink = a[order[i]];
        else
            for (int r = 0; r < n; r++) sink = a[r];
    }
    (void)sink;
    return (now() - start) / ((double)passes * n) * 1e9;
}

/* Ranges: all ranks in rank order, RANGE at a time into a buffer that stays
   in L1 (hsplit_rankmap_lookup_range), against copying the same ranges out
   of the array (memcpy); ns per rank. */
enum { RANGE = 1024 };

static double time_map_range(const hsplit_rankmap *m, int n)
{
    static int out[RANGE];
    volatile int sink;
    long long passes = (MIN_LOOKUPS + n - 1) / n;
    double start = now();
    for (long long p = 0; p < passes; p++)
        for (int r = 0; r < n; r += RANGE) {
            int len = n - r < RANGE ? n - r : RANGE;
            hsplit_rankmap_lookup_range(m, r, len, out);
            sink = out[len - 1];
        }
    (void)sink;
    return (now() - start) / ((double)passes * n) * 1e9;
}

static double time_array_range(const int *a, int n)
{
    static int out[RANGE];
    volatile int sink;
    long long passes = (MIN_LOOKUPS + n - 1) / n;
    double start = now();
    for (long long p = 0; p < passes; p++)
        for (int r = 0; r < n; r += RANGE) {
            int len = n - r < RANGE ? n - r : RANGE;
            memcpy(out, a + r, (size_t)len * sizeof *out);
            sink = out[len - 1];
        }
    (void)sink;
    return (now() - start) / ((double)passes * n) * 1e9;
}

static void verify(const hsplit_rankmap *m, const int *a, int n, const char *name)
{
    static int out[RANGE];
    for (int r = 0; r < n; r += RANGE) {
        int len = n - r < RANGE ? n - r : RANGE;
        hsplit_rankmap_lookup_range(m, r, len, out);
        if (memcmp(out, a + r, (size_t)len * sizeof *out) != 0) {
            fprintf(stderr, "bench_rankmap: %s: range from rank %d differs from the array\n",
                    name, r);
            exit(1);
        }
    }
    for (int r = 0; r < n; r++)
        if (hsplit_rankmap_lookup(m, r) != a[r] || hsplit_rankmap_inverse(m, a[r]) != r) {
            fprintf(stderr, "bench_rankmap: %s: map differs from the array at rank %d\n", name, r);
            exit(1);
        }
}

static void measure(pattern_kind kind, const layout *L, int *a, int *order, int reps, result *res)
{
    int n = build_pattern(kind, L, a);
    hsplit_rankmap m;
    for (int i = 0; i < n; i++) order[i] = i;
    shuffle(order, n, 0x9e3779b97f4a7c15ull + (unsigned long long)kind);
    res->name = pattern_names[kind];
    res->n = n;
    res->detect_ns = time_detect(a, n, reps);
    hsplit_rankmap_detect(a, n, &m);
    res->mode = m.mode;
    res->map_bytes = hsplit_rankmap_bytes(&m); /* before any inverse builds a table index */
    res->array_bytes = (size_t)n * sizeof(int);
    /* map and array timed in turn, so that each ratio compares the same moment
       of a shared machine; medians of the times and of the ratios */
    double t[6][MAX_REPS], seq_ratio[MAX_REPS], rand_ratio[MAX_REPS], range_ratio[MAX_REPS];
    for (int k = 0; k < reps; k++) {
        t[0][k] = time_map(&m, NULL, n);
        t[1][k] = time_array(a, NULL, n);
        t[2][k] = time_map(&m, order, n);
        t[3][k] = time_array(a, order, n);
        t[4][k] = time_map_range(&m, n);
        t[5][k] = time_array_range(a, n);
        seq_ratio[k] = t[0][k] / t[1][k];
        rand_ratio[k] = t[2][k] / t[3][k];
        range_ratio[k] = t[4][k] / t[5][k];
    }
    res->map_range = median(t[4], reps);
    res->plain_range = median(t[5], reps);
    res->range_ratio = median(range_ratio, reps);
    res->map_seq = median(t[0], reps);
    res->plain_seq = median(t[1], reps);
    res->map_rand = median(t[2], reps);
    res->plain_rand = median(t[3], reps);
    res->seq_ratio = median(seq_ratio, reps);
    res->rand_ratio = median(rand_ratio, reps);
    verify(&m, a, n, res->name);
    hsplit_rankmap_free(&m);
}

/* ---- MPI_Group_translate_ranks on the same patterns at n = W ---- */

static double time_translate(MPI_Group world, const int *a, int n, int reps)
{
    double t[MAX_REPS];
    MPI_Group g;
    int *ranks = malloc((size_t)n * sizeof *ranks), *out = malloc((size_t)n * sizeof *out);
    MPI_Group_incl(world, n, a, &g);
    for (int i = 0; i < n; i++) ranks[i] = i;
    long long passes = (MIN_LOOKUPS / 16 + n - 1) / n;
    for (int k = 0; k < reps; k++) {
        double start = now();
        for (long long p = 0; p < passes; p++)
            MPI_Group_translate_ranks(g, n, ranks, world, out);
        t[k] = (now() - start) / ((double)passes * n) * 1e9;
    }
    for (int i = 0; i < n; i++)
        if (out[i] != a[i]) {
            fprintf(stderr, "bench_rankmap: MPI translated rank %d to %d, not %d\n", i, out[i], a[i]);
            exit(1);
        }
    MPI_Group_free(&g);
    free(ranks);
    free(out);
    return median(t, reps);
}

/* A W-process layout shaped like the big one: W = 2^k >= 16. */
static int small_layout(int w, layout *L)
{
    int k = 0;
    while ((1 << k) < w) k++;
    if ((1 << k) != w || w < 16) return 0;
    *L = (layout){w, w >> (k / 2), 1 << (k / 2), {2, 2, 2, 2, w / 16}};
    return 1;
}

static void measure_mpi(int world_size, int reps, result *res)
{
    layout L;
    MPI_Group world;
    if (!small_layout(world_size, &L)) return;
    int *a = malloc((size_t)L.n * sizeof *a);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    for (int kind = 0; kind < P_COUNT; kind++) {
        hsplit_rankmap m;
        int n = build_pattern((pattern_kind)kind, &L, a);
        res[kind].mpi_ns = time_translate(world, a, n, reps);
        double t[MAX_REPS];
        hsplit_rankmap_detect(a, n, &m);
        for (int k = 0; k < reps; k++) t[k] = time_map(&m, NULL, n);
        res[kind].mpi_map_ns = median(t, reps);
        hsplit_rankmap_free(&m);
    }
    MPI_Group_free(&world);
    free(a);
}

/* ---- output ---- */

static void print_table(FILE *f, const result *res, int world_size)
{
    fprintf(f, "| pattern | n | mode | map bytes | array bytes | detect ns/elem | lookup seq ns "
               "| lookup rand ns | array seq ns | array rand ns | seq ratio | rand ratio "
               "| range ns | array range ns | range ratio | MPI translate ns/rank (n=%d) | map lookup ns (n=%d) |\n", world_size, world_size);
    fprintf(f, "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int k = 0; k < P_COUNT; k++) {
        const result *r = &res[k];
        char mpi[32] = "-", mpi_map[32] = "-";
        if (r->mpi_ns >= 0) {
            snprintf(mpi, sizeof mpi, "%.2f", r->mpi_ns);
            snprintf(mpi_map, sizeof mpi_map, "%.2f", r->mpi_map_ns);
        }
        fprintf(f, "| %s | %d | %s | %zu | %zu | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f "
                   "| %.3f | %.3f | %.2f | %s | %s |\n", r->name, r->n,
                hsplit_rankmap_mode_name(r->mode), r->map_bytes, r->array_bytes, r->detect_ns,
                r->map_seq, r->map_rand, r->plain_seq, r->plain_rand, r->seq_ratio, r->rand_ratio,
                r->map_range, r->plain_range, r->range_ratio, mpi, mpi_map);
    }
}

static void write_csv(const char *path, const result *res, int world_size)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return;
    }
    fprintf(f, "pattern,n,mode,map_bytes,array_bytes,detect_ns_per_elem,lookup_seq_ns,"
               "lookup_rand_ns,array_seq_ns,array_rand_ns,seq_ratio,rand_ratio,range_ns,"
               "array_range_ns,range_ratio,mpi_world,"
               "mpi_translate_ns_per_rank,map_lookup_ns_at_mpi_world\n");
    for (int k = 0; k < P_COUNT; k++) {
        const result *r = &res[k];
        fprintf(f, "\"%s\",%d,%s,%zu,%zu,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.4f,%.4f,%.3f,%d,"
                   "%.3f,%.3f\n",
                r->name, r->n, hsplit_rankmap_mode_name(r->mode), r->map_bytes, r->array_bytes,
                r->detect_ns, r->map_seq, r->map_rand, r->plain_seq, r->plain_rand,
                r->seq_ratio, r->rand_ratio, r->map_range, r->plain_range, r->range_ratio,
                world_size, r->mpi_ns,
                r->mpi_map_ns);
    }
    fclose(f);
}

/* The targets: regular maps within 64 bytes, lookups within 1.3x the array's,
   detection within 2 ns per element (of the 1M-element communicators, where
   the per-call overhead does not dominate). */
static void print_targets(const result *res)
{
    int bytes_ok = 1, seq_ok = 0, rand_ok = 0, range_ok = 0, detect_ok = 1, big = 0;
    double worst_seq = 0, worst_rand = 0, worst_range = 0, worst_detect = 0;
    for (int k = 0; k < P_COUNT; k++) {
        const result *r = &res[k];
        double s = r->seq_ratio, q = r->rand_ratio;
        if (r->mode != HSPLIT_RANKMAP_TABLE && r->map_bytes > 64) bytes_ok = 0;
        seq_ok += s <= 1.3;
        rand_ok += q <= 1.3;
        worst_seq = s > worst_seq ? s : worst_seq;
        worst_rand = q > worst_rand ? q : worst_rand;
        range_ok += r->range_ratio <= 1.3;
        worst_range = r->range_ratio > worst_range ? r->range_ratio : worst_range;
        if (r->n >= (1 << 19)) {
            big++;
            worst_detect = r->detect_ns > worst_detect ? r->detect_ns : worst_detect;
            detect_ok &= r->detect_ns <= 2.0;
        }
    }
    printf("\ntargets:\n");
    printf("  regular maps <= 64 bytes:            %s (sizeof(hsplit_rankmap) = %zu)\n",
           bytes_ok ? "met" : "NOT met", sizeof(hsplit_rankmap));
    printf("  lookup <= 1.3x array, rank order:    %d of %d patterns (worst %.2fx)\n", seq_ok,
           P_COUNT, worst_seq);
    printf("  lookup <= 1.3x array, random order:  %d of %d patterns (worst %.2fx)\n", rand_ok,
           P_COUNT, worst_rand);
    printf("  range lookup <= 1.3x array copy:     %d of %d patterns (worst %.2fx)\n", range_ok,
           P_COUNT, worst_range);
    printf("  detection <= 2 ns/element (n >= 2^19, %d patterns): %s (worst %.2f)\n", big,
           detect_ok ? "met" : "NOT met", worst_detect);
}

/* The processes other than 0 wait in a barrier they test every 10 ms, not
   to take the CPU from process 0's timings (MPI waits spin). */
static void wait_for_process_0(int rank)
{
    MPI_Request request;
    int done = 0;
    MPI_Ibarrier(MPI_COMM_WORLD, &request);
    if (rank == 0) {
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        return;
    }
    while (!done) {
        MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        if (!done) nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
}

int main(int argc, char **argv)
{
    const char *csv = NULL;
    int reps = 7, rank, world_size;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--reps R] [--csv FILE]\n", argv[0]);
            return 2;
        }
    }
    if (reps < 1 || reps > MAX_REPS) reps = 7;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (rank == 0) {
        layout big = {1 << 20, 1024, 1024, {64, 128, 2, 4, 16}};
        result res[P_COUNT];
        int *a = malloc((size_t)big.n * sizeof *a), *order = malloc((size_t)big.n * sizeof *order);
        for (int k = 0; k < P_COUNT; k++) {
            measure((pattern_kind)k, &big, a, order, reps, &res[k]);
            res[k].mpi_ns = res[k].mpi_map_ns = -1;
        }
        measure_mpi(world_size, reps, res);
        printf("bench_rankmap: %d processes (1024 nodes x 1024 cores; hierarchy 64 x 128 x 2 x 4 "
               "x 16), median of %d runs, MPI world %d%s\n\n", big.n, reps, world_size,
               res[0].mpi_ns < 0 ? " (MPI column needs mpiexec -n 2^k, k >= 4)" : "");
        print_table(stdout, res, world_size);
        print_targets(res);
        if (csv) write_csv(csv, res, world_size);
        free(a);
        free(order);
    }
    wait_for_process_0(rank);
    MPI_Finalize();
    return 0;
}
