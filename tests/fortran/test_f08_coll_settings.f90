! SPDX-License-Identifier: BSD-3-Clause
! HSPLIT_Comm_set_coll_info from Fortran: hints that take the hierarchy, plain
! MPI and auto mode, each followed by an allreduce whose sum is known (the
! ranks' 1..n); a malformed value, an unknown HSPLIT_COLL* key and different
! values on different processes return MPI_ERR_ARG on every process
! (MPI_ERRORS_RETURN); MPI_INFO_NULL and foreign keys change nothing.
program test_f08_coll_settings
  use mpi_f08
  use hsplit_f08
  use test_util_f08
  implicit none
  integer :: rank, nprocs, ierror, cls
  type(MPI_Comm) :: comm
  type(MPI_Info) :: info

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  call MPI_Comm_dup(MPI_COMM_WORLD, comm)
  call MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN)

  call set_one('HSPLIT_COLL', 'on')
  call check_int(ierror, MPI_SUCCESS, 'set on')
  call check_sum('on')
  call set_one('HSPLIT_COLL', 'off')
  call check_int(ierror, MPI_SUCCESS, 'set off')
  call check_sum('off')
  call MPI_Info_create(info)
  call MPI_Info_set(info, 'HSPLIT_COLL', 'auto')
  call MPI_Info_set(info, 'HSPLIT_COLL_MIN_PROCS', '1')
  call MPI_Info_set(info, 'HSPLIT_COLL_TRIALS', '1')
  call MPI_Info_set(info, 'some_other_hint', 'x')
  call HSPLIT_Comm_set_coll_info(comm, info, ierror)
  call MPI_Info_free(info)
  call check_int(ierror, MPI_SUCCESS, 'set auto')
  call check_sum('auto')

  call set_one('HSPLIT_COLL_TRIALS', '9')
  call check_arg('malformed')
  call set_one('HSPLIT_COLL_SOMETHING', '1')
  call check_arg('unknown key')
  if (rank == 0) then
    call set_one('HSPLIT_COLL', 'on')
  else
    call set_one('HSPLIT_COLL', 'off')
  end if
  call check_arg('different values')
  call HSPLIT_Comm_set_coll_info(comm, MPI_INFO_NULL, ierror)
  call check_int(ierror, MPI_SUCCESS, 'MPI_INFO_NULL')
  call HSPLIT_Comm_set_coll_info(comm, MPI_INFO_NULL)
  call check_sum('after errors')

  call MPI_Comm_free(comm)
  call test_finish()

contains

  subroutine set_one(key, value)
    character(len=*), intent(in) :: key, value
    type(MPI_Info) :: one
    call MPI_Info_create(one)
    call MPI_Info_set(one, key, value)
    call HSPLIT_Comm_set_coll_info(comm, one, ierror)
    call MPI_Info_free(one)
  end subroutine

  subroutine check_arg(what)
    character(len=*), intent(in) :: what
    call check(ierror /= MPI_SUCCESS, what // ': succeeded')
    if (ierror /= MPI_SUCCESS) then
      call MPI_Error_class(ierror, cls)
      call check_int(cls, MPI_ERR_ARG, what // ': class')
    end if
  end subroutine

  ! Allreduce and bcast of known values, repeated (auto mode alternates).
  subroutine check_sum(what)
    character(len=*), intent(in) :: what
    integer :: k, e
    integer :: mine(100), total(100), value
    do k = 1, 4
      mine = [((rank + 1) * e, e = 1, 100)]
      call HSPLIT_Allreduce(mine, total, 100, MPI_INTEGER, MPI_SUM, comm, ierror)
      call check_int(ierror, MPI_SUCCESS, what // ': allreduce')
      call check(all(total == [(e * nprocs * (nprocs + 1) / 2, e = 1, 100)]), &
                 what // ': allreduce sums')
      value = -1
      if (rank == nprocs - 1) value = 42 + k
      call HSPLIT_Bcast(value, 1, MPI_INTEGER, nprocs - 1, comm, ierror)
      call check_int(value, 42 + k, what // ': bcast')
    end do
  end subroutine
end program
