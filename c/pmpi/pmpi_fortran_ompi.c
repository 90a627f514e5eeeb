/* SPDX-License-Identifier: BSD-3-Clause */
/* Open MPI's Fortran entry points. Open MPI 4.1's mpif.h and `use mpi`
   names (mpi_bcast, mpi_bcast_, mpi_bcast__, MPI_BCAST) are aliases of
   ompi_bcast_f in libmpi_mpifh, which calls PMPI_Bcast itself: the C
   wrappers never see those calls. `use mpi_f08` (libmpi_usempif08) calls
   ompi_bcast_f. So the library defines ompi_X_f and the four mpif.h names
   for every function it intercepts; each converts the Fortran arguments
   and calls the library's own C MPI_X, which decides (HSPLIT_PMPI, the
   report, auto mode) as for a C program. The profiling names (pmpi_bcast_,
   PMPI_BCAST...) are left to Open MPI: they are how tools reach the MPI. */
#include "pmpi_internal.h"

#ifdef OPEN_MPI

#include <stddef.h>

/* Count and displacement arrays go to C as they are (Open MPI converts
   them only when MPI_Fint is wider than int, e.g. -fdefault-integer-8). */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "hsplit_pmpi: MPI_Fint must be a C int");

/* Fortran's MPI_BOTTOM and MPI_IN_PLACE are the addresses of Open MPI's
   common blocks; Open MPI's header declares them with the compiler's
   mangling (gfortran: one underscore, the only spelling libmpi defines). */
#if defined(__has_include)
#if __has_include(<mpif-c-constants-decl.h>)
#include <mpif-c-constants-decl.h>
#define HSPLIT_HAVE_OMPI_FORTRAN_CONSTANTS 1
#endif
#endif
#ifndef HSPLIT_HAVE_OMPI_FORTRAN_CONSTANTS
extern int mpi_fortran_bottom_;
extern int mpi_fortran_in_place_;
#endif

/* A receive buffer (or bcast's): MPI_BOTTOM is the only sentinel. */
static void *buffer_f2c(void *buf)
{
    return buf == (void *)&mpi_fortran_bottom_ ? MPI_BOTTOM : buf;
}

/* A buffer that may also be MPI_IN_PLACE (the send side; scatter's
   receive side). */
static void *in_place_f2c(void *buf)
{
    return buf == (void *)&mpi_fortran_in_place_ ? MPI_IN_PLACE : buffer_f2c(buf);
}

/* Open MPI's bindings accept a NULL ierr (its mpi_f08 layer always passes
   one; a C caller of the mpif.h symbols may not): so do these. */
static void set_ierr(MPI_Fint *ierr, int rc)
{
    if (ierr != NULL) *ierr = (MPI_Fint)rc;
}

#define COMM(f) PMPI_Comm_f2c(*(f))
#define TYPE(f) PMPI_Type_f2c(*(f))
#define OP(f) PMPI_Op_f2c(*(f))

/* The four mpif.h names of impl, as aliases (the same code, no extra
   call). */
