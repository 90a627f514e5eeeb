/* SPDX-License-Identifier: BSD-3-Clause */
/* Collectives inside one node's shared segment (the OSMP base case): barrier,
   bcast, reduce and allreduce, with flags, slots and data areas laid out in
   coll_shm_private.h. Every process counts the data steps itself (one per
   call that fits a slot, one per slice of a larger call; calls come in the
   same order everywhere), so that flags hold step numbers and only grow.
   A process writes its slot of step s only once every process is done with
   step s - nslots (the last use of that slot), its area of step s once every
   process is done with step s - 2: writers rarely wait.

   Copies per byte (n processes in the node; a flat datatype, a predefined
   type without gaps or contiguous copies of one, is copied with memcpy; other
   datatypes: bcast packs into the slot or a buffer and unpacks from it (a
   call beyond a slot: +2), reduce copies with the datatype's layout, same
   count):
   - bcast: 2 (root -> its slot or area, slot or area -> each member, the
     members in parallel), in slices of an area beyond a slot.
   - reduce, a call that fits a slot: 2 (each input but the root's -> its
     slot; the last process's slot -> the root's recvbuf), then the root
     combines the n - 1 others into recvbuf, its own input read in place
     (MPI_IN_PLACE: copied to its slot first). Larger calls, in slices of half an area: a
     slice of fewer than n elements or at most SMALL_BYTES the same way; else
     3 (input -> area; process j copies part j of the last process's input
     into its area's output half and combines the others into it, so that
     each element is combined once, by one process; the root copies every
     part into recvbuf), 2 for the root's own part (combined in recvbuf).
   - allreduce: the same with every process collecting as the root: 2 (every
     process combines a small call or slice itself, which saves a round of
     flags) or 3.
   - in the node's tree (more than fanout processes, calls that fit a slot):
     bcast 3 for the groups other than the root's (root -> its slot, -> each
     other leader's slot, -> each member), 2 in the root's group; reduce and
     allreduce 2 plus the leaders' combined groups (input -> its slot; each
     leader combines its group into its own slot; the collectors combine the
     leaders' slots into recvbuf). */
#include <stdlib.h>
#include <string.h>
#include "coll_shm_private.h"

/* Up to this many bytes in a slice, one process (reduce: the root; allreduce:
   every process) combines the whole slice: a second round of flags costs more
   than combining n small inputs. */
#define SMALL_BYTES 1024

/* ---- the node's tree (the OSMP paper's virtual hierarchy): groups of
   fanout consecutive node ranks (with block placement, processes that share
   a cache or a NUMA node), each led by its first process. Past fanout
   processes, a flag or a small message that every process would read from
   every other (n^2 cache-line transfers, rank 0 alone waiting for n flags)
   goes through the group leaders instead: two hops of at most fanout reads. ---- */

static int in_tree(const hsplit_shm *shm)
{
    return shm->size > shm->fanout;
}

static int leader_of(const hsplit_shm *shm, int rank)
{
    return rank - rank % shm->fanout;
}

/* One past the last rank of the group that leader leads. */
static int group_end(const hsplit_shm *shm, int leader)
{
    return shm->size - leader > shm->fanout ? leader + shm->fanout : shm->size;
}

/* ---- barrier: every process but rank 0 stores its arrival; rank 0 waits
   for all, then stores the release, which the others wait for. In the
   tree, a leader stores its arrival once its group has arrived, rank 0
   waits for the leaders, and each leader passes rank 0's release on to its
   group. The whole barrier of a one-group node has no release: every
   process stores its arrival and waits for everyone's (one transfer of
   flags instead of two). ---- */

static void tree_arrive(hsplit_shm *shm, uint64_t b)
{
    int me = shm->rank;
    if (me == leader_of(shm, me)) {
        for (int i = me + 1; i < group_end(shm, me); i++)
            hsplit_shm_wait_ge(hsplit_shm_flag_of(shm, i, HSPLIT_SHM_ARRIVE), b);
        if (me == 0) {
            for (int g = shm->fanout; g < shm->size; g += shm->fanout)
                hsplit_shm_wait_ge(hsplit_shm_flag_of(shm, g, HSPLIT_SHM_ARRIVE), b);
            return;
        }
    }
    hsplit_shm_store_flag(shm, HSPLIT_SHM_ARRIVE, b);
}

