! SPDX-License-Identifier: BSD-3-Clause
! Checks of the distributed distances that share no code with asp_floyd:
! - serial: rank 0 runs the textbook triple loop of Floyd-Warshall on the
!   whole matrix and compares it with all rows gathered from the processes;
! - dijkstra: rank 0 runs Dijkstra (binary heap) from a few sampled sources
!   on adjacency lists and compares with those rows. After K < N steps,
!   Floyd-Warshall gives the shortest paths whose intermediate nodes are all
!   among the first K, so Dijkstra then leaves a node only if it is the
!   source or one of those K nodes.
! The reference is computed once, before the timed runs, while the other
! processes wait in a sleeping barrier.
module asp_verify
  use, intrinsic :: iso_fortran_env, only: int64
  use mpi_f08
  use app_random, only: hash_value
  use asp_graph, only: graph_source, ASP_INF, local_rows, fill_rows, adjacency
  implicit none
  private
  public :: serial_reference, dijkstra_reference, sampled_sources, gather_rows, &
            sampled_rows_match, distance_summary

  ! Binary min-heap of (distance, node) for Dijkstra.
  type :: min_heap
    integer(int64), allocatable :: key(:)
    integer, allocatable :: node(:)
    integer :: size = 0
  contains
    procedure :: push => heap_push
    procedure :: pop => heap_pop
  end type min_heap

