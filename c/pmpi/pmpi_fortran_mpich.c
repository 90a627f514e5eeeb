/* SPDX-License-Identifier: BSD-3-Clause */
/* MPICH's `use mpi_f08` entry points that bypass the C MPI_ functions.
   MPICH 4.0's mpif.h and `use mpi` names, and its mpi_f08 routines with a
   buffer (mpi_bcast_f08ts_...), call the C MPI_X through the PLT: the C
   wrappers take them. But its mpi_f08 routines without a buffer are
   Fortran code bound to the PMPI_ names: mpi_barrier_f08_ calls
   PMPI_Barrier, mpi_comm_split_type_f08_ PMPI_Comm_split_type and
   mpi_finalize_f08_ PMPI_Finalize (so no report either). The library
   defines those three (gfortran's names, Debian's MPICH build); each
   converts the arguments and calls the library's own C MPI_X. */
#include "pmpi_internal.h"

#if defined(MPICH) && !defined(OPEN_MPI)

#include <stddef.h>

/* type(MPI_Comm) and type(MPI_Info) arrive by reference (a derived type
   holding the integer MPI_VAL); the optional ierror is NULL when absent
   (gfortran's convention for an absent optional argument). */
static void set_ierror(MPI_Fint *ierror, int rc)
{
    if (ierror != NULL) *ierror = (MPI_Fint)rc;
}

HSPLIT_PMPI_EXPORT void mpi_barrier_f08_(const MPI_Fint *comm, MPI_Fint *ierror)
{
    set_ierror(ierror, MPI_Barrier(PMPI_Comm_f2c(*comm)));
}

HSPLIT_PMPI_EXPORT void mpi_comm_split_type_f08_(const MPI_Fint *comm, const MPI_Fint *split_type,
                                                 const MPI_Fint *key, const MPI_Fint *info,
                                                 MPI_Fint *newcomm, MPI_Fint *ierror)
{
    MPI_Comm c_newcomm = MPI_COMM_NULL;
    int rc = MPI_Comm_split_type(PMPI_Comm_f2c(*comm), *split_type, *key,
                                 PMPI_Info_f2c(*info), &c_newcomm);
    set_ierror(ierror, rc);
    if (rc == MPI_SUCCESS) *newcomm = PMPI_Comm_c2f(c_newcomm);
}

/* The report is printed by MPI_Finalize: an mpi_f08 program's too. */
HSPLIT_PMPI_EXPORT void mpi_finalize_f08_(MPI_Fint *ierror)
{
    set_ierror(ierror, MPI_Finalize());
}

#else
/* Not MPICH: nothing here (ISO C wants a declaration in every file). */
typedef int hsplit_pmpi_fortran_mpich_unused;
#endif
