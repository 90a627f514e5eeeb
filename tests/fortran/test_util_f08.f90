! SPDX-License-Identifier: BSD-3-Clause
! Assertions for the Fortran tests, like tests/mpi/test_util.h: every process
! counts its checks, rank 0 prints the totals ("N passed, M failed") and the
! exit status says whether all held.
module test_util_f08
  use mpi_f08
  use hsplit_f08
  implicit none
  private
  public :: check, check_int, check_str, check_members, check_level, world_ranks, test_finish

  integer :: passed = 0, failed = 0

contains

  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    integer :: rank
    if (cond) then
      passed = passed + 1
    else
      failed = failed + 1
      call MPI_Comm_rank(MPI_COMM_WORLD, rank)
      write (0, '("[rank ", i0, "] check failed: ", a)') rank, what
    end if
  end subroutine

  subroutine check_int(actual, expected, what)
    integer, intent(in) :: actual, expected
    character(len=*), intent(in) :: what
    character(len=64) :: values
    write (values, '(" = ", i0, ", expected ", i0)') actual, expected
    call check(actual == expected, what // trim(values))
  end subroutine

  ! Compares whole CHARACTER values, trailing blanks included.
  subroutine check_str(actual, expected, what)
    character(len=*), intent(in) :: actual, expected
    character(len=*), intent(in) :: what
    call check(len(actual) == len(expected) .and. actual == expected, &
               what // ' = "' // actual // '", expected "' // expected // '"')
  end subroutine

  ! World ranks of comm's processes, in comm-rank order.
  subroutine world_ranks(comm, ranks)
    type(MPI_Comm), intent(in) :: comm
    integer, allocatable, intent(out) :: ranks(:)
    type(MPI_Group) :: group, world
    integer :: n, i
    call MPI_Comm_size(comm, n)
    allocate (ranks(n))
    call MPI_Comm_group(comm, group)
    call MPI_Comm_group(MPI_COMM_WORLD, world)
    call MPI_Group_translate_ranks(group, n, [(i, i = 0, n - 1)], world, ranks)
    call MPI_Group_free(group)
    call MPI_Group_free(world)
  end subroutine

  ! comm holds exactly the world ranks expected, in this order.
  subroutine check_members(comm, expected, what)
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: expected(:)
    character(len=*), intent(in) :: what
    integer, allocatable :: ranks(:)
    call check(comm /= MPI_COMM_NULL, what // ' is MPI_COMM_NULL')
    if (comm == MPI_COMM_NULL) return
    call world_ranks(comm, ranks)
    call check(size(ranks) == size(expected), what // ': wrong size')
    if (size(ranks) == size(expected)) call check(all(ranks == expected), what // ': wrong members')
  end subroutine

  ! comm's level information.
  subroutine check_level(comm, name, num_comms, index, what)
    type(MPI_Comm), intent(in) :: comm
    character(len=*), intent(in) :: name, what
    integer, intent(in) :: num_comms, index
    integer :: num, idx, resultlen, ierror
    character(len=HSPLIT_MAX_HLEVEL_NAME) :: type, padded
    padded = name
    call HSPLIT_Comm_get_hlevel_info(comm, num, idx, type, resultlen, ierror)
    call check_int(ierror, MPI_SUCCESS, what // ' get_hlevel_info ierror')
    call check_str(type, padded, what // ' level name')
    call check_int(resultlen, len(name), what // ' resultlen')
    call check_int(num, num_comms, what // ' num_comms')
    call check_int(idx, index, what // ' index')
  end subroutine

  ! Sums the counts over MPI_COMM_WORLD, prints them on rank 0, finalizes and
  ! stops with status 0 when every check held and there was at least one.
  subroutine test_finish()
    integer :: counts(2), rank
    call MPI_Allreduce([passed, failed], counts, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    if (rank == 0) write (*, '(i0, " passed, ", i0, " failed")') counts
    call MPI_Finalize()
    if (counts(2) /= 0 .or. counts(1) == 0) error stop 1
  end subroutine
end module test_util_f08
