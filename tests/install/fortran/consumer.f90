! SPDX-License-Identifier: BSD-3-Clause
! Splits MPI_COMM_WORLD once on the paper's 2-node emulated cluster, checks
! the first level (one Machine communicator per node) and broadcasts over it.
program consumer_f08
  use mpi_f08
  use hsplit_f08
  implicit none
  type(MPI_Comm) :: node, roots
  integer :: num, index, resultlen, rank, size, value, ierror
  character(len=HSPLIT_MAX_HLEVEL_NAME) :: type
  logical :: ok
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call HSPLIT_Comm_hsplit_with_roots(MPI_COMM_WORLD, MPI_INFO_NULL, node, roots)
  call HSPLIT_Comm_get_hlevel_info(node, num, index, type, resultlen, ierror)
  call MPI_Comm_size(node, size)
  value = rank
  call HSPLIT_Bcast(value, 1, MPI_INTEGER, 0, node)
  ok = ierror == MPI_SUCCESS .and. type == 'Machine' .and. num == 2 .and. &
       index == rank / 2 .and. size == 2 .and. value == rank - mod(rank, 2)
  write (*, '("rank ", i0, ": ", a, " ", i0, "/", i0, " size ", i0, ": ", a)') &
    rank, trim(type), index, num, size, merge('ok   ', 'WRONG', ok)
  call MPI_Comm_free(node)
  if (roots /= MPI_COMM_NULL) call MPI_Comm_free(roots)
  call MPI_Finalize()
  if (.not. ok) error stop 1
end program
