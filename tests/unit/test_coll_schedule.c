/* SPDX-License-Identifier: BSD-3-Clause */
/* The engine's schedules as text (coll_schedule.c) and the trees of its
   levels (coll_tree.c), without MPI: what parses and how it reads back;
   every tree of every shape, size, root and virtual group size reaches
   every member exactly once, its parent and children agree, its depth is
   the shape's, and rooted at 0 the flat, chain and binomial trees give
   each child a range of consecutive members (the order non-commutative
   operations need). */
#include <stdlib.h>
#include <string.h>
#include "coll_schedule.h"
#include "unit_check.h"

static void check_parse(const char *text, const char *canonical)
{
    hsplit_schedule s;
    char out[HSPLIT_SCHEDULE_TEXT];
    int rc = hsplit_schedule_parse(text, &s);
    CHECK(rc == 0, "\"%s\" should parse", text);
    if (rc != 0) return;
    hsplit_schedule_format(&s, out, sizeof out);
    CHECK(strcmp(out, canonical) == 0, "\"%s\" reads back as \"%s\", expected \"%s\"", text, out,
          canonical);
    hsplit_schedule again;
    CHECK(hsplit_schedule_parse(out, &again) == 0 && memcmp(&again, &s, sizeof s) == 0,
          "\"%s\" does not parse back to the same schedule", out);
}

