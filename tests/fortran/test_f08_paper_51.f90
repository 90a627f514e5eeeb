! SPDX-License-Identifier: BSD-3-Clause
! The paper's section 5.1 in Fortran: 32 processes on 4 nodes of the figure-1
! machine (2 NUMA nodes x 1 package x 2 L2 x 2 cores), process x = 8k + i bound
! to core i of node k. The same expectations as tests/mpi/test_paper_51.c,
! written from the paper's formulas: step 1 Machine {8k..8k+7}, step 2
! NUMANode {4j..4j+3}, step 3 L2Cache {2m, 2m+1}, step 4 Core {x}, step 5
! MPI_COMM_NULL; roots {0,8,16,24}, {8k, 8k+4}, {8k+4j, 8k+4j+2}, {2m, 2m+1}.
! Run with HSPLIT_TOPOLOGY="pack:2 [numa] l3:1 l2:2 core:2 pu:1" HSPLIT_NODES=8.
program test_f08_paper_51
  use mpi_f08
  use hsplit_f08
  use test_util_f08
  implicit none
  integer, parameter :: WORLD_SIZE = 32, DEPTH = 4
  ! per step: processes per new communicator, per parent, and how many
  ! communicators the parent is split into
  integer, parameter :: span(DEPTH) = [8, 4, 2, 1], parent_span(DEPTH) = [32, 8, 4, 2]
  integer, parameter :: level_num(DEPTH) = [4, 2, 2, 2]
  character(len=*), parameter :: level_names(DEPTH) = &
       [character(len=8) :: 'Machine', 'NUMANode', 'L2Cache', 'Core']
  integer :: x, nprocs

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, x)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  if (nprocs /= WORLD_SIZE) then
    if (x == 0) write (0, '("run with ", i0, " processes")') WORLD_SIZE
    call MPI_Abort(MPI_COMM_WORLD, 2)
  end if
  call check_with_roots()
  call check_split_type(.false.)
  call check_split_type(.true.)
  call check_hsplit_all()
  call check_min_hlevel()
  call check_min_hlevel_local()
  call test_finish()

