/* SPDX-License-Identifier: BSD-3-Clause */
/* The trees of the engine's levels (coll_schedule.h): who sends to whom
   among the n members of one level. Pure, for the unit test. */
#include "coll_schedule.h"

/* Over n members, rooted at relative index 0: the parent of v (-1 for the
   root). */
static int shape_parent(int shape, int v)
{
    if (v == 0) return -1;
    switch (shape) {
    case HSPLIT_SHAPE_FLAT: return 0;
    case HSPLIT_SHAPE_CHAIN: return v - 1;
    case HSPLIT_SHAPE_BINARY: return (v - 1) / 2;
    default: return v & (v - 1); /* binomial: v without its lowest bit */
    }
}

/* The children of v, largest subtree first (they are sent to first, so
   that the deepest part of the tree starts earliest), into out; their
   number. */
static int shape_children(int shape, int v, int n, int *out)
{
    int k = 0;
    switch (shape) {
    case HSPLIT_SHAPE_FLAT:
        for (int c = 1; v == 0 && c < n; c++) out[k++] = c;
        break;
    case HSPLIT_SHAPE_CHAIN:
        if (v + 1 < n) out[k++] = v + 1;
        break;
    case HSPLIT_SHAPE_BINARY:
        for (long c = 2L * v + 1; c <= 2L * v + 2 && c < n; c++) out[k++] = (int)c;
        break;
    default: { /* binomial: v + 2^j for every 2^j below v's lowest bit */
        long low = v == 0 ? 1L << 31 : (long)(v & -v), b = 1;
        while (b * 2 < low && b * 2 < n) b *= 2;
        for (; b >= 1; b /= 2)
            if (b < low && v + b < n) out[k++] = (int)(v + b);
    }
    }
    return k;
}

/* Member index of relative index v in a range [first, first + size) rooted
   at `root` (inside it). */
static int absolute(int v, int root, int first, int size)
{
    return first + (v + root - first) % size;
}

void hsplit_level_tree(int shape, int n, int me, int root, int group, int *parent, int *children,
                       int *nchildren)
{
    *parent = -1;
    *nchildren = 0;
    if (group <= 0 || group >= n) group = n;
    /* virtual groups of `group` consecutive members: a tree over their
       leaders (the first member; the root leads its own group), then one
       inside each group from its leader */
    int ngroups = n / group + (n % group != 0), mine = me / group, rootgroup = root / group;
    int first = mine * group, size = first + group <= n ? group : n - first;
    int leader = mine == rootgroup ? root : first;
    if (me == leader && ngroups > 1) {
        int w = (mine - rootgroup + ngroups) % ngroups, k;
        int p = shape_parent(shape, w);
        if (p >= 0) {
            int pg = (p + rootgroup) % ngroups;
            *parent = pg == rootgroup ? root : pg * group;
        }
        k = shape_children(shape, w, ngroups, children);
        for (int i = 0; i < k; i++) {
            int cg = (children[i] + rootgroup) % ngroups;
            children[i] = cg == rootgroup ? root : cg * group;
        }
        *nchildren = k;
    }
    int v = (me - leader + size) % size;
    int k = shape_children(shape, v, size, children + *nchildren);
    for (int i = 0; i < k; i++)
        children[*nchildren + i] = absolute(children[*nchildren + i], leader, first, size);
    *nchildren += k;
    int p = shape_parent(shape, v);
    if (p >= 0) *parent = absolute(p, leader, first, size);
}
