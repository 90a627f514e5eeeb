/* SPDX-License-Identifier: BSD-3-Clause */
/* Hostile emulation settings (tests/emulation_hostile.cmake). Usage:
     test_emulation_hostile error BIND|NODES
       every entry point that reads the emulation variables returns an error
       of that class on every process (none hangs, none crashes), with a
       string naming the variable, and leaves its outputs alone: for a
       malformed or invalid setting on some processes only (a launcher's
       local rank on one rank, say);
     test_emulation_hostile nodes n0,n1,...
       HSPLIT_NODES is that list (node indices anywhere in [0, INT_MAX]): the
       node split, its order and names, get_min_hlevel and a collective are
       what the list says, computed here from the list itself, and the memory
       the library takes stays small (not in the range of the indices);
     test_emulation_hostile min_hlevel r1,r2=LEVEL ...
       HSPLIT_Comm_get_min_hlevel of each listed pair of world ranks (the
       bindings that a launcher's local ranks give). */
#include <limits.h>
#include <sys/resource.h>
#include "test_util.h"

/* Peak resident memory of this process, in KiB (Linux: ru_maxrss). */
static long peak_kib(void)
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

static void check_error_string(int code, const char *name, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(code, text, &len);
    char want[32];
    snprintf(want, sizeof want, "HSPLIT_%s", name);
    CHECK(strstr(text, want) != NULL, "%s: string \"%s\" does not name %s", what, text, want);
}

static int run_error(const char *name)
{
    int hsplit_error = strcmp(name, "BIND") == 0 ? HSPLIT_ERR_BIND
                       : strcmp(name, "NODES") == 0 ? HSPLIT_ERR_NODES : -1;
    if (hsplit_error < 0) MPI_Abort(MPI_COMM_WORLD, 2);
    int expected, rank, cls, len;
    HSPLIT_Error_class(hsplit_error, &expected);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* (what split_type leaves in its output on error: test_env_errors) */
    MPI_Comm split = MPI_COMM_NULL;
    int rc = HSPLIT_Comm_split_type(MPI_COMM_WORLD, HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY, 0,
                                    MPI_INFO_NULL, &split);
    MPI_Error_class(rc, &cls);
    CHECK(cls == expected, "split_type: class %d, expected %d", cls, expected);
    check_error_string(rc, name, "split_type");
    if (rc == MPI_SUCCESS && split != MPI_COMM_NULL) MPI_Comm_free(&split);

    MPI_Comm out = MPI_COMM_WORLD, roots = MPI_COMM_WORLD;
    rc = HSPLIT_Comm_hsplit_with_roots(MPI_COMM_WORLD, MPI_INFO_NULL, &out, &roots);
    MPI_Error_class(rc, &cls);
    CHECK(cls == expected, "hsplit_with_roots: class %d, expected %d", cls, expected);
    CHECK(out == MPI_COMM_WORLD && roots == MPI_COMM_WORLD, "outputs written on error");

    /* the whole hierarchy: no level may be made from a wrong binding */
    enum { MAXLEVELS = 32 };
    MPI_Comm levels[MAXLEVELS], level_roots[MAXLEVELS];
    for (int i = 0; i < MAXLEVELS; i++) levels[i] = level_roots[i] = MPI_COMM_SELF;
    int nlevels = -7;
    rc = HSPLIT_Comm_hsplit_all(MPI_COMM_WORLD, MPI_INFO_NULL, MAXLEVELS, &nlevels, levels,
                                level_roots);
    MPI_Error_class(rc, &cls);
    CHECK(cls == expected, "hsplit_all: class %d, expected %d", cls, expected);
    int untouched = nlevels == -7;
    for (int i = 0; i < MAXLEVELS; i++)
        untouched = untouched && levels[i] == MPI_COMM_SELF && level_roots[i] == MPI_COMM_SELF;
    CHECK(untouched, "hsplit_all wrote its outputs on error (nlevels %d)", nlevels);

    char type[HSPLIT_MAX_HLEVEL_NAME] = "untouched";
    rc = HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 1, &rank, type, &len);
    MPI_Error_class(rc, &cls);
    CHECK(cls == expected, "get_min_hlevel: class %d, expected %d", cls, expected);
    CHECK_STR(type, "untouched");

    /* the collectives build their hierarchy from the same variables */
    int value = rank == 0 ? 42 : -1;
    rc = HSPLIT_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(cls == expected, "HSPLIT_Bcast: class %d, expected %d", cls, expected);
    int sum = -1;
    rc = HSPLIT_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(cls == expected, "HSPLIT_Allreduce: class %d, expected %d", cls, expected);
    return test_finish();
}

/* The comma list of node indices (non-negative ints) of argv. */
static int parse_list(const char *text, int *nodes, int max)
{
    int n = 0;
    for (const char *p = text; n < max;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || v > INT_MAX) return -1;
        nodes[n++] = (int)v;
        if (*end != ',') return *end == '\0' ? n : -1;
        p = end + 1;
    }
    return -1;
}