#define ALIAS(impl, name) \
    HSPLIT_PMPI_EXPORT extern __typeof__(impl) name __attribute__((alias(#impl)))
#define MPIF_NAMES(impl, lower, upper)                                              \
    ALIAS(impl, lower); ALIAS(impl, lower##_); ALIAS(impl, lower##__); ALIAS(impl, upper)

typedef MPI_Fint F; /* the Fortran integer, for short signatures */

HSPLIT_PMPI_EXPORT void ompi_bcast_f(char *buffer, F *count, F *datatype, F *root, F *comm,
                                     F *ierr)
{
    set_ierr(ierr, MPI_Bcast(buffer_f2c(buffer), *count, TYPE(datatype), *root, COMM(comm)));
}
MPIF_NAMES(ompi_bcast_f, mpi_bcast, MPI_BCAST);

HSPLIT_PMPI_EXPORT void ompi_reduce_f(char *sendbuf, char *recvbuf, F *count, F *datatype, F *op,
                                      F *root, F *comm, F *ierr)
{
    set_ierr(ierr, MPI_Reduce(in_place_f2c(sendbuf), buffer_f2c(recvbuf), *count,
                              TYPE(datatype), OP(op), *root, COMM(comm)));
}
MPIF_NAMES(ompi_reduce_f, mpi_reduce, MPI_REDUCE);

HSPLIT_PMPI_EXPORT void ompi_allreduce_f(char *sendbuf, char *recvbuf, F *count, F *datatype,
                                         F *op, F *comm, F *ierr)
{
    set_ierr(ierr, MPI_Allreduce(in_place_f2c(sendbuf), buffer_f2c(recvbuf), *count,
                                 TYPE(datatype), OP(op), COMM(comm)));
}
MPIF_NAMES(ompi_allreduce_f, mpi_allreduce, MPI_ALLREDUCE);

HSPLIT_PMPI_EXPORT void ompi_gather_f(char *sendbuf, F *sendcount, F *sendtype, char *recvbuf,
                                      F *recvcount, F *recvtype, F *root, F *comm, F *ierr)
{
    set_ierr(ierr, MPI_Gather(in_place_f2c(sendbuf), *sendcount, TYPE(sendtype),
                              buffer_f2c(recvbuf), *recvcount, TYPE(recvtype), *root,
                              COMM(comm)));
}
MPIF_NAMES(ompi_gather_f, mpi_gather, MPI_GATHER);

HSPLIT_PMPI_EXPORT void ompi_scatter_f(char *sendbuf, F *sendcount, F *sendtype, char *recvbuf,
                                       F *recvcount, F *recvtype, F *root, F *comm, F *ierr)
{
    set_ierr(ierr, MPI_Scatter(buffer_f2c(sendbuf), *sendcount, TYPE(sendtype),
                               in_place_f2c(recvbuf), *recvcount, TYPE(recvtype), *root,
                               COMM(comm)));
}
MPIF_NAMES(ompi_scatter_f, mpi_scatter, MPI_SCATTER);

HSPLIT_PMPI_EXPORT void ompi_allgather_f(char *sendbuf, F *sendcount, F *sendtype, char *recvbuf,
                                         F *recvcount, F *recvtype, F *comm, F *ierr)
{
    set_ierr(ierr, MPI_Allgather(in_place_f2c(sendbuf), *sendcount, TYPE(sendtype),
                                 buffer_f2c(recvbuf), *recvcount, TYPE(recvtype), COMM(comm)));
}
MPIF_NAMES(ompi_allgather_f, mpi_allgather, MPI_ALLGATHER);

HSPLIT_PMPI_EXPORT void ompi_barrier_f(F *comm, F *ierr)
{
    set_ierr(ierr, MPI_Barrier(COMM(comm)));
}
MPIF_NAMES(ompi_barrier_f, mpi_barrier, MPI_BARRIER);

HSPLIT_PMPI_EXPORT void ompi_gatherv_f(char *sendbuf, F *sendcount, F *sendtype, char *recvbuf,
                                       F *recvcounts, F *displs, F *recvtype, F *root, F *comm,
                                       F *ierr)
{
    set_ierr(ierr, MPI_Gatherv(in_place_f2c(sendbuf), *sendcount, TYPE(sendtype),
                               buffer_f2c(recvbuf), recvcounts, displs, TYPE(recvtype), *root,
                               COMM(comm)));
}
MPIF_NAMES(ompi_gatherv_f, mpi_gatherv, MPI_GATHERV);

HSPLIT_PMPI_EXPORT void ompi_scatterv_f(char *sendbuf, F *sendcounts, F *displs, F *sendtype,
                                        char *recvbuf, F *recvcount, F *recvtype, F *root,
                                        F *comm, F *ierr)
{
    set_ierr(ierr, MPI_Scatterv(buffer_f2c(sendbuf), sendcounts, displs, TYPE(sendtype),
                                in_place_f2c(recvbuf), *recvcount, TYPE(recvtype), *root,
                                COMM(comm)));
}
MPIF_NAMES(ompi_scatterv_f, mpi_scatterv, MPI_SCATTERV);

HSPLIT_PMPI_EXPORT void ompi_allgatherv_f(char *sendbuf, F *sendcount, F *sendtype,
                                          char *recvbuf, F *recvcounts, F *displs, F *recvtype,
                                          F *comm, F *ierr)
{
    set_ierr(ierr, MPI_Allgatherv(in_place_f2c(sendbuf), *sendcount, TYPE(sendtype),
                                  buffer_f2c(recvbuf), recvcounts, displs, TYPE(recvtype),
                                  COMM(comm)));
}
MPIF_NAMES(ompi_allgatherv_f, mpi_allgatherv, MPI_ALLGATHERV);

HSPLIT_PMPI_EXPORT void ompi_alltoall_f(char *sendbuf, F *sendcount, F *sendtype, char *recvbuf,
                                        F *recvcount, F *recvtype, F *comm, F *ierr)
{
    set_ierr(ierr, MPI_Alltoall(in_place_f2c(sendbuf), *sendcount, TYPE(sendtype),
                                buffer_f2c(recvbuf), *recvcount, TYPE(recvtype), COMM(comm)));
}
MPIF_NAMES(ompi_alltoall_f, mpi_alltoall, MPI_ALLTOALL);

HSPLIT_PMPI_EXPORT void ompi_alltoallv_f(char *sendbuf, F *sendcounts, F *sdispls, F *sendtype,
                                         char *recvbuf, F *recvcounts, F *rdispls, F *recvtype,
                                         F *comm, F *ierr)
{
    set_ierr(ierr, MPI_Alltoallv(in_place_f2c(sendbuf), sendcounts, sdispls, TYPE(sendtype),
                                 buffer_f2c(recvbuf), recvcounts, rdispls, TYPE(recvtype),
                                 COMM(comm)));
}
MPIF_NAMES(ompi_alltoallv_f, mpi_alltoallv, MPI_ALLTOALLV);

HSPLIT_PMPI_EXPORT void ompi_reduce_scatter_block_f(char *sendbuf, char *recvbuf, F *recvcount,
                                                    F *datatype, F *op, F *comm, F *ierr)
{
    set_ierr(ierr, MPI_Reduce_scatter_block(in_place_f2c(sendbuf), buffer_f2c(recvbuf),
                                            *recvcount, TYPE(datatype), OP(op), COMM(comm)));
}
MPIF_NAMES(ompi_reduce_scatter_block_f, mpi_reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK);

HSPLIT_PMPI_EXPORT void ompi_reduce_scatter_f(char *sendbuf, char *recvbuf, F *recvcounts,
                                              F *datatype, F *op, F *comm, F *ierr)
{
    set_ierr(ierr, MPI_Reduce_scatter(in_place_f2c(sendbuf), buffer_f2c(recvbuf), recvcounts,
                                      TYPE(datatype), OP(op), COMM(comm)));
}
MPIF_NAMES(ompi_reduce_scatter_f, mpi_reduce_scatter, MPI_REDUCE_SCATTER);

HSPLIT_PMPI_EXPORT void ompi_scan_f(char *sendbuf, char *recvbuf, F *count, F *datatype, F *op,
                                    F *comm, F *ierr)
{
    set_ierr(ierr, MPI_Scan(in_place_f2c(sendbuf), buffer_f2c(recvbuf), *count, TYPE(datatype),
                            OP(op), COMM(comm)));
}
MPIF_NAMES(ompi_scan_f, mpi_scan, MPI_SCAN);

HSPLIT_PMPI_EXPORT void ompi_exscan_f(char *sendbuf, char *recvbuf, F *count, F *datatype, F *op,
                                      F *comm, F *ierr)
{
    set_ierr(ierr, MPI_Exscan(in_place_f2c(sendbuf), buffer_f2c(recvbuf), *count,
                              TYPE(datatype), OP(op), COMM(comm)));
}
MPIF_NAMES(ompi_exscan_f, mpi_exscan, MPI_EXSCAN);

HSPLIT_PMPI_EXPORT void ompi_comm_split_type_f(F *comm, F *split_type, F *key, F *info,
                                               F *newcomm, F *ierr)
{
    MPI_Comm c_newcomm = MPI_COMM_NULL;
    int rc = MPI_Comm_split_type(COMM(comm), *split_type, *key, PMPI_Info_f2c(*info),
                                 &c_newcomm);
    set_ierr(ierr, rc);
    /* newcomm is left as it was on an error, as Open MPI does */
    if (rc == MPI_SUCCESS) *newcomm = PMPI_Comm_c2f(c_newcomm);
}
MPIF_NAMES(ompi_comm_split_type_f, mpi_comm_split_type, MPI_COMM_SPLIT_TYPE);

/* The report is printed by MPI_Finalize: a Fortran program's too. */
HSPLIT_PMPI_EXPORT void ompi_finalize_f(F *ierr)
{
    set_ierr(ierr, MPI_Finalize());
}
MPIF_NAMES(ompi_finalize_f, mpi_finalize, MPI_FINALIZE);

#else
/* Not Open MPI: nothing here (ISO C wants a declaration in every file). */
typedef int hsplit_pmpi_fortran_ompi_unused;
#endif
