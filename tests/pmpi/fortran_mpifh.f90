! SPDX-License-Identifier: BSD-3-Clause
! An unmodified mpif.h program: its MPI_ collectives reach libhsplit_pmpi
! when the library is preloaded (the checks: fortran_checks.inc).
program fortran_mpifh
  implicit none
  include 'mpif.h'
  integer :: shared, bottom_type
  include 'fortran_checks.inc'
end program fortran_mpifh