int hsplit_shm_barrier_arrive(hsplit_shm *shm)
{
    uint64_t b = ++shm->barriers;
    if (in_tree(shm)) {
        tree_arrive(shm, b);
        return MPI_SUCCESS;
    }
    if (shm->rank != 0) {
        hsplit_shm_store_flag(shm, HSPLIT_SHM_ARRIVE, b);
        return MPI_SUCCESS;
    }
    for (int i = 1; i < shm->size; i++)
        hsplit_shm_wait_ge(hsplit_shm_flag_of(shm, i, HSPLIT_SHM_ARRIVE), b);
    return MPI_SUCCESS;
}

int hsplit_shm_barrier_release(hsplit_shm *shm)
{
    uint64_t b = shm->barriers;
    if (in_tree(shm)) {
        /* a leader waits for rank 0, a member for its leader */
        int me = shm->rank, leader = leader_of(shm, me);
        if (me != 0)
            hsplit_shm_wait_ge(hsplit_shm_flag_of(shm, me == leader ? 0 : leader,
                                                  HSPLIT_SHM_RELEASE), b);
        if (me == leader) hsplit_shm_store_flag(shm, HSPLIT_SHM_RELEASE, b);
        return MPI_SUCCESS;
    }
    if (shm->rank == 0)
        hsplit_shm_store_flag(shm, HSPLIT_SHM_RELEASE, b);
    else
        hsplit_shm_wait_ge(hsplit_shm_flag_of(shm, 0, HSPLIT_SHM_RELEASE), b);
    return MPI_SUCCESS;
}

int hsplit_shm_barrier(hsplit_shm *shm)
{
    if (in_tree(shm)) {
        hsplit_shm_barrier_arrive(shm);
        return hsplit_shm_barrier_release(shm);
    }
    /* arrival flags only grow, so that this and the halves mix freely */
    uint64_t b = ++shm->barriers;
    hsplit_shm_store_flag(shm, HSPLIT_SHM_ARRIVE, b);
    for (int i = 0; i < shm->size; i++)
        if (i != shm->rank) hsplit_shm_wait_ge(hsplit_shm_flag_of(shm, i, HSPLIT_SHM_ARRIVE), b);
    return MPI_SUCCESS;
}

/* ---- datatypes ---- */

/* Is the datatype's memory its packed form (memcpy moves it)? Predefined
   types without gaps, and contiguous copies of such types. */
int hsplit_shm_type_flat(MPI_Datatype type)
{
    if (hsplit_shm_common_size(type) > 0) return 1;
    int ints, addresses, types, combiner;
    if (MPI_Type_get_envelope(type, &ints, &addresses, &types, &combiner) != MPI_SUCCESS)
        return 0;
    if (combiner == MPI_COMBINER_NAMED) return hsplit_type_dense_named(type);
    if (combiner != MPI_COMBINER_CONTIGUOUS || ints != 1 || addresses != 0 || types != 1)
        return 0;
    int count;
    MPI_Aint unused;
    MPI_Datatype old;
    if (MPI_Type_get_contents(type, 1, 0, 1, &count, &unused, &old) != MPI_SUCCESS) return 0;
    int flat = hsplit_shm_type_flat(old);
    MPI_Type_get_envelope(old, &ints, &addresses, &types, &combiner);
    if (combiner != MPI_COMBINER_NAMED) MPI_Type_free(&old);
    return flat;
}

typedef struct {
    MPI_Aint extent, true_lb, true_extent;
    int size, flat;
} type_info;

