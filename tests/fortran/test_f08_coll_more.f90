! SPDX-License-Identifier: BSD-3-Clause
! The vector, all-to-all, reduce-scatter and scan collectives of hsplit_f08
! (HSPLIT_Gatherv ... HSPLIT_Exscan) from Fortran: each with INTEGER and
! REAL(8) arrays, counts different on every process (zeros included),
! displacements out of rank order with gaps, every root, MPI_IN_PLACE
! wherever MPI accepts it, on MPI_COMM_WORLD, on a node of the hierarchy and
! on the world in reverse rank order (coll_more_by_type.inc); a
! non-commutative Fortran operation (2x2 matrix products modulo a prime) for
! the scans and reduce-scatters; non-contiguous array sections; ierror
! absent; a negative count: MPI_ERR_COUNT in ierror on every process. Every
! result is compared with mpi_f08's on the same input and with the values
! computed here, never from MPI. --light (for MPICH, slow when
! oversubscribed): gatherv and scatterv from 3 roots, and REAL(8) on
! MPI_COMM_WORLD only.
program test_f08_coll_more
  use mpi_f08
  use hsplit_f08
  use test_util_f08
  use coll_more_util
  use coll_more_integer, only: run_integer => run_by_type
  use coll_more_real8, only: run_real8 => run_by_type
  implicit none
  type(MPI_Datatype) :: mat_type
  type(MPI_Op) :: mat_op
  type(MPI_Comm) :: node, roots, reversed
  integer :: me, n
  logical :: light
  character(len=16) :: arg

  call get_command_argument(1, arg)
  light = arg == '--light'
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, n)
  call mat_type_create(mat_type)
  call MPI_Op_create(mat_product, .false., mat_op)

  call run_both(MPI_COMM_WORLD, 'world')
  call HSPLIT_Comm_hsplit_with_roots(MPI_COMM_WORLD, MPI_INFO_NULL, node, roots)
  call run_both(node, 'node')
  call MPI_Comm_split(MPI_COMM_WORLD, 0, n - 1 - me, reversed)
  call run_both(reversed, 'reversed')
  call check_noncommutative(MPI_COMM_WORLD, 'world')
  call check_noncommutative(reversed, 'reversed')
  call check_noncontiguous(MPI_COMM_WORLD)
  call check_ierror_absent(MPI_COMM_WORLD)
  call check_negative_counts(MPI_COMM_WORLD)

  call MPI_Comm_free(reversed)
  call MPI_Comm_free(node)
  if (roots /= MPI_COMM_NULL) call MPI_Comm_free(roots)
  call MPI_Op_free(mat_op)
  call MPI_Type_free(mat_type)
  call test_finish()

