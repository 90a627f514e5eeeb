! hierarchy.f90: walk down the hardware hierarchy of MPI_COMM_WORLD, one level
! per step, then add up one number per process over the hierarchy.
program hierarchy
  use mpi_f08
  use hsplit_f08
  implicit none
  integer, parameter :: NLEVELS = 16 ! more than any machine has
  type(MPI_Comm) :: newcomm(NLEVELS), rootscomm(NLEVELS), oldcomm
  character(len=HSPLIT_MAX_HLEVEL_NAME) :: type
  integer :: world_rank, world_size, steps, i
  integer :: num_comms, index, resultlen, level_size, level_rank, nroots
  real(8) :: values(2)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, world_rank)
  call MPI_Comm_size(MPI_COMM_WORLD, world_size)

  oldcomm = MPI_COMM_WORLD
  steps = 0
  do while (oldcomm /= MPI_COMM_NULL .and. steps < NLEVELS)
    steps = steps + 1
    ! Collective over oldcomm: every process of oldcomm calls it.
    call HSPLIT_Comm_hsplit_with_roots(oldcomm, MPI_INFO_NULL, newcomm(steps), rootscomm(steps))
    if (newcomm(steps) == MPI_COMM_NULL) then
      write (*, '("step ", i0, "  world rank ", i2, "  MPI_COMM_NULL")') steps, world_rank
    else
      call HSPLIT_Comm_get_hlevel_info(newcomm(steps), num_comms, index, type, resultlen)
      call MPI_Comm_size(newcomm(steps), level_size)
      call MPI_Comm_rank(newcomm(steps), level_rank)
      if (level_rank == 0) then ! one line per new communicator, from its rank 0
        call MPI_Comm_size(rootscomm(steps), nroots) ! rank 0 is always in a roots comm
        write (*, '("step ", i0, "  world rank ", i2, "  ", a8, 1x, i0, " of ", i0, &
                   & "  size ", i0, "  roots comm of ", i0)') &
          steps, world_rank, type, index, num_comms, level_size, nroots
      end if
    end if
    oldcomm = newcomm(steps)
  end do

  ! A hierarchical allreduce, in place: (1, rank) summed over all processes.
  values = [1d0, real(world_rank, 8)]
  call HSPLIT_Allreduce(MPI_IN_PLACE, values, size(values), MPI_DOUBLE_PRECISION, MPI_SUM, &
                        MPI_COMM_WORLD)
  if (world_rank == 0) write (*, '("processes: ", i0, ", sum of ranks: ", i0)') &
    nint(values(1)), nint(values(2))

  do i = 1, steps
    if (newcomm(i) /= MPI_COMM_NULL) call MPI_Comm_free(newcomm(i))
    if (rootscomm(i) /= MPI_COMM_NULL) call MPI_Comm_free(rootscomm(i))
  end do
  call MPI_Finalize()
end program hierarchy
