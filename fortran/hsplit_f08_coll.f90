! SPDX-License-Identifier: BSD-3-Clause
! hsplit_f08 collectives: each passes its buffers' descriptors, its handles'
! MPI_VAL and the addresses of MPI_IN_PLACE and MPI_BOTTOM (through which the C
! side recognises them) to the C side.
submodule (hsplit_f08) hsplit_f08_coll
  use, intrinsic :: iso_c_binding, only: c_int
  use mpi_f08, only: MPI_IN_PLACE, MPI_BOTTOM
  use hsplit_f08_c
  implicit none

contains

  module procedure HSPLIT_Bcast
    integer(c_int) :: rc
    rc = hsplit_f08_c_bcast(buffer, count, datatype%MPI_VAL, root, comm%MPI_VAL, &
                            MPI_IN_PLACE, MPI_BOTTOM)
    if (present(ierror)) ierror = rc
  end procedure

  module procedure HSPLIT_Reduce
    integer(c_int) :: rc
    rc = hsplit_f08_c_reduce(sendbuf, recvbuf, count, datatype%MPI_VAL, op%MPI_VAL, root, &
                             comm%MPI_VAL, MPI_IN_PLACE, MPI_BOTTOM)
    if (present(ierror)) ierror = rc
  end procedure

  module procedure HSPLIT_Allreduce
    integer(c_int) :: rc
    rc = hsplit_f08_c_allreduce(sendbuf, recvbuf, count, datatype%MPI_VAL, op%MPI_VAL, &
                                comm%MPI_VAL, MPI_IN_PLACE, MPI_BOTTOM)
    if (present(ierror)) ierror = rc
  end procedure

  module procedure HSPLIT_Gather
    integer(c_int) :: rc
    rc = hsplit_f08_c_gather(sendbuf, sendcount, sendtype%MPI_VAL, recvbuf, recvcount, &
                             recvtype%MPI_VAL, root, comm%MPI_VAL, MPI_IN_PLACE, MPI_BOTTOM)
    if (present(ierror)) ierror = rc
  end procedure

  module procedure HSPLIT_Scatter
    integer(c_int) :: rc
    rc = hsplit_f08_c_scatter(sendbuf, sendcount, sendtype%MPI_VAL, recvbuf, recvcount, &
                              recvtype%MPI_VAL, root, comm%MPI_VAL, MPI_IN_PLACE, MPI_BOTTOM)
    if (present(ierror)) ierror = rc
  end procedure

  module procedure HSPLIT_Allgather
    integer(c_int) :: rc
    rc = hsplit_f08_c_allgather(sendbuf, sendcount, sendtype%MPI_VAL, recvbuf, recvcount, &
                                recvtype%MPI_VAL, comm%MPI_VAL, MPI_IN_PLACE, MPI_BOTTOM)
    if (present(ierror)) ierror = rc
  end procedure

  module procedure HSPLIT_Barrier
    integer(c_int) :: rc
    rc = hsplit_f08_c_barrier(comm%MPI_VAL)
    if (present(ierror)) ierror = rc
  end procedure

  module procedure HSPLIT_Gatherv
    integer(c_int) :: rc
    rc = hsplit_f08_c_gatherv(sendbuf, sendcount, sendtype%MPI_VAL, recvbuf, recvcounts, &
                              displs, recvtype%MPI_VAL, root, comm%MPI_VAL, MPI_IN_PLACE, &
                              MPI_BOTTOM)
    if (present(ierror)) ierror = rc
  end procedure

  module procedure HSPLIT_Scatterv
    integer(c_int) :: rc
    rc = hsplit_f08_c_scatterv(sendbuf, sendcounts, displs, sendtype%MPI_VAL, recvbuf, &
                               recvcount, recvtype%MPI_VAL, root, comm%MPI_VAL, MPI_IN_PLACE, &
                               MPI_BOTTOM)
    if (present(ierror)) ierror = rc
  end procedure

  module procedure HSPLIT_Allgatherv
    integer(c_int) :: rc
    rc = hsplit_f08_c_allgatherv(sendbuf, sendcount, sendtype%MPI_VAL, recvbuf, recvcounts, &
                                 displs, recvtype%MPI_VAL, comm%MPI_VAL, MPI_IN_PLACE, &
                                 MPI_BOTTOM)
    if (present(ierror)) ierror = rc
  end procedure

  module procedure HSPLIT_Alltoall
    integer(c_int) :: rc
    rc = hsplit_f08_c_alltoall(sendbuf, sendcount, sendtype%MPI_VAL, recvbuf, recvcount, &
                               recvtype%MPI_VAL, comm%MPI_VAL, MPI_IN_PLACE, MPI_BOTTOM)
    if (present(ierror)) ierror = rc
  end procedure

  module procedure HSPLIT_Alltoallv
    integer(c_int) :: rc
    rc = hsplit_f08_c_alltoallv(sendbuf, sendcounts, sdispls, sendtype%MPI_VAL, recvbuf, &
                                recvcounts, rdispls, recvtype%MPI_VAL, comm%MPI_VAL, &
                                MPI_IN_PLACE, MPI_BOTTOM)
    if (present(ierror)) ierror = rc
  end procedure

  module procedure HSPLIT_Reduce_scatter_block
    integer(c_int) :: rc
    rc = hsplit_f08_c_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype%MPI_VAL, &
                                           op%MPI_VAL, comm%MPI_VAL, MPI_IN_PLACE, MPI_BOTTOM)
    if (present(ierror)) ierror = rc
  end procedure

  module procedure HSPLIT_Reduce_scatter
    integer(c_int) :: rc
    rc = hsplit_f08_c_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype%MPI_VAL, &
                                     op%MPI_VAL, comm%MPI_VAL, MPI_IN_PLACE, MPI_BOTTOM)
    if (present(ierror)) ierror = rc
  end procedure

  module procedure HSPLIT_Scan
    integer(c_int) :: rc
    rc = hsplit_f08_c_scan(sendbuf, recvbuf, count, datatype%MPI_VAL, op%MPI_VAL, &
                           comm%MPI_VAL, MPI_IN_PLACE, MPI_BOTTOM)
    if (present(ierror)) ierror = rc
  end procedure

  module procedure HSPLIT_Exscan
    integer(c_int) :: rc
    rc = hsplit_f08_c_exscan(sendbuf, recvbuf, count, datatype%MPI_VAL, op%MPI_VAL, &
                             comm%MPI_VAL, MPI_IN_PLACE, MPI_BOTTOM)
    if (present(ierror)) ierror = rc
  end procedure

end submodule hsplit_f08_coll
