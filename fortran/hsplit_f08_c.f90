! SPDX-License-Identifier: BSD-3-Clause
! The C side of hsplit_f08 (hsplit_f08_glue_*.c), seen from Fortran. Internal
! to the library: programs use hsplit_f08. Handles cross as their INTEGER
! MPI_VAL (MPI_Fint) and become C handles through MPI_*_f2c in C. The buffer
! functions receive the addresses of the Fortran MPI_IN_PLACE and MPI_BOTTOM,
! which they compare with the buffers' addresses.
module hsplit_f08_c
  use, intrinsic :: iso_c_binding, only: c_int, c_char, c_ptr
  implicit none
  private

  public :: hsplit_f08_c_comm_split_type, hsplit_f08_c_comm_hsplit_with_roots
  public :: hsplit_f08_c_comm_get_info, hsplit_f08_c_comm_set_coll_info, hsplit_c_get_version
  public :: hsplit_c_coll_setting_count, hsplit_c_coll_setting_describe
  public :: hsplit_f08_c_coll_setting_get
  public :: hsplit_f08_c_comm_hsplit_all, hsplit_f08_c_comm_get_hlevel_info
  public :: hsplit_f08_c_comm_get_min_hlevel, hsplit_f08_c_error_class
  public :: hsplit_f08_c_bcast, hsplit_f08_c_reduce, hsplit_f08_c_allreduce
  public :: hsplit_f08_c_gather, hsplit_f08_c_scatter, hsplit_f08_c_allgather
  public :: hsplit_f08_c_barrier
  public :: hsplit_f08_c_gatherv, hsplit_f08_c_scatterv, hsplit_f08_c_allgatherv
  public :: hsplit_f08_c_alltoall, hsplit_f08_c_alltoallv, hsplit_f08_c_reduce_scatter_block
  public :: hsplit_f08_c_reduce_scatter, hsplit_f08_c_scan, hsplit_f08_c_exscan

  interface
    integer(c_int) function hsplit_f08_c_comm_split_type(comm, split_type, key, info, &
                                                         newcomm) bind(C)
      import :: c_int
      integer(c_int), value :: comm, split_type, key, info
      integer(c_int), intent(out) :: newcomm
    end function

    integer(c_int) function hsplit_f08_c_comm_get_info(comm, info_used) bind(C)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(out) :: info_used
    end function

    integer(c_int) function hsplit_f08_c_comm_set_coll_info(comm, info) bind(C)
      import :: c_int
      integer(c_int), value :: comm, info
    end function

    integer(c_int) function hsplit_f08_c_comm_hsplit_with_roots(oldcomm, info, newcomm, &
                                                                rootscomm) bind(C)
      import :: c_int
      integer(c_int), value :: oldcomm, info
      integer(c_int), intent(out) :: newcomm, rootscomm
    end function

    ! newcomms and rootscomms hold capacity handles; want_roots = 0 when the
    ! caller wants no roots communicators (rootscomms is then not touched).
    integer(c_int) function hsplit_f08_c_comm_hsplit_all(comm, info, maxlevels, nlevels, &
                                                         capacity, newcomms, want_roots, &
                                                         rootscomms) bind(C)
      import :: c_int
      integer(c_int), value :: comm, info, maxlevels, capacity, want_roots
      integer(c_int), intent(out) :: nlevels
      integer(c_int), intent(inout) :: newcomms(*), rootscomms(*)
    end function

    ! name gets the C string (HSPLIT_MAX_HLEVEL_NAME characters, NUL included).
    integer(c_int) function hsplit_f08_c_comm_get_hlevel_info(comm, num_comms, index, name, &
                                                              resultlen) bind(C)
      import :: c_int, c_char
      integer(c_int), value :: comm
      integer(c_int), intent(out) :: num_comms, index, resultlen
      character(kind=c_char), intent(out) :: name(*)
    end function

    ! ranks holds capacity entries, of which nranks are asked for.
    integer(c_int) function hsplit_f08_c_comm_get_min_hlevel(comm, nranks, capacity, ranks, &
                                                             name, resultlen) bind(C)
      import :: c_int, c_char
      integer(c_int), value :: comm, nranks, capacity
      integer(c_int), intent(in) :: ranks(*)
      character(kind=c_char), intent(out) :: name(*)
      integer(c_int), intent(out) :: resultlen
    end function

    integer(c_int) function hsplit_c_get_version(major, minor, patch) &
        bind(C, name='HSPLIT_Get_version')
      import :: c_int
      integer(c_int), intent(out) :: major, minor, patch
    end function

    integer(c_int) function hsplit_c_coll_setting_count(count) &
        bind(C, name='HSPLIT_Coll_setting_count')
      import :: c_int
      integer(c_int), intent(out) :: count
    end function

    ! every string and length may be C's NULL (c_null_ptr): skipped
    integer(c_int) function hsplit_c_coll_setting_describe(index, name, name_len, &
        default_value, default_len, allowed, allowed_len, description, description_len) &
        bind(C, name='HSPLIT_Coll_setting_describe')
      import :: c_int, c_ptr
      integer(c_int), value :: index
      type(c_ptr), value :: name, name_len, default_value, default_len, allowed, &
                            allowed_len, description, description_len
    end function

    integer(c_int) function hsplit_f08_c_coll_setting_get(comm, index, value, value_len, &
                                                          source, valid) bind(C)
      import :: c_int, c_char
      integer(c_int), value :: comm, index
      character(kind=c_char), intent(out) :: value(*)
      integer(c_int), intent(inout) :: value_len
      integer(c_int), intent(out) :: source, valid
    end function

    integer(c_int) function hsplit_f08_c_error_class(hsplit_error, errorclass) bind(C)
      import :: c_int
      integer(c_int), value :: hsplit_error
      integer(c_int), intent(out) :: errorclass
    end function

    integer(c_int) function hsplit_f08_c_bcast(buffer, count, datatype, root, comm, &
                                               in_place, bottom) bind(C)
      import :: c_int
      type(*), dimension(..) :: buffer
      integer(c_int), value :: count, datatype, root, comm
      type(*), intent(in) :: in_place, bottom
    end function

    integer(c_int) function hsplit_f08_c_reduce(sendbuf, recvbuf, count, datatype, op, root, &
                                                comm, in_place, bottom) bind(C)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer(c_int), value :: count, datatype, op, root, comm
      type(*), intent(in) :: in_place, bottom
    end function

    integer(c_int) function hsplit_f08_c_allreduce(sendbuf, recvbuf, count, datatype, op, &
                                                   comm, in_place, bottom) bind(C)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer(c_int), value :: count, datatype, op, comm
      type(*), intent(in) :: in_place, bottom
    end function

    integer(c_int) function hsplit_f08_c_gather(sendbuf, sendcount, sendtype, recvbuf, &
                                                recvcount, recvtype, root, comm, in_place, &
                                                bottom) bind(C)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer(c_int), value :: sendcount, sendtype, recvcount, recvtype, root, comm
      type(*), intent(in) :: in_place, bottom
    end function

    integer(c_int) function hsplit_f08_c_scatter(sendbuf, sendcount, sendtype, recvbuf, &
                                                 recvcount, recvtype, root, comm, in_place, &
                                                 bottom) bind(C)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer(c_int), value :: sendcount, sendtype, recvcount, recvtype, root, comm
      type(*), intent(in) :: in_place, bottom
    end function

    integer(c_int) function hsplit_f08_c_allgather(sendbuf, sendcount, sendtype, recvbuf, &
                                                   recvcount, recvtype, comm, in_place, &
                                                   bottom) bind(C)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer(c_int), value :: sendcount, sendtype, recvcount, recvtype, comm
      type(*), intent(in) :: in_place, bottom
    end function

    integer(c_int) function hsplit_f08_c_barrier(comm) bind(C)
      import :: c_int
      integer(c_int), value :: comm
    end function
    ! Count and displacement arrays cross as C int arrays (default INTEGER is
    ! C int with the compilers the library supports, as for the counts).
    integer(c_int) function hsplit_f08_c_gatherv(sendbuf, sendcount, sendtype, recvbuf, &
                                                 recvcounts, displs, recvtype, root, comm, &
                                                 in_place, bottom) bind(C)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer(c_int), value :: sendcount, sendtype, recvtype, root, comm
      integer(c_int), intent(in) :: recvcounts(*), displs(*)
      type(*), intent(in) :: in_place, bottom
    end function

    integer(c_int) function hsplit_f08_c_scatterv(sendbuf, sendcounts, displs, sendtype, &
                                                  recvbuf, recvcount, recvtype, root, comm, &
                                                  in_place, bottom) bind(C)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer(c_int), intent(in) :: sendcounts(*), displs(*)
      integer(c_int), value :: sendtype, recvcount, recvtype, root, comm
      type(*), intent(in) :: in_place, bottom
    end function

    integer(c_int) function hsplit_f08_c_allgatherv(sendbuf, sendcount, sendtype, recvbuf, &
                                                    recvcounts, displs, recvtype, comm, &
                                                    in_place, bottom) bind(C)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer(c_int), value :: sendcount, sendtype, recvtype, comm
      integer(c_int), intent(in) :: recvcounts(*), displs(*)
      type(*), intent(in) :: in_place, bottom
    end function

    integer(c_int) function hsplit_f08_c_alltoall(sendbuf, sendcount, sendtype, recvbuf, &
                                                  recvcount, recvtype, comm, in_place, &
                                                  bottom) bind(C)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer(c_int), value :: sendcount, sendtype, recvcount, recvtype, comm
      type(*), intent(in) :: in_place, bottom
    end function

    integer(c_int) function hsplit_f08_c_alltoallv(sendbuf, sendcounts, sdispls, sendtype, &
                                                   recvbuf, recvcounts, rdispls, recvtype, &
                                                   comm, in_place, bottom) bind(C)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer(c_int), intent(in) :: sendcounts(*), sdispls(*), recvcounts(*), rdispls(*)
      integer(c_int), value :: sendtype, recvtype, comm
      type(*), intent(in) :: in_place, bottom
    end function

    integer(c_int) function hsplit_f08_c_reduce_scatter_block(sendbuf, recvbuf, recvcount, &
                                                              datatype, op, comm, in_place, &
                                                              bottom) bind(C)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer(c_int), value :: recvcount, datatype, op, comm
      type(*), intent(in) :: in_place, bottom
    end function

    integer(c_int) function hsplit_f08_c_reduce_scatter(sendbuf, recvbuf, recvcounts, &
                                                        datatype, op, comm, in_place, &
                                                        bottom) bind(C)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer(c_int), intent(in) :: recvcounts(*)
      integer(c_int), value :: datatype, op, comm
      type(*), intent(in) :: in_place, bottom
    end function

    integer(c_int) function hsplit_f08_c_scan(sendbuf, recvbuf, count, datatype, op, comm, &
                                              in_place, bottom) bind(C)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer(c_int), value :: count, datatype, op, comm
      type(*), intent(in) :: in_place, bottom
    end function

    integer(c_int) function hsplit_f08_c_exscan(sendbuf, recvbuf, count, datatype, op, comm, &
                                                in_place, bottom) bind(C)
      import :: c_int
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer(c_int), value :: count, datatype, op, comm
      type(*), intent(in) :: in_place, bottom
    end function
  end interface
end module hsplit_f08_c
