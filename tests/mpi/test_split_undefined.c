/* SPDX-License-Identifier: BSD-3-Clause */
/* HSPLIT_Comm_split_type as MPI_Comm_split_type is defined (MPI-4.1 7.4.2):
   processes passing MPI_UNDEFINED get MPI_COMM_NULL and the others split
   among themselves; HW_GUIDED without its key gives MPI_COMM_NULL; every
   other corner listed in the API reference.

   Node ".. core:2 pu:1" nodes of 4 cores ("pack:2 l3:1 core:2 pu:1": a
   package holds one L3 with the same cores, so its level is "Package"; a core
   holds one PU, so its level is "Core"); processes bound by core (the default
   with HSPLIT_TOPOLOGY: the i-th process of a node on core i mod 4). The
   expected communicators are computed here from HSPLIT_NODES and that rule,
   not by the library: argv[1] is the layout, the same as HSPLIT_NODES. */
#include <limits.h>
#include "test_util.h"
#include "test_errhandler.h"

enum { MAX_PROCS = 64, CORES = 4, CORES_PER_PACKAGE = 2 };

static int nprocs, me;

static int guided_info_class(void)
{
    int cls = -1;
    HSPLIT_Error_class(HSPLIT_ERR_GUIDED_INFO, &cls);
    return cls;
}
#define HSPLIT_ERR_GUIDED_INFO_CLASS guided_info_class()
static int node_of[MAX_PROCS], core_of[MAX_PROCS];

/* HSPLIT_NODES's three forms: K, cyclic:N, a comma list. */
static void layout(const char *spec)
{
    if (strncmp(spec, "cyclic:", 7) == 0) {
        int n = atoi(spec + 7);
        for (int x = 0; x < nprocs; x++) node_of[x] = x % n;
    } else if (strchr(spec, ',') != NULL) {
        const char *p = spec;
        for (int x = 0; x < nprocs; x++) {
            node_of[x] = (int)strtol(p, (char **)&p, 10);
            if (*p == ',') p++;
        }
    } else {
        int k = atoi(spec);
        for (int x = 0; x < nprocs; x++) node_of[x] = x / k;
    }
    for (int x = 0; x < nprocs; x++) {
        int local = 0;
        for (int y = 0; y < x; y++) local += node_of[y] == node_of[x];
        core_of[x] = local % CORES;
    }
}

typedef enum { BY_NODE, BY_PACKAGE, BY_CORE, NONE } grouping;
static const char *const grouping_name[] = {"Machine", "Package", "Core", "-"};

static long group_of(grouping g, int x)
{
    switch (g) {
    case BY_NODE: return node_of[x];
    case BY_PACKAGE: return (long)node_of[x] * 2 + core_of[x] / CORES_PER_PACKAGE;
    case BY_CORE: return (long)node_of[x] * CORES + core_of[x];
    default: return -1;
    }
}

/* The next strictly smaller level of the participants (the paper's rule):
   by node on several nodes; on one node, the children of the deepest object
   holding every participant's core; nothing if they share one core. */
static grouping unguided_rule(const int *part)
{
    int first = -1, nodes = 0, packages = 0, cores = 0;
    for (int x = 0; x < nprocs; x++) {
        if (!part[x]) continue;
        if (first < 0) first = x;
        nodes |= node_of[x] != node_of[first];
        packages |= core_of[x] / CORES_PER_PACKAGE != core_of[first] / CORES_PER_PACKAGE;
        cores |= core_of[x] != core_of[first];
    }
    return nodes ? BY_NODE : packages ? BY_PACKAGE : cores ? BY_CORE : NONE;
}

static int key_of(int x) { return (x * 7) % 3; } /* ties: several ranks per key */

/* Check newcomm against grouping g over the participants: members sorted by
   (key, world rank), the level's name, num_comms and index. */
static void check_split(MPI_Comm newcomm, const int *part, grouping g, const char *name,
                        const char *what)
{
    if (!part[me] || g == NONE) {
        CHECK(newcomm == MPI_COMM_NULL, "%s: expected MPI_COMM_NULL", what);
        return;
    }
    long mine = group_of(g, me);
    int expected[MAX_PROCS], n = 0;
    for (int k = 0; k < 3; k++)
        for (int y = 0; y < nprocs; y++)
            if (part[y] && key_of(y) == k && group_of(g, y) == mine) expected[n++] = y;
    /* the groups present among the participants, in order: count and index */
    int num = 0, index = 0;
    long seen[MAX_PROCS];
    for (int y = 0; y < nprocs; y++) {
        if (!part[y]) continue;
        long gy = group_of(g, y);
        int dup = 0;
        for (int i = 0; i < num; i++) dup |= seen[i] == gy;
        if (dup) continue;
        seen[num++] = gy;
        index += gy < mine;
    }
    test_check_members(newcomm, expected, n, what);
    if (newcomm != MPI_COMM_NULL) test_check_level(newcomm, name, num, index);
}

