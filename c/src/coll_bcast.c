/* SPDX-License-Identifier: BSD-3-Clause */
/* HSPLIT_Bcast: the root's node leader gets the data (one intra-node message
   when the root is not the leader), then it flows down the levels. */
#include <stdlib.h>
#include "hsplit_internal.h"

/* Bring the root's data to the top holder of the tree. */
static int lift(const hsplit_hierarchy *h, void *buffer, int count, MPI_Datatype datatype,
                int root)
{
    int holder = hsplit_is_top_holder(h, root);
    if (h->rank == root && !holder)
        return MPI_Send(buffer, count, datatype, h->node_leader, HSPLIT_TAG_LIFT, h->base);
    if (holder && h->rank != root)
        return MPI_Recv(buffer, count, datatype, root, HSPLIT_TAG_LIFT, h->base,
                        MPI_STATUS_IGNORE);
    return MPI_SUCCESS;
}

/* Moves the bytes of buffer from root to everyone, down the tree (h) or
   with the plain MPI_Bcast (h NULL); bytes > 0. Processes may describe the
   same data with different datatypes (equal type signatures): the tree cuts
   segments in bytes, and Open MPI 4.1's own segmented MPI_Bcast truncates
   such calls (its segments are counted in elements of each process's
   datatype), so both paths move bytes: a contiguous buffer as it is, any
   other layout packed. */
/* The bytes down the tree, through the nodes' shared memory (shm), or with
   MPI's own call (h NULL). */
static int move_bytes(hsplit_hierarchy *h, int shm, const hsplit_schedule *schedule,
                      MPI_Comm comm, void *bytes_buffer, int bytes, int root)
{
    if (h == NULL) return MPI_Bcast(bytes_buffer, bytes, MPI_BYTE, root, comm);
    if (shm) return hsplit_shm_schedule_bcast(h, bytes_buffer, bytes, MPI_BYTE, root);
    if (schedule != NULL) return hsplit_engine_bcast(h, schedule, bytes_buffer, bytes, MPI_BYTE, root);
    return hsplit_tree_bcast(h, bytes_buffer, bytes, MPI_BYTE, root, 0);
}

static int bcast_bytes(hsplit_hierarchy *h, int shm, const hsplit_schedule *schedule,
                       MPI_Comm comm, void *buffer, int count, MPI_Datatype datatype, int root,
                       int bytes)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    /* the tree starts at the root's node leader; shared memory and the
       engine's schedules at the root */
    int tree = h != NULL && !shm && schedule == NULL;
    int rc = tree ? lift(h, buffer, count, datatype, root) : MPI_SUCCESS;
    int holder = tree ? hsplit_is_top_holder(h, root) : rank == root;
    if (hsplit_type_contiguous(datatype)) {
        if (rc != MPI_SUCCESS) return rc;
        return move_bytes(h, shm, schedule, comm, buffer, bytes, root);
    }
    char *packed = malloc((size_t)bytes);
    int pos = 0;
    if (packed == NULL) /* the plain path's errors are MPI's, raised already */
        return h != NULL ? MPI_ERR_NO_MEM : hsplit_raise_code(comm, MPI_ERR_NO_MEM);
    if (rc == MPI_SUCCESS && holder)
        rc = hsplit_pack(buffer, count, datatype, packed, bytes, &pos, comm);
    if (rc == MPI_SUCCESS) rc = move_bytes(h, shm, schedule, comm, packed, bytes, root);
    pos = 0;
    if (rc == MPI_SUCCESS && !holder && rank != root)
        rc = hsplit_unpack(packed, bytes, &pos, buffer, count, datatype, comm);
    free(packed);
    return rc;
}

/* Predefined types that are contiguous bytes: what the plain path moves as
   MPI_BYTE without asking MPI about their layout. */
static int plain_bytes_type(MPI_Datatype t)
{
    return t == MPI_BYTE || t == MPI_CHAR || t == MPI_UNSIGNED_CHAR || t == MPI_INT ||
           t == MPI_UNSIGNED || t == MPI_LONG || t == MPI_UNSIGNED_LONG || t == MPI_FLOAT ||
           t == MPI_DOUBLE || t == MPI_LONG_LONG || t == MPI_INT64_T || t == MPI_UINT64_T;
}

int HSPLIT_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    int type_size = 0;
    /* plain MPI decided (off mode, auto's choice) and nothing unusual:
       MPI's call, which checks its arguments itself */
    hsplit_coll_state *s = hsplit_coll_state_find(comm);
    if (s != NULL && count > 0 && buffer != MPI_IN_PLACE &&
        MPI_Type_size(datatype, &type_size) == MPI_SUCCESS) {
        long n = (long)count * type_size;
        if (n > 0 && n <= 0x7fffffffL && hsplit_coll_plain(s, HSPLIT_COLL_BCAST, n)) {
            if (plain_bytes_type(datatype)) return MPI_Bcast(buffer, (int)n, MPI_BYTE, root, comm);
            return bcast_bytes(NULL, 0, NULL, comm, buffer, count, datatype, root, (int)n);
        }
        hsplit_hierarchy *direct = hsplit_coll_shm_direct(s, HSPLIT_COLL_BCAST, n);
        if (n > 0 && n <= 0x7fffffffL && direct != NULL && root >= 0 && root < s->size &&
            plain_bytes_type(datatype))
            return hsplit_coll_direct_done(
                comm, s, hsplit_shm_schedule_bcast(direct, buffer, (int)n, MPI_BYTE, root));
    }
    int rc = hsplit_coll_check_comm(comm);
    /* checked by every process alike, before anything communicates; the
       broadcast has no MPI_IN_PLACE (MPI_ERR_ARG, as Open MPI says) */
    if (rc == MPI_SUCCESS && count < 0) rc = MPI_ERR_COUNT;
    if (rc == MPI_SUCCESS && buffer == MPI_IN_PLACE) rc = MPI_ERR_ARG;
    if (rc == MPI_SUCCESS) rc = MPI_Type_size(datatype, &type_size);
    /* negative for MPI_UNDEFINED (more than an int of bytes): plain MPI */
    long bytes = (long)count * type_size;
    hsplit_hierarchy *h = NULL;
    if (rc == MPI_SUCCESS) rc = hsplit_coll_begin(comm, bytes, root, &h);
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    int as_bytes = bytes > 0 && bytes <= 0x7fffffffL;
    if (!as_bytes) h = NULL;
    hsplit_coll_trial trial;
    hsplit_coll_choose(&h, HSPLIT_COLL_BCAST, bytes, &trial);
    /* no bytes: MPI checks the other arguments and returns (Open MPI 4.1
       walks 2^30 elements of size 0 one by one, for seconds) */
    rc = as_bytes ? bcast_bytes(h, trial.shm, trial.schedule, comm, buffer, count, datatype,
                                root, (int)bytes)
                  : MPI_Bcast(buffer, bytes == 0 ? 0 : count, datatype, root, comm);
    return hsplit_coll_finish(comm, h, &trial, rc);
}
