/* SPDX-License-Identifier: BSD-3-Clause */
/* The node's shared segment of the shared-memory collectives: which processes
   share it, its agreement over the whole hierarchy, its layout (see
   coll_shm_private.h) and its release.

   Memory model: the segment comes from MPI_Win_allocate_shared, which both
   MPIs map as ordinary cache-coherent memory in every process of the node
   (MPI_WIN_UNIFIED). The flags are lock-free 64-bit C11 atomics, which are
   address-free, so release stores and acquire loads order the plain loads and
   stores of the data areas between processes exactly as between threads;
   MPI_Win_sync would only add the same fence. The window is opened once with
   MPI_Win_lock_all (a passive-target epoch for its whole life, as MPI asks for
   load/store access) and closed before MPI_Win_free: no MPI call on the fast
   path. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "coll_shm_private.h"

int hsplit_shm_rank(const hsplit_shm *shm) { return shm->rank; }
int hsplit_shm_size(const hsplit_shm *shm) { return shm->size; }
int hsplit_shm_fanout(const hsplit_shm *shm) { return shm->fanout; }
MPI_Comm hsplit_shm_node(const hsplit_shm *shm) { return shm->node; }
MPI_Comm hsplit_shm_leaders(const hsplit_shm *shm) { return shm->leaders; }

static void free_fields(hsplit_shm *shm)
{
    if (shm->win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(shm->win);
        MPI_Win_free(&shm->win);
    }
    if (shm->node != MPI_COMM_NULL) MPI_Comm_free(&shm->node);
    if (shm->leaders != MPI_COMM_NULL) MPI_Comm_free(&shm->leaders);
    free(shm->parts);
    free(shm);
}

void hsplit_shm_free(hsplit_shm *shm)
{
    if (shm != NULL) free_fields(shm);
}

#if !HSPLIT_UNDER_SMPI
static uintptr_t align_up(uintptr_t v)
{
    return (v + HSPLIT_SHM_LINE - 1) & ~(uintptr_t)(HSPLIT_SHM_LINE - 1);
}

/* The window's part of every process, aligned to a cache line. The parts are
   mapped in page units, so an address's offset within a line is the same in
   every process's mapping: the aligned place is the same memory for all. */
static int map_parts(hsplit_shm *shm, size_t bytes)
{
    shm->parts = calloc((size_t)shm->size, sizeof *shm->parts);
    if (shm->parts == NULL) return MPI_ERR_NO_MEM;
    for (int i = 0; i < shm->size; i++) {
        MPI_Aint size;
        int disp;
        void *base;
        int rc = MPI_Win_shared_query(shm->win, i, &size, &disp, &base);
        if (rc != MPI_SUCCESS) return rc;
        if ((size_t)size < bytes) return MPI_ERR_NO_MEM;
        shm->parts[i] = (char *)align_up((uintptr_t)base);
    }
    return MPI_SUCCESS;
}

/* Slots for calls up to this many bytes (the small messages), and
   how many when the segment has room for them. */
#define SMALL_CALL_BYTES 1024
#define RING_SLOTS 8

static size_t down64(size_t v) { return v / HSPLIT_SHM_LINE * HSPLIT_SHM_LINE; }

/* The layout of a part of `bytes` bytes: flags, slots, then two data areas.
   The slots take at most half of the room: RING_SLOTS of a small call's
   bytes when they fit, else two smaller ones. */
static int layout(hsplit_shm *shm, size_t bytes)
{
    size_t flags = (size_t)HSPLIT_SHM_NFLAGS * HSPLIT_SHM_LINE;
    if (bytes < flags + 16 * HSPLIT_SHM_LINE) return 0;
    size_t room = bytes - HSPLIT_SHM_LINE - flags; /* a line lost to alignment */
    size_t full = down64(HSPLIT_SHM_SLOT_HEADER + SMALL_CALL_BYTES + HSPLIT_SHM_LINE - 1);
    if (RING_SLOTS * full <= room / 2) {
        shm->nslots = RING_SLOTS;
        shm->slot_bytes = full;
    } else {
        shm->nslots = 2;
        shm->slot_bytes = down64(room / 4);
    }
    shm->slot_data = shm->slot_bytes - HSPLIT_SHM_SLOT_HEADER;
    shm->ring_offset = flags;
    shm->area_offset = flags + (size_t)shm->nslots * shm->slot_bytes;
    shm->area_bytes = down64((room - (size_t)shm->nslots * shm->slot_bytes) / 2);
    shm->half_bytes = down64(shm->area_bytes / 2);
    return shm->half_bytes > 0 && shm->slot_bytes > HSPLIT_SHM_SLOT_HEADER;
}

/* This process's node group and its shared-memory domain: *ok is 0 when the
   domain cuts the group or the group has one process. */
static int node_domain(hsplit_hierarchy *h, hsplit_shm *shm, int *ok)
{
    MPI_Comm group = h->base;
    *ok = 0;
    if (h->multi_node) {
        int rc = hsplit_node_groups(h);
        if (rc != MPI_SUCCESS) return rc;
        group = h->rsag_group;
    }
    int gsize, grank;
    MPI_Comm_size(group, &gsize);
    MPI_Comm_rank(group, &grank);
    int rc = MPI_Comm_split_type(group, MPI_COMM_TYPE_SHARED, grank, MPI_INFO_NULL, &shm->node);
    if (rc != MPI_SUCCESS) return rc;
    MPI_Comm_size(shm->node, &shm->size);
    MPI_Comm_rank(shm->node, &shm->rank);
    *ok = shm->size == gsize && gsize >= 2;
    return MPI_SUCCESS;
}

