/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_pingpong: the point-to-point figures of the link between two
   processes, the inputs of a simulated platform's intra-node levels
   (tools/hsplit-platform). Ranks 0 and 1 only (others wait):
   - latency: half the round trip of a ping-pong, per message size;
   - bandwidth: size / one-way time of the same ping-pong;
   - overhead: the time rank 0 spends per message when it posts a window of
     small nonblocking sends and waits for them (the LogP "o" of a sender,
     which is what serialises a flat broadcast's sends at its root).
   Each figure is the median over --reps repetitions.
   Usage: mpiexec -n 2 bench_pingpong [--min BYTES] [--max BYTES] [--reps N]
          [--csv FILE]   (defaults 4 B to 4 MiB by powers of 4, 21 reps) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "bench_median.h"

enum { WINDOW = 64, OVERHEAD_BYTES = 4 };

/* One-way time of a ping-pong of `bytes` (rank 0 measures; rank 1 echoes). */
static double pingpong(char *buf, long bytes, int rank, int iters)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
    return (MPI_Wtime() - start) / (2.0 * iters);
}

/* Time per message at the sender of a window of small Isends. */
static double send_overhead(char *buf, int rank)
{
    MPI_Request reqs[WINDOW];
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    if (rank == 0) {
        for (int i = 0; i < WINDOW; i++)
            MPI_Isend(buf + i * OVERHEAD_BYTES, OVERHEAD_BYTES, MPI_BYTE, 1, 1, MPI_COMM_WORLD,
                      &reqs[i]);
        for (int i = 0; i < WINDOW; i++) MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        for (int i = 0; i < WINDOW; i++)
            MPI_Recv(buf + i * OVERHEAD_BYTES, OVERHEAD_BYTES, MPI_BYTE, 0, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    }
    double t = (MPI_Wtime() - start) / WINDOW;
    MPI_Barrier(MPI_COMM_WORLD);
    return t;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long min = 4, max = 4L << 20;
    int reps = 21, rank, size, ok = 1;
    const char *csv_name = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v && strcmp(argv[i], "--min") == 0) min = atol(v);
        else if (v && strcmp(argv[i], "--max") == 0) max = atol(v);
        else if (v && strcmp(argv[i], "--reps") == 0) reps = atoi(v);
        else if (v && strcmp(argv[i], "--csv") == 0) csv_name = v;
        else ok = 0;
        i++;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!ok || size < 2 || min < 1 || max < min || reps < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiexec -n 2 bench_pingpong [--min BYTES] [--max BYTES] "
                            "[--reps N] [--csv FILE]\n");
        MPI_Finalize();
        return 2;
    }
    char *buf = malloc((size_t)(max > WINDOW * OVERHEAD_BYTES ? max : WINDOW * OVERHEAD_BYTES));
    double *t = malloc(sizeof(double) * (size_t)reps);
    FILE *csv = rank == 0 && csv_name ? fopen(csv_name, "w") : NULL;
    memset(buf, 1, (size_t)max);
    if (rank == 0) {
        printf("bench_pingpong: ranks 0 and 1, median of %d repetitions\n", reps);
        printf("%10s %12s %12s\n", "bytes", "latency_us", "bw_MBps");
        if (csv) fprintf(csv, "bytes,latency_us,bandwidth_MBps\n");
    }
    for (long bytes = min; bytes <= max; bytes *= 4) {
        int iters = bytes <= 65536 ? 200 : 20;
        pingpong(buf, bytes, rank, iters); /* warm-up */
        for (int r = 0; r < reps; r++) t[r] = pingpong(buf, bytes, rank, iters);
        double one_way = median(t, reps);
        if (rank == 0) {
            printf("%10ld %12.3f %12.1f\n", bytes, one_way * 1e6, bytes / one_way / 1e6);
            if (csv) fprintf(csv, "%ld,%.4f,%.2f\n", bytes, one_way * 1e6, bytes / one_way / 1e6);
        }
    }
    send_overhead(buf, rank);
    for (int r = 0; r < reps; r++) t[r] = send_overhead(buf, rank);
    double o = median(t, reps);
    if (rank == 0) {
        printf("send overhead: %.3f us per %d-byte Isend (window of %d)\n", o * 1e6,
               OVERHEAD_BYTES, WINDOW);
        if (csv) fprintf(csv, "# send_overhead_us,%.4f\n", o * 1e6);
        fflush(stdout);
    }
    if (csv) fclose(csv);
    free(t);
    free(buf);
    MPI_Finalize();
    return 0;
}
