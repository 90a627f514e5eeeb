! SPDX-License-Identifier: BSD-3-Clause
! The input graph of hsplit-asp and its distance matrix. Either a random
! weighted directed graph, a pure function of (seed, N, density, weights)
! through the counter-based hash, or the arcs of a DIMACS file (read by rank 0
! and broadcast). Rows of the distance matrix are distributed cyclically: row
! i (0-based) belongs to process mod(i, P), as its local row i / P + 1, and is
! stored as a column d(:, li) so that a row is contiguous.
! Distances are 64-bit; ASP_INF marks "no path". Weights are at most 2**31-1,
! so every finite path length is below 2**62 - 1 = ASP_INF and the sum of two
! values at most ASP_INF never overflows.
module asp_graph
  use, intrinsic :: iso_fortran_env, only: int64, real64
  use mpi_f08
  use app_random, only: hash_value, HASH_MODULUS
  use dimacs_reader, only: dimacs_graph
  implicit none
  private
  public :: graph_source, ASP_INF, local_rows, fill_rows, share_arcs, adjacency, count_arcs

  integer(int64), parameter :: ASP_INF = 4611686018427387903_int64 ! 2**62 - 1

  type :: graph_source
    integer :: n = 0
    logical :: from_file = .false.
    real(real64) :: density = 0
    integer(int64) :: wmin = 1, wmax = 1, seed = 1
    type(dimacs_graph) :: file            ! from_file: the arcs (every process)
  end type graph_source

contains

  ! Number of rows of process rank among nprocs.
  pure integer function local_rows(n, rank, nprocs)
    integer, intent(in) :: n, rank, nprocs
    local_rows = 0
    if (rank < n) local_rows = (n - 1 - rank) / nprocs + 1
  end function local_rows

  ! Weight of the random arc i -> j (0-based), or ASP_INF when there is none.
  pure integer(int64) function random_arc(src, i, j) result(w)
    type(graph_source), intent(in) :: src
    integer, intent(in) :: i, j
    integer(int64) :: threshold
    threshold = floor(src%density * real(HASH_MODULUS, real64), int64)
    w = ASP_INF
    if (i == j) return
    if (hash_value(src%seed, 1_int64, int(i, int64), int(j, int64)) >= threshold) return
    w = src%wmin + mod(hash_value(src%seed, 2_int64, int(i, int64), int(j, int64)), &
                       src%wmax - src%wmin + 1)
  end function random_arc

  ! Initial distances of the rows of process rank: 0 on the diagonal, the
  ! lightest arc i -> j, ASP_INF elsewhere. d(n, local_rows(n, rank, nprocs)).
  subroutine fill_rows(src, rank, nprocs, d)
    type(graph_source), intent(in) :: src
    integer, intent(in) :: rank, nprocs
    integer(int64), intent(out) :: d(:, :)
    integer :: li, i, j, a
    do li = 1, size(d, 2)
      i = rank + (li - 1) * nprocs
      if (src%from_file) then
        d(:, li) = ASP_INF
      else
        do j = 0, src%n - 1
          d(j + 1, li) = random_arc(src, i, j)
        end do
      end if
      d(i + 1, li) = 0
    end do
    if (src%from_file) then
      do a = 1, src%file%narcs
        i = src%file%tail(a) - 1
        if (mod(i, nprocs) /= rank) cycle
        li = i / nprocs + 1
        j = src%file%head(a)
        d(j, li) = min(d(j, li), src%file%weight(a))
      end do
    end if
  end subroutine fill_rows

  ! Broadcasts the DIMACS arcs held by rank 0 of comm to every process.
  subroutine share_arcs(src, comm)
    type(graph_source), intent(inout) :: src
    type(MPI_Comm), intent(in) :: comm
    integer :: rank, sizes(2)
    call MPI_Comm_rank(comm, rank)
    sizes = [src%file%n, src%file%narcs]
    call MPI_Bcast(sizes, 2, MPI_INTEGER, 0, comm)
    if (rank /= 0) then
      src%file%n = sizes(1)
      src%file%narcs = sizes(2)
      allocate (src%file%tail(sizes(2)), src%file%head(sizes(2)), src%file%weight(sizes(2)))
    end if
    src%n = sizes(1)
    call MPI_Bcast(src%file%tail, sizes(2), MPI_INTEGER, 0, comm)
    call MPI_Bcast(src%file%head, sizes(2), MPI_INTEGER, 0, comm)
    call MPI_Bcast(src%file%weight, sizes(2), MPI_INTEGER8, 0, comm)
  end subroutine share_arcs

  ! Number of distinct arcs i -> j, i /= j, in the initial rows d.
  integer(int64) function count_arcs(d) result(m)
    integer(int64), intent(in) :: d(:, :)
    integer :: li
    m = 0
    do li = 1, size(d, 2)
      m = m + count(d(:, li) < ASP_INF, kind=int64) - 1 ! minus the diagonal
    end do
  end function count_arcs

  ! The whole graph as adjacency lists (compressed rows): the arcs of node i
  ! (1-based) are targets/weights(first(i):first(i+1)-1). For the Dijkstra
  ! check on one process, without the N x N matrix.
  subroutine adjacency(src, first, targets, weights)
    type(graph_source), intent(in) :: src
    integer(int64), allocatable, intent(out) :: first(:)
    integer, allocatable, intent(out) :: targets(:)
    integer(int64), allocatable, intent(out) :: weights(:)
    integer(int64), allocatable :: fill(:)
    integer :: i, j, a
    integer(int64) :: w, m
    allocate (first(src%n + 1))
    first = 0
    if (src%from_file) then
      do a = 1, src%file%narcs
        first(src%file%tail(a) + 1) = first(src%file%tail(a) + 1) + 1
      end do
    else
      do i = 0, src%n - 1
        do j = 0, src%n - 1
          if (random_arc(src, i, j) < ASP_INF) first(i + 2) = first(i + 2) + 1
        end do
      end do
    end if
    first(1) = 1
    do i = 2, src%n + 1
      first(i) = first(i) + first(i - 1)
    end do
    m = first(src%n + 1) - 1
    allocate (targets(m), weights(m), fill(src%n))
    fill = first(:src%n)
    if (src%from_file) then
      do a = 1, src%file%narcs
        i = src%file%tail(a)
        targets(fill(i)) = src%file%head(a)
        weights(fill(i)) = src%file%weight(a)
        fill(i) = fill(i) + 1
      end do
    else
      do i = 0, src%n - 1
        do j = 0, src%n - 1
          w = random_arc(src, i, j)
          if (w == ASP_INF) cycle
          targets(fill(i + 1)) = j + 1
          weights(fill(i + 1)) = w
          fill(i + 1) = fill(i + 1) + 1
        end do
      end do
    end if
  end subroutine adjacency

end module asp_graph
