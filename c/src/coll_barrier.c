/* SPDX-License-Identifier: BSD-3-Clause */
/* HSPLIT_Barrier: up the levels (a leader enters a level only when its whole
   subtree has arrived), then down (a process leaves only when its leader,
   and so every process, has arrived); or with the node's part in shared
   memory (coll_shm_schedule.c). */
#include "hsplit_internal.h"

static int barrier_tree(const hsplit_hierarchy *h)
{
    int rc = MPI_SUCCESS;
    for (int i = h->nlevels - 1; i >= 0 && rc == MPI_SUCCESS; i--)
        rc = MPI_Barrier(h->roots[i]);
    /* level 0 is where everyone has arrived: below it, every level once more */
    for (int i = h->first == 0 ? 1 : 0; i < h->nlevels && rc == MPI_SUCCESS; i++)
        rc = MPI_Barrier(h->roots[i]);
    return rc;
}

int HSPLIT_Barrier(MPI_Comm comm)
{
    /* plain MPI decided (off mode, auto's choice): MPI's call, nothing more;
       the node's shared memory decided: the segment at once */
    hsplit_coll_state *s = hsplit_coll_state_find(comm);
    if (hsplit_coll_plain(s, HSPLIT_COLL_BARRIER, 0)) return MPI_Barrier(comm);
    hsplit_hierarchy *direct = hsplit_coll_shm_direct(s, HSPLIT_COLL_BARRIER, 0);
    if (direct != NULL) return hsplit_coll_direct_done(comm, s, hsplit_shm_schedule_barrier(direct));
    hsplit_hierarchy *h = NULL;
    int rc = hsplit_coll_begin(comm, 0, -2, &h); /* checks comm first */
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    hsplit_coll_trial trial;
    hsplit_coll_choose(&h, HSPLIT_COLL_BARRIER, 0, &trial);
    rc = h == NULL ? MPI_Barrier(comm)
         : trial.shm ? hsplit_shm_schedule_barrier(h)
                     : barrier_tree(h);
    return hsplit_coll_finish(comm, h, &trial, rc);
}