static int get_type_info(MPI_Datatype type, type_info *t)
{
    int common = hsplit_shm_common_size(type);
    if (common > 0) {
        t->size = common;
        t->extent = t->true_extent = common;
        t->true_lb = 0;
        t->flat = 1;
        return MPI_SUCCESS;
    }
    MPI_Aint lb;
    int rc = MPI_Type_size(type, &t->size);
    if (rc == MPI_SUCCESS) rc = MPI_Type_get_extent(type, &lb, &t->extent);
    if (rc == MPI_SUCCESS) rc = MPI_Type_get_true_extent(type, &t->true_lb, &t->true_extent);
    t->flat = rc == MPI_SUCCESS && hsplit_shm_type_flat(type);
    return rc;
}

/* n elements from one layout to another (user buffer or area). */
static int copy_elements(const char *from, char *to, int n, const type_info *t,
                         MPI_Datatype type)
{
    if (n == 0 || from == to) return MPI_SUCCESS;
    if (t->flat) {
        memcpy(to, from, (size_t)n * (size_t)t->size);
        return MPI_SUCCESS;
    }
    return hsplit_local_copy(from, to, n, type);
}

/* inout = in op inout without an MPI call for the commonest predefined
   operations and types (MPI_Reduce_local costs more than combining a few
   elements); 0 when the pair is not one of them. */
#define COMBINE_LOOP(T, EXPR)                                                  \
    do {                                                                       \
        const T *a = in;                                                       \
        T *b = inout;                                                          \
        for (int i = 0; i < n; i++) {                                          \
            T x = a[i], y = b[i];                                              \
            b[i] = (EXPR);                                                     \
        }                                                                      \
        return 1;                                                              \
    } while (0)
static int combine_inline(const void *in, void *inout, int n, MPI_Datatype type, MPI_Op op)
{
    if (type == MPI_DOUBLE) {
        if (op == MPI_SUM) COMBINE_LOOP(double, x + y);
        if (op == MPI_MAX) COMBINE_LOOP(double, x > y ? x : y);
        if (op == MPI_MIN) COMBINE_LOOP(double, x < y ? x : y);
    } else if (type == MPI_INT) {
        /* unsigned: wraps where MPI's sum of ints overflows, without undefined behaviour */
        if (op == MPI_SUM) COMBINE_LOOP(int, (int)((unsigned)x + (unsigned)y));
        if (op == MPI_MAX) COMBINE_LOOP(int, x > y ? x : y);
        if (op == MPI_MIN) COMBINE_LOOP(int, x < y ? x : y);
    } else if (type == MPI_LONG) {
        if (op == MPI_SUM) COMBINE_LOOP(long, (long)((unsigned long)x + (unsigned long)y));
        if (op == MPI_MAX) COMBINE_LOOP(long, x > y ? x : y);
        if (op == MPI_MIN) COMBINE_LOOP(long, x < y ? x : y);
    }
    return 0;
}

/* MPI_Reduce_local, inline where it can. */
static int reduce_local(const void *in, void *inout, int n, MPI_Datatype type, MPI_Op op)
{
    if (combine_inline(in, inout, n, type, op)) return MPI_SUCCESS;
    return MPI_Reduce_local(in, inout, n, type, op);
}

/* ---- bcast: the root copies each slice once into its area and publishes
   it (POST); members wait for POST, copy out in parallel and say DONE ---- */

