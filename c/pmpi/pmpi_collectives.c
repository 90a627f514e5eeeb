/* SPDX-License-Identifier: BSD-3-Clause */
/* The C entry points of the collectives hsplit implements: each calls the
   HSPLIT_ function (auto mode, HSPLIT_COLL* and the communicator's hints
   decide as for a direct call), or the MPI's own PMPI_ function when
   HSPLIT_PMPI=off. With the report on, each call is timed and counted. */
#include "pmpi_internal.h"
#include "hsplit_internal.h"

/* One intercepted call: plain_call with interception off, MPI_ERR_ARG on
   comm when a variable is malformed, else hsplit_call; bytes (what this
   process gives to the call) is evaluated only for the report, after a
   successful call (comm is then valid). */
#define ROUTE(row, comm, bytes, plain_call, hsplit_call)                                  \
    do {                                                                                  \
        const hsplit_pmpi_settings *s_ = hsplit_pmpi_get_settings();                      \
        if (!s_->enabled) return plain_call;                                              \
        if (s_->bad) return hsplit_raise_code((comm), MPI_ERR_ARG);                       \
        if (!s_->report) return hsplit_call;                                              \
        hsplit_pmpi_probe p_;                                                             \
        hsplit_pmpi_begin((comm), &p_);                                                   \
        int rc_ = hsplit_call;                                                            \
        hsplit_pmpi_end((row), (comm), &p_, rc_ == MPI_SUCCESS ? (bytes) : 0);            \
        return rc_;                                                                       \
    } while (0)

static int rank_of(MPI_Comm comm)
{
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    return rank;
}

static int size_of(MPI_Comm comm)
{
    int size = 1;
    PMPI_Comm_size(comm, &size);
    return size;
}

/* Bytes of counts[rank] elements (counts may be NULL where MPI does not
   read it). */
static uint64_t own_block(const int *counts, MPI_Comm comm, MPI_Datatype datatype)
{
    return counts != NULL ? hsplit_pmpi_bytes(counts[rank_of(comm)], datatype) : 0;
}

/* Bytes of all blocks of a count vector of the communicator's size. */
static uint64_t all_blocks(const int *counts, MPI_Comm comm, MPI_Datatype datatype)
{
    int64_t total = 0;
    for (int i = 0, n = size_of(comm); counts != NULL && i < n; i++)
        total += counts[i] > 0 ? counts[i] : 0;
    return hsplit_pmpi_bytes(total, datatype);
}

HSPLIT_PMPI_EXPORT int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
                                 MPI_Comm comm)
{
    ROUTE(HSPLIT_PMPI_BCAST, comm, hsplit_pmpi_bytes(count, datatype),
          PMPI_Bcast(buffer, count, datatype, root, comm),
          HSPLIT_Bcast(buffer, count, datatype, root, comm));
}

HSPLIT_PMPI_EXPORT int MPI_Reduce(const void *sendbuf, void *recvbuf, int count,
                                  MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
    ROUTE(HSPLIT_PMPI_REDUCE, comm, hsplit_pmpi_bytes(count, datatype),
          PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm),
          HSPLIT_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm));
}

HSPLIT_PMPI_EXPORT int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    ROUTE(HSPLIT_PMPI_ALLREDUCE, comm, hsplit_pmpi_bytes(count, datatype),
          PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm),
          HSPLIT_Allreduce(sendbuf, recvbuf, count, datatype, op, comm));
}

HSPLIT_PMPI_EXPORT int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                  MPI_Comm comm)
{
    ROUTE(HSPLIT_PMPI_GATHER, comm,
          sendbuf == MPI_IN_PLACE ? hsplit_pmpi_bytes(recvcount, recvtype)
                                  : hsplit_pmpi_bytes(sendcount, sendtype),
          PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
          HSPLIT_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm));
}

HSPLIT_PMPI_EXPORT int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                   MPI_Comm comm)
{
    ROUTE(HSPLIT_PMPI_SCATTER, comm,
          recvbuf == MPI_IN_PLACE ? hsplit_pmpi_bytes(sendcount, sendtype)
                                  : hsplit_pmpi_bytes(recvcount, recvtype),
          PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
          HSPLIT_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm));
}

