! SPDX-License-Identifier: BSD-3-Clause
! The paper's section 5.2 in Fortran: one node of the figure-1 machine, 8
! processes with non-uniform bindings: p0, p1 on cores 0 and 1, p2, p3 on L2
! cache 1, p4-p7 on NUMA node 1. The same expectations as
! tests/mpi/test_paper_52.c, the paper's:
! step 1 NUMANode {0-3} {4-7}, roots {0,4};
! step 2 L2Cache {0,1} {2,3}, NULL for p4-p7, roots {0,2} (NULL on NUMA 1);
! step 3 Core {0} {1}, NULL for p2-p7, roots {0,1} (NULL on L2 1);
! step 4 NULL everywhere.
program test_f08_paper_52
  use mpi_f08
  use hsplit_f08
  use test_util_f08
  implicit none
  ! one expected communicator: n = 0 for MPI_COMM_NULL
  type :: expected_comm
    integer :: n = 0
    integer :: ranks(4) = -1
    character(len=8) :: type = ''
    integer :: num_comms = 0, index = 0
  end type
  type(expected_comm) :: levels(8, 4), roots(8, 4)
  integer, parameter :: nlevels_expected(0:7) = [3, 3, 2, 2, 1, 1, 1, 1]
  integer :: x, nprocs, p

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, x)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  if (nprocs /= 8) call MPI_Abort(MPI_COMM_WORLD, 2)

  ! levels(p+1, step), roots(p+1, step); everything else MPI_COMM_NULL
  do p = 1, 4
    levels(p, 1) = expected_comm(4, [0, 1, 2, 3], 'NUMANode', 2, 0)
    levels(p + 4, 1) = expected_comm(4, [4, 5, 6, 7], 'NUMANode', 2, 1)
  end do
  levels(1, 2) = expected_comm(2, [0, 1, -1, -1], 'L2Cache', 2, 0)
  levels(2, 2) = levels(1, 2)
  levels(3, 2) = expected_comm(2, [2, 3, -1, -1], 'L2Cache', 2, 1)
  levels(4, 2) = levels(3, 2)
  levels(1, 3) = expected_comm(1, [0, -1, -1, -1], 'Core', 2, 0)
  levels(2, 3) = expected_comm(1, [1, -1, -1, -1], 'Core', 2, 1)
  roots(1, 1) = expected_comm(2, [0, 4, -1, -1])
  roots(5, 1) = roots(1, 1)
  roots(1, 2) = expected_comm(2, [0, 2, -1, -1])
  roots(3, 2) = roots(1, 2)
  roots(1, 3) = expected_comm(2, [0, 1, -1, -1])
  roots(2, 3) = roots(1, 3)

  call check_with_roots()
  call check_split_type()
  call check_hsplit_all()
  call check_min_hlevel()
  call test_finish()

