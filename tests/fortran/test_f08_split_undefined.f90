! SPDX-License-Identifier: BSD-3-Clause
! HSPLIT_Comm_split_type from Fortran with MPI_UNDEFINED, as in C: 8
! processes on 2 emulated nodes of 4 cores ("pack:2 l3:1 core:2 pu:1",
! HSPLIT_NODES=4, bound by core): process x is on node x/4, core mod(x, 4),
! package mod(x, 4)/2. Expectations come from that layout, not the library.
program test_f08_split_undefined
  use mpi_f08
  use hsplit_f08
  use test_util_f08
  implicit none
  integer :: x, nprocs

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, x)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  if (nprocs /= 8) call MPI_Abort(MPI_COMM_WORLD, 2)
  call check_odd_undefined()
  call check_guided_rank0_undefined()
  call check_guided_without_key()
  call test_finish()

contains

  ! world ranks of comm in comm-rank order
  subroutine members(comm, ranks, n)
    type(MPI_Comm), intent(in) :: comm
    integer, intent(out) :: ranks(8), n
    type(MPI_Group) :: group, world
    integer :: i, in(8)
    call MPI_Comm_size(comm, n)
    in = [(i, i = 0, 7)]
    call MPI_Comm_group(comm, group)
    call MPI_Comm_group(MPI_COMM_WORLD, world)
    call MPI_Group_translate_ranks(group, n, in, world, ranks)
    call MPI_Group_free(group)
    call MPI_Group_free(world)
  end subroutine

  ! Odd ranks pass MPI_UNDEFINED: the even ranks {0,2} and {4,6} split by node
  ! (level Machine, 2 communicators); HW_UNGUIDED names it in the info.
  subroutine check_odd_undefined()
    type(MPI_Comm) :: out
    type(MPI_Info) :: info, used
    integer :: ierror, ranks(8), n, num, idx, resultlen, valuelen
    logical :: flag
    character(len=HSPLIT_MAX_HLEVEL_NAME) :: type
    character(len=MPI_MAX_INFO_VAL) :: value
    call MPI_Info_create(info)
    if (mod(x, 2) == 1) then
      call HSPLIT_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, info, out, ierror)
      call check_int(ierror, MPI_SUCCESS, 'odd undefined: ierror')
      call check(out == MPI_COMM_NULL, 'odd undefined: not MPI_COMM_NULL')
    else
      call HSPLIT_Comm_split_type(MPI_COMM_WORLD, HSPLIT_COMM_TYPE_HW_UNGUIDED, 0, info, out, &
                                  ierror)
      call check_int(ierror, MPI_SUCCESS, 'even: ierror')
      call members(out, ranks, n)
      call check_int(n, 2, 'even: size')
      call check_int(ranks(1), (x / 4) * 4, 'even: first member')
      call check_int(ranks(2), (x / 4) * 4 + 2, 'even: second member')
      call HSPLIT_Comm_get_hlevel_info(out, num, idx, type, resultlen, ierror)
      call check(type == 'Machine', 'even: level ' // trim(type))
      call check_int(num, 2, 'even: num_comms')
      call check_int(idx, x / 4, 'even: index')
      call MPI_Info_get(info, 'mpi_hw_resource_type', MPI_MAX_INFO_VAL, value, flag)
      call check(flag .and. value == 'Machine', 'even: info key')
      call HSPLIT_Comm_get_info(out, used, ierror)
      call check_int(ierror, MPI_SUCCESS, 'even: get_info')
      call MPI_Info_get_valuelen(used, 'mpi_hw_resource_type', valuelen, flag)
      call check(flag .and. valuelen == 7, 'even: get_info key')
      call MPI_Info_free(used)
      call MPI_Comm_free(out)
    end if
    call MPI_Info_free(info)
  end subroutine

  ! Rank 0 passes MPI_UNDEFINED, the others HW_GUIDED "Package": processes of
  ! one node and package together (packages numbered over both nodes).
  subroutine check_guided_rank0_undefined()
    type(MPI_Comm) :: out
    type(MPI_Info) :: info
    integer :: ierror, ranks(8), n, num, idx, resultlen, y, expected(8), m, mine
    character(len=HSPLIT_MAX_HLEVEL_NAME) :: type
    call MPI_Info_create(info)
    call MPI_Info_set(info, 'mpi_hw_resource_type', 'Package')
    if (x == 0) then
      call HSPLIT_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, info, out, ierror)
      call check(out == MPI_COMM_NULL, 'rank 0 undefined: not MPI_COMM_NULL')
    else
      call HSPLIT_Comm_split_type(MPI_COMM_WORLD, HSPLIT_COMM_TYPE_HW_GUIDED, 0, info, out, &
                                  ierror)
      mine = (x / 4) * 2 + mod(x, 4) / 2
      m = 0
      do y = 1, 7
        if ((y / 4) * 2 + mod(y, 4) / 2 == mine) then
          m = m + 1
          expected(m) = y
        end if
      end do
      call members(out, ranks, n)
      call check_int(n, m, 'guided Package: size')
      call check(all(ranks(1:n) == expected(1:m)), 'guided Package: members')
      call HSPLIT_Comm_get_hlevel_info(out, num, idx, type, resultlen, ierror)
      call check(type == 'Package', 'guided Package: level ' // trim(type))
      call check_int(num, 4, 'guided Package: num_comms')
      call check_int(idx, mine, 'guided Package: index')
      call MPI_Comm_free(out)
    end if
    call check_int(ierror, MPI_SUCCESS, 'guided Package: ierror')
    call MPI_Info_free(info)
  end subroutine

  ! HW_GUIDED without the key (MPI_INFO_NULL): MPI_COMM_NULL everywhere.
  subroutine check_guided_without_key()
    type(MPI_Comm) :: out
    integer :: ierror
    call HSPLIT_Comm_split_type(MPI_COMM_WORLD, HSPLIT_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &
                                out, ierror)
    call check_int(ierror, MPI_SUCCESS, 'guided without key: ierror')
    call check(out == MPI_COMM_NULL, 'guided without key: not MPI_COMM_NULL')
  end subroutine
end program
