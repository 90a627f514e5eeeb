/* SPDX-License-Identifier: BSD-3-Clause */
/* What the shared-memory collectives' files (coll_shm*.c) share: the node
   segment's layout (struct hsplit_shm, opaque elsewhere), the one wait of
   the collectives, the protocol's steps and the datatype checks. */
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

/* ---- the protocol's steps, shared by coll_shm.c and coll_shm_gather.c ---- */

static inline void hsplit_shm_store_flag(hsplit_shm *shm, int f, uint64_t s)
{
    atomic_store_explicit(hsplit_shm_flag_of(shm, shm->rank, f), s, memory_order_release);
}

/* Marks step s of this process's area as invalid, before the release store
   that publishes it. */
static inline void hsplit_shm_store_failed(hsplit_shm *shm, uint64_t s)
{
    atomic_store_explicit(hsplit_shm_failed_of(shm, shm->rank, s), s, memory_order_relaxed);
}

/* Was what process i published for step s invalid? (after an acquire of its
   flag: process i cannot rewrite this word before everyone is done with s) */
static inline int hsplit_shm_failed_at(const hsplit_shm *shm, int i, uint64_t s)
{
    return atomic_load_explicit(hsplit_shm_failed_of(shm, i, s), memory_order_relaxed) == s;
}

/* The same for process i's slot of step s. */
static inline int hsplit_shm_slot_failed_at(const hsplit_shm *shm, int i, uint64_t s)
{
    return atomic_load_explicit(hsplit_shm_slot_failed(shm, i, s), memory_order_relaxed) == s;
}

/* Publishes this process's slot of step s (its data written, or failed). */
static inline void hsplit_shm_publish_slot(hsplit_shm *shm, uint64_t s, int failed)
{
    if (failed)
        atomic_store_explicit(hsplit_shm_slot_failed(shm, shm->rank, s), s, memory_order_relaxed);
    atomic_store_explicit(hsplit_shm_slot_flag(shm, shm->rank, s), s, memory_order_release);
}

/* Wait until every process is done with step s (all_done remembers the least
   done step seen, so that the common case reads no flag). */
static inline void hsplit_shm_wait_all_done(hsplit_shm *shm, uint64_t s)
{
    if (shm->all_done >= s) return;
    uint64_t least = UINT64_MAX;
    for (int i = 0; i < shm->size; i++) {
        const hsplit_shm_flag *done = hsplit_shm_flag_of(shm, i, HSPLIT_SHM_DONE);
        hsplit_shm_wait_ge(done, s);
        uint64_t v = atomic_load_explicit(done, memory_order_acquire);
        if (v < least) least = v;
    }
    shm->all_done = least;
}

/* Before writing this process's slot for step s. */
static inline void hsplit_shm_wait_slot_free(hsplit_shm *shm, uint64_t s)
{
    if (s > (uint64_t)shm->nslots) hsplit_shm_wait_all_done(shm, s - (uint64_t)shm->nslots);
}

/* Every process published step s: each is done with step s - 1 (a process
   finishes its reads of a step before it publishes the next). */
static inline void hsplit_shm_saw_all_published(hsplit_shm *shm, uint64_t s)
{
    if (shm->all_done < s - 1) shm->all_done = s - 1;
}

/* Before writing this process's area for step s. */
static inline void hsplit_shm_wait_area_free(hsplit_shm *shm, uint64_t s)
{
    if (s > 2) hsplit_shm_wait_all_done(shm, s - 2);
}

/* ---- datatypes ---- */

/* Bytes of the commonest predefined types, known without asking MPI (a few
   tens of nanoseconds of an 8-byte call); 0 for the others. */
static inline int hsplit_shm_common_size(MPI_Datatype type)
{
    if (type == MPI_DOUBLE) return (int)sizeof(double);
    if (type == MPI_INT) return (int)sizeof(int);
    if (type == MPI_BYTE || type == MPI_CHAR) return 1;
    if (type == MPI_FLOAT) return (int)sizeof(float);
    if (type == MPI_LONG) return (int)sizeof(long);
    if (type == MPI_LONG_LONG) return (int)sizeof(long long);
    if (type == MPI_UNSIGNED) return (int)sizeof(unsigned);
    return 0;
}

/* Is the datatype's memory its packed form (memcpy moves it)? Predefined
   types without gaps, and contiguous copies of such types (coll_shm.c). */
int hsplit_shm_type_flat(MPI_Datatype type);

/* ---- blocks in a given rank order, for the schedules across nodes
   (coll_shm_gather.c) ---- */

/* Packed bytes of count elements of type (count <= 0: 0); -1 when MPI
   cannot pack one element. */
int64_t hsplit_shm_block_bytes(int count, MPI_Datatype type);
/* Unpack block j of packed (n blocks of bytes) into block ranks[j] of
   recvbuf, except block `skip` (-1: none). */
int hsplit_shm_place_blocks(const char *packed, const int *ranks, int n, int64_t bytes,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, int skip);
/* Pack block ranks[j] of sendbuf into block j of packed. */
int hsplit_shm_take_blocks(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           const int *ranks, int n, int64_t bytes, char *packed);

#endif /* HSPLIT_COLL_SHM_PRIVATE_H */
