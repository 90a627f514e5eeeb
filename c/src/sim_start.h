/* SPDX-License-Identifier: BSD-3-Clause */
/* One start instant for every process of a communicator, for times taken
   under SimGrid SMPI, whose MPI_Wtime is one clock for all processes and
   whose nanosleep advances it (a sleep costs the simulation no wall time):
   a call timed from that instant to the slowest process's end is what the
   engine sweep measures (bench_coll --span --sync-start). Header-only,
   because its three users are three link units that share no internal
   symbol: the library (auto mode's trials, coll_select.c), bench_coll and
   the SMPI test of auto mode's choice. The includer defines
   _POSIX_C_SOURCE (nanosleep). */
#ifndef HSPLIT_SIM_START_H
#define HSPLIT_SIM_START_H

#include <time.h>
#include <mpi.h>

/* Every process of `comm` learns the latest clock among them (one
   allreduce) and sleeps until `lead` seconds after it. Returns that instant
   itself, not the clock after the sleep (nanosleep's whole nanoseconds would
   wake each process up to 1 ns off it); *late is 1 where this process was
   already past it, which the lead must keep from happening: it has to
   exceed the allreduce's exit skew (tens of us at 2048 simulated
   processes). */
static inline double hsplit_sim_start_together(MPI_Comm comm, double lead, int *late)
{
    double now = MPI_Wtime(), latest = now;
    MPI_Allreduce(&now, &latest, 1, MPI_DOUBLE, MPI_MAX, comm);
    double at = latest + lead, left = at - MPI_Wtime();
    *late = left < 0;
    if (left > 0) {
        struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
        nanosleep(&ts, NULL);
    }
    return at;
}

#endif