static MPI_Info resource_info(const char *value)
{
    MPI_Info info;
    MPI_Info_create(&info);
    if (value != NULL) MPI_Info_set(info, HSPLIT_INFO_KEY_HW_RESOURCE_TYPE, value);
    return info;
}

/* The value of "mpi_hw_resource_type" in info ("" if absent). */
static void info_value(MPI_Info info, char *value)
{
    int flag = 0;
    value[0] = '\0';
    MPI_Info_get(info, HSPLIT_INFO_KEY_HW_RESOURCE_TYPE, MPI_MAX_INFO_VAL, value, &flag);
    if (!flag) value[0] = '\0';
}

static void check_pattern(const int *part, const char *pattern)
{
    char what[128];
    grouping rule = unguided_rule(part);
    static const int types[] = {HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY, HSPLIT_COMM_TYPE_HW_UNGUIDED};
    for (int t = 0; t < 2; t++) {
        MPI_Info info = resource_info(NULL);
        MPI_Comm out = MPI_COMM_WORLD;
        int rc = HSPLIT_Comm_split_type(MPI_COMM_WORLD, part[me] ? types[t] : MPI_UNDEFINED,
                                        key_of(me), t == 1 ? info : MPI_INFO_NULL, &out);
        snprintf(what, sizeof what, "%s, %s", pattern, t ? "HW_UNGUIDED" : "PHYSICAL");
        CHECK(rc == MPI_SUCCESS, "%s: rc %d", what, rc);
        check_split(out, part, rule, grouping_name[rule], what);
        char value[MPI_MAX_INFO_VAL + 1];
        info_value(info, value);
        /* HW_UNGUIDED names the level in the caller's info, and
           HSPLIT_Comm_get_info gives it on the new communicator */
        CHECK_STR(value, t == 1 && out != MPI_COMM_NULL ? grouping_name[rule] : "");
        if (out != MPI_COMM_NULL) {
            MPI_Info used;
            CHECK_INT(HSPLIT_Comm_get_info(out, &used), MPI_SUCCESS);
            info_value(used, value);
            CHECK_STR(value, grouping_name[rule]);
            MPI_Info_free(&used);
            MPI_Comm_free(&out);
        }
        MPI_Info_free(&info);
    }
    /* (hwloc gives every node a NUMA node: here the whole node; the
       synthetic topology has no L2 cache) */
    static const struct { const char *value; grouping g; const char *name; } guided[] = {
        {"Core", BY_CORE, "Core"}, {"core", BY_CORE, "Core"}, {"Package", BY_PACKAGE, "Package"},
        {"mpi_shared_memory", BY_NODE, "Machine"}, {"Machine", BY_NODE, "Machine"},
        {"NUMANode", BY_NODE, "NUMANode"}, {"L2Cache", NONE, "-"},
        {"NoSuchResource", NONE, "-"}, {NULL, NONE, "-"}};
    for (size_t i = 0; i < sizeof guided / sizeof guided[0]; i++) {
        MPI_Info info = resource_info(guided[i].value);
        MPI_Comm out = MPI_COMM_WORLD;
        int rc = HSPLIT_Comm_split_type(MPI_COMM_WORLD,
                                        part[me] ? HSPLIT_COMM_TYPE_HW_GUIDED : MPI_UNDEFINED,
                                        key_of(me), info, &out);
        snprintf(what, sizeof what, "%s, HW_GUIDED %s", pattern,
                 guided[i].value ? guided[i].value : "(no key)");
        CHECK(rc == MPI_SUCCESS, "%s: rc %d", what, rc);
        check_split(out, part, guided[i].g, guided[i].name, what);
        if (out != MPI_COMM_NULL) MPI_Comm_free(&out);
        MPI_Info_free(&info);
    }
    /* HW_GUIDED with MPI_INFO_NULL */
    MPI_Comm out = MPI_COMM_WORLD;
    CHECK_INT(HSPLIT_Comm_split_type(MPI_COMM_WORLD,
                                     part[me] ? HSPLIT_COMM_TYPE_HW_GUIDED : MPI_UNDEFINED, 0,
                                     MPI_INFO_NULL, &out), MPI_SUCCESS);
    CHECK(out == MPI_COMM_NULL, "%s, HW_GUIDED MPI_INFO_NULL: not MPI_COMM_NULL", pattern);
    /* an MPI split type with MPI_UNDEFINED elsewhere goes to MPI: the
       participants of each real node (here all share this machine) */
    out = MPI_COMM_NULL;
    CHECK_INT(HSPLIT_Comm_split_type(MPI_COMM_WORLD,
                                     part[me] ? MPI_COMM_TYPE_SHARED : MPI_UNDEFINED, key_of(me),
                                     MPI_INFO_NULL, &out), MPI_SUCCESS);
    int all[MAX_PROCS], n = 0;
    for (int k = 0; k < 3; k++)
        for (int y = 0; y < nprocs; y++)
            if (part[y] && key_of(y) == k) all[n++] = y;
    snprintf(what, sizeof what, "%s, MPI_COMM_TYPE_SHARED", pattern);
    if (part[me]) {
        test_check_members(out, all, n, what);
        if (out != MPI_COMM_NULL) MPI_Comm_free(&out);
    } else {
        CHECK(out == MPI_COMM_NULL, "%s: expected MPI_COMM_NULL", what);
    }
}

