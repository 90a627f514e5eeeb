/* SPDX-License-Identifier: BSD-3-Clause */
/* The node groups of the two-level view in rank terms, made once per
   hierarchy and shared by the alltoalls, the reduce-scatters and the scans:
   which processes every group holds (every process the same tables, so that
   a leader knows the members of every other node), whether every group is a
   range of consecutive ranks, and the communicator of the groups' last
   processes. */
#include <stdlib.h>
#include "hsplit_internal.h"

int hsplit_node_layout_find(const hsplit_hierarchy *h, int rank, int *position)
{
    int at = h->node_slot[rank], lo = 0, hi = h->nnodes;
    while (hi - lo > 1) { /* the group whose range holds at */
        int mid = lo + (hi - lo) / 2;
        if (h->node_starts[mid] <= at) lo = mid;
        else hi = mid;
    }
    *position = at - h->node_starts[lo];
    return lo;
}

int hsplit_node_layout(hsplit_hierarchy *h)
{
    if (h->nodes_ready) return MPI_SUCCESS;
    int rc = hsplit_node_groups(h);
    if (rc != MPI_SUCCESS) return rc;
    /* the leader of every process's group (its lowest rank: groups are
       ranked as h->base), one allgather */
    int zero = 0, leader = 0, gsize, grank;
    MPI_Comm_size(h->rsag_group, &gsize);
    MPI_Comm_rank(h->rsag_group, &grank);
    MPI_Group group, base;
    MPI_Comm_group(h->rsag_group, &group);
    MPI_Comm_group(h->base, &base);
    MPI_Group_translate_ranks(group, 1, &zero, base, &leader);
    MPI_Group_free(&group);
    MPI_Group_free(&base);
    int n = h->size;
    int *leaders = malloc(sizeof(int) * 2 * (size_t)n);
    int *order = malloc(sizeof(int) * (size_t)n);
    /* group starts and a cursor per group: at most n groups */
    int *starts = calloc((size_t)n * 2 + 1, sizeof(int));
    if (leaders == NULL || order == NULL || starts == NULL) rc = MPI_ERR_NO_MEM;
    /* every process allocates before any fails alone: agree first */
    int failed = rc != MPI_SUCCESS, any_failed = 0;
    int arc = MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, h->base);
    if (arc == MPI_SUCCESS && any_failed) arc = MPI_ERR_NO_MEM;
    if (arc == MPI_SUCCESS)
        arc = MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, h->base);
    if (arc != MPI_SUCCESS) {
        free(leaders);
        free(order);
        free(starts);
        return arc;
    }
    /* group index of each leader (groups in leader order), contiguity:
       a rank either starts a group or continues the one before it */
    int *index = leaders + n, nnodes = 0, contiguous = 1, largest = 0;
    for (int r = 0; r < n; r++) {
        if (leaders[r] == r) index[r] = nnodes++;
        else if (r > 0 && leaders[r] != leaders[r - 1]) contiguous = 0;
    }
    int *cursor = starts + nnodes + 1;
    for (int r = 0; r < n; r++) starts[index[leaders[r]] + 1]++;
    for (int g = 0; g < nnodes; g++) {
        if (starts[g + 1] > largest) largest = starts[g + 1];
        starts[g + 1] += starts[g];
    }
    /* ranks group after group, in rank order within a group */
    for (int r = 0; r < n; r++) {
        int g = index[leaders[r]];
        order[starts[g] + cursor[g]++] = r;
    }
    h->node_index = index[leader];
    /* where each rank is in that order (leaders' memory, now free) */
    int *slot = malloc(sizeof(int) * (size_t)n);
    if (slot == NULL) rc = MPI_ERR_NO_MEM;
    for (int i = 0; slot != NULL && i < n; i++) slot[order[i]] = i;
    free(leaders);
    /* keep the starts only (the cursors and the bound of n groups go) */
    int *kept = realloc(starts, sizeof(int) * ((size_t)nnodes + 1));
    if (kept != NULL) starts = kept;
    /* the last process of every group, for the scans (every process
       knows the contiguity: all split, or none) */
    MPI_Comm lasts = MPI_COMM_NULL;
    int failed_slot = slot == NULL;
    rc = MPI_Allreduce(MPI_IN_PLACE, &failed_slot, 1, MPI_INT, MPI_MAX, h->base);
    if (rc == MPI_SUCCESS && failed_slot) rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && contiguous)
        rc = MPI_Comm_split(h->base, grank == gsize - 1 ? 0 : MPI_UNDEFINED, h->rank, &lasts);
    if (rc == MPI_SUCCESS) rc = hsplit_comm_made(lasts);
    if (rc != MPI_SUCCESS) {
        if (lasts != MPI_COMM_NULL) MPI_Comm_free(&lasts);
        free(slot);
        free(starts);
        free(order);
        return rc;
    }
    h->nnodes = nnodes;
    h->node_largest = largest;
    h->nodes_contiguous = contiguous;
    h->node_order = order;
    h->node_slot = slot;
    h->node_starts = starts;
    h->node_lasts = lasts;
    h->nodes_ready = 1;
    return MPI_SUCCESS;
}

void hsplit_node_layout_free(hsplit_hierarchy *h)
{
    if (!h->nodes_ready) return;
    if (h->node_lasts != MPI_COMM_NULL) MPI_Comm_free(&h->node_lasts);
    free(h->node_order);
    free(h->node_slot);
    free(h->node_starts);
    h->node_order = h->node_slot = h->node_starts = NULL;
    h->nodes_ready = 0;
}
