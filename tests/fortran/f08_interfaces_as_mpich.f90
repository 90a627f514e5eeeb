! SPDX-License-Identifier: BSD-3-Clause
! Compiled, not run: every hsplit_f08 collective has the characteristics of
! MPICH's mpi_f08 specific procedure of the same MPI function (the "_f08ts"
! ones, whose buffers are TYPE(*), DIMENSION(..)): a procedure pointer of
! that interface accepts it only when every dummy argument agrees in type,
! kind, rank, intent, OPTIONAL and ASYNCHRONOUS. Not HSPLIT_Bcast: MPICH 4.0
! gives its buffer INTENT(INOUT), MPI-3.1's binding (and hsplit_f08) none.
program f08_interfaces_as_mpich
  use mpi_f08
  use hsplit_f08
  implicit none
  procedure(MPI_Reduce_f08ts), pointer :: reduce => HSPLIT_Reduce
  procedure(MPI_Allreduce_f08ts), pointer :: allreduce => HSPLIT_Allreduce
  procedure(MPI_Gather_f08ts), pointer :: gather => HSPLIT_Gather
  procedure(MPI_Scatter_f08ts), pointer :: scatter => HSPLIT_Scatter
  procedure(MPI_Allgather_f08ts), pointer :: allgather => HSPLIT_Allgather
  procedure(MPI_Barrier_f08), pointer :: barrier => HSPLIT_Barrier
  procedure(MPI_Gatherv_f08ts), pointer :: gatherv => HSPLIT_Gatherv
  procedure(MPI_Scatterv_f08ts), pointer :: scatterv => HSPLIT_Scatterv
  procedure(MPI_Allgatherv_f08ts), pointer :: allgatherv => HSPLIT_Allgatherv
  procedure(MPI_Alltoall_f08ts), pointer :: alltoall => HSPLIT_Alltoall
  procedure(MPI_Alltoallv_f08ts), pointer :: alltoallv => HSPLIT_Alltoallv
  procedure(MPI_Reduce_scatter_block_f08ts), pointer :: reduce_scatter_block => &
    HSPLIT_Reduce_scatter_block
  procedure(MPI_Reduce_scatter_f08ts), pointer :: reduce_scatter => HSPLIT_Reduce_scatter
  procedure(MPI_Scan_f08ts), pointer :: scan => HSPLIT_Scan
  procedure(MPI_Exscan_f08ts), pointer :: exscan => HSPLIT_Exscan
  print *, associated(reduce), associated(allreduce), associated(gather), &
    associated(scatter), associated(allgather), associated(barrier), associated(gatherv), &
    associated(scatterv), associated(allgatherv), associated(alltoall), &
    associated(alltoallv), associated(reduce_scatter_block), associated(reduce_scatter), &
    associated(scan), associated(exscan)
end program
