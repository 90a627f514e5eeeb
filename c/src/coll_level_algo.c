/* SPDX-License-Identifier: BSD-3-Clause */
/* One level's collective over point-to-point messages on h->base, for the
   engine's level shapes "rd" (recursive doubling), "rab" (Rabenseifner's)
   and "ring" (coll_engine.c):

   - allreduce, recursive doubling: log2(n) exchanges of the whole message
     with partners at distance 1, 2, 4...; the members beyond a power of two
     first hand their data to a neighbour and get the result back at the
     end. Each process always holds the reduction of a range of consecutive
     members, combined lower range first: exact for operations that do not
     commute.
   - allreduce, Rabenseifner's ("rab"): over the same power of two,
     a reduce-scatter by recursive halving (the nearest partner first, half
     of the range held at each step), then an allgather by recursive
     doubling back (the same partners in reverse order): 2 log2(n) steps
     that move 2 (n - 1) / n of the message in all, where recursive doubling
     moves log2(n) whole messages. Exact in member order as recursive
     doubling: the ranges combined at each step are consecutive members.
   - allreduce, ring: a ring reduce-scatter (n - 1 steps, each moving 1/n
     of the message to the right neighbour), then a ring allgather: every
     link carries 2 (n - 1) / n of the message whatever n is, the bandwidth
     optimum. Commutative operations only (the sums of a block start at
     different members).
   - broadcast, ring: the root scatters n blocks along a binomial tree, then
     a ring allgather (the scatter-allgather broadcast for large messages).
   - reduce, ring: the ring reduce-scatter, then every member sends its
     finished block to the root. Commutative operations only.
   - allgatherv, neighbour exchange (an even number of members): n / 2
     steps; in the first, members 2k and 2k + 1 swap their blocks; in each
     later one a member passes the pair of blocks it received last to the
     neighbour on its other side. Every message goes to an adjacent member
     (the same cache, package or switch, where the members are in that
     order), where a recursive doubling's or a Bruck's go up to n / 2 away.

   Blocks are ranges of whole elements (any datatype: an element's layout is
   MPI's business), block b of n over count elements being
   [b * count / n, (b + 1) * count / n); when count < n some are empty. */
#include <stdint.h>
#include <stdlib.h>
#include "hsplit_internal.h"

#define TAG HSPLIT_TAG_ENGINE_LEVEL

/* The base rank of member i (members NULL: base is the level itself). */
static int member(const hsplit_view_level *l, int i)
{
    return l->members != NULL ? l->members[i] : i;
}

static int64_t block_start(int b, int n, int count)
{
    return (int64_t)b * count / n;
}

static int block_len(int b, int n, int count)
{
    return (int)(block_start(b + 1, n, count) - block_start(b, n, count));
}

static char *at(void *buf, int64_t element, MPI_Aint extent)
{
    return (char *)buf + (MPI_Aint)element * extent;
}

/* One step of a ring: send block `out` to the right, receive block `in`
   from the left into `into` (a block-sized buffer, or buf's own block). */
static int ring_step(MPI_Comm base, const hsplit_view_level *l, void *buf, int out, void *into,
                     int in, int count, MPI_Datatype datatype, MPI_Aint extent)
{
    int n = l->n, right = member(l, (l->me + 1) % n), left = member(l, (l->me + n - 1) % n);
    return MPI_Sendrecv(at(buf, block_start(out, n, count), extent), block_len(out, n, count),
                        datatype, right, TAG, into, block_len(in, n, count), datatype, left, TAG,
                        base, MPI_STATUS_IGNORE);
}

/* Ring reduce-scatter over buf: afterwards member me holds the reduction
   of block (me + 1) % n of every member's buf (its other blocks hold partial
   sums). */
static int ring_reduce_scatter(MPI_Comm base, const hsplit_view_level *l, void *buf, int count,
                               MPI_Datatype datatype, MPI_Op op, MPI_Aint extent)
{
    int n = l->n, me = l->me;
    void *space;
    char *tmp = hsplit_temp_buffer(count / n + 1, datatype, &space);
    if (tmp == NULL) return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    for (int k = 0; k < n - 1 && rc == MPI_SUCCESS; k++) {
        int out = (me - k + n) % n, in = (me - k - 1 + 2 * n) % n;
        rc = ring_step(base, l, buf, out, tmp, in, count, datatype, extent);
        if (rc == MPI_SUCCESS && block_len(in, n, count) > 0)
            rc = MPI_Reduce_local(tmp, at(buf, block_start(in, n, count), extent),
                                  block_len(in, n, count), datatype, op);
    }
    free(space);
    return rc;
}

/* Ring allgather over buf, member v holding block (v + shift) % n: after
   it every member holds every block. */
