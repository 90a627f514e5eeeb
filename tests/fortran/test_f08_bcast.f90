! SPDX-License-Identifier: BSD-3-Clause
! HSPLIT_Bcast from Fortran on 8 processes, 2 emulated nodes of the figure-1
! machine: every root, scalars and arrays of rank 1 to 3, REAL(8) and INTEGER,
! with and without ierror. Expected values: value(root, i) = 1000*root + i.
program test_f08_bcast
  use mpi_f08
  use hsplit_f08
  use test_util_f08
  implicit none
  integer :: rank, nprocs, root, i, ierror, scalar
  real(8) :: a1(10), a3(2, 3, 4)
  integer :: expected1(10), expected3(2, 3, 4)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  expected1 = [(i, i = 1, 10)]
  expected3 = reshape([(i, i = 1, 24)], [2, 3, 4])
  do root = 0, nprocs - 1
    scalar = -1
    if (rank == root) scalar = 1000 * root + 7
    call HSPLIT_Bcast(scalar, 1, MPI_INTEGER, root, MPI_COMM_WORLD, ierror)
    call check_int(ierror, MPI_SUCCESS, 'bcast scalar ierror')
    call check_int(scalar, 1000 * root + 7, 'bcast scalar')

    a1 = -1
    if (rank == root) a1 = 1000 * root + expected1
    call HSPLIT_Bcast(a1, size(a1), MPI_DOUBLE_PRECISION, root, MPI_COMM_WORLD)
    call check(all(a1 == 1000 * root + expected1), 'bcast rank-1 real(8)')

    a3 = -1
    if (rank == root) a3 = 1000 * root + expected3
    call HSPLIT_Bcast(a3, size(a3), MPI_DOUBLE_PRECISION, root, MPI_COMM_WORLD, ierror)
    call check_int(ierror, MPI_SUCCESS, 'bcast rank-3 ierror')
    call check(all(a3 == 1000 * root + expected3), 'bcast rank-3 real(8)')
  end do
  call test_finish()
end program
