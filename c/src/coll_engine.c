/* SPDX-License-Identifier: BSD-3-Clause */
/* The collective engine: a hierarchical broadcast, reduce or allreduce as a
   schedule (coll_schedule.h) over a view of the hierarchy (coll_view.c).
   Each level has its algorithm: MPI's own collective on the level's
   communicator, or a tree of point-to-point messages (flat, chain, binomial,
   binary), optionally over virtual groups of a wide level. Consecutive
   point-to-point levels form one tree across the levels, and the message
   flows down (or up) it in segments: a process forwards segment s while it
   receives s+1, so that the levels overlap on any MPI and under SMPI, whose
   nonblocking collectives are linear.

   Semantics kept: any datatype (segments only for contiguous ones: one
   segment otherwise), any root, MPI_IN_PLACE, non-commutative operations
   in rank order (trees rooted at rank 0's side, children's subtrees ranges
   of ranks that follow their parent's: the hierarchy's tree order must be
   the rank order, as for the other hierarchical paths; binary trees give
   other ranges and become binomial for such operations). */
#include <stdlib.h>
#include <string.h>
#include "hsplit_internal.h"

/* A process's place in the tree of one call: its parent and children, base
   ranks, children in sending order (largest subtree first). */
typedef struct {
    int parent;           /* -1: none                                  */
    int nchildren, cap;
    int *children;
} plan;

static int plan_child(plan *p, int child)
{
    if (p->nchildren == p->cap) {
        int cap = p->cap ? 2 * p->cap : 16;
        int *c = realloc(p->children, sizeof(int) * (size_t)cap);
        if (c == NULL) return MPI_ERR_NO_MEM;
        p->children = c;
        p->cap = cap;
    }
    p->children[p->nchildren++] = child;
    return MPI_SUCCESS;
}

/* The tree of one call over this process's levels [from, to] (all of them
   point-to-point), rooted at the top member `top` (relative index on the
   view's level 0) or at every level's leader below it. */
static int make_plan(const hsplit_view *view, const hsplit_schedule *s, int from, int to,
                     int top, int noncommutative, plan *p)
{
    p->parent = -1;
    p->nchildren = 0;
    int rc = MPI_SUCCESS;
    for (int i = from; i <= to && rc == MPI_SUCCESS; i++) {
        const hsplit_view_level *l = &view->level[i];
        if (l->n < 2) continue;
        int shape = hsplit_schedule_shape(s, l->index);
        if ((noncommutative && shape == HSPLIT_SHAPE_BINARY) || shape == HSPLIT_SHAPE_RD ||
            shape == HSPLIT_SHAPE_RAB)
            shape = HSPLIT_SHAPE_BINOMIAL;
        int root = l->index == 0 ? top : 0, parent, k;
        /* children of one level: flat gives n - 1, the others a few */
        int *children = malloc(sizeof(int) * (size_t)l->n);
        if (children == NULL) return MPI_ERR_NO_MEM;
        hsplit_level_tree(shape, l->n, l->me, root,
                          s->virtual_size > 0 && l->n > s->virtual_size ? s->virtual_size : 0,
                          &parent, children, &k);
        if (parent >= 0) p->parent = l->members[parent];
        for (int c = 0; c < k; c++) children[c] = l->members[children[c]];
        for (int c = 0; c < k && rc == MPI_SUCCESS; c++) rc = plan_child(p, children[c]);
        free(children);
    }
    return rc;
}

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Elements per segment: the schedule's segment, else by size (up to 32
   segments of at least 8 KiB; none below 16 KiB), for contiguous types. */
static int segment_elements(const hsplit_schedule *s, int count, MPI_Datatype datatype)
{
    int size;
    MPI_Type_size(datatype, &size);
    if (count <= 0 || size <= 0 || !hsplit_type_contiguous(datatype)) return count > 0 ? count : 1;
    long bytes = (long)count * size, seg = s->segment;
    if (seg <= 0) {
        if (bytes < 16384) return count;
        seg = 8192;
        while (seg * 32 < bytes) seg *= 2;
    }
    long n = seg / size;
    if (n < 1) n = 1;
    return n >= count ? count : (int)n;
}

