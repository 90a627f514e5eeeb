/* SPDX-License-Identifier: BSD-3-Clause */
/* Switch levels above the nodes. Every expectation is written from the rules
   of the user guide (section 2.10) and the layouts of tests/network/, never
   from the library's output. Usage: test_network LAYOUT, one of

   ntw24e5    the paper's NTW24E5 (section 7.4): 24 nodes under leaf switches
              of 12, 6, 4 and 2 nodes, one top switch; one process per node.
              HSPLIT_NETWORK=ntw24e5.conf HSPLIT_NODES=1, 24 processes.
   unordered  the same file, 6 processes on nodes 22, 0, 12, 1, 18, 23
              (HSPLIT_NODES=22,0,12,1,18,23), bindings real or emulated:
              switches come in the order of their first node.
   slurm      SLURM_TOPOLOGY_ADDR per process (no file): nodes 0 and 1 under
              top.a, node 2 under top.b.x, node 3 under top.b.y; two
              processes per node (HSPLIT_NODES=2), 8 processes, each bound to
              a core of a "core:2 pu:1" node. */
#include "test_util.h"

enum { MAXP = 32, MAXC = 32, MAXSTEPS = 4 };

typedef struct {
    const char *type, *name; /* level name, MPI communicator name */
    int index, num, n, ranks[MAXP];
} exp_comm;

typedef struct {
    exp_comm comms[MAXC];
    int ncomms;
    int roots[MAXC][MAXP], nroots_of[MAXC], nroots;
} exp_step;

typedef struct {
    exp_step steps[MAXSTEPS];
    int nsteps;
} layout;

static exp_comm *add_comm(exp_step *s, const char *type, const char *name, int index, int num)
{
    exp_comm *c = &s->comms[s->ncomms++];
    c->type = type;
    c->name = name;
    c->index = index;
    c->num = num;
    c->n = 0;
    return c;
}

static void add_rank_range(exp_comm *c, int first, int count)
{
    for (int r = first; r < first + count; r++) c->ranks[c->n++] = r;
}

static void add_roots(exp_step *s, const int *ranks, int n)
{
    memcpy(s->roots[s->nroots], ranks, sizeof(int) * (size_t)n);
    s->nroots_of[s->nroots++] = n;
}

static const char *const node_names[] = {
    "node0", "node1", "node2", "node3", "node4", "node5", "node6", "node7",
    "node8", "node9", "node10", "node11", "node12", "node13", "node14", "node15",
    "node16", "node17", "node18", "node19", "node20", "node21", "node22", "node23"};

/* NTW24E5, one process per node: rank r is on node r. */
static void ntw24e5(layout *l)
{
    static const int first[4] = {0, 12, 18, 22}, size[4] = {12, 6, 4, 2};
    static const char *const leaf[4] = {"leaf0", "leaf1", "leaf2", "leaf3"};
    l->nsteps = 2;
    for (int i = 0; i < 4; i++) {
        add_rank_range(add_comm(&l->steps[0], "Switch", leaf[i], i, 4), first[i], size[i]);
        for (int k = 0; k < size[i]; k++)
            add_rank_range(add_comm(&l->steps[1], "Machine", node_names[first[i] + k], k,
                                    size[i]), first[i] + k, 1);
        int members[12];
        for (int k = 0; k < size[i]; k++) members[k] = first[i] + k;
        add_roots(&l->steps[1], members, size[i]);
    }
    add_roots(&l->steps[0], first, 4);
}

/* Ranks 0..5 on nodes 22, 0, 12, 1, 18, 23: leaf3 {0,5}, leaf0 {1,3}, leaf1
   {2}, leaf2 {4}; switches indexed by first node: leaf0 0, leaf1 1, leaf2 2,
   leaf3 3. Only leaf0 and leaf3 hold two nodes. */
static void unordered(layout *l)
{
    l->nsteps = 2;
    exp_step *s = &l->steps[0];
    exp_comm *c = add_comm(s, "Switch", "leaf3", 3, 4);
    c->ranks[0] = 0; c->ranks[1] = 5; c->n = 2;
    c = add_comm(s, "Switch", "leaf0", 0, 4);
    c->ranks[0] = 1; c->ranks[1] = 3; c->n = 2;
    add_rank_range(add_comm(s, "Switch", "leaf1", 1, 4), 2, 1);
    add_rank_range(add_comm(s, "Switch", "leaf2", 2, 4), 4, 1);
    add_roots(s, (const int[]){0, 1, 2, 4}, 4);
    s = &l->steps[1];
    add_rank_range(add_comm(s, "Machine", "node22", 0, 2), 0, 1);
    add_rank_range(add_comm(s, "Machine", "node23", 1, 2), 5, 1);
    add_rank_range(add_comm(s, "Machine", "node0", 0, 2), 1, 1);
    add_rank_range(add_comm(s, "Machine", "node1", 1, 2), 3, 1);
    add_roots(s, (const int[]){0, 5}, 2);
    add_roots(s, (const int[]){1, 3}, 2);
}

