/* HSPLIT_Bcast: the root's node leader gets the data (one intra-node message
   when the root is not the leader), then it flows down the levels. */
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

int HSPLIT_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    int type_size;
    int rc = MPI_Type_size(datatype, &type_size);
    hsplit_hierarchy *h = NULL;
    if (rc == MPI_SUCCESS)
        rc = hsplit_coll_begin(comm, (long)count * type_size, root, &h);
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    if (h == NULL) return MPI_Bcast(buffer, count, datatype, root, comm);
    if (count == 0) return MPI_SUCCESS;
    rc = lift(h, buffer, count, datatype, root);
    if (rc == MPI_SUCCESS) rc = hsplit_tree_bcast(h, buffer, count, datatype, root, 0);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : hsplit_raise_code(comm, rc);
}