static int run_nodes(const char *list)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    enum { MAX = 64 };
    int nodes[MAX];
    if (parse_list(list, nodes, MAX) != size) MPI_Abort(MPI_COMM_WORLD, 2);
    /* expectations from the list: distinct nodes, this node's index among
       them in increasing order, and its processes in rank order */
    int ndistinct = 0, index = 0, members[MAX], nmembers = 0;
    for (int r = 0; r < size; r++) {
        int first = 1;
        for (int q = 0; q < r; q++) first = first && nodes[q] != nodes[r];
        ndistinct += first;
        index += first && nodes[r] < nodes[rank];
        if (nodes[r] == nodes[rank]) members[nmembers++] = r;
    }
    long before = peak_kib();

    MPI_Comm node_comm;
    int rc = HSPLIT_Comm_split_type(MPI_COMM_WORLD, HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY, 0,
                                    MPI_INFO_NULL, &node_comm);
    CHECK_INT(rc, MPI_SUCCESS);
    if (rc != MPI_SUCCESS) return test_finish();
    if (ndistinct > 1) {
        test_check_members(node_comm, members, nmembers, "node communicator");
        test_check_level(node_comm, "Machine", ndistinct, index);
        char name[MPI_MAX_OBJECT_NAME], want[MPI_MAX_OBJECT_NAME];
        int len;
        MPI_Comm_get_name(node_comm, name, &len);
        snprintf(want, sizeof want, "node%d", nodes[rank]);
        CHECK_STR(name, want);
    }
    /* HW_GUIDED by node (mpi_shared_memory): the same groups */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory");
    MPI_Comm guided;
    rc = HSPLIT_Comm_split_type(MPI_COMM_WORLD, HSPLIT_COMM_TYPE_HW_GUIDED, 0, info, &guided);
    MPI_Info_free(&info);
    CHECK_INT(rc, MPI_SUCCESS);
    if (rc == MPI_SUCCESS) {
        test_check_members(guided, members, nmembers, "guided node communicator");
        test_check_level(guided, "Machine", ndistinct, index);
        MPI_Comm_free(&guided);
    }
    /* rank 0 with the first rank on another node: Cluster (no network) */
    int other = -1;
    for (int r = 0; r < size && other < 0; r++)
        if (nodes[r] != nodes[0]) other = r;
    char type[HSPLIT_MAX_HLEVEL_NAME];
    int len, pair[2] = {0, other};
    rc = HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, other < 0 ? 1 : 2, pair, type, &len);
    CHECK_INT(rc, MPI_SUCCESS);
    if (rank == 0 || rank == other) CHECK_STR(type, other < 0 ? "Core" : "Cluster");
    int sum = -1, expected_sum = size * (size - 1) / 2;
    rc = HSPLIT_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_INT(rc, MPI_SUCCESS);
    CHECK_INT(sum, expected_sum);
    MPI_Comm_free(&node_comm);

    /* the node indices' range costs nothing: a split of a few processes takes
       far less than the 100 MiB and more that a bitmap over [0, 1e9) took */
    long grown = peak_kib() - before, most;
    MPI_Allreduce(&grown, &most, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    CHECK(most < 32 * 1024, "the splits grew a process by %ld KiB", most);
    return test_finish();
}

static int run_min_hlevel(int argc, char **argv)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 2; i < argc; i++) {
        int pair[2];
        char want[HSPLIT_MAX_HLEVEL_NAME];
        if (sscanf(argv[i], "%d,%d=%31s", &pair[0], &pair[1], want) != 3 || pair[0] < 0 ||
            pair[0] >= size || pair[1] < 0 || pair[1] >= size)
            MPI_Abort(MPI_COMM_WORLD, 2);
        char type[HSPLIT_MAX_HLEVEL_NAME];
        int len;
        int rc = HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 2, pair, type, &len);
        CHECK_INT(rc, MPI_SUCCESS);
        if (rc == MPI_SUCCESS && (rank == pair[0] || rank == pair[1]))
            CHECK(strcmp(type, want) == 0, "ranks %d,%d: %s, expected %s", pair[0], pair[1],
                  type, want);
    }
    return test_finish();
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc == 3 && strcmp(argv[1], "error") == 0) return run_error(argv[2]);
    if (argc == 3 && strcmp(argv[1], "nodes") == 0) return run_nodes(argv[2]);
    if (argc >= 3 && strcmp(argv[1], "min_hlevel") == 0) return run_min_hlevel(argc, argv);
    fprintf(stderr, "usage: test_emulation_hostile error BIND|NODES | nodes n0,n1,... | "
                    "min_hlevel r1,r2=LEVEL ...\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
    return 2;
}
