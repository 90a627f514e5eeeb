! SPDX-License-Identifier: BSD-3-Clause
! hsplit_f08 constants and queries from Fortran, on 8 processes, 2 emulated
! nodes of the figure-1 machine (HSPLIT_NODES=4): process x is on node x/4,
! bound to core mod(x, 4) of package 0, whose L2 caches hold cores {0,1} and
! {2,3}. Checks: every constant equals its C value; get_hlevel_info and
! get_min_hlevel with rank arrays of any lower bound, strided, longer than
! nranks; names in CHARACTER variables shorter and longer than the name;
! HW_GUIDED and HW_UNGUIDED with info; other split types passed to MPI;
! hsplit_all into arrays of any lower bound; HSPLIT_Error_class.
program test_f08_queries
  use, intrinsic :: iso_c_binding, only: c_int, c_char
  use mpi_f08
  use hsplit_f08
  use test_util_f08
  implicit none
  interface
    subroutine hsplit_test_c_constants(values) bind(C)
      import :: c_int
      integer(c_int), intent(out) :: values(19)
    end subroutine
    subroutine hsplit_test_c_info_key(key, len) bind(C)
      import :: c_int, c_char
      character(kind=c_char), intent(out) :: key(64)
      integer(c_int), intent(out) :: len
    end subroutine
  end interface
  integer :: x, nprocs

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, x)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  if (nprocs /= 8) call MPI_Abort(MPI_COMM_WORLD, 2)
  call check_constants()
  call check_hlevel_info()
  call check_min_hlevel()
  call check_guided()
  call check_unguided()
  call check_other_split_type()
  call check_hsplit_all_bounds()
  call check_error_class()
  call test_finish()

