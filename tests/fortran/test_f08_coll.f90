! SPDX-License-Identifier: BSD-3-Clause
! The hsplit_f08 collectives from Fortran: every collective with INTEGER,
! REAL(8), COMPLEX and a derived type on buffers of rank 0 to 3, on
! MPI_COMM_WORLD and on a communicator made by a split; MPI_IN_PLACE wherever
! MPI accepts it; non-contiguous array sections; MPI_BOTTOM with absolute
! addresses; user-defined operations written in Fortran, a non-commutative
! one included; count 0; ierror absent. Expected values come from the
! formula val(p, k) = 100 p + k (process p, element k), never from MPI.
program test_f08_coll
  use mpi_f08
  use hsplit_f08
  use test_util_f08
  use coll_pair
  use coll_integer, only: run_integer => run_by_rank
  use coll_real8, only: run_real8 => run_by_rank
  use coll_complex, only: run_complex => run_by_rank
  use coll_derived, only: run_derived => run_by_rank
  implicit none
  type(MPI_Datatype) :: pair_type
  type(MPI_Op) :: pair_sum_op, first_last_op
  type(MPI_Comm) :: node, roots
  integer :: me, n

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, n)
  call pair_type_create(pair_type)
  call MPI_Op_create(pair_sum, .true., pair_sum_op)
  call MPI_Op_create(pair_first_last, .false., first_last_op)

  call run_all(MPI_COMM_WORLD, 'world')
  ! a communicator of the hierarchy: one node
  call HSPLIT_Comm_hsplit_with_roots(MPI_COMM_WORLD, MPI_INFO_NULL, node, roots)
  call run_all(node, 'node')
  call check_in_place(MPI_COMM_WORLD)
  call check_noncontiguous(MPI_COMM_WORLD)
  call check_bottom(MPI_COMM_WORLD)
  call check_noncommutative(MPI_COMM_WORLD)
  call check_zero_count(MPI_COMM_WORLD)
  call check_assumed_size(MPI_COMM_WORLD)
  call check_ierror_absent(MPI_COMM_WORLD)
  call check_ierror_absent(node)

  call MPI_Comm_free(node)
  if (roots /= MPI_COMM_NULL) call MPI_Comm_free(roots)
  call MPI_Op_free(pair_sum_op)
  call MPI_Op_free(first_last_op)
  call MPI_Type_free(pair_type)
  call test_finish()

