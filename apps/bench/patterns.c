/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_patterns: the communication of two applications, MPI_Bcast against
   HSPLIT_Bcast on the communicators they use, without their computation.

   asp    Floyd-Warshall all-pairs shortest paths on an n x n matrix split in
          row blocks: at step k the owner of row k (rank k / (n / P))
          broadcasts it (n ints) to all processes of MPI_COMM_WORLD. Runs
          --steps steps spread evenly over the n, so that the root moves over
          the processes and the nodes.
   summa  SUMMA C = A B on a pr x pc process grid (ranks row-major, --grid,
          default the most square with pr <= pc) for n x n matrices of
          doubles: at step k the process column k % pc broadcasts its panel
          of A (n/pr x b) along each grid row, then the process row k % pr
          its panel of B (b x n/pc) along each grid column (row and column
          communicators from MPI_Comm_split). --steps steps, panel width b
          (--block); a --grid that does not multiply to P is replaced by
          the default.

   Each step is timed from a barrier, MPI and HSPLIT alternately on the same
   communicators; the table gives per pattern the sum over the steps of the
   slowest process's time, the mean per step and the factor MPI / HSPLIT.
   The root's data is checked on arrival (--no-check: not, for runs whose
   buffers SMPI shares). Under SMPI the times are simulated (deterministic),
   and --span times each step from the first process's start to the last
   process's end (one clock for all).
   Usage: mpiexec -n P bench_patterns [--pattern asp|summa|all] [--n N]
          [--steps S] [--block B] [--grid PRxPC] [--csv FILE] [--no-check]
          [--span]
   Defaults: all, n = 16384, 8 steps, b = 64. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "hsplit.h"

typedef struct {
    const char *pattern, *csv;
    long n;
    int steps, block, pr, pc, check, span;
} options;

typedef struct {
    double total[2];  /* MPI, HSPLIT: sum over steps of the slowest time */
    long bytes;       /* largest message of the pattern */
    int ok;
} result;

static int parse(int argc, char **argv, options *o)
{
    *o = (options){"all", NULL, 16384, 8, 64, 0, 0, 1, 0};
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--no-check") == 0) { o->check = 0; continue; }
        if (strcmp(argv[i], "--span") == 0) { o->span = 1; continue; }
        if (!v) return 0;
        if (strcmp(argv[i], "--pattern") == 0) o->pattern = v;
        else if (strcmp(argv[i], "--csv") == 0) o->csv = v;
        else if (strcmp(argv[i], "--n") == 0) o->n = atol(v);
        else if (strcmp(argv[i], "--steps") == 0) o->steps = atoi(v);
        else if (strcmp(argv[i], "--block") == 0) o->block = atoi(v);
        else if (strcmp(argv[i], "--grid") == 0) {
            if (sscanf(v, "%dx%d", &o->pr, &o->pc) != 2) return 0;
        } else return 0;
        i++;
    }
    int known = strcmp(o->pattern, "asp") == 0 || strcmp(o->pattern, "summa") == 0 ||
                strcmp(o->pattern, "all") == 0;
    return known && o->n > 0 && o->steps > 0 && o->block > 0;
}

/* A broadcast of `count` elements of `type` from `root` on `comm`, timed from a
   barrier of `comm`; returns the slowest process's time. */
static double timed_bcast(int hierarchical, void *buf, int count, MPI_Datatype type, int root,
                          MPI_Comm comm, int span)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    if (hierarchical) HSPLIT_Bcast(buf, count, type, root, comm);
    else MPI_Bcast(buf, count, type, root, comm);
    double end = MPI_Wtime();
    /* span: one clock for all, first start to last end; else the slowest
       process's own time */
    double edges[2] = {span ? -start : end - start, end}, all[2];
    MPI_Allreduce(edges, all, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return span ? all[1] + all[0] : all[0];
}

/* The payload of step k at its root, element i: a value nobody else holds. */
static int payload(long k, long i)
{
    return (int)((k * 131 + i * 7) % 100003) + 1;
}

static void fill(int *buf, long count, long k, int is_root)
{
    for (long i = 0; i < count; i++) buf[i] = is_root ? payload(k, i) : 0;
}

static int arrived(const int *buf, long count, long k)
{
    for (long i = 0; i < count; i++)
        if (buf[i] != payload(k, i)) return 0;
    return 1;
}

/* One broadcast of the pattern, MPI then HSPLIT, on the same data. */
static void step(result *r, const options *o, int *buf, long count, MPI_Datatype type, int root,
                 MPI_Comm comm, long k)
{
    int rank, ints = (int)(count * (type == MPI_DOUBLE ? 2 : 1));
    MPI_Comm_rank(comm, &rank);
    for (int h = 0; h < 2; h++) {
        if (o->check) fill(buf, ints, k, rank == root);
        r->total[h] += timed_bcast(h, buf, (int)count, type, root, comm, o->span);
        if (o->check && !arrived(buf, ints, k)) r->ok = 0;
    }
}

