/* HSPLIT_Bcast: the root's node leader gets the data (one intra-node message
   when the root is not the leader), then it flows down the levels. */
#include <stdlib.h>
#include "hsplit_internal.h"

/* Bring the root's data to the top holder of the tree. */
static int lift(const hsplit_hierarchy *h, void *buffer, int count, MPI_Datatype datatype,
                int root)
{
    int holder = hsplit_is_top_holder(h, root);
    if (h->rank == root && !holder)
        return MPI_Send(buffer, count, datatype, h->node_leader, HSPLIT_TAG_LIFT, h->base);
    if (holder && h->rank != root)
        return MPI_Recv(buffer, count, datatype, root, HSPLIT_TAG_LIFT, h->base,
                        MPI_STATUS_IGNORE);
    return MPI_SUCCESS;
}

static int is_contiguous(MPI_Datatype datatype)
{
    int size;
    MPI_Aint lb, extent, true_lb, true_extent;
    MPI_Type_size(datatype, &size);
    MPI_Type_get_extent(datatype, &lb, &extent);
    MPI_Type_get_true_extent(datatype, &true_lb, &true_extent);
    return size == extent && size == true_extent && lb == 0 && true_lb == 0;
}

/* The hierarchical schedule; bytes > 0. */
static int bcast_tree(const hsplit_hierarchy *h, void *buffer, int count, MPI_Datatype datatype,
                      int root, long bytes)
{
    int rc = lift(h, buffer, count, datatype, root);
    /* The tree moves bytes: processes may describe the same data with
       different datatypes (equal signatures), so segments must be cut in
       bytes, which only a contiguous layout (or a packed copy) allows. */
    if (is_contiguous(datatype))
        return rc == MPI_SUCCESS ? hsplit_tree_bcast(h, buffer, (int)bytes, MPI_BYTE, root, 0) : rc;
    char *packed = malloc((size_t)bytes);
    int holder = hsplit_is_top_holder(h, root), pos = 0;
    if (packed == NULL) rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && holder)
        rc = hsplit_pack(buffer, count, datatype, packed, (int)bytes, &pos, h->base);
    if (rc == MPI_SUCCESS) rc = hsplit_tree_bcast(h, packed, (int)bytes, MPI_BYTE, root, 0);
    pos = 0;
    if (rc == MPI_SUCCESS && !holder && h->rank != root)
        rc = hsplit_unpack(packed, (int)bytes, &pos, buffer, count, datatype, h->base);
    free(packed);
    return rc;
}

int HSPLIT_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    int type_size;
    int rc = MPI_Type_size(datatype, &type_size);
    long bytes = (long)count * type_size;
    hsplit_hierarchy *h = NULL;
    if (rc == MPI_SUCCESS) rc = hsplit_coll_begin(comm, bytes, root, &h);
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    if (h != NULL && (bytes == 0 || bytes > 0x7fffffffL)) h = NULL;
    hsplit_coll_trial trial;
    hsplit_coll_choose(&h, HSPLIT_COLL_BCAST, bytes, &trial);
    rc = h != NULL ? bcast_tree(h, buffer, count, datatype, root, bytes)
                   : MPI_Bcast(buffer, count, datatype, root, comm);
    return hsplit_coll_finish(comm, h, &trial, rc);
}
