/* SPDX-License-Identifier: BSD-3-Clause */
/* C side of the hsplit_f08 collectives: Fortran buffers become C addresses
   (hsplit_f08_buffer.c: MPI_IN_PLACE, MPI_BOTTOM, contiguous copies), handles
   become C handles through MPI_*_f2c, then the C collective runs. A buffer the
   collective writes is copied back when it was copied in. */
#include "hsplit.h"
#include "hsplit_f08_glue.h"

/* Opens the send and the receive buffer of a collective; on failure raises
   the error on comm and leaves nothing open. */
static int open_pair(hsplit_f08_buffer *send, const CFI_cdesc_t *sendbuf,
                     hsplit_f08_buffer *recv, const CFI_cdesc_t *recvbuf, MPI_Comm comm,
                     const void *in_place, const void *bottom)
{
    int rc = hsplit_f08_buffer_open(send, sendbuf, in_place, bottom);
    if (rc == MPI_SUCCESS) {
        rc = hsplit_f08_buffer_open(recv, recvbuf, in_place, bottom);
        if (rc != MPI_SUCCESS)
            hsplit_f08_buffer_close(send, 0);
    }
    return rc == MPI_SUCCESS ? rc : hsplit_f08_raise(comm, rc);
}

static void close_pair(hsplit_f08_buffer *send, hsplit_f08_buffer *recv)
{
    hsplit_f08_buffer_close(send, 0);
    hsplit_f08_buffer_close(recv, 1);
}

int hsplit_f08_c_bcast(CFI_cdesc_t *buffer, int count, MPI_Fint datatype, int root,
                       MPI_Fint comm, const void *in_place, const void *bottom)
{
    MPI_Comm c_comm = MPI_Comm_f2c(comm);
    hsplit_f08_buffer buf;
    int rc = hsplit_f08_buffer_open(&buf, buffer, in_place, bottom);
    if (rc != MPI_SUCCESS)
        return hsplit_f08_raise(c_comm, rc);
    rc = HSPLIT_Bcast(buf.addr, count, MPI_Type_f2c(datatype), root, c_comm);
    hsplit_f08_buffer_close(&buf, 1);
    return rc;
}

int hsplit_f08_c_reduce(CFI_cdesc_t *sendbuf, CFI_cdesc_t *recvbuf, int count,
                        MPI_Fint datatype, MPI_Fint op, int root, MPI_Fint comm,
                        const void *in_place, const void *bottom)
{
    MPI_Comm c_comm = MPI_Comm_f2c(comm);
    hsplit_f08_buffer send, recv;
    int rc = open_pair(&send, sendbuf, &recv, recvbuf, c_comm, in_place, bottom);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = HSPLIT_Reduce(send.addr, recv.addr, count, MPI_Type_f2c(datatype), MPI_Op_f2c(op),
                       root, c_comm);
    close_pair(&send, &recv);
    return rc;
}

int hsplit_f08_c_allreduce(CFI_cdesc_t *sendbuf, CFI_cdesc_t *recvbuf, int count,
                           MPI_Fint datatype, MPI_Fint op, MPI_Fint comm,
                           const void *in_place, const void *bottom)
{
    MPI_Comm c_comm = MPI_Comm_f2c(comm);
    hsplit_f08_buffer send, recv;
    int rc = open_pair(&send, sendbuf, &recv, recvbuf, c_comm, in_place, bottom);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = HSPLIT_Allreduce(send.addr, recv.addr, count, MPI_Type_f2c(datatype),
                          MPI_Op_f2c(op), c_comm);
    close_pair(&send, &recv);
    return rc;
}

int hsplit_f08_c_gather(CFI_cdesc_t *sendbuf, int sendcount, MPI_Fint sendtype,
                        CFI_cdesc_t *recvbuf, int recvcount, MPI_Fint recvtype, int root,
                        MPI_Fint comm, const void *in_place, const void *bottom)
{
    MPI_Comm c_comm = MPI_Comm_f2c(comm);
    hsplit_f08_buffer send, recv;
    int rc = open_pair(&send, sendbuf, &recv, recvbuf, c_comm, in_place, bottom);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = HSPLIT_Gather(send.addr, sendcount, MPI_Type_f2c(sendtype), recv.addr, recvcount,
                       MPI_Type_f2c(recvtype), root, c_comm);
    close_pair(&send, &recv);
    return rc;
}