contains

  subroutine check_constants()
    integer(c_int) :: c(19), len
    character(kind=c_char) :: key(64)
    integer :: i
    character(len=64) :: text
    call hsplit_test_c_constants(c)
    call check_int(HSPLIT_VERSION_MAJOR, c(1), 'HSPLIT_VERSION_MAJOR')
    call check_int(HSPLIT_VERSION_MINOR, c(2), 'HSPLIT_VERSION_MINOR')
    call check_int(HSPLIT_VERSION_PATCH, c(3), 'HSPLIT_VERSION_PATCH')
    call check_int(HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY, c(4), 'HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY')
    call check_int(HSPLIT_COMM_TYPE_HW_UNGUIDED, c(5), 'HSPLIT_COMM_TYPE_HW_UNGUIDED')
    call check_int(HSPLIT_COMM_TYPE_HW_GUIDED, c(6), 'HSPLIT_COMM_TYPE_HW_GUIDED')
    call check_int(HSPLIT_MAX_HLEVEL_NAME, c(7), 'HSPLIT_MAX_HLEVEL_NAME')
    call check_int(HSPLIT_ERR_TOPOLOGY, c(8), 'HSPLIT_ERR_TOPOLOGY')
    call check_int(HSPLIT_ERR_NODES, c(9), 'HSPLIT_ERR_NODES')
    call check_int(HSPLIT_ERR_BIND, c(10), 'HSPLIT_ERR_BIND')
    call check_int(HSPLIT_ERR_HWLOC, c(11), 'HSPLIT_ERR_HWLOC')
    call check_int(HSPLIT_ERR_NOT_HLEVEL, c(12), 'HSPLIT_ERR_NOT_HLEVEL')
    call check_int(HSPLIT_ERR_RANK_REPEATED, c(13), 'HSPLIT_ERR_RANK_REPEATED')
    call check_int(HSPLIT_ERR_GUIDED_INFO, c(14), 'HSPLIT_ERR_GUIDED_INFO')
    call check_int(HSPLIT_ERR_NETWORK, c(15), 'HSPLIT_ERR_NETWORK')
    call check_int(HSPLIT_ERR_LAST_KIND, c(15), 'HSPLIT_ERR_LAST_KIND')
    call check_int(HSPLIT_SOURCE_DEFAULT, c(16), 'HSPLIT_SOURCE_DEFAULT')
    call check_int(HSPLIT_SOURCE_ENVIRONMENT, c(17), 'HSPLIT_SOURCE_ENVIRONMENT')
    call check_int(HSPLIT_SOURCE_COMM_INFO, c(18), 'HSPLIT_SOURCE_COMM_INFO')
    call check_int(HSPLIT_SOURCE_SET_COLL_INFO, c(19), 'HSPLIT_SOURCE_SET_COLL_INFO')
    call hsplit_test_c_info_key(key, len)
    text = ''
    do i = 1, len
      text(i:i) = key(i)
    end do
    call check_str(HSPLIT_INFO_KEY_HW_RESOURCE_TYPE, text(1:len), 'HSPLIT_INFO_KEY_HW_RESOURCE_TYPE')
    ! the split types never collide with the MPI's own
    call check(HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY /= MPI_COMM_TYPE_SHARED, 'split type collides')
  end subroutine

  ! Level names into variables of every length: blank padded, or truncated
  ! with resultlen still the whole length (as MPI_Comm_get_name does).
  subroutine check_hlevel_info()
    type(MPI_Comm) :: node, roots, l2, l2roots
    integer :: num, idx, resultlen, ierror
    character(len=3) :: short
    character(len=7) :: exact
    character(len=40) :: long
    character(len=0) :: empty
    call HSPLIT_Comm_hsplit_with_roots(MPI_COMM_WORLD, MPI_INFO_NULL, node, roots, ierror)
    call check_int(ierror, MPI_SUCCESS, 'hsplit_with_roots ierror')
    call check_level(node, 'Machine', 2, x / 4, 'node')
    short = 'xyz'
    call HSPLIT_Comm_get_hlevel_info(node, num, idx, short, resultlen, ierror)
    call check_int(ierror, MPI_SUCCESS, 'short name ierror')
    call check_str(short, 'Mac', 'name in character(len=3)')
    call check_int(resultlen, 7, 'resultlen of a truncated name')
    call HSPLIT_Comm_get_hlevel_info(node, num, idx, exact, resultlen)
    call check_str(exact, 'Machine', 'name in character(len=7)')
    long = repeat('#', 40)
    call HSPLIT_Comm_get_hlevel_info(node, num, idx, long, resultlen)
    call check_str(long, 'Machine' // repeat(' ', 33), 'name in character(len=40)')
    call check_int(resultlen, 7, 'resultlen in character(len=40)')
    call HSPLIT_Comm_get_hlevel_info(node, num, idx, empty, resultlen, ierror)
    call check_int(ierror, MPI_SUCCESS, 'empty name ierror')
    call check_int(resultlen, 7, 'resultlen in character(len=0)')
    ! one level down: the L2 caches of package 0
    call HSPLIT_Comm_hsplit_with_roots(node, MPI_INFO_NULL, l2, l2roots)
    call check_members(l2, [x - mod(x, 2), x - mod(x, 2) + 1], 'L2 level')
    call check_level(l2, 'L2Cache', 2, mod(x, 4) / 2, 'L2 level')
    call HSPLIT_Comm_get_hlevel_info(l2, num, idx, short, resultlen)
    call check_str(short, 'L2C', 'L2Cache in character(len=3)')
    call MPI_Comm_free(l2)
    if (l2roots /= MPI_COMM_NULL) call MPI_Comm_free(l2roots)
    call MPI_Comm_free(node)
    if (roots /= MPI_COMM_NULL) call MPI_Comm_free(roots)
  end subroutine

  ! Rank arrays with any lower bound, strided, and longer than nranks.
  subroutine check_min_hlevel()
    integer :: low(-3:-2), high(7:8), list(6), resultlen, ierror, partner, other_node
    character(len=HSPLIT_MAX_HLEVEL_NAME) :: type
    character(len=4) :: short
    partner = ieor(x, 1)                 ! same L2 cache
    other_node = mod(x + 4, 8)
    low = [x, partner]
    call HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 2, low, type, resultlen, ierror)
    call check_int(ierror, MPI_SUCCESS, 'lower bound -3 ierror')
    call check_str(type, 'L2Cache' // repeat(' ', HSPLIT_MAX_HLEVEL_NAME - 7), 'lower bound -3')
    call check_int(resultlen, 7, 'lower bound -3 resultlen')
    high = [x, ieor(x, 2)]               ! same package, other L2
    call HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 2, high, type, resultlen)
    call check(type == 'NUMANode', 'lower bound 7: ' // type)
    ! every second element: x, partner, other_node; the rest are junk
    list = [x, -99, partner, -99, other_node, -99]
    call HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 3, list(1:5:2), type, resultlen, ierror)
    call check_int(ierror, MPI_SUCCESS, 'strided ranks ierror')
    call check(type == 'Cluster', 'strided ranks: ' // type)
    ! only the first nranks count: the junk after them is not read
    list = [x, partner, -99, -99, -99, -99]
    call HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 2, list, type, resultlen, ierror)
    call check_int(ierror, MPI_SUCCESS, 'nranks < size(ranks) ierror')
    call check(type == 'L2Cache', 'nranks < size(ranks): ' // type)
    call HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 0, list, type, resultlen)
    call check(type == 'Unknown', 'no ranks: ' // type)
    ! a short variable
    call HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 1, [x], short, resultlen)
    call check_str(short, 'Core', 'Core in character(len=4)')
    call HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 2, [x, other_node], short, resultlen)
    call check_str(short, 'Clus', 'Cluster in character(len=4)')
    call check_int(resultlen, 7, 'Cluster resultlen')
  end subroutine

  ! HW_GUIDED: the level named in the info; the split key orders the members.
  subroutine check_guided()
    type(MPI_Info) :: info
    type(MPI_Comm) :: comm
    integer :: ierror, first
    call MPI_Info_create(info)
    call MPI_Info_set(info, HSPLIT_INFO_KEY_HW_RESOURCE_TYPE, 'L2Cache')
    call HSPLIT_Comm_split_type(MPI_COMM_WORLD, HSPLIT_COMM_TYPE_HW_GUIDED, -x, info, comm, &
                                ierror)
    call check_int(ierror, MPI_SUCCESS, 'HW_GUIDED ierror')
    first = x - mod(x, 2)
    call check_members(comm, [first + 1, first], 'HW_GUIDED L2Cache, reversed key')
    call check_level(comm, 'L2Cache', 4, x / 2, 'HW_GUIDED L2Cache')
    call MPI_Comm_free(comm)
    call MPI_Info_set(info, HSPLIT_INFO_KEY_HW_RESOURCE_TYPE, 'Machine')
    call HSPLIT_Comm_split_type(MPI_COMM_WORLD, HSPLIT_COMM_TYPE_HW_GUIDED, x, info, comm)
    first = x - mod(x, 4)
    call check_members(comm, [first, first + 1, first + 2, first + 3], 'HW_GUIDED Machine')
    call MPI_Comm_free(comm)
    call MPI_Info_free(info)
  end subroutine

  ! HW_UNGUIDED writes the level's name into the info.
  subroutine check_unguided()
    type(MPI_Info) :: info
    type(MPI_Comm) :: comm
    integer :: ierror
    logical :: flag
    character(len=MPI_MAX_INFO_VAL) :: value
    call MPI_Info_create(info)
    call HSPLIT_Comm_split_type(MPI_COMM_WORLD, HSPLIT_COMM_TYPE_HW_UNGUIDED, x, info, comm, &
                                ierror)
    call check_int(ierror, MPI_SUCCESS, 'HW_UNGUIDED ierror')
    call MPI_Info_get(info, HSPLIT_INFO_KEY_HW_RESOURCE_TYPE, MPI_MAX_INFO_VAL, value, flag)
    call check(flag, 'HW_UNGUIDED did not set the info key')
    call check(value == 'Machine', 'HW_UNGUIDED info value: ' // trim(value))
    call check_level(comm, 'Machine', 2, x / 4, 'HW_UNGUIDED')
    call MPI_Comm_free(comm)
    call MPI_Info_free(info)
  end subroutine

  ! Any other split type is MPI's: MPI_COMM_TYPE_SHARED groups the processes
  ! of the real machine, here all of them.
  subroutine check_other_split_type()
    type(MPI_Comm) :: comm
    integer :: ierror, n
    call HSPLIT_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, x, MPI_INFO_NULL, comm, &
                                ierror)
    call check_int(ierror, MPI_SUCCESS, 'MPI_COMM_TYPE_SHARED ierror')
    call MPI_Comm_size(comm, n)
    call check_int(n, 8, 'MPI_COMM_TYPE_SHARED size')
    call MPI_Comm_free(comm)
  end subroutine

  ! hsplit_all into arrays with lower bound 0, longer than maxlevels: entries
  ! past maxlevels are not touched.
  subroutine check_hsplit_all_bounds()
    type(MPI_Comm) :: levels(0:5), roots(0:5)
    integer :: nlevels, ierror, s
    levels = MPI_COMM_SELF
    roots = MPI_COMM_SELF
    call HSPLIT_Comm_hsplit_all(MPI_COMM_WORLD, MPI_INFO_NULL, 5, nlevels, levels, roots, ierror)
    call check_int(ierror, MPI_SUCCESS, 'hsplit_all ierror')
    ! Machine, L2Cache, Core
    call check_int(nlevels, 3, 'hsplit_all nlevels')
    call check_level(levels(0), 'Machine', 2, x / 4, 'hsplit_all level 1')
    call check_level(levels(1), 'L2Cache', 2, mod(x, 4) / 2, 'hsplit_all level 2')
    call check_level(levels(2), 'Core', 2, mod(x, 2), 'hsplit_all level 3')
    call check(levels(3) == MPI_COMM_NULL .and. levels(4) == MPI_COMM_NULL, &
               'hsplit_all levels past the bottom')
    call check(levels(5) == MPI_COMM_SELF .and. roots(5) == MPI_COMM_SELF, &
               'hsplit_all wrote past maxlevels')
    if (mod(x, 4) == 0) then
      call check_members(roots(0), [0, 4], 'hsplit_all roots of the nodes')
    else
      call check(roots(0) == MPI_COMM_NULL, 'hsplit_all roots(0) not MPI_COMM_NULL')
    end if
    do s = 0, 2
      call MPI_Comm_free(levels(s))
      if (roots(s) /= MPI_COMM_NULL) call MPI_Comm_free(roots(s))
    end do
  end subroutine

  subroutine check_error_class()
    integer :: k, cls, ierror, textlen
    character(len=MPI_MAX_ERROR_STRING) :: text
    do k = HSPLIT_ERR_TOPOLOGY, HSPLIT_ERR_LAST_KIND
      call HSPLIT_Error_class(k, cls, ierror)
      call check_int(ierror, MPI_SUCCESS, 'Error_class ierror')
      call check(cls > MPI_ERR_LASTCODE, 'Error_class: not a new class')
      call MPI_Error_string(cls, text, textlen)
      call check(text(1:8) == 'hsplit: ', 'error string: ' // trim(text))
    end do
  end subroutine
end program
