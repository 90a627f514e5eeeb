/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_split: the cost of building the whole hierarchy of MPI_COMM_WORLD.
   Compares, in one run, on the same processes:
     hsplit_all        HSPLIT_Comm_hsplit_all with roots communicators
     hsplit_all/noroot HSPLIT_Comm_hsplit_all without roots communicators
     mpi_split         the same number of plain MPI_Comm_split calls, nested
                       the same way, with the colours known in advance (what
                       the splits alone cost)
     mpi_hw_unguided   (MPIs that define MPI_COMM_TYPE_HW_UNGUIDED) the
                       repeated MPI_Comm_split_type(HW_UNGUIDED) loop
   and prints, for each, the median, min and max time of a whole build over
   the repetitions (max over processes of each repetition), the number of
   communicator-creating calls, and the ratio of medians to mpi_split.
   Usage: mpiexec -n N bench_split [--reps R] [--csv FILE] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "bench_median.h"
#include "hsplit.h"

enum { MAX_LEVELS = 32 };

typedef struct {
    const char *name;
    double *times;
    int splits;
} method;

/* One timed build: returns the slowest process's time. */
static double time_build(int (*build)(void *, int *), void *arg, int *splits)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    int n = build(arg, splits);
    t = MPI_Wtime() - t;
    double slowest;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    (void)n;
    return slowest;
}

static void free_all(MPI_Comm *comms, int n)
{
    for (int i = 0; i < n; i++)
        if (comms[i] != MPI_COMM_NULL) MPI_Comm_free(&comms[i]);
}

/* Colours of this process at each level, learnt once from hsplit, so that the
   plain MPI_Comm_split baseline builds the very same communicators. */
typedef struct {
    int nlevels;            /* levels of the deepest process */
    int colour[MAX_LEVELS]; /* MPI_UNDEFINED below this process's bottom */
    int leader[MAX_LEVELS]; /* rank 0 of its level-l communicator */
    int with_roots;
} plan;

static int build_hsplit(void *arg, int *splits)
{
    plan *p = arg;
    MPI_Comm levels[MAX_LEVELS], roots[MAX_LEVELS];
    int n;
    HSPLIT_Comm_hsplit_all(MPI_COMM_WORLD, MPI_INFO_NULL, MAX_LEVELS, &n, levels,
                           p->with_roots ? roots : NULL);
    free_all(levels, n);
    if (p->with_roots) free_all(roots, n);
    /* each of this process's levels: the split and its roots split; plus the
       split that ends at the bottom */
    *splits = p->with_roots ? 2 * n + 1 : n + 1;
    return n;
}

static int build_plain(void *arg, int *splits)
{
    plan *p = arg;
    MPI_Comm parent = MPI_COMM_WORLD, levels[MAX_LEVELS + 1], roots[MAX_LEVELS];
    int made = 0, rank;
    *splits = 0;
    for (int l = 0; l <= p->nlevels; l++) {
        MPI_Comm level = MPI_COMM_NULL, root = MPI_COMM_NULL;
        if (parent == MPI_COMM_NULL) break; /* this process reached its bottom */
        MPI_Comm_rank(parent, &rank);
        int colour = l < p->nlevels ? p->colour[l] : MPI_UNDEFINED;
        MPI_Comm_split(parent, colour, rank, &level);
        if (colour != MPI_UNDEFINED && p->with_roots)
            MPI_Comm_split(parent, p->leader[l] ? 0 : MPI_UNDEFINED, rank, &root);
        (*splits) += (colour != MPI_UNDEFINED && p->with_roots) ? 2 : 1;
        levels[made] = level;
        roots[made] = root;
        made++;
        parent = level;
    }
    free_all(levels, made);
    free_all(roots, made);
    return made;
}

#ifdef MPI_COMM_TYPE_HW_UNGUIDED
static int build_unguided(void *arg, int *splits)
{
    (void)arg;
    MPI_Comm comms[MAX_LEVELS + 1], parent = MPI_COMM_WORLD;
    int n = 0, rank;
    *splits = 0;
    /* the MPI-4.0 loop: split until MPI_COMM_NULL */
    while (parent != MPI_COMM_NULL && n <= MAX_LEVELS) {
        MPI_Comm level;
        MPI_Comm_rank(parent, &rank);
        MPI_Comm_split_type(parent, MPI_COMM_TYPE_HW_UNGUIDED, rank, MPI_INFO_NULL, &level);
        (*splits)++;
        comms[n++] = level;
        parent = level;
    }
    free_all(comms, n);
    return n;
}
#endif