enum { WINDOW = 4 };

/* Segments down the plan: receive from the parent, forward to the
   children, WINDOW segments in flight. */
static int pipeline_down(MPI_Comm base, const plan *p, void *buf, int count,
                         MPI_Datatype datatype, int seg)
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(datatype, &lb, &extent);
    int nseg = hsplit_segment_count(count, seg), nk = p->nchildren;
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)WINDOW * (size_t)(nk + 1));
    if (reqs == NULL) return MPI_ERR_NO_MEM;
    MPI_Request *recv = reqs, *send = reqs + WINDOW;
    for (int i = 0; i < WINDOW * (nk + 1); i++) reqs[i] = MPI_REQUEST_NULL;
    int rc = MPI_SUCCESS;
#define SEGMENT(s) ((char *)buf + (MPI_Aint)(s) * seg * extent), \
                   ((s) == nseg - 1 ? count - (s) * seg : seg)
    for (int s = 0; p->parent >= 0 && s < nseg && s < WINDOW && rc == MPI_SUCCESS; s++)
        rc = MPI_Irecv(SEGMENT(s), datatype, p->parent, HSPLIT_TAG_ENGINE, base, &recv[s]);
    for (int s = 0; s < nseg && rc == MPI_SUCCESS; s++) {
        if (p->parent >= 0) {
            rc = MPI_Wait(&recv[s % WINDOW], MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS && s + WINDOW < nseg)
                rc = MPI_Irecv(SEGMENT(s + WINDOW), datatype, p->parent, HSPLIT_TAG_ENGINE, base,
                               &recv[s % WINDOW]);
        }
        MPI_Request *slot = &send[(size_t)(s % WINDOW) * nk];
        if (rc == MPI_SUCCESS && nk > 0) rc = hsplit_wait_all(nk, slot);
        for (int c = 0; c < nk && rc == MPI_SUCCESS; c++)
            rc = MPI_Isend(SEGMENT(s), datatype, p->children[c], HSPLIT_TAG_ENGINE, base, &slot[c]);
    }
#undef SEGMENT
    int wrc = hsplit_wait_all(WINDOW * (nk + 1), reqs);
    free(reqs);
    return rc != MPI_SUCCESS ? rc : wrc;
}

/* Segments up the plan into acc (this process's input, count elements):
   each segment of every child is combined into acc, then sent to the
   parent. Non-commutative operations: children's results in rank order
   after this process's own (the children sorted by rank). */
static int pipeline_up(MPI_Comm base, plan *p, void *acc, int count, MPI_Datatype datatype,
                       MPI_Op op, int seg, int noncommutative)
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(datatype, &lb, &extent);
    int nseg = hsplit_segment_count(count, seg), nk = p->nchildren;
    if (noncommutative && nk > 1) qsort(p->children, (size_t)nk, sizeof(int), compare_ints);
    /* two receive slots per child (segment s in slot s % 2), WINDOW sends */
    void *space = NULL;
    char *slots = NULL;
    size_t slot_bytes = 0;
    if (nk > 0) {
        slots = hsplit_temp_buffer((int64_t)seg * 2 * nk, datatype, &space);
        if (slots == NULL) return MPI_ERR_NO_MEM;
        slot_bytes = (size_t)seg * (size_t)extent;
    }
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)(2 * nk + WINDOW));
    if (reqs == NULL) {
        free(space);
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < 2 * nk + WINDOW; i++) reqs[i] = MPI_REQUEST_NULL;
    MPI_Request *recv = reqs, *send = reqs + 2 * nk;