/* Slurm addresses: node k holds ranks 2k, 2k+1. Step 1 splits under top into
   a {0-3} and b {4-7}; step 2 a by node, b into x {4,5} and y {6,7} (each one
   node: no Machine level below them); step 3 every pair by core. */
static void slurm(layout *l)
{
    l->nsteps = 3;
    exp_step *s = &l->steps[0];
    add_rank_range(add_comm(s, "Switch", "a", 0, 2), 0, 4);
    add_rank_range(add_comm(s, "Switch", "b", 1, 2), 4, 4);
    add_roots(s, (const int[]){0, 4}, 2);
    s = &l->steps[1];
    add_rank_range(add_comm(s, "Machine", "node0", 0, 2), 0, 2);
    add_rank_range(add_comm(s, "Machine", "node1", 1, 2), 2, 2);
    add_rank_range(add_comm(s, "Switch", "x", 0, 2), 4, 2);
    add_rank_range(add_comm(s, "Switch", "y", 1, 2), 6, 2);
    add_roots(s, (const int[]){0, 2}, 2);
    add_roots(s, (const int[]){4, 6}, 2);
    s = &l->steps[2];
    for (int k = 0; k < 4; k++) {
        add_rank_range(add_comm(s, "Core", "", 0, 2), 2 * k, 1);
        add_rank_range(add_comm(s, "Core", "", 1, 2), 2 * k + 1, 1);
        add_roots(s, (const int[]){2 * k, 2 * k + 1}, 2);
    }
}

static const exp_comm *comm_of(const exp_step *s, int rank)
{
    for (int i = 0; i < s->ncomms; i++)
        for (int k = 0; k < s->comms[i].n; k++)
            if (s->comms[i].ranks[k] == rank) return &s->comms[i];
    return NULL;
}

static int roots_of(const exp_step *s, int rank)
{
    for (int i = 0; i < s->nroots; i++)
        for (int k = 0; k < s->nroots_of[i]; k++)
            if (s->roots[i][k] == rank) return i;
    return -1;
}

/* hsplit_with_roots step after step, one step past the last. */
static void check_steps(const layout *l, int me)
{
    MPI_Comm parent = MPI_COMM_WORLD;
    char what[64];
    for (int s = 0; s <= l->nsteps; s++) {
        MPI_Comm level = MPI_COMM_NULL, roots = MPI_COMM_NULL;
        int rc = parent == MPI_COMM_NULL ? MPI_SUCCESS
                 : HSPLIT_Comm_hsplit_with_roots(parent, MPI_INFO_NULL, &level, &roots);
        CHECK_INT(rc, MPI_SUCCESS);
        const exp_comm *e = s < l->nsteps ? comm_of(&l->steps[s], me) : NULL;
        snprintf(what, sizeof what, "step %d newcomm", s + 1);
        if (e == NULL) {
            CHECK(level == MPI_COMM_NULL, "%s should be MPI_COMM_NULL", what);
        } else {
            test_check_members(level, e->ranks, e->n, what);
            if (level != MPI_COMM_NULL) {
                test_check_level(level, e->type, e->num, e->index);
                char name[MPI_MAX_OBJECT_NAME];
                int len;
                MPI_Comm_get_name(level, name, &len);
                CHECK(strcmp(name, e->name) == 0, "%s: MPI name \"%s\", expected \"%s\"", what,
                      name, e->name);
            }
        }
        int r = s < l->nsteps ? roots_of(&l->steps[s], me) : -1;
        snprintf(what, sizeof what, "step %d rootscomm", s + 1);
        if (r < 0)
            CHECK(roots == MPI_COMM_NULL, "%s should be MPI_COMM_NULL", what);
        else
            test_check_members(roots, l->steps[s].roots[r], l->steps[s].nroots_of[r], what);
        if (roots != MPI_COMM_NULL) MPI_Comm_free(&roots);
        if (parent != MPI_COMM_WORLD && parent != MPI_COMM_NULL) MPI_Comm_free(&parent);
        parent = level;
    }
    if (parent != MPI_COMM_WORLD && parent != MPI_COMM_NULL) MPI_Comm_free(&parent);
}

/* HSPLIT_Comm_hsplit_all gives the same communicators; split_type orders by
   key (reversed here) and HW_UNGUIDED reports the first level's name. */