contains

  subroutine run_all(comm, label)
    type(MPI_Comm), intent(in) :: comm
    character(len=*), intent(in) :: label
    integer :: ierror
    call run_integer(comm, MPI_INTEGER, MPI_SUM, label // ' integer')
    call run_real8(comm, MPI_DOUBLE_PRECISION, MPI_SUM, label // ' real(8)')
    call run_complex(comm, MPI_COMPLEX, MPI_SUM, label // ' complex')
    call run_derived(comm, pair_type, pair_sum_op, label // ' pair_t')
    call HSPLIT_Barrier(comm, ierror)
    call check_int(ierror, MPI_SUCCESS, label // ' barrier ierror')
  end subroutine

  ! MPI_IN_PLACE: reduce at the root, allreduce, gather at the root, scatter
  ! at the root, allgather; a different type and rank each time.
  subroutine check_in_place(comm)
    type(MPI_Comm), intent(in) :: comm
    integer :: ierror, root, p, i, total
    real(8) :: r2(2, 3), expected2(2, 3)
    complex :: c3(2, 2, 2)
    type(pair_t), allocatable :: pairs(:)
    real(8), allocatable :: blocks(:, :), mine(:)
    integer, allocatable :: table(:, :)
    integer :: scalar, unused

    ! reduce, scalar INTEGER, root n-1
    root = n - 1
    scalar = 100 * me
    if (me == root) then
      call HSPLIT_Reduce(MPI_IN_PLACE, scalar, 1, MPI_INTEGER, MPI_SUM, root, comm, ierror)
      call check_int(scalar, 50 * n * (n - 1), 'reduce in place')
    else
      call HSPLIT_Reduce(scalar, unused, 1, MPI_INTEGER, MPI_SUM, root, comm, ierror)
    end if
    call check_int(ierror, MPI_SUCCESS, 'reduce in place ierror')

    ! reduce, REAL(8) rank 2, root 0
    r2 = reshape([(0.5d0 * (100 * me + i), i = 1, 6)], [2, 3])
    expected2 = reshape([(0.5d0 * (50 * n * (n - 1) + n * i), i = 1, 6)], [2, 3])
    if (me == 0) then
      call HSPLIT_Reduce(MPI_IN_PLACE, r2, 6, MPI_DOUBLE_PRECISION, MPI_SUM, 0, comm, ierror)
      call check(all(r2 == expected2), 'reduce in place real(8) rank 2')
    else
      call HSPLIT_Reduce(r2, expected2, 6, MPI_DOUBLE_PRECISION, MPI_SUM, 0, comm, ierror)
    end if
    call check_int(ierror, MPI_SUCCESS, 'reduce in place rank 2 ierror')

    ! allreduce, COMPLEX rank 3
    c3 = reshape([(cmplx(100 * me + i, -(100 * me + i)), i = 1, 8)], [2, 2, 2])
    call HSPLIT_Allreduce(MPI_IN_PLACE, c3, 8, MPI_COMPLEX, MPI_SUM, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, 'allreduce in place ierror')
    call check(all(reshape(c3, [8]) == [(cmplx(50 * n * (n - 1) + n * i, &
                                              -(50 * n * (n - 1) + n * i)), i = 1, 8)]), &
               'allreduce in place complex rank 3')

    ! gather, pair_t rank 1, root 0: the root's block is already in place
    allocate (pairs(2 * n))
    pairs = pair_make(-1)
    pairs(2 * me + 1:2 * me + 2) = pair_make([100 * me + 1, 100 * me + 2])
    if (me == 0) then
      call HSPLIT_Gather(MPI_IN_PLACE, 2, pair_type, pairs, 2, pair_type, 0, comm, ierror)
      do p = 0, n - 1
        call check(all(pairs(2 * p + 1:2 * p + 2) == pair_make([100 * p + 1, 100 * p + 2])), &
                   'gather in place pair_t')
      end do
    else
      call HSPLIT_Gather(pairs(2 * me + 1:2 * me + 2), 2, pair_type, pairs, 2, pair_type, 0, &
                         comm, ierror)
    end if
    call check_int(ierror, MPI_SUCCESS, 'gather in place ierror')

    ! scatter, REAL(8) rank 2 at the root, root n-1: the root keeps its block
    root = n - 1
    allocate (blocks(3, n), mine(3))
    blocks = reshape([((100 * p + i, i = 1, 3), p = 0, n - 1)], [3, n])
    if (me == root) then
      call HSPLIT_Scatter(blocks, 3, MPI_DOUBLE_PRECISION, MPI_IN_PLACE, 3, &
                          MPI_DOUBLE_PRECISION, root, comm, ierror)
      call check(all(blocks(:, root + 1) == [(100 * root + i, i = 1, 3)]), 'scatter in place')
    else
      mine = -1
      call HSPLIT_Scatter(blocks, 3, MPI_DOUBLE_PRECISION, mine, 3, MPI_DOUBLE_PRECISION, &
                          root, comm, ierror)
      call check(all(mine == [(100 * me + i, i = 1, 3)]), 'scatter to a non-root')
    end if
    call check_int(ierror, MPI_SUCCESS, 'scatter in place ierror')

    ! allgather, INTEGER rank 2: column me+1 is this process's contribution
    allocate (table(4, n))
    table = -1
    table(:, me + 1) = [(100 * me + i, i = 1, 4)]
    call HSPLIT_Allgather(MPI_IN_PLACE, 4, MPI_INTEGER, table, 4, MPI_INTEGER, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, 'allgather in place ierror')
    total = 0
    do p = 0, n - 1
      if (all(table(:, p + 1) == [(100 * p + i, i = 1, 4)])) total = total + 1
    end do
    call check_int(total, n, 'allgather in place: right blocks')
  end subroutine

  ! Non-contiguous sections: strided rank 1, rows of a matrix, a strided
  ! rank-3 section; as input, output and both.
  subroutine check_noncontiguous(comm)
    type(MPI_Comm), intent(in) :: comm
    integer :: ierror, i, p, root
    integer :: a(12), expected(12)
    real(8) :: m(3, 4), mexp(3, 4)
    integer :: c(4, 3, 4), cexp(4, 3, 4), picked(2, 3, 2)
    integer, allocatable :: g(:), gexp(:), src(:, :)

    ! bcast into every second element: the others untouched
    root = n - 1
    a = -1
    if (me == root) a(1:12:2) = [(100 * root + i, i = 1, 6)]
    call HSPLIT_Bcast(a(1:12:2), 6, MPI_INTEGER, root, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, 'bcast strided ierror')
    expected = -1
    expected(1:12:2) = [(100 * root + i, i = 1, 6)]
    call check(all(a == expected), 'bcast strided')

    ! allreduce from row 2 into row 3 of a matrix (stride 3)
    m = -1
    m(2, :) = [(0.5d0 * (100 * me + i), i = 1, 4)]
    call HSPLIT_Allreduce(m(2, :), m(3, :), 4, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, 'allreduce rows ierror')
    mexp = -1
    mexp(2, :) = [(0.5d0 * (100 * me + i), i = 1, 4)]
    mexp(3, :) = [(0.5d0 * (50 * n * (n - 1) + n * i), i = 1, 4)]
    call check(all(m == mexp), 'allreduce rows')

    ! allreduce in place on a strided rank-3 section
    c = -1
    picked = reshape([(100 * me + i, i = 1, 12)], [2, 3, 2])
    c(1:4:3, :, 2:4:2) = picked
    call HSPLIT_Allreduce(MPI_IN_PLACE, c(1:4:3, :, 2:4:2), 12, MPI_INTEGER, MPI_SUM, comm, &
                          ierror)
    call check_int(ierror, MPI_SUCCESS, 'allreduce rank-3 section ierror')
    cexp = -1
    cexp(1:4:3, :, 2:4:2) = reshape([(50 * n * (n - 1) + n * i, i = 1, 12)], [2, 3, 2])
    call check(all(c == cexp), 'allreduce in place rank-3 section')

    ! gather a row (stride 3) into every second element of the root's buffer
    allocate (g(6 * n), gexp(6 * n), src(3, 3))
    src = -1
    src(2, :) = [(100 * me + i, i = 1, 3)]
    g = -1
    call HSPLIT_Gather(src(2, :), 3, MPI_INTEGER, g(1::2), 3, MPI_INTEGER, 0, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, 'gather strided ierror')
    gexp = -1
    gexp(1::2) = [((100 * p + i, i = 1, 3), p = 0, n - 1)]
    if (me == 0) call check(all(g == gexp), 'gather row into strided')

    ! scatter from every second element into a row
    root = n - 1
    g = -1
    if (me == root) g(1::2) = [((100 * p + i, i = 1, 3), p = 0, n - 1)]
    src = -1
    call HSPLIT_Scatter(g(1::2), 3, MPI_INTEGER, src(2, :), 3, MPI_INTEGER, root, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, 'scatter strided ierror')
    call check(all(src(2, :) == [(100 * me + i, i = 1, 3)]) .and. all(src(1, :) == -1) .and. &
               all(src(3, :) == -1), 'scatter strided into row')

    ! allgather from a row into every second element
    src(2, :) = [(100 * me + i, i = 1, 3)]
    g = -1
    call HSPLIT_Allgather(src(2, :), 3, MPI_INTEGER, g(1::2), 3, MPI_INTEGER, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, 'allgather strided ierror')
    call check(all(g == gexp), 'allgather row into strided')
  end subroutine

  ! MPI_BOTTOM with a datatype of absolute addresses: as the buffer of a
  ! bcast, and as the send buffer of an allgather.
  subroutine check_bottom(comm)
    type(MPI_Comm), intent(in) :: comm
    integer, target :: ival
    real(8), target :: dval
    integer(MPI_ADDRESS_KIND) :: addr(2)
    type(MPI_Datatype) :: absolute, one_int
    integer :: ierror, root, p
    integer, allocatable :: gathered(:)
    call MPI_Get_address(ival, addr(1))
    call MPI_Get_address(dval, addr(2))
    call MPI_Type_create_struct(2, [1, 1], addr, [MPI_INTEGER, MPI_DOUBLE_PRECISION], absolute)
    call MPI_Type_commit(absolute)
    root = n - 1
    ival = -1
    dval = -1
    if (me == root) then
      ival = 100 * root + 1
      dval = 0.5d0 * root
    end if
    call HSPLIT_Bcast(MPI_BOTTOM, 1, absolute, root, comm, ierror)
    call MPI_F_sync_reg(ival)
    call MPI_F_sync_reg(dval)
    call check_int(ierror, MPI_SUCCESS, 'bcast MPI_BOTTOM ierror')
    call check(ival == 100 * root + 1 .and. dval == 0.5d0 * root, 'bcast MPI_BOTTOM')
    call MPI_Type_free(absolute)

    call MPI_Type_create_hindexed(1, [1], addr(1:1), MPI_INTEGER, one_int)
    call MPI_Type_commit(one_int)
    ival = 100 * me + 7
    call MPI_F_sync_reg(ival)
    allocate (gathered(n))
    gathered = -1
    call HSPLIT_Allgather(MPI_BOTTOM, 1, one_int, gathered, 1, MPI_INTEGER, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, 'allgather from MPI_BOTTOM ierror')
    call check(all(gathered == [(100 * p + 7, p = 0, n - 1)]), 'allgather from MPI_BOTTOM')
    call MPI_Type_free(one_int)
  end subroutine

  ! The non-commutative Fortran operation: (a o b) = (a%i, b%d) over the
  ! processes in rank order gives (process 0's i, process n-1's d).
  subroutine check_noncommutative(comm)
    type(MPI_Comm), intent(in) :: comm
    type(pair_t) :: mine(3), result(3), expected(3)
    integer :: ierror, root, k
    mine = [(pair_t(100 * me + k, 0.5d0 * (100 * me + k)), k = 1, 3)]
    expected = [(pair_t(k, 0.5d0 * (100 * (n - 1) + k)), k = 1, 3)]
    do root = 0, n - 1
      result = pair_make(-1)
      call HSPLIT_Reduce(mine, result, 3, pair_type, first_last_op, root, comm, ierror)
      call check_int(ierror, MPI_SUCCESS, 'reduce non-commutative ierror')
      if (me == root) call check(all(result == expected), 'reduce non-commutative')
    end do
    result = pair_make(-1)
    call HSPLIT_Allreduce(mine, result, 3, pair_type, first_last_op, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, 'allreduce non-commutative ierror')
    call check(all(result == expected), 'allreduce non-commutative')
    ! in place, scalar
    result(1) = mine(2)
    call HSPLIT_Allreduce(MPI_IN_PLACE, result(1), 1, pair_type, first_last_op, comm, ierror)
    call check(result(1) == expected(2), 'allreduce non-commutative in place scalar')
  end subroutine

  ! count 0, zero-size arrays: success, nothing written
  subroutine check_zero_count(comm)
    type(MPI_Comm), intent(in) :: comm
    integer :: ierror, a(4), b(4)
    a = 1
    b = 2
    call HSPLIT_Bcast(a(1:0), 0, MPI_INTEGER, 0, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, 'bcast count 0 ierror')
    call HSPLIT_Allreduce(a(1:0), b(1:0), 0, MPI_INTEGER, MPI_SUM, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, 'allreduce count 0 ierror')
    call HSPLIT_Reduce(a, b, 0, MPI_INTEGER, MPI_SUM, 0, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, 'reduce count 0 ierror')
    call HSPLIT_Gather(a, 0, MPI_INTEGER, b, 0, MPI_INTEGER, 0, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, 'gather count 0 ierror')
    call HSPLIT_Scatter(a, 0, MPI_INTEGER, b, 0, MPI_INTEGER, 0, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, 'scatter count 0 ierror')
    call HSPLIT_Allgather(a, 0, MPI_INTEGER, b, 0, MPI_INTEGER, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, 'allgather count 0 ierror')
    call check(all(a == 1) .and. all(b == 2), 'count 0 wrote nothing')
  end subroutine

  ! An assumed-size array (last extent unknown to the callee) is passed on.
  subroutine check_assumed_size(comm)
    type(MPI_Comm), intent(in) :: comm
    integer :: a(5), i
    a = -1
    if (me == n - 1) a = [(100 * (n - 1) + i, i = 1, 5)]
    call bcast_assumed_size(a, 5, n - 1, comm)
    call check(all(a == [(100 * (n - 1) + i, i = 1, 5)]), 'bcast of an assumed-size array')
  end subroutine

  subroutine bcast_assumed_size(a, count, root, comm)
    integer, intent(inout) :: a(*)
    integer, intent(in) :: count, root
    type(MPI_Comm), intent(in) :: comm
    integer :: ierror
    call HSPLIT_Bcast(a, count, MPI_INTEGER, root, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, 'bcast of an assumed-size array ierror')
  end subroutine

  ! Every collective without ierror (errors would be fatal here): results.
  subroutine check_ierror_absent(comm)
    type(MPI_Comm), intent(in) :: comm
    integer :: cme, cn, x, y, p
    integer, allocatable :: got(:)
    call MPI_Comm_rank(comm, cme)
    call MPI_Comm_size(comm, cn)
    allocate (got(cn))
    x = -1
    if (cme == 0) x = 42
    call HSPLIT_Bcast(x, 1, MPI_INTEGER, 0, comm)
    call check_int(x, 42, 'bcast without ierror')
    y = -1
    call HSPLIT_Reduce(cme, y, 1, MPI_INTEGER, MPI_SUM, 0, comm)
    if (cme == 0) call check_int(y, cn * (cn - 1) / 2, 'reduce without ierror')
    call HSPLIT_Allreduce(cme, y, 1, MPI_INTEGER, MPI_MAX, comm)
    call check_int(y, cn - 1, 'allreduce without ierror')
    got = -1
    call HSPLIT_Gather(cme, 1, MPI_INTEGER, got, 1, MPI_INTEGER, 0, comm)
    if (cme == 0) call check(all(got == [(p, p = 0, cn - 1)]), 'gather without ierror')
    got = [(10 * p, p = 0, cn - 1)]
    call HSPLIT_Scatter(got, 1, MPI_INTEGER, y, 1, MPI_INTEGER, 0, comm)
    call check_int(y, 10 * cme, 'scatter without ierror')
    got = -1
    call HSPLIT_Allgather(cme, 1, MPI_INTEGER, got, 1, MPI_INTEGER, comm)
    call check(all(got == [(p, p = 0, cn - 1)]), 'allgather without ierror')
    call HSPLIT_Barrier(comm)
  end subroutine
end program