contains

  character(len=48) function step_name(what, s)
    character(len=*), intent(in) :: what
    integer, intent(in) :: s
    write (step_name, '(a, " step ", i0)') what, s
  end function

  subroutine check_comm(comm, e, what, level)
    type(MPI_Comm), intent(in) :: comm
    type(expected_comm), intent(in) :: e
    character(len=*), intent(in) :: what
    logical, intent(in) :: level
    if (e%n == 0) then
      call check(comm == MPI_COMM_NULL, what // ' should be MPI_COMM_NULL')
      return
    end if
    call check_members(comm, e%ranks(1:e%n), what)
    if (level .and. comm /= MPI_COMM_NULL) &
      call check_level(comm, trim(e%type), e%num_comms, e%index, what)
  end subroutine

  ! The paper's loop: a process stops once it holds MPI_COMM_NULL.
  subroutine check_with_roots()
    type(MPI_Comm) :: parent, level, root, made(4)
    integer :: s, ierror
    made = MPI_COMM_NULL
    parent = MPI_COMM_WORLD
    do s = 1, 4
      if (parent == MPI_COMM_NULL) exit
      call HSPLIT_Comm_hsplit_with_roots(parent, MPI_INFO_NULL, level, root, ierror)
      call check_int(ierror, MPI_SUCCESS, 'hsplit_with_roots ierror')
      call check_comm(level, levels(x + 1, s), step_name('newcomm', s), .true.)
      call check_comm(root, roots(x + 1, s), step_name('rootscomm', s), .false.)
      if (root /= MPI_COMM_NULL) call MPI_Comm_free(root)
      made(s) = level
      parent = level
    end do
    do s = 1, 4
      if (made(s) /= MPI_COMM_NULL) call MPI_Comm_free(made(s))
    end do
  end subroutine

  subroutine check_split_type()
    type(MPI_Comm) :: parent, level
    integer :: s, rank, ierror
    parent = MPI_COMM_WORLD
    do s = 1, 4
      if (parent == MPI_COMM_NULL) exit
      call MPI_Comm_rank(parent, rank)
      call HSPLIT_Comm_split_type(parent, HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY, rank, &
                                  MPI_INFO_NULL, level, ierror)
      call check_int(ierror, MPI_SUCCESS, 'split_type ierror')
      call check_comm(level, levels(x + 1, s), step_name('split_type', s), .true.)
      if (parent /= MPI_COMM_WORLD) call MPI_Comm_free(parent)
      parent = level
    end do
    if (parent /= MPI_COMM_WORLD .and. parent /= MPI_COMM_NULL) call MPI_Comm_free(parent)
  end subroutine

  subroutine check_hsplit_all()
    type(MPI_Comm) :: all(6), all_roots(6)
    integer :: nlevels, s, ierror
    nlevels = -1
    call HSPLIT_Comm_hsplit_all(MPI_COMM_WORLD, MPI_INFO_NULL, 6, nlevels, all, all_roots, ierror)
    call check_int(ierror, MPI_SUCCESS, 'hsplit_all ierror')
    call check_int(nlevels, nlevels_expected(x), 'hsplit_all nlevels')
    do s = 1, 4
      call check_comm(all(s), levels(x + 1, s), step_name('hsplit_all level', s), .true.)
      call check_comm(all_roots(s), roots(x + 1, s), step_name('hsplit_all roots', s), .false.)
    end do
    do s = 5, 6
      call check(all(s) == MPI_COMM_NULL .and. all_roots(s) == MPI_COMM_NULL, &
                 step_name('hsplit_all null', s))
    end do
    do s = 1, 6
      if (all(s) /= MPI_COMM_NULL) call MPI_Comm_free(all(s))
      if (all_roots(s) /= MPI_COMM_NULL) call MPI_Comm_free(all_roots(s))
    end do
  end subroutine

  ! p2 and p3 are bound to the whole L2 cache 1, p4-p7 to NUMA node 1.
  subroutine check_min_hlevel()
    call min_case([0, 1], 'L2Cache')
    call min_case([2, 3], 'L2Cache')
    call min_case([0, 2], 'NUMANode')
    call min_case([4, 5], 'NUMANode')
    call min_case([0, 4], 'Machine')
    call min_case([0], 'Core')
    call min_case([2], 'L2Cache')
    call min_case([4], 'NUMANode')
  end subroutine

  subroutine min_case(ranks, expected)
    integer, intent(in) :: ranks(:)
    character(len=*), intent(in) :: expected
    character(len=HSPLIT_MAX_HLEVEL_NAME) :: type, padded
    integer :: resultlen, ierror
    padded = 'Unknown'
    if (any(ranks == x)) padded = expected
    call HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, size(ranks), ranks, type, resultlen, ierror)
    call check_int(ierror, MPI_SUCCESS, 'get_min_hlevel ierror')
    call check_str(type, padded, 'get_min_hlevel')
    call check_int(resultlen, len_trim(padded), 'get_min_hlevel resultlen')
  end subroutine
end program