int hsplit_shm_bcast(hsplit_shm *shm, void *buf, int count, MPI_Datatype datatype, int root)
{
    if (root < 0 || root >= shm->size) return MPI_ERR_ROOT;
    int common = hsplit_shm_common_size(datatype);
    int64_t elem = common > 0 ? common : hsplit_element_bytes(datatype);
    if (elem < 0) return MPI_ERR_TYPE;
    int64_t bytes = count > 0 ? (int64_t)count * elem : 0;
    if (bytes == 0) return MPI_SUCCESS; /* the same everywhere: the signatures match */
    int me = shm->rank, rc = MPI_SUCCESS, flat = hsplit_shm_type_flat(datatype);
    if ((uint64_t)bytes <= shm->slot_data) {
        /* one slot: the root writes flag and data together, packing there;
           in the tree, the leaders of the other groups copy it (step s) into
           their own slot (step s + 1), which their members read */
        uint64_t s = ++shm->step, last = s;
        int from = root;
        if (in_tree(shm)) {
            last = ++shm->step;
            int leader = leader_of(shm, me);
            if (leader != leader_of(shm, root) && me != leader) from = leader;
        }
        uint64_t at = from == root ? s : last;
        char *data = hsplit_shm_slot(shm, from, at) + HSPLIT_SHM_SLOT_HEADER;
        if (me == root) {
            hsplit_shm_wait_slot_free(shm, s);
            if (flat) memcpy(data, buf, (size_t)bytes);
            else rc = hsplit_pack_elements(buf, count, datatype, elem, data, MPI_COMM_SELF);
            hsplit_shm_publish_slot(shm, s, rc != MPI_SUCCESS);
        } else {
            hsplit_shm_wait_ge(hsplit_shm_slot_flag(shm, from, at), at);
            int failed = hsplit_shm_slot_failed_at(shm, from, at);
            if (last != s && me == leader_of(shm, me) && from == root &&
                leader_of(shm, me) != leader_of(shm, root)) {
                /* a relay: the packed bytes as they are, for the group */
                hsplit_shm_wait_slot_free(shm, last);
                char *copy = hsplit_shm_slot(shm, me, last) + HSPLIT_SHM_SLOT_HEADER;
                if (!failed) memcpy(copy, data, (size_t)bytes);
                hsplit_shm_publish_slot(shm, last, failed);
            }
            if (failed)
                rc = MPI_ERR_OTHER;
            else if (flat) memcpy(buf, data, (size_t)bytes);
            else rc = hsplit_unpack_elements(data, buf, count, datatype, elem, MPI_COMM_SELF);
        }
        hsplit_shm_store_flag(shm, HSPLIT_SHM_DONE, last);
        return rc;
    }
    char *stream = buf;
    void *packed = NULL;
    if (!flat) {
        packed = malloc((size_t)bytes);
        if (packed == NULL) rc = MPI_ERR_NO_MEM;
        else if (me == root)
            rc = hsplit_pack_elements(buf, count, datatype, elem, packed, MPI_COMM_SELF);
        stream = packed;
    }
    size_t area = shm->area_bytes;
    for (int64_t off = 0; off < bytes; off += (int64_t)area) {
        size_t len = bytes - off < (int64_t)area ? (size_t)(bytes - off) : area;
        uint64_t s = ++shm->step;
        char *shared = hsplit_shm_area(shm, root, s);
        if (me == root) {
            hsplit_shm_wait_area_free(shm, s);
            if (rc == MPI_SUCCESS) memcpy(shared, stream + off, len);
            else hsplit_shm_store_failed(shm, s);
            hsplit_shm_store_flag(shm, HSPLIT_SHM_POST, s);
        } else {
            hsplit_shm_wait_ge(hsplit_shm_flag_of(shm, root, HSPLIT_SHM_POST), s);
            if (rc == MPI_SUCCESS && hsplit_shm_failed_at(shm, root, s)) rc = MPI_ERR_OTHER;
            if (rc == MPI_SUCCESS) memcpy(stream + off, shared, len);
        }
        hsplit_shm_store_flag(shm, HSPLIT_SHM_DONE, s);
    }
    if (packed != NULL && me != root && rc == MPI_SUCCESS)
        rc = hsplit_unpack_elements(packed, buf, count, datatype, elem, MPI_COMM_SELF);
    free(packed);
    return rc;
}

/* ---- reduce and allreduce: every process copies its input slice into the
   input half of its area (POST). Small slices: the root (allreduce: every
   process) waits for all POSTs and combines the inputs into recvbuf, in rank
   order. Larger ones: process j combines part j of the slice from every input
   into the output half of its area (PART); the root (allreduce: everyone)
   waits for the PARTs and copies them into recvbuf. Everyone then says DONE.
   ---- */