int hsplit_f08_c_scatter(CFI_cdesc_t *sendbuf, int sendcount, MPI_Fint sendtype,
                         CFI_cdesc_t *recvbuf, int recvcount, MPI_Fint recvtype, int root,
                         MPI_Fint comm, const void *in_place, const void *bottom)
{
    MPI_Comm c_comm = MPI_Comm_f2c(comm);
    hsplit_f08_buffer send, recv;
    int rc = open_pair(&send, sendbuf, &recv, recvbuf, c_comm, in_place, bottom);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = HSPLIT_Scatter(send.addr, sendcount, MPI_Type_f2c(sendtype), recv.addr, recvcount,
                        MPI_Type_f2c(recvtype), root, c_comm);
    close_pair(&send, &recv);
    return rc;
}

int hsplit_f08_c_allgather(CFI_cdesc_t *sendbuf, int sendcount, MPI_Fint sendtype,
                           CFI_cdesc_t *recvbuf, int recvcount, MPI_Fint recvtype,
                           MPI_Fint comm, const void *in_place, const void *bottom)
{
    MPI_Comm c_comm = MPI_Comm_f2c(comm);
    hsplit_f08_buffer send, recv;
    int rc = open_pair(&send, sendbuf, &recv, recvbuf, c_comm, in_place, bottom);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = HSPLIT_Allgather(send.addr, sendcount, MPI_Type_f2c(sendtype), recv.addr, recvcount,
                          MPI_Type_f2c(recvtype), c_comm);
    close_pair(&send, &recv);
    return rc;
}

int hsplit_f08_c_barrier(MPI_Fint comm)
{
    return HSPLIT_Barrier(MPI_Comm_f2c(comm));
}

int hsplit_f08_c_gatherv(CFI_cdesc_t *sendbuf, int sendcount, MPI_Fint sendtype,
                         CFI_cdesc_t *recvbuf, const int recvcounts[], const int displs[],
                         MPI_Fint recvtype, int root, MPI_Fint comm, const void *in_place,
                         const void *bottom)
{
    MPI_Comm c_comm = MPI_Comm_f2c(comm);
    hsplit_f08_buffer send, recv;
    int rc = open_pair(&send, sendbuf, &recv, recvbuf, c_comm, in_place, bottom);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = HSPLIT_Gatherv(send.addr, sendcount, MPI_Type_f2c(sendtype), recv.addr, recvcounts,
                        displs, MPI_Type_f2c(recvtype), root, c_comm);
    close_pair(&send, &recv);
    return rc;
}

int hsplit_f08_c_scatterv(CFI_cdesc_t *sendbuf, const int sendcounts[], const int displs[],
                          MPI_Fint sendtype, CFI_cdesc_t *recvbuf, int recvcount,
                          MPI_Fint recvtype, int root, MPI_Fint comm, const void *in_place,
                          const void *bottom)
{
    MPI_Comm c_comm = MPI_Comm_f2c(comm);
    hsplit_f08_buffer send, recv;
    int rc = open_pair(&send, sendbuf, &recv, recvbuf, c_comm, in_place, bottom);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = HSPLIT_Scatterv(send.addr, sendcounts, displs, MPI_Type_f2c(sendtype), recv.addr,
                         recvcount, MPI_Type_f2c(recvtype), root, c_comm);
    close_pair(&send, &recv);
    return rc;
}

int hsplit_f08_c_allgatherv(CFI_cdesc_t *sendbuf, int sendcount, MPI_Fint sendtype,
                            CFI_cdesc_t *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Fint recvtype, MPI_Fint comm, const void *in_place,
                            const void *bottom)
{
    MPI_Comm c_comm = MPI_Comm_f2c(comm);
    hsplit_f08_buffer send, recv;
    int rc = open_pair(&send, sendbuf, &recv, recvbuf, c_comm, in_place, bottom);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = HSPLIT_Allgatherv(send.addr, sendcount, MPI_Type_f2c(sendtype), recv.addr, recvcounts,
                           displs, MPI_Type_f2c(recvtype), c_comm);
    close_pair(&send, &recv);
    return rc;
}

