/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI_Bcast override of apps/bench/ompi_bcast_shim.c (Open MPI's binary
   and split binary trees, chosen by HSPLIT_SIM_BCAST) against the expected
   buffer: on MPI_COMM_WORLD and on communicators of every size from 1 to
   the world's (MPI_Comm_split), for the first, last and a middle root, and
   for counts that take every path (0, 1, 2 and 3 elements, one segment,
   the split tree's chain fallback, several 1 KiB segments, 8 KiB segments
   above 370728 bytes, a last segment shorter than the others), in MPI_INT,
   MPI_BYTE and a 3-byte contiguous type (segments that are not a whole
   number of elements). Then HSPLIT_Bcast on MPI_COMM_WORLD (the hierarchy's
   per-level broadcasts): correct, and every process's count of broadcasts
   the override ran grows (the library's MPI_Bcast calls reach it).
   Run under SMPI with HSPLIT_SIM_BCAST=binary or split_binary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "hsplit.h"

extern long hsplit_sim_bcast_calls;

static int value(long i, int root) { return (int)(i * 2654435761u) ^ (root * 7919 + 11); }

static int check(MPI_Comm comm, int root, long count, MPI_Datatype dt, int *buf)
{
    int rank, tsize;
    MPI_Comm_rank(comm, &rank);
    MPI_Type_size(dt, &tsize);
    long bytes = count * tsize;
    unsigned char *b = (unsigned char *)buf;
    for (long i = 0; i < bytes + 16; i++)
        b[i] = rank == root || i >= bytes ? (unsigned char)value(i, root) : 0xEE;
    MPI_Bcast(buf, (int)count, dt, root, comm);
    int bad = 0;
    for (long i = 0; i < bytes + 16; i++)
        if (b[i] != (unsigned char)value(i, root)) {
            bad = 1;
            break;
        }
    int any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
    return any;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int wrank, wsize, failures = 0, cases = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    const char *alg = getenv("HSPLIT_SIM_BCAST");
    if (!alg || (strcmp(alg, "binary") != 0 && strcmp(alg, "split_binary") != 0)) {
        if (wrank == 0) fprintf(stderr, "HSPLIT_SIM_BCAST must be binary or split_binary\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* elements of MPI_INT: 1 KiB segments are 256, 8 KiB ones 2048 */
    const long counts[] = {0, 1, 2, 3, 255, 256, 257, 511, 512, 513, 1000, 4099, 92683, 100003};
    const int ncounts = (int)(sizeof counts / sizeof counts[0]);
    int *buf = malloc(100003 * sizeof(int) + 16);
    /* a 3-byte element: segments of 1 KiB hold 341 (rounded down), of 8 KiB
       2731 (Open MPI rounds a segment to the nearest whole element) */
    MPI_Datatype three;
    MPI_Type_contiguous(3, MPI_BYTE, &three);
    MPI_Type_commit(&three);
    MPI_Datatype types[3] = {MPI_INT, MPI_BYTE, three};
    const int tsizes[3] = {4, 1, 3};
    const char *tnames[3] = {"MPI_INT", "MPI_BYTE", "3 x MPI_BYTE"};
    for (int k = 0; k <= wsize; k++) { /* k == wsize: MPI_COMM_WORLD */
        MPI_Comm comm = MPI_COMM_WORLD;
        if (k < wsize) {
            if (k == 0) continue;
            MPI_Comm_split(MPI_COMM_WORLD, wrank < k ? 0 : 1, wrank, &comm);
        }
        int size;
        MPI_Comm_size(comm, &size);
        int roots[3] = {0, size - 1, size / 2};
        for (int r = 0; r < 3; r++) {
            if ((r == 1 && size - 1 == 0) || (r == 2 && (size / 2 == 0 || size / 2 == size - 1)))
                continue;
            for (int c = 0; c < ncounts; c++)
                for (int t = 0; t < 3; t++) {
                    /* about the same bytes in each type */
                    long n = t == 0 ? counts[c] : t == 1 ? counts[c] * 4 + 1 : counts[c] * 4 / 3 + 1;
                    if (n * tsizes[t] > 100003L * 4) continue;
                    int bad = check(comm, roots[r], n, types[t], buf);
                    cases++;
                    if (bad) {
                        failures++;
                        int rank;
                        MPI_Comm_rank(comm, &rank);
                        if (rank == 0)
                            fprintf(stderr, "FAIL %s: size %d root %d count %ld %s\n", alg, size,
                                    roots[r], n, tnames[t]);
                    }
                }
        }
        if (comm != MPI_COMM_WORLD) MPI_Comm_free(&comm);
    }
    /* the hierarchy's per-level broadcasts go through the override */
    for (int root = 0; root < wsize; root += wsize - 1 > 0 ? wsize - 1 : 1) {
        long before = hsplit_sim_bcast_calls;
        const long n = 5000;
        for (long i = 0; i < n; i++) buf[i] = wrank == root ? value(i, root) : -1;
        HSPLIT_Bcast(buf, (int)n, MPI_INT, root, MPI_COMM_WORLD);
        int bad = 0;
        for (long i = 0; i < n; i++) bad |= buf[i] != value(i, root);
        int reached = hsplit_sim_bcast_calls > before, all_reached, any_bad;
        MPI_Allreduce(&reached, &all_reached, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        cases++;
        if (any_bad || !all_reached) {
            failures++;
            if (wrank == 0)
                fprintf(stderr, "FAIL %s: HSPLIT_Bcast root %d: %s\n", alg, root,
                        any_bad ? "wrong result" : "a process's broadcasts missed the override");
        }
        if (wsize == 1) break;
    }
    if (wrank == 0)
        printf("%s: %d cases, %d failures (communicator sizes 1 to %d)\n", alg, cases, failures,
               wsize);
    MPI_Type_free(&three);
    free(buf);
    MPI_Finalize();
    return failures != 0;
}