static int ring_allgather(MPI_Comm base, const hsplit_view_level *l, void *buf, int count,
                          MPI_Datatype datatype, int shift, MPI_Aint extent)
{
    int n = l->n, me = l->me, rc = MPI_SUCCESS;
    for (int k = 0; k < n - 1 && rc == MPI_SUCCESS; k++) {
        int out = (me + shift - k + 2 * n) % n, in = (me + shift - k - 1 + 2 * n) % n;
        rc = ring_step(base, l, buf, out, at(buf, block_start(in, n, count), extent), in, count,
                       datatype, extent);
    }
    return rc;
}

int hsplit_level_allreduce_ring(MPI_Comm base, const hsplit_view_level *l, void *buf, int count,
                                MPI_Datatype datatype, MPI_Op op)
{
    if (l->n < 2 || count == 0) return MPI_SUCCESS;
    MPI_Aint lb, extent;
    MPI_Type_get_extent(datatype, &lb, &extent);
    int rc = ring_reduce_scatter(base, l, buf, count, datatype, op, extent);
    return rc != MPI_SUCCESS ? rc : ring_allgather(base, l, buf, count, datatype, 1, extent);
}

/* Combines `in` (the partner's partial) into `mine` (count elements),
   lower range first: the partner's range is lower when it is. */
static int combine(void *in, void *mine, int count, MPI_Datatype datatype, MPI_Op op,
                   int partner_lower, int noncommutative)
{
    if (partner_lower || !noncommutative)
        return MPI_Reduce_local(in, mine, count, datatype, op); /* theirs op mine */
    int rc = MPI_Reduce_local(mine, in, count, datatype, op);  /* mine op theirs */
    return rc != MPI_SUCCESS ? rc : hsplit_local_copy(in, mine, count, datatype);
}

/* Both allreduces over a power of two: the first 2 rem members pair up,
   the even one hands its data to the odd one (lower range first) and
   waits for the result. *newrank: the member's index among the power of
   two, -1 for those that wait. Every newrank then stands for a range of
   consecutive members, in order. */
static int fold_in(MPI_Comm base, const hsplit_view_level *l, void *buf, void *tmp, int count,
                   MPI_Datatype datatype, MPI_Op op, int rem, int *newrank)
{
    int me = l->me;
    if (me >= 2 * rem) {
        *newrank = me - rem;
        return MPI_SUCCESS;
    }
    if (me % 2 == 0) {
        *newrank = -1;
        return MPI_Send(buf, count, datatype, member(l, me + 1), TAG, base);
    }
    *newrank = me / 2;
    int rc = MPI_Recv(tmp, count, datatype, member(l, me - 1), TAG, base, MPI_STATUS_IGNORE);
    return rc != MPI_SUCCESS ? rc : MPI_Reduce_local(tmp, buf, count, datatype, op);
}

/* The member of the power of two's index peer. */
static int unfolded(int peer, int rem)
{
    return peer < rem ? 2 * peer + 1 : peer + rem;
}

/* The result back to the members that handed theirs over. */
static int fold_out(MPI_Comm base, const hsplit_view_level *l, void *buf, int count,
                    MPI_Datatype datatype, int rem)
{
    int me = l->me;
    if (me >= 2 * rem) return MPI_SUCCESS;
    if (me % 2 == 1) return MPI_Send(buf, count, datatype, member(l, me - 1), TAG, base);
    return MPI_Recv(buf, count, datatype, member(l, me + 1), TAG, base, MPI_STATUS_IGNORE);
}

static int power_of_two_below(int n)
{
    int pof2 = 1;
    while (pof2 <= n / 2) pof2 *= 2;
    return pof2;
}