contains

  subroutine run_both(comm, label)
    type(MPI_Comm), intent(in) :: comm
    character(len=*), intent(in) :: label
    call run_integer(comm, MPI_INTEGER, label // ' integer', light)
    if (.not. light .or. label == 'world') &
      call run_real8(comm, MPI_DOUBLE_PRECISION, label // ' real(8)', light)
  end subroutine

  ! The matrix product in rank order of comm (process cp contributes
  ! mat_of(cp, j) as element j): scan, exscan, reduce_scatter_block,
  ! reduce_scatter, and scan in place.
  subroutine check_noncommutative(comm, label)
    type(MPI_Comm), intent(in) :: comm
    character(len=*), intent(in) :: label
    integer, parameter :: c = 3, b = 2
    integer :: send(2, 2, c), got(2, 2, c + 1), mpi(2, 2, c + 1), expected(2, 2, c + 1)
    integer, allocatable :: bsend(:, :, :), rsend(:, :, :), counts(:)
    integer :: cme, cn, j, q, k, ierror, nrecv
    character(len=:), allocatable :: what
    call MPI_Comm_rank(comm, cme)
    call MPI_Comm_size(comm, cn)
    ! the test can tell rank order from another: reversed, the product differs
    if (cn > 1) call check(any(mat_chain(0, cn - 1, 1) /= mat_chain(cn - 1, 0, 1)), &
                           label // ': the test matrices commute')
    do j = 1, c
      send(:, :, j) = mat_of(cme, j)
    end do

    what = label // ' scan non-commutative'
    got = -1
    mpi = -1
    expected = -1
    do j = 1, c
      expected(:, :, j) = mat_chain(0, cme, j)
    end do
    call HSPLIT_Scan(send, got, c, mat_type, mat_op, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, what // ' ierror')
    call MPI_Scan(send, mpi, c, mat_type, mat_op, comm)
    call check(all(mpi == expected), what // ': MPI''s own result differs')
    call check(all(got == expected), what)
    got(:, :, 1:c) = send
    call HSPLIT_Scan(MPI_IN_PLACE, got, c, mat_type, mat_op, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, what // ' in place ierror')
    call check(all(got == expected), what // ' in place')

    what = label // ' exscan non-commutative'
    got = -1
    mpi = -1
    if (cme > 0) then
      do j = 1, c
        expected(:, :, j) = mat_chain(0, cme - 1, j)
      end do
    end if
    call HSPLIT_Exscan(send, got, c, mat_type, mat_op, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, what // ' ierror')
    call MPI_Exscan(send, mpi, c, mat_type, mat_op, comm)
    if (cme > 0) then
      call check(all(mpi == expected), what // ': MPI''s own result differs')
      call check(all(got == expected), what)
    end if
    call check(all(got(:, :, c + 1) == -1), what // ': guard written')

    ! b matrices for each process: element k of the block of q is
    ! mat_of(p, 10 q + k)
    what = label // ' reduce_scatter_block non-commutative'
    allocate (bsend(2, 2, b * cn))
    do q = 0, cn - 1
      do k = 1, b
        bsend(:, :, b * q + k) = mat_of(cme, 10 * q + k)
      end do
    end do
    got = -1
    mpi = -1
    expected = -1
    do k = 1, b
      expected(:, :, k) = mat_chain(0, cn - 1, 10 * cme + k)
    end do
    call HSPLIT_Reduce_scatter_block(bsend, got, b, mat_type, mat_op, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, what // ' ierror')
    call MPI_Reduce_scatter_block(bsend, mpi, b, mat_type, mat_op, comm)
    call check(all(mpi == expected), what // ': MPI''s own result differs')
    call check(all(got == expected), what)

    ! process q gets modulo(q + 1, 3) matrices
    what = label // ' reduce_scatter non-commutative'
    allocate (counts(cn))
    counts = [(modulo(q + 1, 3), q = 0, cn - 1)]
    allocate (rsend(2, 2, sum(counts)))
    j = 0
    do q = 0, cn - 1
      do k = 1, counts(q + 1)
        j = j + 1
        rsend(:, :, j) = mat_of(cme, 10 * q + k)
      end do
    end do
    nrecv = counts(cme + 1)
    got = -1
    mpi = -1
    expected = -1
    do k = 1, nrecv
      expected(:, :, k) = mat_chain(0, cn - 1, 10 * cme + k)
    end do
    call HSPLIT_Reduce_scatter(rsend, got, counts, mat_type, mat_op, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, what // ' ierror')
    call MPI_Reduce_scatter(rsend, mpi, counts, mat_type, mat_op, comm)
    call check(all(mpi == expected), what // ': MPI''s own result differs')
    call check(all(got == expected), what)
  end subroutine

  ! Strided sections and rows of matrices as send and receive buffers:
  ! the elements between them must stay as they were.
  subroutine check_noncontiguous(comm)
    type(MPI_Comm), intent(in) :: comm
    integer :: counts(0:n - 1), displs(0:n - 1), total, p, k, c, ierror, root
    integer :: src(3, n), m(3, 8 * n), mexp(3, 8 * n), sc(6 * n + 12), scexp(6 * n + 12)
    integer, allocatable :: big(:), bigexp(:), rs(:, :)

    ! gatherv: a row (stride 3) into every second element at the root
    root = n - 1
    counts = [(modulo(p + 2, n), p = 0, n - 1)]
    call reversed_displs(counts, 1, displs, total)
    c = counts(me)
    src = -1
    src(2, 1:c) = [(100 * me + k, k = 1, c)]
    allocate (big(2 * total), bigexp(2 * total))
    big = -1
    bigexp = -1
    do p = 0, n - 1
      bigexp(2 * displs(p) + 1:2 * (displs(p) + counts(p)):2) = [(100 * p + k, k = 1, counts(p))]
    end do
    call HSPLIT_Gatherv(src(2, 1:c), c, MPI_INTEGER, big(1::2), counts, displs, MPI_INTEGER, &
                        root, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, 'gatherv strided ierror')
    if (me == root) call check(all(big == bigexp), 'gatherv row into strided')

    ! allgatherv: the same, on every process
    big = -1
    call HSPLIT_Allgatherv(src(2, 1:c), c, MPI_INTEGER, big(1::2), counts, displs, &
                           MPI_INTEGER, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, 'allgatherv strided ierror')
    call check(all(big == bigexp), 'allgatherv row into strided')

    ! scatterv: from every second element into a row
    src = -1
    call HSPLIT_Scatterv(bigexp(1::2), counts, displs, MPI_INTEGER, src(3, 1:c), c, &
                         MPI_INTEGER, root, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, 'scatterv strided ierror')
    call check(all(src(3, 1:c) == [(100 * me + k, k = 1, c)]) .and. all(src(1:2, :) == -1) &
               .and. all(src(3, c + 1:) == -1), 'scatterv strided into row')

    ! alltoall: 2 elements each, from every third element into row 2 of m
    sc = -1
    sc(1:6 * n:3) = [((100 * me + 10 * p + k, k = 1, 2), p = 0, n - 1)]
    m = -1
    call HSPLIT_Alltoall(sc(1:6 * n:3), 2, MPI_INTEGER, m(2, 1:2 * n), 2, MPI_INTEGER, comm, &
                         ierror)
    call check_int(ierror, MPI_SUCCESS, 'alltoall strided ierror')
    mexp = -1
    mexp(2, 1:2 * n) = [((100 * p + 10 * me + k, k = 1, 2), p = 0, n - 1)]
    call check(all(m == mexp), 'alltoall strided into row')
    ! in place on the row
    m(2, 1:2 * n) = sc(1:6 * n:3)
    call HSPLIT_Alltoall(MPI_IN_PLACE, 2, MPI_INTEGER, m(2, 1:2 * n), 2, MPI_INTEGER, comm, &
                         ierror)
    call check_int(ierror, MPI_SUCCESS, 'alltoall in place on a row ierror')
    call check(all(m == mexp), 'alltoall in place on a row')

    ! alltoallv: 1 element to every process, the receive blocks in reverse
    ! order with gaps, into row 3 of m
    counts = 1
    call reversed_displs(counts, 1, displs, total)
    m = -1
    mexp = -1
    do p = 0, n - 1
      mexp(3, displs(p) + 1) = 100 * p + 10 * me + 1
    end do
    call HSPLIT_Alltoallv(sc(1:6 * n:6), counts, [(p, p = 0, n - 1)], MPI_INTEGER, &
                          m(3, 1:total), counts, displs, MPI_INTEGER, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, 'alltoallv strided ierror')
    call check(all(m == mexp), 'alltoallv strided into row')

    ! reduce_scatter_block from a row into every second element
    allocate (rs(2, 3 * n))
    rs = -1
    rs(1, :) = [((100 * me + 10 * p + k, k = 1, 3), p = 0, n - 1)]
    sc = -1
    call HSPLIT_Reduce_scatter_block(rs(1, :), sc(1:6:2), 3, MPI_INTEGER, MPI_SUM, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, 'reduce_scatter_block strided ierror')
    scexp = -1
    scexp(1:6:2) = [(50 * n * (n - 1) + n * (10 * me + k), k = 1, 3)]
    call check(all(sc == scexp), 'reduce_scatter_block row into strided')

    ! reduce_scatter, 3 each, likewise
    counts = 3
    sc = -1
    call HSPLIT_Reduce_scatter(rs(1, :), sc(2:6:2), counts, MPI_INTEGER, MPI_SUM, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, 'reduce_scatter strided ierror')
    scexp = -1
    scexp(2:6:2) = [(50 * n * (n - 1) + n * (10 * me + k), k = 1, 3)]
    call check(all(sc == scexp), 'reduce_scatter row into strided')

    ! scan and exscan in place on a strided section
    sc = -1
    sc(1:12:3) = [(100 * me + k, k = 1, 4)]
    call HSPLIT_Scan(MPI_IN_PLACE, sc(1:12:3), 4, MPI_INTEGER, MPI_SUM, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, 'scan strided ierror')
    scexp = -1
    scexp(1:12:3) = [(50 * me * (me + 1) + (me + 1) * k, k = 1, 4)]
    call check(all(sc == scexp), 'scan in place strided')
    sc = -1
    call HSPLIT_Exscan(rs(1, 1:4), sc(1:12:3), 4, MPI_INTEGER, MPI_SUM, comm, ierror)
    call check_int(ierror, MPI_SUCCESS, 'exscan strided ierror')
    scexp = -1
    ! rs(1, 1:4) holds 100 me + 1, + 2, + 3 (block of process 0), + 11
    scexp(1:12:3) = 50 * (me - 1) * me + me * [1, 2, 3, 11]
    if (me > 0) call check(all(sc == scexp), 'exscan row into strided')
    call check(all(sc(2:12:3) == -1) .and. all(sc(3:12:3) == -1), 'exscan strided: gaps written')
  end subroutine

  ! Without ierror (errors would be fatal): one call of each, results.
  subroutine check_ierror_absent(comm)
    type(MPI_Comm), intent(in) :: comm
    integer :: ones(0:n - 1), zeros(0:n - 1), iota(0:n - 1), got(0:n - 1), x, p
    ones = 1
    iota = [(p, p = 0, n - 1)]
    zeros = 0
    got = -1
    call HSPLIT_Gatherv(me, 1, MPI_INTEGER, got, ones, iota, MPI_INTEGER, 0, comm)
    if (me == 0) call check(all(got == iota), 'gatherv without ierror')
    x = -1
    call HSPLIT_Scatterv(10 * iota, ones, iota, MPI_INTEGER, x, 1, MPI_INTEGER, 0, comm)
    call check_int(x, 10 * me, 'scatterv without ierror')
    got = -1
    call HSPLIT_Allgatherv(me, 1, MPI_INTEGER, got, ones, iota, MPI_INTEGER, comm)
    call check(all(got == iota), 'allgatherv without ierror')
    call HSPLIT_Alltoall(100 * me + iota, 1, MPI_INTEGER, got, 1, MPI_INTEGER, comm)
    call check(all(got == 100 * iota + me), 'alltoall without ierror')
    call HSPLIT_Alltoallv(100 * me + iota, ones, iota, MPI_INTEGER, got, ones, iota, &
                          MPI_INTEGER, comm)
    call check(all(got == 100 * iota + me), 'alltoallv without ierror')
    x = -1
    call HSPLIT_Reduce_scatter_block(iota, x, 1, MPI_INTEGER, MPI_SUM, comm)
    call check_int(x, n * me, 'reduce_scatter_block without ierror')
    x = -1
    call HSPLIT_Reduce_scatter(iota, x, ones, MPI_INTEGER, MPI_SUM, comm)
    call check_int(x, n * me, 'reduce_scatter without ierror')
    call HSPLIT_Scan(me, x, 1, MPI_INTEGER, MPI_SUM, comm)
    call check_int(x, me * (me + 1) / 2, 'scan without ierror')
    call HSPLIT_Exscan(me, x, 1, MPI_INTEGER, MPI_SUM, comm)
    if (me > 0) call check_int(x, me * (me - 1) / 2, 'exscan without ierror')
    ! zero counts everywhere: nothing written
    got = -1
    call HSPLIT_Alltoallv(iota, zeros, iota, MPI_INTEGER, got, zeros, iota, MPI_INTEGER, comm)
    call check(all(got == -1), 'alltoallv of nothing wrote')
  end subroutine

  ! MPI_ERRORS_RETURN on a duplicate: a negative count, on every process,
  ! gives MPI_ERR_COUNT in ierror everywhere, for each of the nine.
  subroutine check_negative_counts(comm)
    type(MPI_Comm), intent(in) :: comm
    type(MPI_Comm) :: dup
    integer :: ones(0:n - 1), bad(0:n - 1), iota(0:n - 1), a(4 * n), b(4 * n), p, ierror
    call MPI_Comm_dup(comm, dup)
    call MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN)
    ones = 1
    bad = 1
    bad(n - 1) = -1
    iota = [(p, p = 0, n - 1)]
    a = 1
    b = -1
    call HSPLIT_Gatherv(a, -1, MPI_INTEGER, b, ones, iota, MPI_INTEGER, 0, dup, ierror)
    call expect_count(ierror, 'gatherv sendcount -1')
    call HSPLIT_Scatterv(a, ones, iota, MPI_INTEGER, b, -1, MPI_INTEGER, 0, dup, ierror)
    call expect_count(ierror, 'scatterv recvcount -1')
    call HSPLIT_Allgatherv(a, -1, MPI_INTEGER, b, ones, iota, MPI_INTEGER, dup, ierror)
    call expect_count(ierror, 'allgatherv sendcount -1')
    call HSPLIT_Alltoall(a, -1, MPI_INTEGER, b, -1, MPI_INTEGER, dup, ierror)
    call expect_count(ierror, 'alltoall counts -1')
    call HSPLIT_Alltoallv(a, bad, iota, MPI_INTEGER, b, bad, iota, MPI_INTEGER, dup, ierror)
    call expect_count(ierror, 'alltoallv a count -1')
    call HSPLIT_Reduce_scatter_block(a, b, -1, MPI_INTEGER, MPI_SUM, dup, ierror)
    call expect_count(ierror, 'reduce_scatter_block recvcount -1')
    call HSPLIT_Reduce_scatter(a, b, bad, MPI_INTEGER, MPI_SUM, dup, ierror)
    call expect_count(ierror, 'reduce_scatter a recvcount -1')
    call HSPLIT_Scan(a, b, -1, MPI_INTEGER, MPI_SUM, dup, ierror)
    call expect_count(ierror, 'scan count -1')
    call HSPLIT_Exscan(a, b, -1, MPI_INTEGER, MPI_SUM, dup, ierror)
    call expect_count(ierror, 'exscan count -1')
    call check(all(a == 1) .and. all(b == -1), 'a call with a negative count wrote')
    ! the communicator still works
    call HSPLIT_Scan(1, p, 1, MPI_INTEGER, MPI_SUM, dup, ierror)
    call check_int(ierror, MPI_SUCCESS, 'scan after the errors ierror')
    call check_int(p, me + 1, 'scan after the errors')
    call MPI_Comm_free(dup)
  end subroutine

  subroutine expect_count(ierror, what)
    integer, intent(in) :: ierror
    character(len=*), intent(in) :: what
    integer :: errclass
    errclass = MPI_SUCCESS
    if (ierror /= MPI_SUCCESS) call MPI_Error_class(ierror, errclass)
    call check_int(errclass, MPI_ERR_COUNT, what // ': error class')
  end subroutine
end program