static void check_other_splits(const layout *l, int me)
{
    MPI_Comm comms[MAXSTEPS + 1];
    int nlevels = -1, expected_levels = 0;
    for (int s = 0; s < l->nsteps; s++) expected_levels += comm_of(&l->steps[s], me) != NULL;
    int rc = HSPLIT_Comm_hsplit_all(MPI_COMM_WORLD, MPI_INFO_NULL, MAXSTEPS + 1, &nlevels, comms,
                                    NULL);
    CHECK_INT(rc, MPI_SUCCESS);
    CHECK_INT(nlevels, expected_levels);
    for (int s = 0; s < nlevels && s < l->nsteps; s++) {
        const exp_comm *e = comm_of(&l->steps[s], me);
        if (e != NULL) test_check_members(comms[s], e->ranks, e->n, "hsplit_all level");
    }
    for (int s = 0; s < nlevels; s++) MPI_Comm_free(&comms[s]);

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Comm reversed;
    rc = HSPLIT_Comm_split_type(MPI_COMM_WORLD, HSPLIT_COMM_TYPE_HW_UNGUIDED, -me, info,
                                &reversed);
    CHECK_INT(rc, MPI_SUCCESS);
    const exp_comm *e = comm_of(&l->steps[0], me);
    int backwards[MAXP];
    for (int k = 0; k < e->n; k++) backwards[k] = e->ranks[e->n - 1 - k];
    test_check_members(reversed, backwards, e->n, "split_type with key -rank");
    if (reversed != MPI_COMM_NULL) {
        test_check_level(reversed, e->type, e->num, e->index);
        MPI_Comm_free(&reversed);
    }
    char value[MPI_MAX_INFO_VAL + 1] = "";
    int flag = 0;
    MPI_Info_get(info, HSPLIT_INFO_KEY_HW_RESOURCE_TYPE, MPI_MAX_INFO_VAL, value, &flag);
    CHECK(flag && strcmp(value, e->type) == 0, "HW_UNGUIDED info: \"%s\", expected \"%s\"",
          value, e->type);
    MPI_Info_free(&info);
}

/* get_min_hlevel on MPI_COMM_WORLD: listed processes get expected, the
   others "Unknown". */
static void check_min(int me, const int *ranks, int n, const char *expected)
{
    char type[HSPLIT_MAX_HLEVEL_NAME] = "";
    int len = -1, listed = 0;
    for (int i = 0; i < n; i++) listed |= ranks[i] == me;
    int rc = HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, n, ranks, type, &len);
    CHECK_INT(rc, MPI_SUCCESS);
    const char *want = listed ? expected : "Unknown";
    CHECK(strcmp(type, want) == 0 && len == (int)strlen(want),
          "min_hlevel of %d ranks from %d: \"%s\", expected \"%s\"", n, ranks[0], type, want);
}

#define MIN(expected, ...)                                                                 \
    check_min(me, (const int[]){__VA_ARGS__}, (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int)), \
              expected)

/* The collectives over a hierarchy whose top levels are switches, rooted
   away from rank 0 and from the switch leaders. */
static void check_collectives(int me, int size)
{
    int value = me == size / 2 + 1 ? 4242 : -1;
    int rc = HSPLIT_Bcast(&value, 1, MPI_INT, size / 2 + 1, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS && value == 4242, "bcast: rc %d value %d", rc, value);
    long in = me + 1, sum = -1;
    rc = HSPLIT_Allreduce(&in, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS && sum == (long)size * (size + 1) / 2, "allreduce: %ld", sum);
    int root = size - 3;
    sum = -1;
    rc = HSPLIT_Reduce(&in, &sum, 1, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS && (me != root || sum == (long)size * (size + 1) / 2),
          "reduce to %d: %ld", root, sum);
    int all[MAXP];
    rc = HSPLIT_Gather(&me, 1, MPI_INT, all, 1, MPI_INT, size - 1, MPI_COMM_WORLD);
    int ordered = rc == MPI_SUCCESS;
    for (int r = 0; me == size - 1 && r < size; r++) ordered &= all[r] == r;
    CHECK(ordered, "gather to %d in rank order", size - 1);
    CHECK_INT(HSPLIT_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static layout l;
    const char *which = argc > 1 ? argv[1] : "";
    int expected_size = 0;
    if (strcmp(which, "ntw24e5") == 0) { ntw24e5(&l); expected_size = 24; }
    if (strcmp(which, "unordered") == 0) { unordered(&l); expected_size = 6; }
    if (strcmp(which, "slurm") == 0) { slurm(&l); expected_size = 8; }
    if (expected_size == 0 || size != expected_size) {
        if (me == 0) fprintf(stderr, "usage: test_network ntw24e5|unordered|slurm with the "
                                     "documented process count\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    check_steps(&l, me);
    check_other_splits(&l, me);
    if (strcmp(which, "ntw24e5") == 0) {
        MIN("Switch", 0, 1);           /* both under leaf0       */
        MIN("Switch", 11, 3, 7);       /* leaf0, caller not first */
        MIN("Switch", 22, 23);         /* leaf3                   */
        MIN("Cluster", 0, 12);         /* only the top in common  */
        MIN("Cluster", 17, 18, 23);
        MIN("Core", 5);                /* alone, bound to a core  */
    } else if (strcmp(which, "unordered") == 0) {
        MIN("Switch", 1, 3);           /* nodes 0, 1 under leaf0  */
        MIN("Switch", 0, 5);           /* nodes 22, 23 under leaf3 */
        MIN("Cluster", 1, 2);          /* nodes 0 and 12          */
    } else {
        MIN("Machine", 0, 1);          /* one node, two cores     */
        MIN("Switch", 0, 2);           /* top.a                   */
        MIN("Switch", 4, 7);           /* top.b (x and y)         */
        MIN("Switch", 5, 6, 4);
        MIN("Cluster", 0, 4);          /* only the top            */
        MIN("Cluster", 3, 5, 7);
    }
    check_collectives(me, size);
    return test_finish();
}
