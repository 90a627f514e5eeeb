/* SPDX-License-Identifier: BSD-3-Clause */
/* What coll_shm_segment.c and coll_shm.c share: the node segment's layout
   (struct hsplit_shm, opaque elsewhere) and the one wait of the collectives. */
#ifndef HSPLIT_COLL_SHM_PRIVATE_H
#define HSPLIT_COLL_SHM_PRIVATE_H

#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "hsplit_internal.h"

/* Checks before the first sched_yield: some 300 ns (a pause takes about
   10 ns on the Xeon of the tests), two or three times what a partner on
   another core takes to answer. Longer spins cost an oversubscribed node
   dearly (4 processes on 2 cores: a barrier took 7.1 us with 256 checks,
   1.6 us with 64; an 8-byte bcast 570 ns with 64, 310 ns with 16) and gain
   nothing on pinned processes. */
#define HSPLIT_SHM_SPINS 32

typedef _Atomic uint64_t hsplit_shm_flag;

#define HSPLIT_SHM_LINE 64

/* Each process's part of the segment (it allocates it: its pages are on its
   NUMA node) starts with its flags, one cache line each, written by that
   process only; then a ring of slots for small calls (step s uses slot
   s % nslots: a writer runs up to nslots steps ahead of the slowest reader);
   then two data areas for larger calls, in slices (double buffer: step s
   uses area s % 2). A slot begins with its own flag (the step whose data it
   holds) and failure word, its data follows in the same cache line: a reader
   waiting for a small message gets flag and data in one transfer. Flags hold
   step numbers and only grow: nothing is ever reset. */
enum {
    HSPLIT_SHM_POST,    /* last step whose data this process published in its area */
    HSPLIT_SHM_FAILED,  /* two words, one per area: the last step of that area
                           whose data or part it could not make (a copy failed) */
    HSPLIT_SHM_PART,    /* last step whose reduced part it wrote (reduce, allreduce) */
    HSPLIT_SHM_DONE,    /* last step after which it reads nobody's area any more */
    HSPLIT_SHM_ARRIVE,  /* last barrier it arrived at */
    HSPLIT_SHM_RELEASE, /* node rank 0: last barrier it released */
    HSPLIT_SHM_NFLAGS
};

struct hsplit_shm {
    MPI_Comm node;          /* the node group (ranked as in h->base)            */
    MPI_Comm leaders;       /* node rank 0 of every node; MPI_COMM_NULL elsewhere */
    MPI_Win win;
    int rank, size;
    int fanout;             /* the node's tree: groups of fanout consecutive
                               ranks, led by their first (HSPLIT_COLL_SHM_FANOUT,
                               read when the segment is made); size <= fanout:
                               one group, every process reads every flag */
    char **parts;           /* each process's part, 64-byte aligned, as mapped here */
    size_t ring_offset;     /* where the slots start in a part                  */
    size_t slot_bytes;      /* one slot (a multiple of 64)                      */
    size_t slot_data;       /* bytes of data a slot holds                       */
    int nslots;
    size_t area_offset;     /* where the areas start in a part                  */
    size_t area_bytes;      /* one data area (a multiple of 64)                 */
    size_t half_bytes;      /* reduce: input half and output half of an area     */
    uint64_t step;          /* data steps so far (one per slice of a call): the
                               same on every process, calls come in one order */
    uint64_t barriers;      /* barriers so far                                 */
    uint64_t all_done;      /* a step every process is known to be done with   */
};

/* Process i's flag f. */
static inline hsplit_shm_flag *hsplit_shm_flag_of(const struct hsplit_shm *shm, int i, int f)
{
    return (hsplit_shm_flag *)(void *)(shm->parts[i] + (size_t)f * HSPLIT_SHM_LINE);
}

/* Process i's failure word of step s's area. */
static inline hsplit_shm_flag *hsplit_shm_failed_of(const struct hsplit_shm *shm, int i,
                                                    uint64_t s)
{
    return hsplit_shm_flag_of(shm, i, HSPLIT_SHM_FAILED) + (s & 1);
}

/* Process i's data area of step s. */
static inline char *hsplit_shm_area(const struct hsplit_shm *shm, int i, uint64_t s)
{
    return shm->parts[i] + shm->area_offset + (size_t)(s & 1) * shm->area_bytes;
}

/* Process i's slot of step s: its flag, its failure word, its data. */
#define HSPLIT_SHM_SLOT_HEADER 16 /* keeps the data 16-byte aligned */
static inline char *hsplit_shm_slot(const struct hsplit_shm *shm, int i, uint64_t s)
{
    return shm->parts[i] + shm->ring_offset + (size_t)(s % (uint64_t)shm->nslots) * shm->slot_bytes;
}
static inline hsplit_shm_flag *hsplit_shm_slot_flag(const struct hsplit_shm *shm, int i,
                                                    uint64_t s)
{
    return (hsplit_shm_flag *)(void *)hsplit_shm_slot(shm, i, s);
}
static inline hsplit_shm_flag *hsplit_shm_slot_failed(const struct hsplit_shm *shm, int i,
                                                      uint64_t s)
{
    return hsplit_shm_slot_flag(shm, i, s) + 1;
}

static inline void hsplit_shm_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Wait until *flag >= value (acquire: what the writer stored before its
   release store of that value is visible after the return). Flags only grow. */
static inline void hsplit_shm_wait_ge(const hsplit_shm_flag *flag, uint64_t value)
{
    unsigned spins = 0;
    while (atomic_load_explicit(flag, memory_order_acquire) < value) {
        if (spins < HSPLIT_SHM_SPINS) {
            spins++;
            hsplit_shm_pause();
        } else {
            sched_yield();
        }
    }
}

#endif /* HSPLIT_COLL_SHM_PRIVATE_H */
