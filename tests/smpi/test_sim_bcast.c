/* SPDX-License-Identifier: BSD-3-Clause */
/* A simulated result that must hold (run under SimGrid SMPI with one
   broadcast algorithm forced on every level, e.g. --cfg=smpi/bcast:flattree):
   on MPI_COMM_WORLD, HSPLIT_Bcast is faster than MPI_Bcast for every size
   given, both deliver the root's bytes everywhere, and the simulated times
   are deterministic (a later call of each takes the same time).
   The time of a call is the largest over processes, from a barrier to the
   end of the call. Usage: test_sim_bcast SIZE...   (bytes, at least one) */
#include <math.h>
#include <stdlib.h>
#include "../mpi/test_util.h"

static double timed(int hierarchical, char *buf, int bytes)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    if (hierarchical)
        HSPLIT_Bcast(buf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    else
        MPI_Bcast(buf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    double mine = MPI_Wtime() - start, all;
    MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return all;
}

/* Equal simulated durations, measured from different start times: equal
   up to the simulator's rounding (smpirun's surf/precision, 1 ns, per
   event). */
static int same_time(double a, double b)
{
    return fabs(a - b) <= 1e-8 + 1e-6 * (a > b ? a : b);
}

/* The root's bytes: position-dependent, never the fill of the others. */
static void fill(char *buf, int bytes, int rank)
{
    for (int i = 0; i < bytes; i++) buf[i] = rank == 0 ? (char)(i * 7 + 3) : (char)0xEE;
}

static int delivered(const char *buf, int bytes)
{
    for (int i = 0; i < bytes; i++)
        if (buf[i] != (char)(i * 7 + 3)) return 0;
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK(argc > 1, "usage: test_sim_bcast SIZE...");
    for (int a = 1; a < argc; a++) {
        int bytes = atoi(argv[a]);
        CHECK(bytes > 0, "size %s", argv[a]);
        if (bytes <= 0) continue;
        char *buf = malloc((size_t)bytes);
        /* three calls of each, interleaved; the first HSPLIT call builds
           the hierarchy and the first calls start from a different state:
           the second and third must agree */
        double t[2][3];
        for (int rep = 0; rep < 3; rep++)
            for (int h = 0; h < 2; h++) {
                fill(buf, bytes, rank);
                t[h][rep] = timed(h, buf, bytes);
                CHECK(delivered(buf, bytes), "%s of %d bytes: wrong data",
                      h ? "HSPLIT_Bcast" : "MPI_Bcast", bytes);
            }
        if (rank == 0)
            printf("%d bytes: MPI_Bcast %.3f us, HSPLIT_Bcast %.3f us, factor %.2f\n", bytes,
                   t[0][2] * 1e6, t[1][2] * 1e6, t[0][2] / t[1][2]);
        CHECK(t[1][2] < t[0][2], "%d bytes: HSPLIT_Bcast %.3f us not faster than MPI_Bcast %.3f us",
              bytes, t[1][2] * 1e6, t[0][2] * 1e6);
        for (int h = 0; h < 2; h++)
            CHECK(same_time(t[h][1], t[h][2]), "%d bytes: %s took %.9f s, then %.9f s", bytes,
                  h ? "HSPLIT_Bcast" : "MPI_Bcast", t[h][1], t[h][2]);
        free(buf);
    }
    return test_finish();
}