static void learn_plan(plan *p)
{
    MPI_Comm levels[MAX_LEVELS];
    int n;
    memset(p, 0, sizeof *p);
    HSPLIT_Comm_hsplit_all(MPI_COMM_WORLD, MPI_INFO_NULL, MAX_LEVELS, &n, levels, NULL);
    for (int l = 0; l < MAX_LEVELS; l++) p->colour[l] = MPI_UNDEFINED;
    for (int l = 0; l < n; l++) {
        int num, index, len, rank;
        char name[HSPLIT_MAX_HLEVEL_NAME];
        HSPLIT_Comm_get_hlevel_info(levels[l], &num, &index, name, &len);
        MPI_Comm_rank(levels[l], &rank);
        p->colour[l] = index;
        p->leader[l] = rank == 0;
    }
    MPI_Allreduce(&n, &p->nlevels, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    free_all(levels, n);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int reps = 10, rank, size;
    const char *csv = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--reps") == 0) reps = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--csv") == 0) csv = argv[i + 1];
    }
    if (reps < 1) reps = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    plan with, without;
    learn_plan(&with);
    with.with_roots = 1;
    without = with;
    without.with_roots = 0;

    method methods[4] = {{"hsplit_all", NULL, 0}, {"hsplit_all/noroots", NULL, 0},
                         {"mpi_split", NULL, 0}, {"mpi_hw_unguided", NULL, 0}};
    int nmethods = 3;
#ifdef MPI_COMM_TYPE_HW_UNGUIDED
    nmethods = 4;
#endif
    for (int m = 0; m < nmethods; m++) methods[m].times = malloc(sizeof(double) * (size_t)reps);
    /* interleaved repetitions, so that machine noise hits every method alike */
    for (int r = 0; r < reps; r++) {
        methods[0].times[r] = time_build(build_hsplit, &with, &methods[0].splits);
        methods[1].times[r] = time_build(build_hsplit, &without, &methods[1].splits);
        methods[2].times[r] = time_build(build_plain, &with, &methods[2].splits);
#ifdef MPI_COMM_TYPE_HW_UNGUIDED
        methods[3].times[r] = time_build(build_unguided, NULL, &methods[3].splits);
#endif
    }
    if (rank == 0) {
        double base = 0;
        for (int m = 0; m < nmethods; m++) qsort(methods[m].times, (size_t)reps, sizeof(double), compare_doubles);
        base = methods[2].times[reps / 2];
        char mpi_version[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(mpi_version, &len);
        char *newline = strchr(mpi_version, '\n');
        if (newline) *newline = '\0';
        printf("bench_split: %d processes, %d levels, %d repetitions\nMPI: %.60s\n\n", size,
               with.nlevels, reps, mpi_version);
        printf("%-20s %8s %12s %12s %12s %10s\n", "method", "splits", "median_ms", "min_ms", "max_ms",
               "vs_mpi_split");
        FILE *out = csv ? fopen(csv, "w") : NULL;
        if (out) fprintf(out, "method,processes,levels,splits,median_ms,min_ms,max_ms,ratio_to_mpi_split\n");
        for (int m = 0; m < nmethods; m++) {
            double med = methods[m].times[reps / 2] * 1e3, lo = methods[m].times[0] * 1e3,
                   hi = methods[m].times[reps - 1] * 1e3;
            printf("%-20s %8d %12.3f %12.3f %12.3f %10.2f\n", methods[m].name, methods[m].splits,
                   med, lo, hi, med / (base * 1e3));
            if (out) fprintf(out, "%s,%d,%d,%d,%.4f,%.4f,%.4f,%.3f\n", methods[m].name, size,
                             with.nlevels, methods[m].splits, med, lo, hi, med / (base * 1e3));
        }
        if (out) fclose(out);
    }
    for (int m = 0; m < nmethods; m++) free(methods[m].times);
    MPI_Finalize();
    return 0;
}
