/* SPDX-License-Identifier: BSD-3-Clause */
/* HSPLIT_Comm_get_min_hlevel (paper 3.3.2, 4.1.4): the deepest level shared by
   a list of processes, through the communicator's rank map to where each
   process is (location_table.c): local once the map exists. */
#include <stdlib.h>
#include <string.h>
#include "hsplit_internal.h"

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Checks ranks[] against a communicator of size processes; sets *listed when
   the caller's rank is among them. Returns an HSPLIT kind. */
static int check_ranks(int size, int me, int nranks, const int ranks[], int *listed)
{
    *listed = 0;
    for (int i = 0; i < nranks; i++) {
        if (ranks[i] < 0 || ranks[i] >= size)
            return HSPLIT_KIND_ERR_RANK;
        *listed |= ranks[i] == me;
    }
    int *sorted = malloc(sizeof(int) * (size_t)(nranks > 0 ? nranks : 1));
    if (sorted == NULL)
        return HSPLIT_KIND_ERR_INTERN;
    memcpy(sorted, ranks, sizeof(int) * (size_t)nranks);
    qsort(sorted, (size_t)nranks, sizeof(int), compare_ints);
    int kind = HSPLIT_KIND_OK;
    for (int i = 1; i < nranks; i++)
        if (sorted[i] == sorted[i - 1])
            kind = HSPLIT_ERR_RANK_REPEATED;
    free(sorted);
    return kind;
}

/* On several nodes: "Switch" when the listed processes share a switch below
   the top of the network (a top switch counts when there are several: each
   then stands for a part of the cluster), else "Cluster". NULL if a location
   is unknown. */
static const char *network_level(hsplit_context *ctx, const hsplit_rankmap *map, int nranks,
                                 const int ranks[])
{
    unsigned long first[HSPLIT_MAX_SWITCH_LEVELS], path[HSPLIT_MAX_SWITCH_LEVELS];
    int64_t node;
    int common = 0, len;
    for (int i = 0; i < nranks; i++) {
        if (hsplit_network_location_of(ctx, hsplit_rankmap_lookup(map, ranks[i]), &node,
                                       i == 0 ? first : path, &len) != 0)
            return NULL;
        if (i == 0) {
            common = len;
            continue;
        }
        int k = 0;
        while (k < common && k < len && path[k] == first[k]) k++;
        common = k;
    }
    return common >= 2 || (common == 1 && ctx->net.ntops > 1) ? "Switch" : "Cluster";
}

/* Name of the deepest level holding the listed processes. NULL if a
   location is unknown. */
static const char *shared_level(hsplit_context *ctx, const hsplit_rankmap *map, int nranks,
                                const int ranks[])
{
    hwloc_bitmap_t all = hwloc_bitmap_alloc(), one = hwloc_bitmap_alloc();
    const char *name = all != NULL && one != NULL ? "" : NULL;
    int64_t first_node = 0, node;
    for (int i = 0; name != NULL && i < nranks; i++) {
        if (hsplit_location_of(ctx, hsplit_rankmap_lookup(map, ranks[i]), &node, one) != 0) {
            name = NULL;
            break;
        }
        if (i == 0) first_node = node;
        if (node != first_node) {
            name = network_level(ctx, map, nranks, ranks);
            break;
        }
        hwloc_bitmap_or(all, all, one);
    }
    if (name != NULL && name[0] == '\0')
        name = hsplit_level_name(ctx->topo, hsplit_covering_object(ctx->topo, all));
    hwloc_bitmap_free(all);
    hwloc_bitmap_free(one);
    return name;
}

int HSPLIT_Comm_get_min_hlevel(MPI_Comm comm, int nranks, const int ranks[], char *type,
                               int *resultlen)
{
    int kind = hsplit_check_intracomm(comm);
    if (kind != HSPLIT_KIND_OK)
        return hsplit_raise(comm, kind);
    /* The rank map first: on a communicator the library meets for the first
       time (and whose locations are not computed) every process takes part. */
    const hsplit_rankmap *map = NULL;
    kind = hsplit_comm_rankmap(comm, &map);
    if (kind == HSPLIT_KIND_OK && (type == NULL || resultlen == NULL || nranks < 0 ||
                                   (ranks == NULL && nranks > 0)))
        kind = HSPLIT_KIND_ERR_ARG;
    int me, listed = 0;
    MPI_Comm_rank(comm, &me);
    if (kind == HSPLIT_KIND_OK)
        kind = check_ranks(map->n, me, nranks, ranks, &listed);
    if (kind != HSPLIT_KIND_OK)
        return hsplit_raise(comm, kind);
    const char *name = "Unknown";
    if (listed) {
        name = shared_level(hsplit_get_context(), map, nranks, ranks);
        if (name == NULL)
            return hsplit_raise(comm, HSPLIT_KIND_ERR_INTERN);
    }
    strcpy(type, name);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