#define LEN(s) ((s) == nseg - 1 ? count - (s) * seg : seg)
#define SLOT(s, c) (slots + ((size_t)((s) % 2) * (size_t)nk + (size_t)(c)) * slot_bytes)
    int rc = MPI_SUCCESS;
    for (int s = 0; s < nseg && s < 2 && rc == MPI_SUCCESS; s++)
        for (int c = 0; c < nk && rc == MPI_SUCCESS; c++)
            rc = MPI_Irecv(SLOT(s, c), LEN(s), datatype, p->children[c], HSPLIT_TAG_ENGINE, base,
                           &recv[(s % 2) * nk + c]);
    for (int s = 0; s < nseg && rc == MPI_SUCCESS; s++) {
        char *mine = (char *)acc + (MPI_Aint)s * seg * extent;
        int n = LEN(s);
        if (nk > 0) rc = hsplit_wait_all(nk, &recv[(s % 2) * nk]);
        if (rc == MPI_SUCCESS && nk > 0 && !noncommutative) {
            for (int c = 0; c < nk && rc == MPI_SUCCESS; c++)
                rc = MPI_Reduce_local(SLOT(s, c), mine, n, datatype, op);
        } else if (rc == MPI_SUCCESS && nk > 0) {
            /* mine op c0 op c1 ... : folded from the right into the last
               child's slot, then copied back */
            for (int c = nk - 2; c >= 0 && rc == MPI_SUCCESS; c--)
                rc = MPI_Reduce_local(SLOT(s, c), SLOT(s, nk - 1), n, datatype, op);
            if (rc == MPI_SUCCESS) rc = MPI_Reduce_local(mine, SLOT(s, nk - 1), n, datatype, op);
            if (rc == MPI_SUCCESS) rc = hsplit_local_copy(SLOT(s, nk - 1), mine, n, datatype);
        }
        /* the slots of segment s are free: segment s + 2 takes them */
        for (int c = 0; c < nk && rc == MPI_SUCCESS && s + 2 < nseg; c++)
            rc = MPI_Irecv(SLOT(s + 2, c), LEN(s + 2), datatype, p->children[c],
                           HSPLIT_TAG_ENGINE, base, &recv[(s % 2) * nk + c]);
        if (rc == MPI_SUCCESS && p->parent >= 0) {
            rc = MPI_Wait(&send[s % WINDOW], MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                rc = MPI_Isend(mine, n, datatype, p->parent, HSPLIT_TAG_ENGINE, base,
                               &send[s % WINDOW]);
        }
    }
#undef LEN
#undef SLOT
    int wrc = hsplit_wait_all(2 * nk + WINDOW, reqs);
    free(reqs);
    free(space);
    return rc != MPI_SUCCESS ? rc : wrc;
}

/* Whether this process's level i runs one collective call of its own
   (MPI's, or the ring's) rather than a part of a tree of messages. */
static int is_call(const hsplit_view *view, const hsplit_schedule *s, int i)
{
    return hsplit_shape_is_call(hsplit_schedule_shape(s, view->level[i].index));
}

/* The last of this process's levels [from, ...] that is a tree level like
   `from` (a run of such levels is one tree). */
static int run_end(const hsplit_view *view, const hsplit_schedule *s, int from)
{
    int to = from;
    while (to + 1 < view->nlevels && !is_call(view, s, to + 1)) to++;
    return to;
}

/* This process's level i's root: the top member at the top, else the leader. */
static int level_root(const hsplit_view *view, int i, int top)
{
    return view->level[i].index == 0 ? top : 0;
}

/* MPICH 4.0.2 crashes in MPI_Reduce with MPI_IN_PLACE at a root other than
   0 (see coll_reduce.c): such a root reduces into a separate buffer. */
static int mpi_level_reduce(void *acc, int count, MPI_Datatype datatype, MPI_Op op, int root,
                            const hsplit_view_level *l)
{
    if (l->me != root) return MPI_Reduce(acc, NULL, count, datatype, op, root, l->comm);
    if (root == 0) return MPI_Reduce(MPI_IN_PLACE, acc, count, datatype, op, root, l->comm);
    void *base, *result = hsplit_temp_buffer(count, datatype, &base);
    if (result == NULL) return MPI_ERR_NO_MEM;
    int rc = MPI_Reduce(acc, result, count, datatype, op, root, l->comm);
    if (rc == MPI_SUCCESS) rc = hsplit_local_copy(result, acc, count, datatype);
    free(base);
    return rc;
}

/* Down this process's levels whose index is at least `from_index`, from
   the top member `top` (relative index on level 0). root >= 0: the call's
   root, which starts the tree when it is not the top member (it sends to
   the top member, which forwards as if it had the data). */