static void test_parse(void)
{
    check_parse("all:binomial", "all:binomial");
    check_parse("two:mpi", "two:mpi");
    check_parse("ml", "ml");
    check_parse("ml:ring", "ml:ring");
    check_parse("ml:rd", "ml:rd");
    check_parse("ml:rab", "ml:rab");
    check_parse("mlnet:rab", "mlnet:rab");
    check_parse("ml:mpi", "ml:mpi");
    check_parse("mlall", "mlall");
    check_parse("mlall:ring", "mlall:ring");
    check_parse("mlnet", "mlnet");
    check_parse("mlnet:rd", "mlnet:rd");
    check_parse("all+v8:chain,binomial", "all+v8:chain,binomial");
    check_parse("two:binary/65536", "two:binary/65536");
    check_parse("two:ring,mpi", "two:ring,mpi");
    check_parse("net:mpi", "net:mpi");
    check_parse("net+v4:ring,binomial/64", "net+v4:ring,binomial/64");
    check_parse("all+v4:rd,ring,binomial/8192", "all+v4:rd,ring,binomial/8192");
    check_parse("all+v2:flat,mpi,chain,binary,binomial,mpi,flat,chain/1",
                "all+v2:flat,mpi,chain,binary,binomial,mpi,flat,chain/1");
    hsplit_schedule s;
    CHECK(hsplit_schedule_parse("all+v16:chain,binary/4096", &s) == 0 && s.view == HSPLIT_VIEW_ALL &&
              s.virtual_size == 16 && s.nshapes == 2 && s.shape[0] == HSPLIT_SHAPE_CHAIN &&
              s.shape[1] == HSPLIT_SHAPE_BINARY && s.segment == 4096,
          "fields of all+v16:chain,binary/4096");
    /* the last shape serves the deeper levels */
    CHECK(hsplit_schedule_shape(&s, 0) == HSPLIT_SHAPE_CHAIN &&
              hsplit_schedule_shape(&s, 1) == HSPLIT_SHAPE_BINARY &&
              hsplit_schedule_shape(&s, 7) == HSPLIT_SHAPE_BINARY,
          "shape per level");
    CHECK(hsplit_schedule_all_p2p(&s), "chain,binary has no MPI level");
    CHECK(hsplit_schedule_parse("all:binomial,mpi", &s) == 0 && !hsplit_schedule_all_p2p(&s),
          "binomial,mpi has an MPI level");
    CHECK(hsplit_schedule_parse("all:rd,ring", &s) == 0 && s.nshapes == 2 &&
              s.shape[0] == HSPLIT_SHAPE_RD && s.shape[1] == HSPLIT_SHAPE_RING &&
              hsplit_schedule_all_p2p(&s),
          "fields of all:rd,ring (point-to-point levels)");
    CHECK(hsplit_schedule_parse("two:rab,mpi", &s) == 0 && s.view == HSPLIT_VIEW_TWO &&
              s.nshapes == 2 && s.shape[0] == HSPLIT_SHAPE_RAB && s.shape[1] == HSPLIT_SHAPE_MPI &&
              !hsplit_schedule_all_p2p(&s),
          "fields of two:rab,mpi");
    /* MPI's and the ring's levels are calls of their own; the others are
       parts of trees of messages */
    CHECK(hsplit_shape_is_call(HSPLIT_SHAPE_MPI) && hsplit_shape_is_call(HSPLIT_SHAPE_RING) &&
              !hsplit_shape_is_call(HSPLIT_SHAPE_RD) && !hsplit_shape_is_call(HSPLIT_SHAPE_RAB) &&
              !hsplit_shape_is_call(HSPLIT_SHAPE_FLAT) &&
              !hsplit_shape_is_call(HSPLIT_SHAPE_CHAIN) &&
              !hsplit_shape_is_call(HSPLIT_SHAPE_BINOMIAL) &&
              !hsplit_shape_is_call(HSPLIT_SHAPE_BINARY),
          "which shapes are calls of their own");
    static const char *const bad[] = {
        "", "all", "all:", "al:mpi", "all:mpi,", "all:,mpi", "all:tree", "three:mpi",
        "all:mpi/0", "all:mpi/", "all:mpi/-4", "all:mpi/1073741825", "all+v1:mpi", "all+v:mpi",
        "all+v1048577:mpi", "all+v99999999999999999999:mpi", "all:mpi/99999999999999999999",
        "ml:binomial", "ml:ring,mpi", "ml:", "ml:ring/64", "ml+v2",
        "mlall:binomial", "mlall:", "mlnet:ring/64", "mlnet+v2", "mla", "mlnets", "mlall:rd,mpi", "all:mpi ", " all:mpi", "ALL:MPI", "all:mpi,mpi,mpi,mpi,mpi,mpi,mpi,mpi,mpi",
        "all:binomial/8x", "two+v4", "all:mpi/+8", "all:r", "all:rdd", "nett:mpi", "ne:mpi", "net", "net:", "all:rings", "all:ring,",
        "ml:ra", "ml:rabb", "all:rab/", "mlall:rab,rd"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(hsplit_schedule_parse(bad[i], &s) == -1, "\"%s\" should be refused", bad[i]);
    CHECK(hsplit_schedule_parse(NULL, &s) == -1, "NULL refused");
    CHECK(hsplit_schedule_parse("mlnet:ring", &s) == 0 && s.view == HSPLIT_VIEW_MLNET &&
              s.nshapes == 1 && s.shape[0] == HSPLIT_SHAPE_RING && hsplit_view_is_ml(s.view) &&
              !hsplit_schedule_all_p2p(&s),
          "fields of mlnet:ring");
    CHECK(hsplit_schedule_parse("mlall", &s) == 0 && s.view == HSPLIT_VIEW_MLALL &&
              s.nshapes == 0 && hsplit_view_is_ml(s.view),
          "fields of mlall");
    CHECK(!hsplit_view_is_ml(HSPLIT_VIEW_ALL) && !hsplit_view_is_ml(HSPLIT_VIEW_TWO) &&
              !hsplit_view_is_ml(HSPLIT_VIEW_NET) && hsplit_view_is_ml(HSPLIT_VIEW_ML),
          "which views are multi-leader");
}

/* depth of member i, following parents; -1 on a cycle or a bad index */
static int depth_of(const int *parent, int n, int i)
{
    int d = 0;
    while (parent[i] >= 0) {
        i = parent[i];
        if (i >= n || ++d > n) return -1;
    }
    return d;
}

static int floor_log2(int n)
{
    int d = 0;
    while ((2L << d) <= n) d++;
    return d;
}

/* the expected depth of a tree without virtual groups, from the shapes'
   definitions */
static int expected_depth(int shape, int n)
{
    if (n == 1) return 0;
    switch (shape) {
    case HSPLIT_SHAPE_FLAT: return 1;
    case HSPLIT_SHAPE_CHAIN: return n - 1;
    case HSPLIT_SHAPE_BINARY: return floor_log2(n);
    /* binomial: a member's depth is the number of its bits, at most
       floor(log2 n) (2^k - 1 < n for that k) */
    default: return floor_log2(n);
    }
}

static void check_tree(int shape, int n, int root, int group)
{
    int *parent = malloc(sizeof(int) * (size_t)n), *children = malloc(sizeof(int) * (size_t)n);
    int *nchild = calloc((size_t)n, sizeof(int)), *seen = calloc((size_t)n, sizeof(int));
    int **kids = calloc((size_t)n, sizeof(int *));
    int ok = 1;
    for (int me = 0; me < n; me++) {
        int k = -1;
        hsplit_level_tree(shape, n, me, root, group, &parent[me], children, &k);
        kids[me] = malloc(sizeof(int) * (size_t)(k > 0 ? k : 1));
        memcpy(kids[me], children, sizeof(int) * (size_t)(k > 0 ? k : 0));
        nchild[me] = k;
        if (k < 0 || k > n - 1) ok = 0;
    }
    CHECK(ok, "shape %d n %d root %d group %d: child counts", shape, n, root, group);
    CHECK(parent[root] == -1, "shape %d n %d root %d group %d: the root has a parent", shape, n,
          root, group);
    /* parents and children agree, every member but the root is some
       member's child exactly once */
    int agree = 1;
    for (int p = 0; p < n; p++)
        for (int c = 0; c < nchild[p]; c++) {
            int child = kids[p][c];
            if (child < 0 || child >= n || parent[child] != p) agree = 0;
            else seen[child]++;
        }
    for (int i = 0; i < n; i++)
        if (i != root && (seen[i] != 1 || parent[i] < 0)) agree = 0;
    CHECK(agree && seen[root] == 0, "shape %d n %d root %d group %d: parents and children",
          shape, n, root, group);
    int deepest = 0;
    for (int i = 0; i < n; i++) {
        int d = depth_of(parent, n, i);
        CHECK(d >= 0, "shape %d n %d root %d group %d: member %d never reaches the root", shape,
              n, root, group, i);
        if (d > deepest) deepest = d;
    }
    if (group == 0)
        CHECK(deepest == expected_depth(shape, n), "shape %d n %d root %d: depth %d, expected %d",
              shape, n, root, deepest, expected_depth(shape, n));
    else {
        /* the groups' tree, then the deepest group's: at most the sum */
        int g = group < n ? group : n, ngroups = n / g + (n % g != 0);
        int bound = expected_depth(shape, ngroups) + expected_depth(shape, g);
        CHECK(deepest <= bound, "shape %d n %d root %d group %d: depth %d above %d", shape, n,
              root, group, deepest, bound);
    }
    if (root == 0 && shape != HSPLIT_SHAPE_BINARY) {
        /* subtree sizes, then: each member's children in increasing order
           start right after it and after one another */
        int *size = malloc(sizeof(int) * (size_t)n);
        for (int i = 0; i < n; i++) size[i] = 1;
        for (int i = 0; i < n; i++)
            for (int p = parent[i]; p >= 0; p = parent[p]) size[p]++;
        int ranges = 1;
        for (int p = 0; p < n; p++) {
            int *sorted = kids[p], k = nchild[p];
            for (int a = 1; a < k; a++) /* insertion sort */
                for (int b = a; b > 0 && sorted[b - 1] > sorted[b]; b--) {
                    int t = sorted[b];
                    sorted[b] = sorted[b - 1];
                    sorted[b - 1] = t;
                }
            int next = p + 1;
            for (int c = 0; c < k; c++) {
                if (sorted[c] != next) ranges = 0;
                next = sorted[c] + size[sorted[c]];
            }
            if (next != p + size[p]) ranges = 0;
        }
        CHECK(ranges, "shape %d n %d group %d: children's subtrees are not consecutive ranges",
              shape, n, group);
        free(size);
    }
    for (int i = 0; i < n; i++) free(kids[i]);
    free(kids);
    free(parent);
    free(children);
    free(nchild);
    free(seen);
}

int main(void)
{
    test_parse();
    static const int shapes[] = {HSPLIT_SHAPE_FLAT, HSPLIT_SHAPE_CHAIN, HSPLIT_SHAPE_BINOMIAL,
                                 HSPLIT_SHAPE_BINARY};
    static const int groups[] = {0, 2, 3, 8, 64};
    for (int s = 0; s < 4; s++)
        for (int n = 1; n <= 70; n++)
            for (int g = 0; g < 5; g++) {
                int roots[] = {0, 1 % n, n / 2, n - 1};
                for (int r = 0; r < 4; r++) check_tree(shapes[s], n, roots[r], groups[g]);
            }
    /* a binomial tree sends to its largest subtree first: member 0 of 16
       sends to 8, 4, 2, 1 */
    int parent, children[16], k;
    hsplit_level_tree(HSPLIT_SHAPE_BINOMIAL, 16, 0, 0, 0, &parent, children, &k);
    CHECK(k == 4 && children[0] == 8 && children[1] == 4 && children[2] == 2 && children[3] == 1,
          "binomial children of 0 in 16");
    hsplit_level_tree(HSPLIT_SHAPE_BINOMIAL, 16, 12, 0, 0, &parent, children, &k);
    CHECK(parent == 8 && k == 2 && children[0] == 14 && children[1] == 13, "binomial member 12");
    /* rooted at 5 of 8: member 5 is relative 0, member 4 relative 7 */
    hsplit_level_tree(HSPLIT_SHAPE_CHAIN, 8, 4, 5, 0, &parent, children, &k);
    CHECK(parent == 3 && k == 0, "chain rooted at 5: member 4 is last, after 3");
    /* groups of 4 over 10, rooted at 6: leaders 0, 6 (its group's root), 8 */
    hsplit_level_tree(HSPLIT_SHAPE_FLAT, 10, 6, 6, 4, &parent, children, &k);
    CHECK(parent == -1 && k == 5 && children[0] == 8 && children[1] == 0 && children[2] == 7 &&
              children[3] == 4 && children[4] == 5,
          "flat groups of 4 rooted at 6: %d children", k);
    hsplit_level_tree(HSPLIT_SHAPE_FLAT, 10, 4, 6, 4, &parent, children, &k);
    CHECK(parent == 6 && k == 0, "member 4 hangs from the root of its group");
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