/* Element 0 of process i's input (output) half for step s. */
static char *input_of(const hsplit_shm *shm, int i, uint64_t s, const type_info *t)
{
    return hsplit_shm_area(shm, i, s) - t->true_lb;
}
static char *output_of(const hsplit_shm *shm, int i, uint64_t s, const type_info *t)
{
    return hsplit_shm_area(shm, i, s) + shm->half_bytes - t->true_lb;
}

/* x0 op x1 op ... op x(n-1) over elements [a, a + n) of the slice of step s
   into acc (element a's place): the last input copied, then each earlier one
   combined from the left (MPI_Reduce_local(in, inout): inout = in op inout). */
static int combine(hsplit_shm *shm, uint64_t s, int a, int n, char *acc, const type_info *t,
                   MPI_Datatype type, MPI_Op op)
{
    int last = shm->size - 1, rc = MPI_SUCCESS;
    MPI_Aint at = (MPI_Aint)a * t->extent;
    for (int i = last; i >= 0; i--)
        hsplit_shm_wait_ge(hsplit_shm_flag_of(shm, i, HSPLIT_SHM_POST), s);
    hsplit_shm_saw_all_published(shm, s);
    for (int i = 0; i <= last && rc == MPI_SUCCESS; i++)
        if (hsplit_shm_failed_at(shm, i, s)) rc = MPI_ERR_OTHER;
    if (rc == MPI_SUCCESS) rc = copy_elements(input_of(shm, last, s, t) + at, acc, n, t, type);
    for (int i = last - 1; i >= 0 && rc == MPI_SUCCESS; i--)
        rc = reduce_local(input_of(shm, i, s, t) + at, acc, n, type, op);
    return rc;
}

/* MPI's own call on the node communicator, for an element larger than half
   an area. An MPI_IN_PLACE root other than 0 reduces into a separate buffer
   (MPICH 4.0 crashes there, see coll_reduce.c). */
static int reduce_by_mpi(hsplit_shm *shm, const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype type, MPI_Op op, int root)
{
    if (root < 0) return MPI_Allreduce(sendbuf, recvbuf, count, type, op, shm->node);
    if (sendbuf != MPI_IN_PLACE || root == 0 || shm->rank != root)
        return MPI_Reduce(sendbuf, recvbuf, count, type, op, root, shm->node);
    void *base, *result = hsplit_temp_buffer(count, type, &base);
    /* out of memory, the root still takes part, so that nobody waits */
    if (result == NULL) {
        MPI_Reduce(MPI_IN_PLACE, recvbuf, count, type, op, root, shm->node);
        return MPI_ERR_NO_MEM;
    }
    int rc = MPI_Reduce(recvbuf, result, count, type, op, root, shm->node);
    if (rc == MPI_SUCCESS) rc = hsplit_local_copy(result, recvbuf, count, type);
    free(base);
    return rc;
}

/* A call that fits a slot: each process copies its input into its slot
   (flag and data together); the root (allreduce: every process) combines
   them all into recvbuf in rank order. The root of a reduce reads its own
   input where it is, unless it is recvbuf (MPI_IN_PLACE): nobody else
   reads it. */
static int reduce_in_slots(hsplit_shm *shm, const char *input, void *recvbuf, int count,
                           MPI_Datatype type, MPI_Op op, int collects, int all,
                           const type_info *t)
{
    uint64_t s = ++shm->step;
    int me = shm->rank, last = shm->size - 1, rc = MPI_SUCCESS;
    int keep_own = collects && !all && input != (const char *)recvbuf;
    if (!keep_own) {
        hsplit_shm_wait_slot_free(shm, s);
        char *mine = hsplit_shm_slot(shm, me, s) + HSPLIT_SHM_SLOT_HEADER - t->true_lb;
        rc = copy_elements(input, mine, count, t, type);
        hsplit_shm_publish_slot(shm, s, rc != MPI_SUCCESS);
    }
    if (collects && rc == MPI_SUCCESS) {
        for (int i = last; i >= 0; i--) {
            if (keep_own && i == me) continue;
            hsplit_shm_wait_ge(hsplit_shm_slot_flag(shm, i, s), s);
            if (hsplit_shm_slot_failed_at(shm, i, s)) rc = MPI_ERR_OTHER;
        }
        hsplit_shm_saw_all_published(shm, s);
        for (int i = last; i >= 0 && rc == MPI_SUCCESS; i--) {
            const char *in = keep_own && i == me
                                 ? input
                                 : hsplit_shm_slot(shm, i, s) + HSPLIT_SHM_SLOT_HEADER - t->true_lb;
            if (i == last) rc = copy_elements(in, recvbuf, count, t, type);
            else rc = reduce_local(in, recvbuf, count, type, op);
        }
    }
    hsplit_shm_store_flag(shm, HSPLIT_SHM_DONE, s);
    return rc;
}