static void asp(const options *o, int rank, int size, result *r)
{
    long rows = o->n / size > 0 ? o->n / size : 1;
    int *row = malloc(sizeof(int) * (size_t)o->n);
    r->bytes = o->n * (long)sizeof(int);
    /* untimed: the hierarchy of MPI_COMM_WORLD is built by the first call */
    HSPLIT_Bcast(row, (int)o->n, MPI_INT, 0, MPI_COMM_WORLD);
    for (int s = 0; s < o->steps; s++) {
        long k = (long)s * o->n / o->steps + o->n / (2L * o->steps);
        int root = (int)(k / rows < size ? k / rows : size - 1);
        step(r, o, row, o->n, MPI_INT, root, MPI_COMM_WORLD, k);
    }
    (void)rank;
    free(row);
}

static void summa(const options *o, int rank, int size, result *r)
{
    int pr = o->pr, pc = o->pc;
    if (pr <= 0 || pc <= 0 || (long)pr * pc != size) {
        /* the most square grid: the largest divisor pr with pr^2 <= size */
        for (pr = 1; (long)(pr + 1) * (pr + 1) <= size; pr++) {}
        while (size % pr) pr--;
        pc = size / pr;
    }
    int my_row = rank / pc, my_col = rank % pc;
    MPI_Comm row_comm, col_comm;
    MPI_Comm_split(MPI_COMM_WORLD, my_row, my_col, &row_comm);
    MPI_Comm_split(MPI_COMM_WORLD, my_col, my_row, &col_comm);
    long a_count = (o->n / pr) * o->block, b_count = (long)o->block * (o->n / pc);
    long most = a_count > b_count ? a_count : b_count;
    r->bytes = most * (long)sizeof(double);
    int *panel = malloc(sizeof(double) * (size_t)(most > 0 ? most : 1));
    HSPLIT_Bcast(panel, (int)a_count, MPI_DOUBLE, 0, row_comm);
    HSPLIT_Bcast(panel, (int)b_count, MPI_DOUBLE, 0, col_comm);
    for (long k = 0; k < o->steps; k++) {
        step(r, o, panel, a_count, MPI_DOUBLE, (int)(k % pc), row_comm, 2 * k);
        step(r, o, panel, b_count, MPI_DOUBLE, (int)(k % pr), col_comm, 2 * k + 1);
    }
    if (rank == 0)
        printf("summa grid %d x %d, A panel %ld doubles, B panel %ld doubles\n", pr, pc, a_count,
               b_count);
    free(panel);
    MPI_Comm_free(&row_comm);
    MPI_Comm_free(&col_comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    options o;
    int rank, size, parsed = parse(argc, argv, &o);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!parsed) {
        if (rank == 0)
            fprintf(stderr, "usage: bench_patterns [--pattern asp|summa|all] [--n N] "
                            "[--steps S] [--block B] [--grid PRxPC] [--csv FILE] "
                            "[--no-check] [--span]\n");
        MPI_Finalize();
        return 2;
    }
    const char *names[2] = {"asp", "summa"};
    FILE *csv = rank == 0 && o.csv ? fopen(o.csv, "w") : NULL;
    if (rank == 0) {
        printf("bench_patterns: MPI_Bcast against HSPLIT_Bcast, %d processes, n = %ld, "
               "%d steps, block %d\n", size, o.n, o.steps, o.block);
        if (csv)
            fprintf(csv, "pattern,processes,n,steps,block,max_bytes,mpi_us,hsplit_us,"
                         "factor,check\n");
    }
    for (int p = 0; p < 2; p++) {
        if (strcmp(o.pattern, "all") != 0 && strcmp(o.pattern, names[p]) != 0) continue;
        result r = {{0, 0}, 0, 1};
        if (p == 0) asp(&o, rank, size, &r);
        else summa(&o, rank, size, &r);
        int ok;
        MPI_Allreduce(&r.ok, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        const char *check = !o.check ? "-" : ok ? "ok" : "DIFF";
        double factor = r.total[1] > 0 ? r.total[0] / r.total[1] : 0;
        if (rank == 0) {
            printf("%-6s total: MPI %.2f us, HSPLIT %.2f us (per step %.2f / %.2f us), "
                   "factor %.3f, largest message %ld bytes, check %s\n",
                   names[p], r.total[0] * 1e6, r.total[1] * 1e6, r.total[0] * 1e6 / o.steps,
                   r.total[1] * 1e6 / o.steps, factor, r.bytes, check);
            if (csv)
                fprintf(csv, "%s,%d,%ld,%d,%d,%ld,%.3f,%.3f,%.4f,%s\n", names[p], size, o.n,
                        o.steps, o.block, r.bytes, r.total[0] * 1e6, r.total[1] * 1e6, factor,
                        check);
        }
    }
    if (csv) fclose(csv);
    MPI_Finalize();
    return 0;
}