/* Allocate and map the segment (collective over shm->node), flags zeroed and
   seen zeroed by every process before any of them uses it. *ok is 0 when it
   could not be made (MPI_Win_allocate_shared refused: out of memory). */
static int make_segment(hsplit_hierarchy *h, hsplit_shm *shm, int *ok)
{
    size_t bytes = (size_t)h->config.shm_bytes;
    long fanout = h->config.shm_fanout; /* below 2 (no settings read): one group */
    shm->fanout = fanout >= 2 && fanout < INT_MAX ? (int)fanout : INT_MAX;
    *ok = layout(shm, bytes);
    if (!*ok) return MPI_SUCCESS; /* the same on every process: the settings are */
    MPI_Info info;
    int rc = MPI_Info_create(&info);
    if (rc != MPI_SUCCESS) return rc;
    /* each part on its own pages, on the NUMA node of its process */
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    void *mine = NULL;
    MPI_Errhandler previous;
    /* a refusal (out of memory) is agreed on, not fatal */
    MPI_Comm_get_errhandler(shm->node, &previous);
    MPI_Comm_set_errhandler(shm->node, MPI_ERRORS_RETURN);
    rc = MPI_Win_allocate_shared((MPI_Aint)bytes, 1, info, shm->node, &mine, &shm->win);
    MPI_Comm_set_errhandler(shm->node, previous);
    MPI_Errhandler_free(&previous);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS) {
        shm->win = MPI_WIN_NULL;
        *ok = 0;
        return MPI_SUCCESS;
    }
    rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, shm->win);
    if (rc != MPI_SUCCESS) {
        MPI_Win_free(&shm->win);
        return rc;
    }
    rc = map_parts(shm, bytes);
    if (rc == MPI_ERR_NO_MEM) {
        *ok = 0;
        rc = MPI_SUCCESS;
    }
    if (rc != MPI_SUCCESS || !*ok) return rc;
    /* zero what this process owns (also the first touch of its pages) */
    char *own = shm->parts[shm->rank];
    memset(own, 0, shm->area_offset + 2 * shm->area_bytes);
    for (int f = 0; f < HSPLIT_SHM_NFLAGS; f++)
        atomic_init(hsplit_shm_flag_of(shm, shm->rank, f), 0);
    atomic_init(hsplit_shm_failed_of(shm, shm->rank, 1), 0);
    for (int k = 0; k < shm->nslots; k++) {
        atomic_init(hsplit_shm_slot_flag(shm, shm->rank, (uint64_t)k), 0);
        atomic_init(hsplit_shm_slot_failed(shm, shm->rank, (uint64_t)k), 0);
    }
    /* the flags are written before anyone reads them: the barrier of the
       agreement that follows orders them (MPI_Win_sync: a fence for MPI) */
    return MPI_Win_sync(shm->win);
}

#endif

int hsplit_shm_get(hsplit_hierarchy *h, hsplit_shm **out)
{
    *out = NULL;
    if (h->shm_ready) {
        *out = h->shm;
        return MPI_SUCCESS;
    }
#if HSPLIT_UNDER_SMPI
    /* simulated ranks are cooperative threads: a spinning wait never ends */
    h->shm_ready = 1;
    return MPI_SUCCESS;
#else
    /* out of memory here still takes part in every collective step below,
       with a local stand-in, and answers no */
    hsplit_shm *shm = calloc(1, sizeof *shm), stand_in;
    int ok = shm != NULL, rc = MPI_SUCCESS;
    if (shm == NULL) {
        memset(&stand_in, 0, sizeof stand_in);
        shm = &stand_in;
    }
    shm->node = MPI_COMM_NULL;
    shm->leaders = MPI_COMM_NULL;
    shm->win = MPI_WIN_NULL;
    hsplit_shm_flag probe;
    atomic_init(&probe, 0);
    /* flags shared between processes must not hide a lock (the same on every
       process of a build) */
    ok = ok && atomic_is_lock_free(&probe);
    int domain_ok = 0;
    rc = node_domain(h, shm, &domain_ok);
    /* the window is made on the nodes where every process can take part */
    int node_ok = 0;
    ok = ok && domain_ok;
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(&ok, &node_ok, 1, MPI_INT, MPI_MIN, shm->node);
    ok = node_ok;
    if (rc == MPI_SUCCESS && ok) rc = make_segment(h, shm, &ok);
    if (rc != MPI_SUCCESS) ok = 0;
    int all = 0;
    /* one answer everywhere, also the fence after the flags' zeroing */
    int arc = MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, h->base);
    if (rc == MPI_SUCCESS) rc = arc;
    if (rc == MPI_SUCCESS && all) {
        int leader = shm->rank == 0;
        rc = MPI_Comm_split(h->base, leader ? 0 : MPI_UNDEFINED, h->rank, &shm->leaders);
        if (rc == MPI_SUCCESS) rc = MPI_Win_sync(shm->win);
    }
    if (rc == MPI_SUCCESS && all) {
        h->shm = shm;
    } else if (shm == &stand_in) {
        if (shm->node != MPI_COMM_NULL) MPI_Comm_free(&shm->node);
    } else {
        free_fields(shm);
    }
    if (rc == MPI_SUCCESS) h->shm_ready = 1;
    *out = h->shm;
    return rc;
#endif
}