/* Slot data of step s of ranks first, first + stride, ... (below end),
   combined in rank order into acc, once all are published: the last copied,
   each earlier one combined from the left. */
static int combine_slots(hsplit_shm *shm, uint64_t s, int first, int end, int stride, char *acc,
                         int count, MPI_Datatype type, MPI_Op op, const type_info *t)
{
    int last = first + (end - 1 - first) / stride * stride, rc = MPI_SUCCESS;
    for (int i = last; i >= first; i -= stride) {
        hsplit_shm_wait_ge(hsplit_shm_slot_flag(shm, i, s), s);
        if (hsplit_shm_slot_failed_at(shm, i, s)) rc = MPI_ERR_OTHER;
    }
    for (int i = last; i >= first && rc == MPI_SUCCESS; i -= stride) {
        const char *in = hsplit_shm_slot(shm, i, s) + HSPLIT_SHM_SLOT_HEADER - t->true_lb;
        if (i == last) rc = copy_elements(in, acc, count, t, type);
        else rc = reduce_local(in, acc, count, type, op);
    }
    return rc;
}

/* A call that fits a slot, in the tree: every process copies its input into
   its slot (step s); each leader combines its group's into its slot of step
   s + 1; the root (allreduce: every process) combines the leaders'. Groups
   are runs of consecutive ranks, so that rank order holds. */
static int reduce_in_tree(hsplit_shm *shm, const char *input, void *recvbuf, int count,
                          MPI_Datatype type, MPI_Op op, int collects, const type_info *t)
{
    uint64_t s = ++shm->step, up = ++shm->step;
    int me = shm->rank, rc = MPI_SUCCESS;
    hsplit_shm_wait_slot_free(shm, s);
    rc = copy_elements(input, hsplit_shm_slot(shm, me, s) + HSPLIT_SHM_SLOT_HEADER - t->true_lb,
                       count, t, type);
    hsplit_shm_publish_slot(shm, s, rc != MPI_SUCCESS);
    if (me == leader_of(shm, me)) {
        hsplit_shm_wait_slot_free(shm, up);
        char *part = hsplit_shm_slot(shm, me, up) + HSPLIT_SHM_SLOT_HEADER - t->true_lb;
        int prc = combine_slots(shm, s, me, group_end(shm, me), 1, part, count, type, op, t);
        hsplit_shm_publish_slot(shm, up, prc != MPI_SUCCESS);
        if (rc == MPI_SUCCESS) rc = prc;
    }
    if (collects) {
        int crc = combine_slots(shm, up, 0, shm->size, shm->fanout, recvbuf, count, type, op, t);
        /* every leader published, after its group had: all published s */
        hsplit_shm_saw_all_published(shm, s);
        if (rc == MPI_SUCCESS) rc = crc;
    }
    hsplit_shm_store_flag(shm, HSPLIT_SHM_DONE, up);
    return rc;
}

