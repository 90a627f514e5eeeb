! SPDX-License-Identifier: BSD-3-Clause
! MPI helpers shared by the mini-apps: per-process phase timers reduced to the
! average and the maximum over processes (as in the paper's figures 11-13),
! agreement on success, and a waiting barrier that sleeps.
module app_parallel
  use, intrinsic :: iso_fortran_env, only: real64
  use, intrinsic :: iso_c_binding, only: c_int
  use mpi_f08
  implicit none
  private
  public :: phase_times, summarize_times, all_true, sleeping_barrier

  ! Seconds one process spent, summed over the timed repetitions.
  type :: phase_times
    real(real64) :: total = 0, comm = 0, comp = 0
  end type phase_times

  interface
    ! POSIX usleep: the waiting processes must not take the CPU from the ones
    ! still computing when processes outnumber cores.
    integer(c_int) function c_usleep(microseconds) bind(c, name='usleep')
      import :: c_int
      integer(c_int), value :: microseconds
    end function c_usleep
  end interface

contains

  ! Average and maximum over the processes of comm of each phase's time per
  ! repetition, as (total, comm, comp); valid at rank 0 of comm.
  subroutine summarize_times(t, reps, comm, avg, most)
    type(phase_times), intent(in) :: t
    integer, intent(in) :: reps
    type(MPI_Comm), intent(in) :: comm
    real(real64), intent(out) :: avg(3), most(3)
    real(real64) :: mine(3)
    integer :: nprocs
    call MPI_Comm_size(comm, nprocs)
    mine = [t%total, t%comm, t%comp] / real(max(reps, 1), real64)
    call MPI_Reduce(mine, avg, 3, MPI_DOUBLE_PRECISION, MPI_SUM, 0, comm)
    call MPI_Reduce(mine, most, 3, MPI_DOUBLE_PRECISION, MPI_MAX, 0, comm)
    avg = avg / real(nprocs, real64)
  end subroutine summarize_times

  ! True on every process when mine is true on every process.
  logical function all_true(mine, comm)
    logical, intent(in) :: mine
    type(MPI_Comm), intent(in) :: comm
    call MPI_Allreduce(mine, all_true, 1, MPI_LOGICAL, MPI_LAND, comm)
  end function all_true

  ! A barrier whose waiting processes sleep between polls, so that a process
  ! doing a long serial check is not slowed by others spinning in MPI.
  subroutine sleeping_barrier(comm)
    type(MPI_Comm), intent(in) :: comm
    type(MPI_Request) :: request
    logical :: done
    integer(c_int) :: rc
    call MPI_Ibarrier(comm, request)
    do
      call MPI_Test(request, done, MPI_STATUS_IGNORE)
      if (done) exit
      rc = c_usleep(1000_c_int)
    end do
  end subroutine sleeping_barrier

end module app_parallel
