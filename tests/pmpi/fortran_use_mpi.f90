! SPDX-License-Identifier: BSD-3-Clause
! An unmodified `use mpi` program: its MPI_ collectives reach
! libhsplit_pmpi when the library is preloaded (the checks:
! fortran_checks.inc).
program fortran_use_mpi
  use mpi
  implicit none
  integer :: shared, bottom_type
  include 'fortran_checks.inc'
end program fortran_use_mpi