/* root < 0: allreduce. */
static int reduce_slices(hsplit_shm *shm, const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype type, MPI_Op op, int root)
{
    if (count <= 0) return MPI_SUCCESS;
    type_info t;
    int rc = get_type_info(type, &t);
    if (rc != MPI_SUCCESS) return rc;
    if (t.extent <= 0) return MPI_ERR_TYPE;
    size_t cap = shm->half_bytes;
    if (t.true_extent < 0 || (size_t)t.true_extent > cap)
        return reduce_by_mpi(shm, sendbuf, recvbuf, count, type, op, root);
    /* elements per slice: their span, true_extent + (k - 1) * extent, fits */
    int64_t fit = 1 + (int64_t)((cap - (size_t)t.true_extent) / (size_t)t.extent);
    int per = fit < count ? (int)fit : count;
    const char *input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    int me = shm->rank, n = shm->size, collects = root < 0 || me == root;
    if ((size_t)t.true_extent + (size_t)(count - 1) * (size_t)t.extent <= shm->slot_data &&
        t.true_extent <= (MPI_Aint)shm->slot_data) {
        if (in_tree(shm))
            return reduce_in_tree(shm, input, recvbuf, count, type, op, collects, &t);
        return reduce_in_slots(shm, input, recvbuf, count, type, op, collects, root < 0, &t);
    }
    for (int first = 0; first < count; first += per) {
        int k = count - first < per ? count - first : per;
        MPI_Aint at = (MPI_Aint)first * t.extent;
        uint64_t s = ++shm->step;
        int lrc;
        hsplit_shm_wait_area_free(shm, s);
        lrc = copy_elements(input + at, input_of(shm, me, s, &t), k, &t, type);
        if (lrc != MPI_SUCCESS) hsplit_shm_store_failed(shm, s);
        hsplit_shm_store_flag(shm, HSPLIT_SHM_POST, s);
        if (k < n || (int64_t)k * t.size <= SMALL_BYTES) {
            if (collects && lrc == MPI_SUCCESS)
                lrc = combine(shm, s, 0, k, (char *)recvbuf + at, &t, type, op);
        } else {
            /* part j: elements [k * j / n, k * (j + 1) / n) of the slice; the
               root of a reduce combines its own part into recvbuf directly */
            int a = (int)((int64_t)k * me / n), b = (int)((int64_t)k * (me + 1) / n);
            int direct = root == me;
            char *acc = direct ? (char *)recvbuf + at : output_of(shm, me, s, &t);
            int prc = combine(shm, s, a, b - a, acc + (MPI_Aint)a * t.extent, &t, type, op);
            if (prc != MPI_SUCCESS) hsplit_shm_store_failed(shm, s);
            hsplit_shm_store_flag(shm, HSPLIT_SHM_PART, s);
            if (lrc == MPI_SUCCESS) lrc = prc;
            for (int j = 0; j < n && collects; j++) {
                if (direct && j == me) continue;
                int aj = (int)((int64_t)k * j / n), bj = (int)((int64_t)k * (j + 1) / n);
                hsplit_shm_wait_ge(hsplit_shm_flag_of(shm, j, HSPLIT_SHM_PART), s);
                if (lrc == MPI_SUCCESS && hsplit_shm_failed_at(shm, j, s)) lrc = MPI_ERR_OTHER;
                MPI_Aint from = (MPI_Aint)aj * t.extent;
                if (lrc == MPI_SUCCESS)
                    lrc = copy_elements(output_of(shm, j, s, &t) + from,
                                        (char *)recvbuf + at + from, bj - aj, &t, type);
            }
        }
        hsplit_shm_store_flag(shm, HSPLIT_SHM_DONE, s);
        if (rc == MPI_SUCCESS) rc = lrc;
    }
    return rc;
}

int hsplit_shm_reduce(hsplit_shm *shm, const void *sendbuf, void *recvbuf, int count,
                      MPI_Datatype datatype, MPI_Op op, int root)
{
    if (root < 0 || root >= shm->size) return MPI_ERR_ROOT;
    return reduce_slices(shm, sendbuf, recvbuf, count, datatype, op, root);
}

int hsplit_shm_allreduce(hsplit_shm *shm, const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype datatype, MPI_Op op)
{
    return reduce_slices(shm, sendbuf, recvbuf, count, datatype, op, -1);
}
