! SPDX-License-Identifier: BSD-3-Clause
! Parallel Floyd-Warshall (ASP): at step k the owner of row k, process
! mod(k, P), broadcasts it and every process updates its rows,
!   d(i, j) = min(d(i, j), d(i, k) + d(k, j)),
! so every process is the root in turn. Row k does not change during step k
! (d(k, k) = 0), so the broadcast copy is the row itself. The variants differ
! only in the broadcast: flat (MPI_Bcast) or hier (HSPLIT_Bcast, over the
! hardware hierarchy of the communicator).
module asp_floyd
  use, intrinsic :: iso_fortran_env, only: int64, real64
  use mpi_f08
  use hsplit_f08, only: HSPLIT_Bcast
  use app_parallel, only: phase_times
  use asp_graph, only: ASP_INF
  use asp_options, only: VARIANT_FLAT, VARIANT_HIER
  implicit none
  private
  public :: floyd_warshall_steps, row_bcast

contains

  ! Broadcast of n distances from root with the variant's broadcast.
  subroutine row_bcast(variant, row, n, root, comm)
    integer, intent(in) :: variant, n, root
    integer(int64), intent(inout) :: row(:)
    type(MPI_Comm), intent(in) :: comm
    select case (variant)
    case (VARIANT_HIER)
      call HSPLIT_Bcast(row, n, MPI_INTEGER8, root, comm)
    case (VARIANT_FLAT)
      call MPI_Bcast(row, n, MPI_INTEGER8, root, comm)
    end select
  end subroutine row_bcast

  ! Steps 0..iterations-1 on the rows d(n, nloc) of this process; row is an
  ! n-element buffer. Adds broadcast time to t%comm, updates to t%comp.
  subroutine floyd_warshall_steps(variant, d, iterations, row, comm, t)
    integer, intent(in) :: variant, iterations
    integer(int64), intent(inout) :: d(:, :), row(:)
    type(MPI_Comm), intent(in) :: comm
    type(phase_times), intent(inout) :: t
    integer :: rank, nprocs, n, k, owner, li
    integer(int64) :: dik
    real(real64) :: t0, t1
    call MPI_Comm_rank(comm, rank)
    call MPI_Comm_size(comm, nprocs)
    n = size(d, 1)
    do k = 0, iterations - 1
      owner = mod(k, nprocs)
      t0 = MPI_Wtime()
      if (rank == owner) row = d(:, k / nprocs + 1)
      call row_bcast(variant, row, n, owner, comm)
      t1 = MPI_Wtime()
      do li = 1, size(d, 2)
        dik = d(k + 1, li)
        ! dik + row(j) <= 2 ASP_INF - 1: no overflow, and stays >= ASP_INF
        ! when either is "no path", so min keeps d(j, li)
        if (dik < ASP_INF) d(:, li) = min(d(:, li), dik + row)
      end do
      t%comm = t%comm + (t1 - t0)
      t%comp = t%comp + (MPI_Wtime() - t1)
    end do
  end subroutine floyd_warshall_steps

end module asp_floyd
