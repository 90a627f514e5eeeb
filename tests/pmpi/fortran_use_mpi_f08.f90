! SPDX-License-Identifier: BSD-3-Clause
! An unmodified `use mpi_f08` program: its MPI_ collectives reach
! libhsplit_pmpi when the library is preloaded (the checks:
! fortran_checks.inc).
program fortran_use_mpi_f08
  use mpi_f08
  implicit none
  type(MPI_Comm) :: shared
  type(MPI_Datatype) :: bottom_type
  include 'fortran_checks.inc'
end program fortran_use_mpi_f08
