/* SPDX-License-Identifier: BSD-3-Clause */
/* The real machine, no emulation: each process's binding is what hwloc
   reports, exchanged by the library once. The expected shared level is
   computed here directly with hwloc (deepest object holding every binding,
   named after the highest object with the same PUs, an attached NUMA node
   counting as just above it, the root being Machine), and compared with
   HSPLIT_Comm_get_min_hlevel; then the same query on a communicator the
   library made must be local. */
#include <hwloc.h>
#include "test_util.h"

static const char *expected_name(hwloc_topology_t topo, hwloc_const_bitmap_t set)
{
    hwloc_obj_t obj = hwloc_get_obj_covering_cpuset(topo, set);
    if (obj == NULL) obj = hwloc_get_root_obj(topo);
    while (obj->parent != NULL && hwloc_bitmap_isequal(obj->parent->cpuset, obj->cpuset))
        obj = obj->parent;
    if (obj->parent == NULL) return "Machine";
    for (hwloc_obj_t m = obj->memory_first_child; m != NULL; m = m->next_sibling)
        if (m->type == HWLOC_OBJ_NUMANODE) return "NUMANode";
    return hwloc_obj_type_string(obj->type);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    hwloc_topology_t topo;
    hwloc_topology_init(&topo);
    hwloc_topology_load(topo);
    hwloc_bitmap_t mine = hwloc_bitmap_alloc(), all = hwloc_bitmap_alloc();
    hwloc_get_cpubind(topo, mine, HWLOC_CPUBIND_PROCESS);
    hwloc_bitmap_and(mine, mine, hwloc_topology_get_topology_cpuset(topo));
    if (hwloc_bitmap_iszero(mine)) hwloc_bitmap_copy(mine, hwloc_topology_get_topology_cpuset(topo));
    char text[1024] = "", *texts = malloc(sizeof text * (size_t)size);
    hwloc_bitmap_snprintf(text, sizeof text, mine);
    MPI_Allgather(text, sizeof text, MPI_CHAR, texts, sizeof text, MPI_CHAR, MPI_COMM_WORLD);
    int *ranks = malloc(sizeof(int) * (size_t)size), len;
    for (int r = 0; r < size; r++) {
        hwloc_bitmap_t one = hwloc_bitmap_alloc();
        hwloc_bitmap_sscanf(one, texts + r * sizeof text);
        hwloc_bitmap_or(all, all, one);
        hwloc_bitmap_free(one);
        ranks[r] = r;
    }
    char type[HSPLIT_MAX_HLEVEL_NAME];
    CHECK_INT(HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, size, ranks, type, &len), MPI_SUCCESS);
    CHECK_STR(type, expected_name(topo, all));
    CHECK_INT(HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 1, &rank, type, &len), MPI_SUCCESS);
    CHECK_STR(type, expected_name(topo, mine));
    printf("[rank %d] bound to %s, all share %s\n", rank, text, expected_name(topo, all));

    /* a duplicate made by the library: one process alone asks */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (rank == size - 1) {
        CHECK_INT(HSPLIT_Comm_get_min_hlevel(dup, size, ranks, type, &len), MPI_SUCCESS);
        CHECK_STR(type, expected_name(topo, all));
    }
    MPI_Comm level, roots;
    CHECK_INT(HSPLIT_Comm_hsplit_with_roots(dup, MPI_INFO_NULL, &level, &roots), MPI_SUCCESS);
    if (level != MPI_COMM_NULL) {
        int lrank;
        MPI_Comm_rank(level, &lrank);
        CHECK_INT(HSPLIT_Comm_get_min_hlevel(level, 1, &lrank, type, &len), MPI_SUCCESS);
        CHECK_STR(type, expected_name(topo, mine));
        MPI_Comm_free(&level);
    }
    if (roots != MPI_COMM_NULL) MPI_Comm_free(&roots);
    MPI_Comm_free(&dup);
    free(texts);
    free(ranks);
    hwloc_bitmap_free(mine);
    hwloc_bitmap_free(all);
    hwloc_topology_destroy(topo);
    return test_finish();
}