HSPLIT_PMPI_EXPORT int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                     void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                     MPI_Comm comm)
{
    ROUTE(HSPLIT_PMPI_ALLGATHER, comm,
          sendbuf == MPI_IN_PLACE ? hsplit_pmpi_bytes(recvcount, recvtype)
                                  : hsplit_pmpi_bytes(sendcount, sendtype),
          PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
          HSPLIT_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
}

HSPLIT_PMPI_EXPORT int MPI_Barrier(MPI_Comm comm)
{
    ROUTE(HSPLIT_PMPI_BARRIER, comm, 0, PMPI_Barrier(comm), HSPLIT_Barrier(comm));
}

HSPLIT_PMPI_EXPORT int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, const int recvcounts[], const int displs[],
                                   MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    ROUTE(HSPLIT_PMPI_GATHERV, comm,
          sendbuf == MPI_IN_PLACE ? own_block(recvcounts, comm, recvtype)
                                  : hsplit_pmpi_bytes(sendcount, sendtype),
          PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                       comm),
          HSPLIT_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                         root, comm));
}

HSPLIT_PMPI_EXPORT int MPI_Scatterv(const void *sendbuf, const int sendcounts[],
                                    const int displs[], MPI_Datatype sendtype, void *recvbuf,
                                    int recvcount, MPI_Datatype recvtype, int root,
                                    MPI_Comm comm)
{
    ROUTE(HSPLIT_PMPI_SCATTERV, comm,
          recvbuf == MPI_IN_PLACE ? own_block(sendcounts, comm, sendtype)
                                  : hsplit_pmpi_bytes(recvcount, recvtype),
          PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                        root, comm),
          HSPLIT_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                          root, comm));
}

HSPLIT_PMPI_EXPORT int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                      void *recvbuf, const int recvcounts[], const int displs[],
                                      MPI_Datatype recvtype, MPI_Comm comm)
{
    ROUTE(HSPLIT_PMPI_ALLGATHERV, comm,
          sendbuf == MPI_IN_PLACE ? own_block(recvcounts, comm, recvtype)
                                  : hsplit_pmpi_bytes(sendcount, sendtype),
          PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                          comm),
          HSPLIT_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                            comm));
}

HSPLIT_PMPI_EXPORT int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                    MPI_Comm comm)
{
    ROUTE(HSPLIT_PMPI_ALLTOALL, comm,
          sendbuf == MPI_IN_PLACE
              ? hsplit_pmpi_bytes((int64_t)recvcount * size_of(comm), recvtype)
              : hsplit_pmpi_bytes((int64_t)sendcount * size_of(comm), sendtype),
          PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
          HSPLIT_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
}

HSPLIT_PMPI_EXPORT int MPI_Alltoallv(const void *sendbuf, const int sendcounts[],
                                     const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                     const int recvcounts[], const int rdispls[],
                                     MPI_Datatype recvtype, MPI_Comm comm)
{
    ROUTE(HSPLIT_PMPI_ALLTOALLV, comm,
          sendbuf == MPI_IN_PLACE ? all_blocks(recvcounts, comm, recvtype)
                                  : all_blocks(sendcounts, comm, sendtype),
          PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                         recvtype, comm),
          HSPLIT_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                           recvtype, comm));
}

HSPLIT_PMPI_EXPORT int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf,
                                                int recvcount, MPI_Datatype datatype, MPI_Op op,
                                                MPI_Comm comm)
{
    ROUTE(HSPLIT_PMPI_REDUCE_SCATTER_BLOCK, comm,
          hsplit_pmpi_bytes((int64_t)recvcount * size_of(comm), datatype),
          PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm),
          HSPLIT_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm));
}

HSPLIT_PMPI_EXPORT int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf,
                                          const int recvcounts[], MPI_Datatype datatype,
                                          MPI_Op op, MPI_Comm comm)
{
    ROUTE(HSPLIT_PMPI_REDUCE_SCATTER, comm, all_blocks(recvcounts, comm, datatype),
          PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm),
          HSPLIT_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm));
}

HSPLIT_PMPI_EXPORT int MPI_Scan(const void *sendbuf, void *recvbuf, int count,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    ROUTE(HSPLIT_PMPI_SCAN, comm, hsplit_pmpi_bytes(count, datatype),
          PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm),
          HSPLIT_Scan(sendbuf, recvbuf, count, datatype, op, comm));
}

HSPLIT_PMPI_EXPORT int MPI_Exscan(const void *sendbuf, void *recvbuf, int count,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    ROUTE(HSPLIT_PMPI_EXSCAN, comm, hsplit_pmpi_bytes(count, datatype),
          PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm),
          HSPLIT_Exscan(sendbuf, recvbuf, count, datatype, op, comm));
}