/* Errors every process must see alike, whatever it passed. */
static void check_agreed_errors(void)
{
    MPI_Comm out;
    /* different hsplit types; an hsplit type against an MPI type */
    CHECK_ERROR(HSPLIT_Comm_split_type(MPI_COMM_WORLD,
                                       me == 1 ? HSPLIT_COMM_TYPE_HW_UNGUIDED
                                               : HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY,
                                       0, MPI_INFO_NULL, &out), MPI_ERR_ARG);
    CHECK_ERROR(HSPLIT_Comm_split_type(MPI_COMM_WORLD,
                                       me == 0 ? MPI_COMM_TYPE_SHARED
                                               : HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY,
                                       0, MPI_INFO_NULL, &out), MPI_ERR_ARG);
    /* HW_GUIDED: different values, or the key on some processes only, with
       MPI_UNDEFINED on rank 0 */
    MPI_Info info = resource_info(me % 2 ? "Core" : "Package");
    CHECK_ERROR(HSPLIT_Comm_split_type(MPI_COMM_WORLD, HSPLIT_COMM_TYPE_HW_GUIDED, 0, info, &out),
                HSPLIT_ERR_GUIDED_INFO_CLASS);
    MPI_Info_free(&info);
    info = resource_info(me == 1 ? "Core" : NULL);
    CHECK_ERROR(HSPLIT_Comm_split_type(MPI_COMM_WORLD,
                                       me == 0 ? MPI_UNDEFINED : HSPLIT_COMM_TYPE_HW_GUIDED, 0,
                                       info, &out), HSPLIT_ERR_GUIDED_INFO_CLASS);
    MPI_Info_free(&info);
    /* newcomm NULL on one process */
    CHECK_ERROR(HSPLIT_Comm_split_type(MPI_COMM_WORLD, HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY, 0,
                                       MPI_INFO_NULL, me == nprocs - 1 ? NULL : &out),
                MPI_ERR_ARG);
    /* MPI_UNDEFINED everywhere: MPI_COMM_NULL, no error */
    out = MPI_COMM_WORLD;
    CHECK_INT(HSPLIT_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &out),
              MPI_SUCCESS);
    CHECK(out == MPI_COMM_NULL, "all MPI_UNDEFINED: not MPI_COMM_NULL");
}