static int down(hsplit_hierarchy *h, const hsplit_view *view, const hsplit_schedule *s,
                void *buf, int count, MPI_Datatype datatype, int root, int top, int from_index)
{
    int nlev = view->nlevels, rc = MPI_SUCCESS, seg = segment_elements(s, count, datatype);
    int mpi_top = hsplit_shape_is_call(hsplit_schedule_shape(s, 0));
    int holder = h->rank == root ? view->top_base : -1;
    int am_top_holder = nlev > 0 && view->level[0].index == 0 &&
                        view->level[0].members[top] == h->rank && root != h->rank;
    plan p = {-1, 0, 0, NULL};
    if (root >= 0 && holder >= 0 && holder != root) {
        /* the top member gets the data from the root: in one message before
           a top level of MPI's own, else in the root's first tree (segments),
           or in a tree of its own when its first level is MPI's */
        if (mpi_top)
            rc = MPI_Send(buf, count, datatype, holder, HSPLIT_TAG_ENGINE, h->base);
        else if (nlev == 0 || is_call(view, s, 0)) {
            rc = plan_child(&p, holder);
            if (rc == MPI_SUCCESS) rc = pipeline_down(h->base, &p, buf, count, datatype, seg);
            p.nchildren = 0;
        }
    }
    if (root >= 0 && mpi_top && am_top_holder)
        rc = MPI_Recv(buf, count, datatype, root, HSPLIT_TAG_ENGINE, h->base, MPI_STATUS_IGNORE);
    for (int i = 0; i < nlev && rc == MPI_SUCCESS; i++) {
        const hsplit_view_level *l = &view->level[i];
        if (l->index < from_index) continue;
        if (is_call(view, s, i)) {
            int lroot = level_root(view, i, top);
            if (l->n < 2) continue;
            if (hsplit_schedule_shape(s, l->index) == HSPLIT_SHAPE_RING)
                rc = hsplit_level_bcast_ring(h->base, l, buf, count, datatype, lroot);
            else
                rc = MPI_Bcast(buf, count, datatype, lroot, l->comm);
            continue;
        }
        int to = run_end(view, s, i);
        rc = make_plan(view, s, i, to, top, 0, &p);
        if (rc == MPI_SUCCESS && root >= 0 && !mpi_top) {
            if (h->rank == root) p.parent = -1;
            if (h->rank == root && holder != root && i == 0) rc = plan_child(&p, holder);
            if (am_top_holder && i == 0) p.parent = root;
            for (int c = 0; c < p.nchildren; c++)
                if (p.children[c] == root && h->rank != root) {
                    memmove(&p.children[c], &p.children[c + 1],
                            sizeof(int) * (size_t)(p.nchildren - c - 1));
                    p.nchildren--;
                    break;
                }
        }
        if (rc == MPI_SUCCESS) rc = pipeline_down(h->base, &p, buf, count, datatype, seg);
        i = to;
    }
    free(p.children);
    return rc;
}

/* Up this process's levels whose index is at least `from_index` (bottom
   first) into acc, towards the top member `top` (level 0). */
static int up(hsplit_hierarchy *h, const hsplit_view *view, const hsplit_schedule *s, void *acc,
              int count, MPI_Datatype datatype, MPI_Op op, int top, int noncommutative,
              int from_index)
{
    int rc = MPI_SUCCESS, seg = segment_elements(s, count, datatype);
    plan p = {-1, 0, 0, NULL};
    for (int i = view->nlevels - 1; i >= 0 && rc == MPI_SUCCESS; i--) {
        const hsplit_view_level *l = &view->level[i];
        if (l->index < from_index) continue;
        if (is_call(view, s, i)) {
            int lroot = level_root(view, i, top);
            if (l->n < 2) continue;
            /* the ring's sums start at different members: an operation that
               does not commute takes MPI's own call */
            if (hsplit_schedule_shape(s, l->index) == HSPLIT_SHAPE_RING && !noncommutative)
                rc = hsplit_level_reduce_ring(h->base, l, acc, count, datatype, op, lroot);
            else
                rc = mpi_level_reduce(acc, count, datatype, op, lroot, l);
            continue;
        }
        int from = i;
        while (from > 0 && !is_call(view, s, from - 1) && view->level[from - 1].index >= from_index)
            from--;
        rc = make_plan(view, s, from, i, top, noncommutative, &p);
        if (rc == MPI_SUCCESS) rc = pipeline_up(h->base, &p, acc, count, datatype, op, seg, noncommutative);
        i = from;
    }
    free(p.children);
    return rc;
}