int hsplit_f08_c_alltoall(CFI_cdesc_t *sendbuf, int sendcount, MPI_Fint sendtype,
                          CFI_cdesc_t *recvbuf, int recvcount, MPI_Fint recvtype, MPI_Fint comm,
                          const void *in_place, const void *bottom)
{
    MPI_Comm c_comm = MPI_Comm_f2c(comm);
    hsplit_f08_buffer send, recv;
    int rc = open_pair(&send, sendbuf, &recv, recvbuf, c_comm, in_place, bottom);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = HSPLIT_Alltoall(send.addr, sendcount, MPI_Type_f2c(sendtype), recv.addr, recvcount,
                         MPI_Type_f2c(recvtype), c_comm);
    close_pair(&send, &recv);
    return rc;
}

int hsplit_f08_c_alltoallv(CFI_cdesc_t *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Fint sendtype, CFI_cdesc_t *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Fint recvtype, MPI_Fint comm,
                           const void *in_place, const void *bottom)
{
    MPI_Comm c_comm = MPI_Comm_f2c(comm);
    hsplit_f08_buffer send, recv;
    int rc = open_pair(&send, sendbuf, &recv, recvbuf, c_comm, in_place, bottom);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = HSPLIT_Alltoallv(send.addr, sendcounts, sdispls, MPI_Type_f2c(sendtype), recv.addr,
                          recvcounts, rdispls, MPI_Type_f2c(recvtype), c_comm);
    close_pair(&send, &recv);
    return rc;
}

int hsplit_f08_c_reduce_scatter_block(CFI_cdesc_t *sendbuf, CFI_cdesc_t *recvbuf,
                                      int recvcount, MPI_Fint datatype, MPI_Fint op,
                                      MPI_Fint comm, const void *in_place, const void *bottom)
{
    MPI_Comm c_comm = MPI_Comm_f2c(comm);
    hsplit_f08_buffer send, recv;
    int rc = open_pair(&send, sendbuf, &recv, recvbuf, c_comm, in_place, bottom);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = HSPLIT_Reduce_scatter_block(send.addr, recv.addr, recvcount, MPI_Type_f2c(datatype),
                                     MPI_Op_f2c(op), c_comm);
    close_pair(&send, &recv);
    return rc;
}

int hsplit_f08_c_reduce_scatter(CFI_cdesc_t *sendbuf, CFI_cdesc_t *recvbuf,
                                const int recvcounts[], MPI_Fint datatype, MPI_Fint op,
                                MPI_Fint comm, const void *in_place, const void *bottom)
{
    MPI_Comm c_comm = MPI_Comm_f2c(comm);
    hsplit_f08_buffer send, recv;
    int rc = open_pair(&send, sendbuf, &recv, recvbuf, c_comm, in_place, bottom);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = HSPLIT_Reduce_scatter(send.addr, recv.addr, recvcounts, MPI_Type_f2c(datatype),
                               MPI_Op_f2c(op), c_comm);
    close_pair(&send, &recv);
    return rc;
}

int hsplit_f08_c_scan(CFI_cdesc_t *sendbuf, CFI_cdesc_t *recvbuf, int count, MPI_Fint datatype,
                      MPI_Fint op, MPI_Fint comm, const void *in_place, const void *bottom)
{
    MPI_Comm c_comm = MPI_Comm_f2c(comm);
    hsplit_f08_buffer send, recv;
    int rc = open_pair(&send, sendbuf, &recv, recvbuf, c_comm, in_place, bottom);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = HSPLIT_Scan(send.addr, recv.addr, count, MPI_Type_f2c(datatype), MPI_Op_f2c(op),
                     c_comm);
    close_pair(&send, &recv);
    return rc;
}

int hsplit_f08_c_exscan(CFI_cdesc_t *sendbuf, CFI_cdesc_t *recvbuf, int count,
                        MPI_Fint datatype, MPI_Fint op, MPI_Fint comm, const void *in_place,
                        const void *bottom)
{
    MPI_Comm c_comm = MPI_Comm_f2c(comm);
    hsplit_f08_buffer send, recv;
    int rc = open_pair(&send, sendbuf, &recv, recvbuf, c_comm, in_place, bottom);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = HSPLIT_Exscan(send.addr, recv.addr, count, MPI_Type_f2c(datatype), MPI_Op_f2c(op),
                       c_comm);
    close_pair(&send, &recv);
    return rc;
}
