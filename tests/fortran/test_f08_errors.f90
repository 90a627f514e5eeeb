! SPDX-License-Identifier: BSD-3-Clause
! Errors from Fortran: bad input gets an ierror of the right MPI class, and
! the error handler of the communicator runs once per error whether ierror
! is present or not (as in mpi_f08). 4 processes on 2 emulated nodes of the
! figure-1 machine (HSPLIT_NODES=2); MPI_COMM_WORLD's handler is a Fortran
! procedure that counts its calls and returns (like MPI_ERRORS_RETURN).
module errors_handler
  use mpi_f08
  implicit none
  integer :: calls = 0, last_code = MPI_SUCCESS, expected_calls = 0
  type(MPI_Comm) :: last_comm
contains
  subroutine counting_handler(comm, error_code)
    type(MPI_Comm) :: comm
    integer :: error_code
    calls = calls + 1
    last_code = error_code
    last_comm = comm
  end subroutine
end module errors_handler

program test_f08_errors
  use mpi_f08
  use hsplit_f08
  use test_util_f08
  use errors_handler
  implicit none
  type(MPI_Errhandler) :: handler
  type(MPI_Comm) :: out, roots, comms(4), rcomms(4), node
  integer :: x, n, num, idx, resultlen, nlevels, cls, ierror, before, buf(4)
  character(len=HSPLIT_MAX_HLEVEL_NAME) :: type

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, x)
  call MPI_Comm_size(MPI_COMM_WORLD, n)
  call MPI_Comm_create_errhandler(counting_handler, handler)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler)

  ! MPI_COMM_NULL: MPI_ERR_COMM, through MPI_COMM_WORLD's handler
  call HSPLIT_Comm_split_type(MPI_COMM_NULL, HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY, 0, &
                              MPI_INFO_NULL, out, ierror)
  call expect(ierror, MPI_ERR_COMM, 'split_type(MPI_COMM_NULL)')
  call check(out == MPI_COMM_NULL, 'split_type(MPI_COMM_NULL): newcomm not MPI_COMM_NULL')
  call HSPLIT_Comm_hsplit_with_roots(MPI_COMM_NULL, MPI_INFO_NULL, out, roots, ierror)
  call expect(ierror, MPI_ERR_COMM, 'hsplit_with_roots(MPI_COMM_NULL)')
  comms(:) = MPI_COMM_WORLD
  call HSPLIT_Comm_hsplit_all(MPI_COMM_NULL, MPI_INFO_NULL, 4, nlevels, comms, ierror=ierror)
  call expect(ierror, MPI_ERR_COMM, 'hsplit_all(MPI_COMM_NULL)')
  call check(all_null(comms), 'hsplit_all(MPI_COMM_NULL): newcomms not MPI_COMM_NULL')
  call HSPLIT_Comm_get_hlevel_info(MPI_COMM_NULL, num, idx, type, resultlen, ierror)
  call expect(ierror, MPI_ERR_COMM, 'get_hlevel_info(MPI_COMM_NULL)')
  call HSPLIT_Comm_get_min_hlevel(MPI_COMM_NULL, 1, [x], type, resultlen, ierror)
  call expect(ierror, MPI_ERR_COMM, 'get_min_hlevel(MPI_COMM_NULL)')
  call check(last_comm == MPI_COMM_WORLD, 'MPI_COMM_NULL errors not on MPI_COMM_WORLD')
  call HSPLIT_Bcast(buf, 1, MPI_INTEGER, 0, MPI_COMM_NULL, ierror)
  call expect(ierror, MPI_ERR_COMM, 'bcast(MPI_COMM_NULL)')
  call HSPLIT_Allreduce(buf(1), buf(2), 1, MPI_INTEGER, MPI_SUM, MPI_COMM_NULL, ierror)
  call expect(ierror, MPI_ERR_COMM, 'allreduce(MPI_COMM_NULL)')
  call HSPLIT_Barrier(MPI_COMM_NULL, ierror)
  call expect(ierror, MPI_ERR_COMM, 'barrier(MPI_COMM_NULL)')

  ! ranks out of range, negative, repeated; more ranks than the array holds
  call HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 2, [0, n], type, resultlen, ierror)
  call expect(ierror, MPI_ERR_RANK, 'get_min_hlevel rank n')
  call HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 2, [0, -1], type, resultlen, ierror)
  call expect(ierror, MPI_ERR_RANK, 'get_min_hlevel rank -1')
  call HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 3, [0, 1, 0], type, resultlen, ierror)
  call expect(ierror, hsplit_class(HSPLIT_ERR_RANK_REPEATED), 'get_min_hlevel repeated rank')
  call HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 3, [0, 1], type, resultlen, ierror)
  call expect(ierror, MPI_ERR_ARG, 'get_min_hlevel nranks > size(ranks)')
  call HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, -1, [0], type, resultlen, ierror)
  call expect(ierror, MPI_ERR_ARG, 'get_min_hlevel nranks -1')
  ! roots out of range
  call HSPLIT_Bcast(buf, 1, MPI_INTEGER, n, MPI_COMM_WORLD, ierror)
  call expect(ierror, MPI_ERR_ROOT, 'bcast root n')
  call HSPLIT_Reduce(buf(1), buf(2), 1, MPI_INTEGER, MPI_SUM, -1, MPI_COMM_WORLD, ierror)
  call expect(ierror, MPI_ERR_ROOT, 'reduce root -1')
  call HSPLIT_Gather(buf(1), 1, MPI_INTEGER, buf, 1, MPI_INTEGER, n, MPI_COMM_WORLD, ierror)
  call expect(ierror, MPI_ERR_ROOT, 'gather root n')
  call HSPLIT_Scatter(buf, 1, MPI_INTEGER, buf(1), 1, MPI_INTEGER, n + 5, MPI_COMM_WORLD, ierror)
  call expect(ierror, MPI_ERR_ROOT, 'scatter root n+5')

  ! hsplit_all: arrays shorter than maxlevels, on every process or on one
  ! (every process returns the error, none waits for the others)
  call HSPLIT_Comm_hsplit_all(MPI_COMM_WORLD, MPI_INFO_NULL, 5, nlevels, comms, ierror=ierror)
  call expect(ierror, MPI_ERR_ARG, 'hsplit_all size(newcomms) < maxlevels')
  if (x == 1) then
    call HSPLIT_Comm_hsplit_all(MPI_COMM_WORLD, MPI_INFO_NULL, 4, nlevels, comms, rcomms(1:2), &
                                ierror)
  else
    call HSPLIT_Comm_hsplit_all(MPI_COMM_WORLD, MPI_INFO_NULL, 4, nlevels, comms, rcomms, ierror)
  end if
  call expect(ierror, MPI_ERR_ARG, 'hsplit_all one short rootscomms')
  call check(all_null(comms), 'hsplit_all error: newcomms not MPI_COMM_NULL')
  if (x /= 1) call check(all_null(rcomms), &
                         'hsplit_all error: rootscomms not MPI_COMM_NULL')
  call HSPLIT_Comm_hsplit_all(MPI_COMM_WORLD, MPI_INFO_NULL, -1, nlevels, comms, ierror=ierror)
  call expect(ierror, MPI_ERR_ARG, 'hsplit_all maxlevels -1')

  ! not a level; HW_GUIDED without its key; an unknown library error
  call HSPLIT_Comm_get_hlevel_info(MPI_COMM_WORLD, num, idx, type, resultlen, ierror)
  call expect(ierror, hsplit_class(HSPLIT_ERR_NOT_HLEVEL), 'get_hlevel_info(MPI_COMM_WORLD)')
  ! (MPI-4.1 7.4.2: HW_GUIDED without the key gives MPI_COMM_NULL, no error)
  call HSPLIT_Comm_split_type(MPI_COMM_WORLD, HSPLIT_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &
                              out, ierror)
  call check_int(ierror, MPI_SUCCESS, 'HW_GUIDED without info: ierror')
  call check(out == MPI_COMM_NULL, 'HW_GUIDED without info: not MPI_COMM_NULL')
  call check_int(calls, expected_calls, 'HW_GUIDED without info: handler calls')
  call HSPLIT_Error_class(HSPLIT_ERR_LAST_KIND + 1, cls, ierror)
  call expect(ierror, MPI_ERR_ARG, 'Error_class(LAST_KIND + 1)')

  ! without ierror: the handler still runs once, with the error's code
  before = calls
  call HSPLIT_Comm_get_hlevel_info(MPI_COMM_WORLD, num, idx, type, resultlen)
  call check_int(calls - before, 1, 'handler calls without ierror')
  call check_int(error_class(last_code), hsplit_class(HSPLIT_ERR_NOT_HLEVEL), &
                 'handler code without ierror')
  before = calls
  call HSPLIT_Bcast(buf, 1, MPI_INTEGER, n, MPI_COMM_WORLD)
  call check_int(calls - before, 1, 'bcast handler calls without ierror')
  call check_int(error_class(last_code), MPI_ERR_ROOT, 'bcast handler code without ierror')

  ! the handler of the communicator acted on: a node communicator with its
  ! own MPI_ERRORS_RETURN, MPI_COMM_WORLD's counting handler untouched
  call HSPLIT_Comm_hsplit_with_roots(MPI_COMM_WORLD, MPI_INFO_NULL, node, roots, ierror)
  call check_int(ierror, MPI_SUCCESS, 'hsplit_with_roots after errors')
  call check_members(node, [x - mod(x, 2), x - mod(x, 2) + 1], 'node after errors')
  call MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN)
  before = calls
  call HSPLIT_Comm_get_min_hlevel(node, 1, [2], type, resultlen, ierror)
  call check_int(error_class(ierror), MPI_ERR_RANK, 'node get_min_hlevel rank 2')
  call check_int(calls - before, 0, 'MPI_COMM_WORLD handler called for an error on node')
  call MPI_Comm_free(node)
  if (roots /= MPI_COMM_NULL) call MPI_Comm_free(roots)

  ! MPI_ERRORS_RETURN itself on MPI_COMM_WORLD: codes come back in ierror
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  before = calls
  call HSPLIT_Barrier(MPI_COMM_NULL, ierror)
  call check_int(error_class(ierror), MPI_ERR_COMM, 'ERRORS_RETURN barrier(MPI_COMM_NULL)')
  call HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 2, [0, n], type, resultlen, ierror)
  call check_int(error_class(ierror), MPI_ERR_RANK, 'ERRORS_RETURN get_min_hlevel rank n')
  call HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 1, [-1], type, resultlen, ierror)
  call check_int(error_class(ierror), MPI_ERR_RANK, 'ERRORS_RETURN get_min_hlevel rank -1')
  call check_int(calls - before, 0, 'counting handler called under MPI_ERRORS_RETURN')
  call MPI_Errhandler_free(handler)
  call test_finish()

contains

  logical function all_null(comms)
    type(MPI_Comm), intent(in) :: comms(:)
    integer :: i
    all_null = .true.
    do i = 1, size(comms)
      if (comms(i) /= MPI_COMM_NULL) all_null = .false.
    end do
  end function

  integer function error_class(code)
    integer, intent(in) :: code
    call MPI_Error_class(code, error_class)
  end function

  integer function hsplit_class(which)
    integer, intent(in) :: which
    call HSPLIT_Error_class(which, hsplit_class)
  end function

  ! ierror has class cls, and the handler ran exactly once for it
  subroutine expect(ierror, cls, what)
    integer, intent(in) :: ierror, cls
    character(len=*), intent(in) :: what
    call check(ierror /= MPI_SUCCESS, what // ' succeeded')
    call check_int(error_class(ierror), cls, what // ': error class')
    call check_int(calls, expected_calls + 1, what // ': handler calls')
    call check_int(last_code, ierror, what // ': code given to the handler')
    expected_calls = calls
  end subroutine
end program