static int view_for(hsplit_hierarchy *h, const hsplit_schedule *s, hsplit_view **view)
{
    return hsplit_view_get(h, hsplit_view_is_ml(s->view) ? HSPLIT_VIEW_ALL : s->view, view);
}

/* The relative index of the root's top member on level 0 (members of level
   0 only; 0 elsewhere). */
static int top_of(const hsplit_hierarchy *h, const hsplit_view *view, int root)
{
    return view->nlevels > 0 && view->level[0].index == 0 ? hsplit_view_top_index(h, view, root)
                                                          : 0;
}

/* The stages of a multi-leader schedule over several levels. */
static int ml_levels_kind(const hsplit_schedule *s)
{
    return s->view == HSPLIT_VIEW_MLNET ? HSPLIT_ML_NET : HSPLIT_ML_ALL;
}

static int noncommutative_op(MPI_Op op)
{
    int commute = 1;
    MPI_Op_commutative(op, &commute);
    return !commute;
}

/* Where the multi-leader schedule cannot serve (an operation that does
   not commute), every level with MPI's own call. */
static const hsplit_schedule every_level_mpi = {HSPLIT_VIEW_ALL, 0, 1, {HSPLIT_SHAPE_MPI}, 0};

int hsplit_engine_bcast(hsplit_hierarchy *h, const hsplit_schedule *s, void *buf, int count,
                        MPI_Datatype datatype, int root)
{
    if (s->view == HSPLIT_VIEW_ML)
        return hsplit_ml_bcast(h, buf, count, datatype, root, hsplit_schedule_shape(s, 0));
    if (s->view == HSPLIT_VIEW_MLALL || s->view == HSPLIT_VIEW_MLNET)
        return hsplit_ml_levels_bcast(h, ml_levels_kind(s), buf, count, datatype, root,
                                      hsplit_schedule_shape(s, 0));
    hsplit_view *view;
    int rc = view_for(h, s, &view);
    if (rc != MPI_SUCCESS || count == 0) return rc;
    return down(h, view, s, buf, count, datatype, root, top_of(h, view, root), 0);
}


int hsplit_engine_reduce(hsplit_hierarchy *h, const hsplit_schedule *s, const void *sendbuf,
                         void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root)
{
    if (s->view == HSPLIT_VIEW_ML && !noncommutative_op(op))
        return hsplit_ml_reduce(h, sendbuf, recvbuf, count, datatype, op, root,
                                hsplit_schedule_shape(s, 0));
    if (hsplit_view_is_ml(s->view)) s = &every_level_mpi;
    hsplit_view *view;
    int rc = view_for(h, s, &view);
    if (rc != MPI_SUCCESS || count == 0) return rc;
    int noncomm = noncommutative_op(op);
    /* a non-commutative operation combines towards rank 0's side; then the
       result goes to the root */
    int top = noncomm ? 0 : top_of(h, view, root);
    void *base = NULL, *acc = recvbuf;
    if (h->rank != root) {
        acc = hsplit_temp_buffer(count, datatype, &base);
        if (acc == NULL) return MPI_ERR_NO_MEM;
    }
    if (h->rank != root || sendbuf != MPI_IN_PLACE)
        rc = hsplit_local_copy(sendbuf, acc, count, datatype);
    if (rc == MPI_SUCCESS) rc = up(h, view, s, acc, count, datatype, op, top, noncomm, 0);
    /* the top of the tree: the process on level 0 at index top */
    int holder = view->nlevels > 0 && view->level[0].index == 0 &&
                 view->level[0].members[top] == h->rank;
    int root_holds = 0;
    if (rc == MPI_SUCCESS && h->rank == root) {
        /* is the root the top? it knows when it is on level 0 */
        root_holds = holder;
        if (!root_holds)
            rc = MPI_Recv(recvbuf, count, datatype, MPI_ANY_SOURCE, HSPLIT_TAG_ENGINE_RESULT, h->base,
                          MPI_STATUS_IGNORE);
    } else if (rc == MPI_SUCCESS && holder) {
        rc = MPI_Send(acc, count, datatype, root, HSPLIT_TAG_ENGINE_RESULT, h->base);
    }
    free(base);
    return rc;
}

