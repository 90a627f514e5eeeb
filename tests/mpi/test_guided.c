/* SPDX-License-Identifier: BSD-3-Clause */
/* HW_GUIDED with every level name and HW_UNGUIDED writing the info key, on 2
   nodes of "pack:2 [numa] die:1 l3:1 group:2 l2:2 l1:1 core:1 pu:2" (16 PUs: 2
   packages, each with one die and one L3, 2 groups of 2 cores of 2 PUs),
   32 processes bound to PUs: world rank x is on node x/16, PU p = x%16.
   Objects holding PU p: Package, Die, L3Cache and NUMANode p/8, Group p/4,
   L2Cache, L1Cache and Core p/2, PU p. Run with HSPLIT_NODES=16 HSPLIT_BIND=pu. */
#include "test_util.h"

enum { NPROCS = 32, PER_NODE = 16 };

typedef struct {
    const char *name;
    int pus_per_object; /* 0: no such object, MPI_COMM_NULL everywhere */
    int objects_per_node;
} guided_case;

static const guided_case cases[] = {
    {"Machine", 16, 1}, {"mpi_shared_memory", 16, 1}, {"Package", 8, 2}, {"Die", 8, 2},
    {"L3Cache", 8, 2}, {"NUMANode", 8, 2}, {"Group", 4, 4}, {"L2Cache", 2, 8},
    {"L1Cache", 2, 8}, {"Core", 2, 8}, {"PU", 1, 16}, {"core", 2, 8}, {"numanode", 8, 2},
    {"L4Cache", 0, 0}, {"NoSuchResource", 0, 0}, {"Misc", 0, 0}, {"L1iCache", 0, 0},
};

/* the name get_hlevel_info gives back */
static const char *canonical(const char *name)
{
    if (strcmp(name, "mpi_shared_memory") == 0) return "Machine";
    if (strcmp(name, "core") == 0) return "Core";
    if (strcmp(name, "numanode") == 0) return "NUMANode";
    return name;
}

static void check_guided(int x, const guided_case *c)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, HSPLIT_INFO_KEY_HW_RESOURCE_TYPE, c->name);
    MPI_Comm comm;
    int rc = HSPLIT_Comm_split_type(MPI_COMM_WORLD, HSPLIT_COMM_TYPE_HW_GUIDED, x, info, &comm);
    MPI_Info_free(&info);
    CHECK(rc == MPI_SUCCESS, "guided %s: rc %d", c->name, rc);
    if (c->pus_per_object == 0) {
        CHECK(comm == MPI_COMM_NULL, "guided %s should give MPI_COMM_NULL", c->name);
        return;
    }
    int node = x / PER_NODE, object = (x % PER_NODE) / c->pus_per_object;
    int expected[PER_NODE], n = 0;
    for (int y = 0; y < NPROCS; y++)
        if (y / PER_NODE == node && (y % PER_NODE) / c->pus_per_object == object)
            expected[n++] = y;
    char what[64];
    snprintf(what, sizeof what, "guided %s", c->name);
    test_check_members(comm, expected, n, what);
    test_check_level(comm, canonical(c->name), 2 * c->objects_per_node,
                     node * c->objects_per_node + object);
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
}

/* HW_UNGUIDED down the hierarchy: the info gets the level's name. */
static void check_unguided(int x)
{
    static const char *const names[] = {"Machine", "NUMANode", "Group", "L2Cache", "PU"};
    static const int spans[] = {16, 8, 4, 2, 1};
    MPI_Comm parent = MPI_COMM_WORLD;
    for (int s = 0; s <= 5; s++) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Comm level;
        CHECK_INT(HSPLIT_Comm_split_type(parent, HSPLIT_COMM_TYPE_HW_UNGUIDED, x, info, &level),
                  MPI_SUCCESS);
        char value[MPI_MAX_INFO_VAL + 1] = "";
        int flag = 0;
        MPI_Info_get(info, HSPLIT_INFO_KEY_HW_RESOURCE_TYPE, MPI_MAX_INFO_VAL, value, &flag);
        MPI_Info_free(&info);
        if (parent != MPI_COMM_WORLD) MPI_Comm_free(&parent);
        if (s == 5) {
            CHECK(level == MPI_COMM_NULL, "unguided bottom not NULL");
            CHECK(!flag, "unguided wrote the key for MPI_COMM_NULL");
            break;
        }
        CHECK(flag, "unguided step %d wrote no key", s + 1);
        CHECK_STR(value, names[s]);
        int expected[16], n = 0;
        for (int y = x - x % spans[s]; y < x - x % spans[s] + spans[s]; y++) expected[n++] = y;
        test_check_members(level, expected, n, "unguided level");
        parent = level;
    }
    /* MPI_INFO_NULL is allowed: nothing to write */
    MPI_Comm level;
    CHECK_INT(HSPLIT_Comm_split_type(MPI_COMM_WORLD, HSPLIT_COMM_TYPE_HW_UNGUIDED, x,
                                     MPI_INFO_NULL, &level), MPI_SUCCESS);
    if (level != MPI_COMM_NULL) MPI_Comm_free(&level);
}

/* Other split types go to MPI unchanged. */
static void check_forwarded(int x)
{
    MPI_Comm mine, mpis;
    CHECK_INT(HSPLIT_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, x, MPI_INFO_NULL, &mine),
              MPI_SUCCESS);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, x, MPI_INFO_NULL, &mpis);
    int cmp;
    MPI_Comm_compare(mine, mpis, &cmp);
    CHECK_INT(cmp, MPI_CONGRUENT);
    MPI_Comm_free(&mine);
    MPI_Comm_free(&mpis);
    CHECK_INT(HSPLIT_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, x, MPI_INFO_NULL, &mine),
              MPI_SUCCESS);
    CHECK(mine == MPI_COMM_NULL, "MPI_UNDEFINED split type gives MPI_COMM_NULL");
}

/* min_hlevel on this machine: the core-sized level is named L2Cache (L2, L1
   and core have the same PUs); a PU alone is PU. */
static void check_min_hlevel(int x)
{
    struct { int other; const char *expected; } cases[] = {
        {x ^ 1, "L2Cache"}, {x ^ 2, "Group"}, {x ^ 4, "NUMANode"}, {x ^ 8, "Machine"},
        {x ^ 16, "Cluster"}, {x, "PU"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int ranks[2] = {x, cases[i].other}, len;
        char type[HSPLIT_MAX_HLEVEL_NAME];
        CHECK_INT(HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, cases[i].other == x ? 1 : 2, ranks,
                                             type, &len), MPI_SUCCESS);
        CHECK_STR(type, cases[i].expected);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int x, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &x);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != NPROCS) MPI_Abort(MPI_COMM_WORLD, 2);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_guided(x, &cases[i]);
    check_unguided(x);
    check_forwarded(x);
    check_min_hlevel(x);
    return test_finish();
}