contains

  ! world ranks of x's step-s communicator: out(1:n)
  subroutine expected_level(s, out, n)
    integer, intent(in) :: s
    integer, intent(out) :: out(WORLD_SIZE), n
    integer :: i
    n = span(s)
    out(1:n) = [(x - mod(x, span(s)) + i, i = 0, n - 1)]
  end subroutine

  ! world ranks of x's step-s roots communicator: the first process of each
  ! child of x's parent, if x is one of them (n = 0 otherwise)
  subroutine expected_roots(s, out, n)
    integer, intent(in) :: s
    integer, intent(out) :: out(WORLD_SIZE), n
    integer :: first, r
    n = 0
    if (mod(x, span(s)) /= 0) return
    first = x - mod(x, parent_span(s))
    n = parent_span(s) / span(s)
    out(1:n) = [(r, r = first, first + parent_span(s) - 1, span(s))]
  end subroutine

  subroutine check_level_members(comm, s, what)
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: s
    character(len=*), intent(in) :: what
    integer :: expected(WORLD_SIZE), n
    call expected_level(s, expected, n)
    call check_members(comm, expected(1:n), what)
  end subroutine

  integer function expected_index(s)
    integer, intent(in) :: s
    expected_index = mod(x / span(s), level_num(s))
  end function

  character(len=48) function step_name(what, s)
    character(len=*), intent(in) :: what
    integer, intent(in) :: s
    write (step_name, '(a, " step ", i0)') what, s
  end function

  subroutine check_roots(roots, s, what)
    type(MPI_Comm), intent(in) :: roots
    integer, intent(in) :: s
    character(len=*), intent(in) :: what
    integer :: expected(WORLD_SIZE), n
    call expected_roots(s, expected, n)
    if (n == 0) then
      call check(roots == MPI_COMM_NULL, what // ' should be MPI_COMM_NULL')
    else
      call check_members(roots, expected(1:n), what)
    end if
  end subroutine

  subroutine check_with_roots()
    type(MPI_Comm) :: parent, levels(DEPTH + 1), roots(DEPTH + 1)
    integer :: s, ierror, cmp
    parent = MPI_COMM_WORLD
    do s = 1, DEPTH
      call HSPLIT_Comm_hsplit_with_roots(parent, MPI_INFO_NULL, levels(s), roots(s), ierror)
      call check_int(ierror, MPI_SUCCESS, 'hsplit_with_roots ierror')
      call check_level_members(levels(s), s, step_name('newcomm', s))
      call check_level(levels(s), trim(level_names(s)), level_num(s), expected_index(s), &
                       step_name('newcomm', s))
      call check_roots(roots(s), s, step_name('rootscomm', s))
      ! a strict subset of its parent
      call MPI_Comm_compare(parent, levels(s), cmp)
      call check_int(cmp, MPI_UNEQUAL, step_name('compare with parent', s))
      parent = levels(s)
    end do
    ! step 5: nothing below the cores
    call HSPLIT_Comm_hsplit_with_roots(parent, MPI_INFO_NULL, levels(5), roots(5), ierror)
    call check_int(ierror, MPI_SUCCESS, 'hsplit_with_roots step 5 ierror')
    call check(levels(5) == MPI_COMM_NULL, 'step 5 newcomm not MPI_COMM_NULL')
    call check(roots(5) == MPI_COMM_NULL, 'step 5 rootscomm not MPI_COMM_NULL')
    call MPI_Comm_compare(levels(DEPTH), MPI_COMM_SELF, cmp)
    call check_int(cmp, MPI_CONGRUENT, 'Core level congruent to MPI_COMM_SELF')
    do s = 1, DEPTH
      call MPI_Comm_free(levels(s))
      if (roots(s) /= MPI_COMM_NULL) call MPI_Comm_free(roots(s))
    end do
  end subroutine

  ! The paper's split_type loop with key = rank, and with a reversing key:
  ! same groups, members in key order (after an odd number of reversals a
  ! block is in descending world order).
  subroutine check_split_type(reverse)
    logical, intent(in) :: reverse
    type(MPI_Comm) :: parent, level
    integer :: s, expected(WORLD_SIZE), n
    parent = MPI_COMM_WORLD
    do s = 1, DEPTH
      call split_once(parent, reverse, level)
      call expected_level(s, expected, n)
      if (reverse .and. mod(s, 2) == 1) expected(1:n) = expected(n:1:-1)
      call check_members(level, expected(1:n), step_name('split_type', s))
      call check_level(level, trim(level_names(s)), level_num(s), expected_index(s), &
                       step_name('split_type', s))
      parent = level
    end do
    call split_once(parent, reverse, level)
    call check(level == MPI_COMM_NULL, 'split_type step 5 not MPI_COMM_NULL')
  end subroutine

  ! One PHYSICAL_TOPOLOGY split of parent (key: its rank, or reversed), which
  ! is then freed.
  subroutine split_once(parent, reverse, level)
    type(MPI_Comm), intent(in) :: parent
    logical, intent(in) :: reverse
    type(MPI_Comm), intent(out) :: level
    type(MPI_Comm) :: old
    integer :: rank, n, key, ierror
    call MPI_Comm_rank(parent, rank)
    call MPI_Comm_size(parent, n)
    key = rank
    if (reverse) key = n - rank
    call HSPLIT_Comm_split_type(parent, HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY, key, &
                                MPI_INFO_NULL, level, ierror)
    call check_int(ierror, MPI_SUCCESS, 'split_type ierror')
    old = parent
    if (old /= MPI_COMM_WORLD) call MPI_Comm_free(old)
  end subroutine

  subroutine check_hsplit_all()
    type(MPI_Comm) :: levels(8), roots(8), few(2)
    integer :: nlevels, s, ierror
    nlevels = -1
    call HSPLIT_Comm_hsplit_all(MPI_COMM_WORLD, MPI_INFO_NULL, 8, nlevels, levels, roots, ierror)
    call check_int(ierror, MPI_SUCCESS, 'hsplit_all ierror')
    call check_int(nlevels, DEPTH, 'hsplit_all nlevels')
    do s = 1, DEPTH
      call check_level_members(levels(s), s, step_name('hsplit_all level', s))
      call check_roots(roots(s), s, step_name('hsplit_all roots', s))
    end do
    do s = DEPTH + 1, 8
      call check(levels(s) == MPI_COMM_NULL .and. roots(s) == MPI_COMM_NULL, &
                 step_name('hsplit_all not null', s))
    end do
    do s = 1, DEPTH
      call MPI_Comm_free(levels(s))
      if (roots(s) /= MPI_COMM_NULL) call MPI_Comm_free(roots(s))
    end do
    ! maxlevels cuts the hierarchy; no roots wanted
    call HSPLIT_Comm_hsplit_all(MPI_COMM_WORLD, MPI_INFO_NULL, 2, nlevels, few, ierror=ierror)
    call check_int(ierror, MPI_SUCCESS, 'hsplit_all maxlevels=2 ierror')
    call check_int(nlevels, 2, 'hsplit_all maxlevels=2 nlevels')
    call check_level_members(few(2), 2, 'hsplit_all maxlevels=2 level 2')
    call MPI_Comm_free(few(1))
    call MPI_Comm_free(few(2))
  end subroutine

  ! get_min_hlevel on MPI_COMM_WORLD: x and x^1 share an L2, x and x^2 the
  ! NUMA node, x and x^4 only the machine, x and x+8 are on different nodes.
  subroutine check_min_hlevel()
    integer :: k8
    k8 = x - mod(x, 8)
    call min_case([x, ieor(x, 1)], 'L2Cache')
    call min_case([x, ieor(x, 2)], 'NUMANode')
    call min_case([x, ieor(x, 4)], 'Machine')
    call min_case([x, mod(x + 8, 32)], 'Cluster')
    call min_case([x], 'Core')
    call min_case([mod(x + 1, 32), mod(x + 2, 32)], 'Unknown')
    call min_case([integer ::], 'Unknown')
    if (mod(x, 8) < 2) then
      call min_case([k8 + 1, k8], 'L2Cache')
    else
      call min_case([k8 + 1, k8], 'Unknown')
    end if
  end subroutine

  subroutine min_case(ranks, expected)
    integer, intent(in) :: ranks(:)
    character(len=*), intent(in) :: expected
    character(len=HSPLIT_MAX_HLEVEL_NAME) :: type, padded
    integer :: resultlen, ierror
    padded = expected
    call HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, size(ranks), ranks, type, resultlen, ierror)
    call check_int(ierror, MPI_SUCCESS, 'get_min_hlevel ierror')
    call check_str(type, padded, 'get_min_hlevel')
    call check_int(resultlen, len(expected), 'get_min_hlevel resultlen')
  end subroutine

  ! On communicators the library made, get_min_hlevel is local: one process
  ! alone asks (it would hang if the call were collective).
  subroutine check_min_hlevel_local()
    type(MPI_Comm) :: node, roots
    integer :: node_rank, resultlen
    character(len=HSPLIT_MAX_HLEVEL_NAME) :: type
    call HSPLIT_Comm_hsplit_with_roots(MPI_COMM_WORLD, MPI_INFO_NULL, node, roots)
    call MPI_Comm_rank(node, node_rank)
    if (node_rank == 0) then
      call HSPLIT_Comm_get_min_hlevel(node, 2, [0, 1], type, resultlen)
      call check(type == 'L2Cache', 'local get_min_hlevel {0,1}: ' // type)
      call HSPLIT_Comm_get_min_hlevel(node, 2, [0, 7], type, resultlen)
      call check(type == 'Machine', 'local get_min_hlevel {0,7}: ' // type)
    end if
    if (x == 0) then
      call HSPLIT_Comm_get_min_hlevel(roots, 2, [0, 3], type, resultlen)
      call check(type == 'Cluster', 'local get_min_hlevel on roots: ' // type)
    end if
    if (roots /= MPI_COMM_NULL) call MPI_Comm_free(roots)
    call MPI_Comm_free(node)
  end subroutine
end program