int hsplit_engine_allreduce(hsplit_hierarchy *h, const hsplit_schedule *s, const void *sendbuf,
                            void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op)
{
    if (s->view == HSPLIT_VIEW_ML && !noncommutative_op(op))
        return hsplit_ml_allreduce(h, sendbuf, recvbuf, count, datatype, op,
                                   hsplit_schedule_shape(s, 0));
    if ((s->view == HSPLIT_VIEW_MLALL || s->view == HSPLIT_VIEW_MLNET) && !noncommutative_op(op))
        return hsplit_ml_levels_allreduce(h, ml_levels_kind(s), sendbuf, recvbuf, count, datatype,
                                          op, hsplit_schedule_shape(s, 0));
    if (hsplit_view_is_ml(s->view)) s = &every_level_mpi;
    hsplit_view *view;
    int rc = view_for(h, s, &view);
    if (rc != MPI_SUCCESS || count == 0) return rc;
    int noncomm = noncommutative_op(op);
    if (sendbuf != MPI_IN_PLACE) rc = hsplit_local_copy(sendbuf, recvbuf, count, datatype);
    int top_shape = hsplit_schedule_shape(s, 0);
    if (top_shape == HSPLIT_SHAPE_MPI || top_shape == HSPLIT_SHAPE_RD ||
        top_shape == HSPLIT_SHAPE_RAB || top_shape == HSPLIT_SHAPE_RING) {
        /* below the top, up; the top level's own allreduce (MPI's, the
           exchanges of recursive doubling, Rabenseifner's, or the ring's:
           recursive doubling for an operation that does not commute); down
           again */
        if (rc == MPI_SUCCESS) rc = up(h, view, s, recvbuf, count, datatype, op, 0, noncomm, 1);
        const hsplit_view_level *l = &view->level[0];
        if (rc == MPI_SUCCESS && view->nlevels > 0 && l->index == 0 && l->n > 1) {
            if (top_shape == HSPLIT_SHAPE_MPI)
                rc = MPI_Allreduce(MPI_IN_PLACE, recvbuf, count, datatype, op, l->comm);
            else if (top_shape == HSPLIT_SHAPE_RING && !noncomm)
                rc = hsplit_level_allreduce_ring(h->base, l, recvbuf, count, datatype, op);
            else if (top_shape == HSPLIT_SHAPE_RAB)
                rc = hsplit_level_allreduce_rab(h->base, l, recvbuf, count, datatype, op, noncomm);
            else
                rc = hsplit_level_allreduce_rd(h->base, l, recvbuf, count, datatype, op, noncomm);
        }
        if (rc == MPI_SUCCESS) rc = down(h, view, s, recvbuf, count, datatype, -1, 0, 1);
        return rc;
    }
    if (rc == MPI_SUCCESS) rc = up(h, view, s, recvbuf, count, datatype, op, 0, noncomm, 0);
    if (rc == MPI_SUCCESS) rc = down(h, view, s, recvbuf, count, datatype, -1, 0, 0);
    return rc;
}

