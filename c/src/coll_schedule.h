/* SPDX-License-Identifier: BSD-3-Clause */
/* A schedule of the collective engine (coll_engine.c): which levels of the
   hierarchy a collective uses (all of them, or the node and the nodes'
   leaders), whether wide levels are cut into virtual groups, and the
   algorithm of each level. Written as text in HSPLIT_COLL_SCHEDULE and in
   rules files:

     all:binomial            every level, binomial trees
     two:mpi                 node + inter-node (HAN's shape), MPI's own calls
     net:mpi                 the switch levels + the node as one level
     all+v8:chain,binomial   every level, levels wider than 8 cut into groups
                             of 8; a chain at the top, binomial below
     two:binary/65536        binary trees, segments of 64 KiB
     two:ring,mpi            a ring between the nodes, MPI's own call in them
     all:rd,binomial         recursive doubling at the top (an allreduce's
                             exchange), binomial trees below
     ml                      multi-leader: every process of a node carries a
                             slice of the data across nodes
     ml:ring                 the same, each slice across the nodes by the ring
     mlall                   multi-leader on every level: the slices are cut
                             again level by level up the hierarchy, and only
                             the last cut crosses the top (allreduce; the
                             other collectives take ml's schedule)
     mlnet:rd                the same over the node and the switch levels
                             above it, recursive doubling across the top

   Pure: no MPI, for the unit test. */
#ifndef HSPLIT_COLL_SCHEDULE_H
#define HSPLIT_COLL_SCHEDULE_H

#include <stddef.h>

/* Which levels a schedule runs over: every level; the node and the nodes'
   leaders; multi-leader; the levels above the nodes (switches) and the node
   as one level (the levels inside it left out); multi-leader over every
   level, and over the node and the switch levels. */
enum {
    HSPLIT_VIEW_ALL = 0, HSPLIT_VIEW_TWO, HSPLIT_VIEW_ML, HSPLIT_VIEW_NET, HSPLIT_VIEW_MLALL,
    HSPLIT_VIEW_MLNET, HSPLIT_NVIEWS
};
/* Whether a view is one of the multi-leader ones (ml, mlall, mlnet): no
   shapes but the one of the step across the top. */
static inline int hsplit_view_is_ml(int view)
{
    return view == HSPLIT_VIEW_ML || view == HSPLIT_VIEW_MLALL || view == HSPLIT_VIEW_MLNET;
}
/* The algorithm of one level: MPI's own collective on the level's
   communicator, or point-to-point messages along a tree: the root sends to
   every member (flat), a chain, a binomial tree, a binary tree; or one of
   the level's own algorithms (coll_level_algo.c): recursive doubling and
   Rabenseifner's (the allreduce of a schedule's top level; a binomial tree
   for the rest) and ring (scatter + ring allgather for a broadcast, ring reduce-scatter +
   gather for a reduce, reduce-scatter + allgather for an allreduce). */
enum {
    HSPLIT_SHAPE_MPI = 0, HSPLIT_SHAPE_FLAT, HSPLIT_SHAPE_CHAIN, HSPLIT_SHAPE_BINOMIAL,
    HSPLIT_SHAPE_BINARY, HSPLIT_SHAPE_RD, HSPLIT_SHAPE_RING, HSPLIT_SHAPE_RAB, HSPLIT_NSHAPES
};
/* Whether a level of this shape runs as one collective call of its own
   (MPI's, or the ring's), not as part of a tree of messages. */
static inline int hsplit_shape_is_call(int shape)
{
    return shape == HSPLIT_SHAPE_MPI || shape == HSPLIT_SHAPE_RING;
}
#define HSPLIT_SCHEDULE_MAX_SHAPES 8
#define HSPLIT_SCHEDULE_MAX_VIRTUAL (1L << 20)
#define HSPLIT_SCHEDULE_MAX_SEGMENT (1L << 30)
/* The longest text hsplit_schedule_format writes, its NUL included. */
#define HSPLIT_SCHEDULE_TEXT 128

typedef struct {
    int view;             /* HSPLIT_VIEW_*                                  */
    int virtual_size;     /* 0, or: levels of more members cut in groups of
                             this many (2 to HSPLIT_SCHEDULE_MAX_VIRTUAL)  */
    int nshapes;          /* shapes given, top level first; the last one
                             serves every deeper level; for ml, mlall and
                             mlnet, 0 or 1:
                             the step across the nodes (mpi, rd, ring, rab) */
    unsigned char shape[HSPLIT_SCHEDULE_MAX_SHAPES];
    long segment;         /* bytes per pipeline segment, 0: by message size */
} hsplit_schedule;

extern const char *const hsplit_shape_names[HSPLIT_NSHAPES];

/* A schedule auto mode measures: for which collectives (bit k for the
   collective HSPLIT_COLL_* k) and from which size on. */
#define HSPLIT_ENGINE_CANDIDATES 12
typedef struct {
    unsigned kinds;
    long min_bytes;
    hsplit_schedule schedule;
} hsplit_engine_candidate;

/* HSPLIT_COLL_SCHEDULES: "auto", empty or NULL (the library's candidates:
   returns 1),
   "none" (no candidate: 0 with *n 0), or up to HSPLIT_ENGINE_CANDIDATES
   schedules separated by spaces (0, their schedules in out[0..*n), kinds
   and min_bytes left for the caller). -1 when malformed. */
int hsplit_schedule_list_parse(const char *text, hsplit_engine_candidate *out, int *n);

/* Parses text into *s: 0, or -1 when malformed (*s then undefined). */
int hsplit_schedule_parse(const char *text, hsplit_schedule *s);
/* The canonical text of s (what hsplit_schedule_parse reads back). */
void hsplit_schedule_format(const hsplit_schedule *s, char *out, size_t size);
/* The shape of level `level` (0: the top) under s. */
static inline int hsplit_schedule_shape(const hsplit_schedule *s, int level)
{
    int n = s->nshapes;
    if (n <= 0 || n > HSPLIT_SCHEDULE_MAX_SHAPES) return HSPLIT_SHAPE_MPI;
    return s->shape[level < 0 ? 0 : level < n ? level : n - 1];
}
/* Whether every level of s moves point-to-point messages (no MPI shape). */
int hsplit_schedule_all_p2p(const hsplit_schedule *s);

/* coll_tree.c: the tree of one level of n members under `shape`, rooted
   at member `root`; group > 0 (and < n): first a tree over virtual groups
   of `group` consecutive members (their first member leads; the root leads
   its own), then one inside each group. For member me: *parent (-1: none)
   and its children, largest subtree first, into children (room for n - 1).
   Rooted at 0, the flat, chain and binomial trees give every child a
   subtree of consecutive members after its parent's (what an operation
   that does not commute needs); binary trees do not. */
void hsplit_level_tree(int shape, int n, int me, int root, int group, int *parent, int *children,
                       int *nchildren);

#endif
