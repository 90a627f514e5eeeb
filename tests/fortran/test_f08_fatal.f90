! SPDX-License-Identifier: BSD-3-Clause
! With the default error handler (MPI_ERRORS_ARE_FATAL) and ierror absent, an
! error ends the program with the library's message, as in mpi_f08: the call
! must not return. CTest passes the test when the message is printed and
! fails it when "returned after the error" is.
program test_f08_fatal
  use mpi_f08
  use hsplit_f08
  implicit none
  integer :: num, idx, resultlen
  character(len=HSPLIT_MAX_HLEVEL_NAME) :: type
  call MPI_Init()
  ! MPI_COMM_WORLD was not made by a split: HSPLIT_ERR_NOT_HLEVEL
  call HSPLIT_Comm_get_hlevel_info(MPI_COMM_WORLD, num, idx, type, resultlen)
  write (*, '(a)') 'returned after the error'
  call MPI_Finalize()
end program