#define KIND(k) (1u << HSPLIT_COLL_##k)
/* What auto mode measures besides plain MPI and the default tree (every
   level, MPI's own call on each; the multi-leader allreduce from
   HSPLIT_COLL_RSAG_BYTES on): HAN's two levels; binomial trees of messages
   over every level, pipelined across them; for the allreduce, MPI's own at
   the top above binomial trees; from 32 KiB, binary trees in segments; from
   64 KiB, broadcasts along chains; the multi-leader schedules, from 16 KiB
   (the allgather's from any size: its blocks are many small messages that
   one leader per node would carry alone; the reductions' only for
   commutative operations: others fall back), and the same with the ring
   across the nodes, also from 16 KiB (on the simulated NTW10E5 it is the
   fastest schedule of the 32 KiB bcast and of the allreduce from 32 KiB,
   1.6x and 1.2x the multi-leader's with MPI's calls at 512 KiB bcast and
   reduce on EPYC16; docs/results.md); for the allreduce and the bcast from
   16 KiB, the multi-leader over every level (on the simulated EPYC64 behind
   4:1 tapered uplinks, 35.4 us at 32 KiB against ml's 41.9 and the best
   flat algorithm's 36.6; EPYC16's 512 KiB bcast: 146.4 us against ml:ring's
   179.9) and over the node and the switches (EPYC64's 512 KiB allreduce:
   172.9 us against ml's 260.7, mlall's 178.7 and the best flat 176.4;
   EPYC16's 4 MiB bcast: 1128.8 us against ml:ring's 1140.4); and for the
   allreduce from 16 KiB, ml with Rabenseifner's allreduce across the nodes,
   whose step across the nodes does not depend on the MPI's own choice
   (on the simulated EPYC1024, 2048 processes, 32 KiB: 35.6 us under the
   ompi selector, where the mpich selector's own call takes 52.2 and auto
   mode without this candidate found nothing faster); and for the allreduce
   from 16 KiB, ml with recursive doubling across the nodes (log2 of the
   nodes' steps of whole slices: fewer steps than Rabenseifner's where the
   latency dominates; EPYC1024, 32 KiB: 35.49 us against the best flat
   algorithm's 35.65, the only hierarchical schedule faster than it). */
const hsplit_engine_candidate hsplit_engine_candidates[HSPLIT_ENGINE_DEFAULTS] = {
    {KIND(BCAST) | KIND(REDUCE) | KIND(ALLREDUCE), 0,
     {HSPLIT_VIEW_TWO, 0, 1, {HSPLIT_SHAPE_MPI}, 0}},
    {KIND(BCAST) | KIND(REDUCE) | KIND(ALLREDUCE), 0,
     {HSPLIT_VIEW_ALL, 0, 1, {HSPLIT_SHAPE_BINOMIAL}, 0}},
    {KIND(ALLREDUCE), 0, {HSPLIT_VIEW_ALL, 0, 2, {HSPLIT_SHAPE_MPI, HSPLIT_SHAPE_BINOMIAL}, 0}},
    {KIND(BCAST) | KIND(REDUCE), 32768, {HSPLIT_VIEW_ALL, 0, 1, {HSPLIT_SHAPE_BINARY}, 0}},
    {KIND(BCAST), 65536, {HSPLIT_VIEW_ALL, 0, 1, {HSPLIT_SHAPE_CHAIN}, 0}},
    {KIND(BCAST) | KIND(REDUCE) | KIND(ALLREDUCE), 16384, {HSPLIT_VIEW_ML, 0, 0, {0}, 0}},
    {KIND(ALLGATHER), 0, {HSPLIT_VIEW_ML, 0, 0, {0}, 0}},
    {KIND(BCAST) | KIND(REDUCE) | KIND(ALLREDUCE), 16384, {HSPLIT_VIEW_ML, 0, 1, {HSPLIT_SHAPE_RING}, 0}},
    {KIND(BCAST) | KIND(ALLREDUCE), 16384, {HSPLIT_VIEW_MLALL, 0, 0, {0}, 0}},
    {KIND(BCAST) | KIND(ALLREDUCE), 16384, {HSPLIT_VIEW_MLNET, 0, 0, {0}, 0}},
    {KIND(ALLREDUCE), 16384, {HSPLIT_VIEW_ML, 0, 1, {HSPLIT_SHAPE_RAB}, 0}},
    {KIND(ALLREDUCE), 16384, {HSPLIT_VIEW_ML, 0, 1, {HSPLIT_SHAPE_RD}, 0}},
};

int hsplit_engine_prepare(hsplit_hierarchy *h, const hsplit_schedule *s)
{
    if (s->view == HSPLIT_VIEW_ML) return hsplit_node_layout(h);
    if (hsplit_view_is_ml(s->view)) {
        hsplit_ml_levels *m;
        return hsplit_ml_levels_get(h, ml_levels_kind(s), &m);
    }
    hsplit_view *view;
    return view_for(h, s, &view);
}