contains

  ! The whole matrix after `iterations` steps, by the serial algorithm.
  subroutine serial_reference(src, iterations, ref)
    type(graph_source), intent(in) :: src
    integer, intent(in) :: iterations
    integer(int64), allocatable, intent(out) :: ref(:, :)
    integer :: i, j, k
    integer(int64) :: dik
    allocate (ref(src%n, src%n))
    call fill_rows(src, 0, 1, ref) ! column i is row i: one process owns them all
    do k = 1, iterations
      do i = 1, src%n
        dik = ref(k, i)
        if (dik == ASP_INF) cycle
        do j = 1, src%n
          if (ref(j, k) == ASP_INF) cycle
          if (dik + ref(j, k) < ref(j, i)) ref(j, i) = dik + ref(j, k)
        end do
      end do
    end do
  end subroutine serial_reference

  ! The sampled sources (0-based), the same on every process: the first and
  ! the last node, then nodes drawn from the seed, all distinct.
  function sampled_sources(n, count_wanted, seed) result(sources)
    integer, intent(in) :: n, count_wanted
    integer(int64), intent(in) :: seed
    integer, allocatable :: sources(:)
    integer :: candidate, tries, wanted
    wanted = min(count_wanted, n)
    allocate (sources(0))
    sources = [0]
    if (wanted > 1 .and. n > 1) sources = [sources, n - 1]
    tries = 0
    do while (size(sources) < wanted)
      candidate = int(mod(hash_value(seed, 4_int64, int(tries, int64), 0_int64), int(n, int64)))
      tries = tries + 1
      if (any(sources == candidate)) then
        if (tries > 64 * wanted) candidate = first_missing()
        if (any(sources == candidate)) cycle
      end if
      sources = [sources, candidate]
    end do
  contains
    integer function first_missing()
      do first_missing = 0, n - 1
        if (.not. any(sources == first_missing)) return
      end do
    end function first_missing
  end function sampled_sources

  ! Rows of the sources, one per column, by Dijkstra restricted to
  ! intermediate nodes below `iterations` (0-based).
  subroutine dijkstra_reference(src, iterations, sources, ref)
    type(graph_source), intent(in) :: src
    integer, intent(in) :: iterations, sources(:)
    integer(int64), allocatable, intent(out) :: ref(:, :)
    integer(int64), allocatable :: first(:), weights(:)
    integer, allocatable :: targets(:)
    integer :: s
    call adjacency(src, first, targets, weights)
    allocate (ref(src%n, size(sources)))
    do s = 1, size(sources)
      call dijkstra(first, targets, weights, sources(s) + 1, iterations, ref(:, s))
    end do
  end subroutine dijkstra_reference

  ! Distances from source (1-based) over paths whose intermediate nodes are
  ! among the first `allowed`; a heap with lazy deletion (an entry is pushed
  ! per improvement, stale ones skipped when popped).
  subroutine dijkstra(first, targets, weights, source, allowed, dist)
    integer(int64), intent(in) :: first(:), weights(:)
    integer, intent(in) :: targets(:), source, allowed
    integer(int64), intent(out) :: dist(:)
    type(min_heap) :: heap
    logical, allocatable :: done(:)
    integer :: u, v
    integer(int64) :: a, du
    allocate (heap%key(size(targets) + 1), heap%node(size(targets) + 1), done(size(dist)))
    dist = ASP_INF
    done = .false.
    dist(source) = 0
    call heap%push(0_int64, source)
    do while (heap%size > 0)
      call heap%pop(du, u)
      if (done(u)) cycle
      done(u) = .true.
      if (u /= source .and. u > allowed) cycle ! not allowed as an intermediate
      do a = first(u), first(u + 1) - 1
        v = targets(a)
        if (du + weights(a) < dist(v)) then
          dist(v) = du + weights(a)
          call heap%push(dist(v), v)
        end if
      end do
    end do
  end subroutine dijkstra

  subroutine heap_push(heap, key, node)
    class(min_heap), intent(inout) :: heap
    integer(int64), intent(in) :: key
    integer, intent(in) :: node
    integer :: i, parent
    heap%size = heap%size + 1
    i = heap%size
    do while (i > 1)
      parent = i / 2
      if (heap%key(parent) <= key) exit
      heap%key(i) = heap%key(parent)
      heap%node(i) = heap%node(parent)
      i = parent
    end do
    heap%key(i) = key
    heap%node(i) = node
  end subroutine heap_push

  subroutine heap_pop(heap, key, node)
    class(min_heap), intent(inout) :: heap
    integer(int64), intent(out) :: key
    integer, intent(out) :: node
    integer(int64) :: last_key
    integer :: last_node, i, child
    key = heap%key(1)
    node = heap%node(1)
    last_key = heap%key(heap%size)
    last_node = heap%node(heap%size)
    heap%size = heap%size - 1
    if (heap%size == 0) return
    i = 1
    do
      child = 2 * i
      if (child > heap%size) exit
      if (child < heap%size) then
        if (heap%key(child + 1) < heap%key(child)) child = child + 1
      end if
      if (heap%key(child) >= last_key) exit
      heap%key(i) = heap%key(child)
      heap%node(i) = heap%node(child)
      i = child
    end do
    heap%key(i) = last_key
    heap%node(i) = last_node
  end subroutine heap_pop

  ! All rows at rank 0 of comm, in global order (column i+1 = row i);
  ! unallocated elsewhere.
  subroutine gather_rows(d, n, comm, all_rows)
    integer(int64), intent(in) :: d(:, :)
    integer, intent(in) :: n
    type(MPI_Comm), intent(in) :: comm
    integer(int64), allocatable, intent(out) :: all_rows(:, :)
    integer(int64), allocatable :: packed(:, :)
    integer, allocatable :: counts(:), displs(:)
    integer :: rank, nprocs, p, li, at
    call MPI_Comm_rank(comm, rank)
    call MPI_Comm_size(comm, nprocs)
    if (rank == 0) then
      allocate (counts(nprocs), displs(nprocs), packed(n, n), all_rows(n, n))
      at = 0
      do p = 0, nprocs - 1
        counts(p + 1) = n * local_rows(n, p, nprocs)
        displs(p + 1) = at
        at = at + counts(p + 1)
      end do
    else
      allocate (counts(0), displs(0), packed(0, 0))
    end if
    call MPI_Gatherv(d, n * size(d, 2), MPI_INTEGER8, packed, counts, displs, MPI_INTEGER8, &
                     0, comm)
    if (rank /= 0) return
    at = 0
    do p = 0, nprocs - 1
      do li = 1, local_rows(n, p, nprocs)
        at = at + 1
        all_rows(:, p + (li - 1) * nprocs + 1) = packed(:, at)
      end do
    end do
  end subroutine gather_rows

  ! Whether the distributed rows of the sampled sources equal ref (rank 0
  ! compares; every process gets the answer).
  logical function sampled_rows_match(d, sources, ref, comm) result(ok)
    integer(int64), intent(in) :: d(:, :)
    integer, intent(in) :: sources(:)
    integer(int64), intent(in) :: ref(:, :)
    type(MPI_Comm), intent(in) :: comm
    integer(int64), allocatable :: row(:)
    integer :: rank, nprocs, s, owner, n
    call MPI_Comm_rank(comm, rank)
    call MPI_Comm_size(comm, nprocs)
    n = size(d, 1)
    allocate (row(n))
    ok = .true.
    do s = 1, size(sources)
      owner = mod(sources(s), nprocs)
      if (owner == 0 .and. rank == 0) then
        row = d(:, sources(s) / nprocs + 1)
      else if (rank == owner) then
        call MPI_Send(d(:, sources(s) / nprocs + 1), n, MPI_INTEGER8, 0, s, comm)
      else if (rank == 0) then
        call MPI_Recv(row, n, MPI_INTEGER8, owner, s, comm, MPI_STATUS_IGNORE)
      end if
      if (rank == 0) ok = ok .and. all(row == ref(:, s))
    end do
    call MPI_Bcast(ok, 1, MPI_LOGICAL, 0, comm)
  end function sampled_rows_match

  ! Sum of the finite distances and number of unreachable pairs, everywhere.
  subroutine distance_summary(d, comm, total, unreachable)
    integer(int64), intent(in) :: d(:, :)
    type(MPI_Comm), intent(in) :: comm
    integer(int64), intent(out) :: total, unreachable
    ! The sum is taken modulo 2**62 so that it never overflows (a distance is
    ! below 2**62, N**2 of them need not be): each process adds modulo 2**62,
    ! then the 31-bit halves of the partial sums are summed separately.
    integer(int64), parameter :: HALF = 2_int64**31, WRAP = 2_int64**62
    integer(int64) :: mine(3), totals(3), s
    integer :: i, j
    s = 0
    do j = 1, size(d, 2)
      do i = 1, size(d, 1)
        if (d(i, j) < ASP_INF) s = modulo(s + d(i, j), WRAP)
      end do
    end do
    mine(1) = modulo(s, HALF)
    mine(2) = s / HALF
    mine(3) = count(d == ASP_INF, kind=int64)
    call MPI_Allreduce(mine, totals, 3, MPI_INTEGER8, MPI_SUM, comm)
    total = modulo(modulo(totals(2), HALF) * HALF + totals(1), WRAP)
    unreachable = totals(3)
  end subroutine distance_summary

end module asp_verify