int hsplit_level_allreduce_rd(MPI_Comm base, const hsplit_view_level *l, void *buf, int count,
                              MPI_Datatype datatype, MPI_Op op, int noncommutative)
{
    int n = l->n;
    if (n < 2 || count == 0) return MPI_SUCCESS;
    int pof2 = power_of_two_below(n), rem = n - pof2, newrank;
    void *space;
    char *tmp = hsplit_temp_buffer(count, datatype, &space);
    if (tmp == NULL) return MPI_ERR_NO_MEM;
    int rc = fold_in(base, l, buf, tmp, count, datatype, op, rem, &newrank);
    for (int mask = 1; newrank >= 0 && mask < pof2 && rc == MPI_SUCCESS; mask *= 2) {
        int peer = newrank ^ mask, partner = unfolded(peer, rem);
        rc = MPI_Sendrecv(buf, count, datatype, member(l, partner), TAG, tmp, count, datatype,
                          member(l, partner), TAG, base, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = combine(tmp, buf, count, datatype, op, peer < newrank, noncommutative);
    }
    if (rc == MPI_SUCCESS) rc = fold_out(base, l, buf, count, datatype, rem);
    free(space);
    return rc;
}

int hsplit_level_allreduce_rab(MPI_Comm base, const hsplit_view_level *l, void *buf, int count,
                               MPI_Datatype datatype, MPI_Op op, int noncommutative)
{
    int n = l->n;
    if (n < 2 || count == 0) return MPI_SUCCESS;
    MPI_Aint lb, extent;
    MPI_Type_get_extent(datatype, &lb, &extent);
    int pof2 = power_of_two_below(n), rem = n - pof2, newrank;
    void *space;
    char *tmp = hsplit_temp_buffer(count, datatype, &space);
    if (tmp == NULL) return MPI_ERR_NO_MEM;
    int rc = fold_in(base, l, buf, tmp, count, datatype, op, rem, &newrank);
    /* Recursive halving over pof2 blocks, nearest partner first: at the
       step of bit `mask` the pair shares a range of blocks [lo, hi); the
       one without the bit keeps its lower half, and each reduces the
       partner's copy of the half it keeps. The ranges left behind are kept
       for the way back. */
    int lo = 0, hi = pof2, steps = 0, parent_lo[32], parent_hi[32];
    for (int mask = 1; newrank >= 0 && mask < pof2 && rc == MPI_SUCCESS; mask *= 2, steps++) {
        int peer = newrank ^ mask, partner = member(l, unfolded(peer, rem));
        int mid = (lo + hi) / 2, upper = (newrank & mask) != 0;
        int keep_lo = upper ? mid : lo, keep_hi = upper ? hi : mid;
        int send_lo = upper ? lo : mid, send_hi = upper ? mid : hi;
        int64_t keep = block_start(keep_lo, pof2, count), send = block_start(send_lo, pof2, count);
        int keep_n = (int)(block_start(keep_hi, pof2, count) - keep);
        int send_n = (int)(block_start(send_hi, pof2, count) - send);
        rc = MPI_Sendrecv(at(buf, send, extent), send_n, datatype, partner, TAG, tmp, keep_n,
                          datatype, partner, TAG, base, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = combine(tmp, at(buf, keep, extent), keep_n, datatype, op, peer < newrank,
                         noncommutative);
        parent_lo[steps] = lo;
        parent_hi[steps] = hi;
        lo = keep_lo;
        hi = keep_hi;
    }
    /* Recursive doubling back up: swap the finished ranges with the same
       partners in reverse order, each step doubling the range held. */
    for (int k = steps - 1; newrank >= 0 && k >= 0 && rc == MPI_SUCCESS; k--) {
        int partner = member(l, unfolded(newrank ^ (1 << k), rem));
        int other_lo = lo == parent_lo[k] ? hi : parent_lo[k];
        int other_hi = lo == parent_lo[k] ? parent_hi[k] : lo;
        int64_t mine = block_start(lo, pof2, count), theirs = block_start(other_lo, pof2, count);
        rc = MPI_Sendrecv(at(buf, mine, extent), (int)(block_start(hi, pof2, count) - mine),
                          datatype, partner, TAG, at(buf, theirs, extent),
                          (int)(block_start(other_hi, pof2, count) - theirs), datatype, partner,
                          TAG, base, MPI_STATUS_IGNORE);
        lo = parent_lo[k];
        hi = parent_hi[k];
    }
    if (rc == MPI_SUCCESS) rc = fold_out(base, l, buf, count, datatype, rem);
    free(space);
    return rc;
}

int hsplit_level_bcast_ring(MPI_Comm base, const hsplit_view_level *l, void *buf, int count,
                            MPI_Datatype datatype, int root)
{
    int n = l->n;
    if (n < 2 || count == 0) return MPI_SUCCESS;
    MPI_Aint lb, extent;
    MPI_Type_get_extent(datatype, &lb, &extent);
    /* relative index v = (me - root) mod n owns block v. Binomial scatter:
       v gets the blocks of its subtree [v, v + low(v)) from its parent
       v - low(v), then passes [v + b, v + 2b) to each child v + b */
    int v = (l->me - root + n) % n, rc = MPI_SUCCESS;
    long low = v == 0 ? 1 : (long)(v & -v);
    if (v == 0)
        while (low < n) low *= 2;
    if (v != 0) {
        int last = v + low < n ? (int)(v + low) : n;
        int64_t from = block_start(v, n, count), to = block_start(last, n, count);
        rc = MPI_Recv(at(buf, from, extent), (int)(to - from), datatype,
                      member(l, (v - low + root) % n), TAG, base, MPI_STATUS_IGNORE);
    }
    for (long b = low / 2; b >= 1 && rc == MPI_SUCCESS; b /= 2) {
        if (v + b >= n) continue;
        int last = v + 2 * b < n ? (int)(v + 2 * b) : n;
        int64_t from = block_start((int)(v + b), n, count), to = block_start(last, n, count);
        rc = MPI_Send(at(buf, from, extent), (int)(to - from), datatype,
                      member(l, (v + b + root) % n), TAG, base);
    }
    /* the ring allgather, in relative order: member me holds block
       (me - root) mod n */
    return rc != MPI_SUCCESS ? rc : ring_allgather(base, l, buf, count, datatype, n - root, extent);
}

int hsplit_level_reduce_ring(MPI_Comm base, const hsplit_view_level *l, void *acc, int count,
                             MPI_Datatype datatype, MPI_Op op, int root)
{
    int n = l->n, me = l->me;
    if (n < 2 || count == 0) return MPI_SUCCESS;
    MPI_Aint lb, extent;
    MPI_Type_get_extent(datatype, &lb, &extent);
    int rc = ring_reduce_scatter(base, l, acc, count, datatype, op, extent);
    if (rc != MPI_SUCCESS) return rc;
    /* member j holds block (j + 1) % n: the root gathers them in place */
    if (me != root) {
        int b = (me + 1) % n;
        return MPI_Send(at(acc, block_start(b, n, count), extent), block_len(b, n, count), datatype,
                        member(l, root), TAG, base);
    }
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)n);
    if (reqs == NULL) return MPI_ERR_NO_MEM;
    int k = 0;
    for (int j = 0; j < n && rc == MPI_SUCCESS; j++) {
        if (j == me) continue;
        int b = (j + 1) % n;
        rc = MPI_Irecv(at(acc, block_start(b, n, count), extent), block_len(b, n, count), datatype,
                       member(l, j), TAG, base, &reqs[k++]);
    }
    int wrc = hsplit_wait_all(k, reqs);
    free(reqs);
    return rc != MPI_SUCCESS ? rc : wrc;
}