/* Communicators of one process, and an intercommunicator. */
static void check_small_and_inter(void)
{
    MPI_Comm out = MPI_COMM_WORLD;
    /* a strict subset of one process is empty: MPI_COMM_NULL */
    CHECK_INT(HSPLIT_Comm_split_type(MPI_COMM_SELF, HSPLIT_COMM_TYPE_HW_UNGUIDED, 0,
                                     MPI_INFO_NULL, &out), MPI_SUCCESS);
    CHECK(out == MPI_COMM_NULL, "MPI_COMM_SELF, HW_UNGUIDED: not MPI_COMM_NULL");
    /* HW_GUIDED names a resource that holds the process: itself */
    MPI_Info info = resource_info("Core");
    CHECK_INT(HSPLIT_Comm_split_type(MPI_COMM_SELF, HSPLIT_COMM_TYPE_HW_GUIDED, 5, info, &out),
              MPI_SUCCESS);
    int only[1] = {me};
    test_check_members(out, only, 1, "MPI_COMM_SELF, HW_GUIDED Core");
    if (out != MPI_COMM_NULL) test_check_level(out, "Core", 1, 0);
    if (out != MPI_COMM_NULL) MPI_Comm_free(&out);
    MPI_Info_free(&info);
    out = MPI_COMM_WORLD;
    CHECK_INT(HSPLIT_Comm_split_type(MPI_COMM_SELF, MPI_UNDEFINED, 0, MPI_INFO_NULL, &out),
              MPI_SUCCESS);
    CHECK(out == MPI_COMM_NULL, "MPI_COMM_SELF, MPI_UNDEFINED: not MPI_COMM_NULL");

    /* an intercommunicator between the even and the odd ranks */
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, me % 2 ? 0 : 1, 99, &inter);
    MPI_Errhandler counting;
    MPI_Comm_create_errhandler(counting_handler, &counting);
    MPI_Comm_set_errhandler(inter, counting);
    MPI_Errhandler_free(&counting);
    CHECK_ERROR(HSPLIT_Comm_split_type(inter, HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY, 0,
                                       MPI_INFO_NULL, &out), MPI_ERR_COMM);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

/* "core:64 pu:1" nodes far apart in the node-index range (HSPLIT_NODES
   0,100,67108864): every process alone on its node; HW_GUIDED "pu" gives
   each its own communicator, numbered by node (colours node x 64 PUs would
   overflow an int). */
static void check_wide_nodes(void)
{
    MPI_Info info = resource_info("pu");
    MPI_Comm out = MPI_COMM_NULL;
    CHECK_INT(HSPLIT_Comm_split_type(MPI_COMM_WORLD, HSPLIT_COMM_TYPE_HW_GUIDED, 0, info, &out),
              MPI_SUCCESS);
    MPI_Info_free(&info);
    int only[1] = {me};
    test_check_members(out, only, 1, "wide nodes, HW_GUIDED pu");
    if (out != MPI_COMM_NULL) test_check_level(out, "PU", nprocs, me);
    if (out != MPI_COMM_NULL) MPI_Comm_free(&out);
    CHECK_INT(HSPLIT_Comm_split_type(MPI_COMM_WORLD, HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY, 0,
                                     MPI_INFO_NULL, &out), MPI_SUCCESS);
    test_check_members(out, only, 1, "wide nodes, PHYSICAL");
    if (out != MPI_COMM_NULL) test_check_level(out, "Machine", nprocs, me);
    if (out != MPI_COMM_NULL) MPI_Comm_free(&out);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (argc < 2 || nprocs > MAX_PROCS || nprocs < 3) {
        if (me == 0) fprintf(stderr, "usage: test_split_undefined LAYOUT (3..64 processes)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    layout(argv[1]);
    if (argc > 2 && strcmp(argv[2], "wide") == 0) { /* ordered by node index */
        check_wide_nodes();
        return test_finish();
    }
    MPI_Errhandler counting;
    MPI_Comm_create_errhandler(counting_handler, &counting);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, counting);
    MPI_Errhandler_free(&counting);

    int part[MAX_PROCS];
    for (int x = 0; x < nprocs; x++) part[x] = 1;
    check_pattern(part, "all take part");
    for (int x = 0; x < nprocs; x++) part[x] = x % 2 == 0;
    check_pattern(part, "MPI_UNDEFINED on odd ranks");
    for (int x = 0; x < nprocs; x++) part[x] = x != 0;
    check_pattern(part, "MPI_UNDEFINED on rank 0");
    for (int x = 0; x < nprocs; x++) part[x] = x == nprocs - 1;
    check_pattern(part, "MPI_UNDEFINED on all but the last");
    /* the participants of one node only (node of rank 0): below the node */
    for (int x = 0; x < nprocs; x++) part[x] = node_of[x] == node_of[0];
    check_pattern(part, "only the processes of rank 0's node");

    check_agreed_errors();
    check_small_and_inter();
    return test_finish();
}
