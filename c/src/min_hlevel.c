/* HSPLIT_Comm_get_min_hlevel (paper 3.3.2, 4.1.4): the deepest level shared by
   a list of processes, from the communicator's location table. */
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

/* Name of the deepest level holding the listed processes, all on one node. */
static const char *shared_level(const hsplit_context *ctx, const hsplit_location_table *table,
                                int nranks, const int ranks[], hwloc_bitmap_t all,
                                hwloc_bitmap_t one)
{
    hwloc_bitmap_zero(all);
    for (int i = 0; i < nranks; i++) {
        hsplit_bitmap_from_words(one, table->nwords,
                                 table->binding_words + (size_t)ranks[i] * (size_t)table->nwords);
        hwloc_bitmap_or(all, all, one);
    }
    return hsplit_level_name(ctx->topo, hsplit_covering_object(ctx->topo, all));
}

int HSPLIT_Comm_get_min_hlevel(MPI_Comm comm, int nranks, const int ranks[], char *type,
                               int *resultlen)
{
    int kind = hsplit_check_intracomm(comm);
    if (kind != HSPLIT_KIND_OK)
        return hsplit_raise(comm, kind);
    /* The table first: on the first call every process must take part. */
    const hsplit_location_table *table = NULL;
    kind = hsplit_location_table_get(comm, &table);
    if (kind == HSPLIT_KIND_OK && (type == NULL || resultlen == NULL || nranks < 0 ||
                                   (ranks == NULL && nranks > 0)))
        kind = HSPLIT_KIND_ERR_ARG;
    int me, listed = 0;
    MPI_Comm_rank(comm, &me);
    if (kind == HSPLIT_KIND_OK)
        kind = check_ranks(table->size, me, nranks, ranks, &listed);
    if (kind != HSPLIT_KIND_OK)
        return hsplit_raise(comm, kind);

    const char *name = "Unknown";
    if (listed) {
        name = NULL;
        for (int i = 1; i < nranks && name == NULL; i++)
            if (table->node_key[ranks[i]] != table->node_key[ranks[0]])
                name = "Cluster";
        if (name == NULL) {
            hwloc_bitmap_t all = hwloc_bitmap_alloc(), one = hwloc_bitmap_alloc();
            if (all != NULL && one != NULL)
                name = shared_level(hsplit_get_context(), table, nranks, ranks, all, one);
            hwloc_bitmap_free(all);
            hwloc_bitmap_free(one);
            if (name == NULL)
                return hsplit_raise(comm, HSPLIT_KIND_ERR_INTERN);
        }
    }
    strcpy(type, name);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