/* The pair (blocks 2q, 2q + 1) that member me receives at step i >= 1 of
   the neighbour exchange; q is its own pair. Even members receive the pairs
   q - 1, q + 1, q - 2, q + 2...; odd ones q + 1, q - 1, q + 2... */
static int nx_pair_in(int me, int step, int pairs)
{
    int q = me / 2, away = step % 2 == 1 ? (step + 1) / 2 : step / 2;
    int down = (me % 2 == 0) == (step % 2 == 1);
    return ((down ? q - away : q + away) % pairs + pairs) % pairs;
}

/* The neighbour at step i: even members go right at the first step, then
   alternate; odd ones the other way round. */
static int nx_neighbour(int me, int step, int n)
{
    int right = (me % 2 == 0) == (step % 2 == 0);
    return right ? (me + 1) % n : (me - 1 + n) % n;
}

int hsplit_level_allgatherv_nx(MPI_Comm base, const hsplit_view_level *l, void *buf,
                               const int *counts, const int *displs, MPI_Datatype datatype)
{
    int n = l->n, me = l->me, pairs = n / 2;
    if (n < 2) return MPI_SUCCESS;
    if (n % 2 != 0) return MPI_ERR_INTERN; /* callers check */
    MPI_Aint lb, extent;
    MPI_Type_get_extent(datatype, &lb, &extent);
    int peer = nx_neighbour(me, 0, n);
    int rc = MPI_Sendrecv(at(buf, displs[me], extent), counts[me], datatype, member(l, peer), TAG,
                          at(buf, displs[peer], extent), counts[peer], datatype, member(l, peer),
                          TAG, base, MPI_STATUS_IGNORE);
    int last = me / 2; /* the pair received last: after the swap, its own */
    for (int step = 1; step < pairs && rc == MPI_SUCCESS; step++) {
        int in = nx_pair_in(me, step, pairs);
        peer = member(l, nx_neighbour(me, step, n));
        MPI_Request reqs[4];
        int k = 0;
        for (int b = 2 * in; b < 2 * in + 2 && rc == MPI_SUCCESS; b++)
            rc = MPI_Irecv(at(buf, displs[b], extent), counts[b], datatype, peer, TAG, base,
                           &reqs[k++]);
        for (int b = 2 * last; b < 2 * last + 2 && rc == MPI_SUCCESS; b++)
            rc = MPI_Isend(at(buf, displs[b], extent), counts[b], datatype, peer, TAG, base,
                           &reqs[k++]);
        int wrc = hsplit_wait_all(k, reqs);
        if (rc == MPI_SUCCESS) rc = wrc;
        last = in;
    }
    return rc;
}
