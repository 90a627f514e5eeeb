! SPDX-License-Identifier: BSD-3-Clause
! hsplit_f08: the hsplit library for Fortran programs, in the style of mpi_f08.
!
!   use mpi_f08
!   use hsplit_f08
!
! Every public function and constant of hsplit.h, with TYPE(MPI_Comm),
! TYPE(MPI_Info), TYPE(MPI_Datatype) and TYPE(MPI_Op) handles, an optional
! INTEGER ierror last (when it is absent an error goes only to the
! communicator's error handler, as in mpi_f08), CHARACTER(LEN=*) level names
! and TYPE(*), DIMENSION(..) buffers. This module declares the interfaces; the
! submodules hsplit_f08_comm, hsplit_f08_settings and hsplit_f08_coll implement
! them on top of the C library through a small C layer (hsplit_f08_glue_*.c).
module hsplit_f08
  use mpi_f08, only: MPI_Comm, MPI_Info, MPI_Datatype, MPI_Op
  implicit none
  private

  ! ---- constants: the values of hsplit.h ----
  include 'hsplit_f08_version.inc'

  ! Split types (C: 0x48530001..3), far from every MPI_COMM_TYPE_* value.
  integer, parameter, public :: HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY = int(z'48530001')
  integer, parameter, public :: HSPLIT_COMM_TYPE_HW_UNGUIDED = int(z'48530002')
  integer, parameter, public :: HSPLIT_COMM_TYPE_HW_GUIDED = int(z'48530003')

  ! Length of a CHARACTER variable that holds any level name (like
  ! MPI_MAX_OBJECT_NAME, the same value as in C).
  integer, parameter, public :: HSPLIT_MAX_HLEVEL_NAME = 32

  ! The info key read by HW_GUIDED and written by HW_UNGUIDED.
  character(len=*), parameter, public :: HSPLIT_INFO_KEY_HW_RESOURCE_TYPE = &
       "mpi_hw_resource_type"

  ! Where a setting's value comes from (HSPLIT_Coll_setting_get), lowest
  ! precedence first (the same values as in C).
  integer, parameter, public :: HSPLIT_SOURCE_DEFAULT = 0
  integer, parameter, public :: HSPLIT_SOURCE_ENVIRONMENT = 1
  integer, parameter, public :: HSPLIT_SOURCE_COMM_INFO = 2
  integer, parameter, public :: HSPLIT_SOURCE_SET_COLL_INFO = 3

  ! Library-specific errors: give one to HSPLIT_Error_class for its MPI class.
  integer, parameter, public :: HSPLIT_ERR_TOPOLOGY = 1
  integer, parameter, public :: HSPLIT_ERR_NODES = 2
  integer, parameter, public :: HSPLIT_ERR_BIND = 3
  integer, parameter, public :: HSPLIT_ERR_HWLOC = 4
  integer, parameter, public :: HSPLIT_ERR_NOT_HLEVEL = 5
  integer, parameter, public :: HSPLIT_ERR_RANK_REPEATED = 6
  integer, parameter, public :: HSPLIT_ERR_GUIDED_INFO = 7
  integer, parameter, public :: HSPLIT_ERR_NETWORK = 8
  integer, parameter, public :: HSPLIT_ERR_LAST_KIND = HSPLIT_ERR_NETWORK

  public :: HSPLIT_Comm_split_type, HSPLIT_Comm_hsplit_with_roots, HSPLIT_Comm_hsplit_all
  public :: HSPLIT_Comm_get_hlevel_info, HSPLIT_Comm_get_min_hlevel, HSPLIT_Error_class
  public :: HSPLIT_Comm_get_info, HSPLIT_Comm_set_coll_info, HSPLIT_Get_version
  public :: HSPLIT_Coll_setting_count, HSPLIT_Coll_setting_describe, HSPLIT_Coll_setting_get
  public :: HSPLIT_Bcast, HSPLIT_Reduce, HSPLIT_Allreduce, HSPLIT_Gather, HSPLIT_Scatter
  public :: HSPLIT_Allgather, HSPLIT_Barrier
  public :: HSPLIT_Gatherv, HSPLIT_Scatterv, HSPLIT_Allgatherv, HSPLIT_Alltoall
  public :: HSPLIT_Alltoallv, HSPLIT_Reduce_scatter_block, HSPLIT_Reduce_scatter
  public :: HSPLIT_Scan, HSPLIT_Exscan

  interface
    ! ---- splits and queries (submodule hsplit_f08_comm) ----

    ! Split comm along the hardware hierarchy; other split types go to MPI.
    module subroutine HSPLIT_Comm_split_type(comm, split_type, key, info, newcomm, ierror)
      type(MPI_Comm), intent(in) :: comm
      integer, intent(in) :: split_type, key
      type(MPI_Info), intent(in) :: info
      type(MPI_Comm), intent(out) :: newcomm
      integer, optional, intent(out) :: ierror
    end subroutine

    ! MPI_Comm_get_info, plus "mpi_hw_resource_type" = the level's name on a
    ! communicator made by an hsplit split.
    module subroutine HSPLIT_Comm_get_info(comm, info_used, ierror)
      type(MPI_Comm), intent(in) :: comm
      type(MPI_Info), intent(out) :: info_used
      integer, optional, intent(out) :: ierror
    end subroutine

    ! The collectives' settings of comm (HSPLIT_COLL* keys) from the next
    ! collective on. Collective.
    module subroutine HSPLIT_Comm_set_coll_info(comm, info, ierror)
      type(MPI_Comm), intent(in) :: comm
      type(MPI_Info), intent(in) :: info
      integer, optional, intent(out) :: ierror
    end subroutine

    ! PHYSICAL_TOPOLOGY split in oldcomm's rank order, plus the communicator of
    ! the rank-0 processes of the new communicators (MPI_COMM_NULL elsewhere).
    module subroutine HSPLIT_Comm_hsplit_with_roots(oldcomm, info, newcomm, rootscomm, ierror)
      type(MPI_Comm), intent(in) :: oldcomm
      type(MPI_Info), intent(in) :: info
      type(MPI_Comm), intent(out) :: newcomm, rootscomm
      integer, optional, intent(out) :: ierror
    end subroutine

    ! Every level at once: newcomms(1:maxlevels) (size(newcomms) >= maxlevels),
    ! rootscomms likewise when present.
    module subroutine HSPLIT_Comm_hsplit_all(comm, info, maxlevels, nlevels, newcomms, &
                                             rootscomms, ierror)
      type(MPI_Comm), intent(in) :: comm
      type(MPI_Info), intent(in) :: info
      integer, intent(in) :: maxlevels
      integer, intent(out) :: nlevels
      type(MPI_Comm), intent(out) :: newcomms(:)
      type(MPI_Comm), optional, intent(out) :: rootscomms(:)
      integer, optional, intent(out) :: ierror
    end subroutine

    ! Level of a communicator made by a split. type gets the name, blank padded
    ! or truncated to len(type); resultlen gets the length of the whole name.
    module subroutine HSPLIT_Comm_get_hlevel_info(comm, num_comms, index, type, resultlen, &
                                                  ierror)
      type(MPI_Comm), intent(in) :: comm
      integer, intent(out) :: num_comms, index
      character(len=*), intent(out) :: type
      integer, intent(out) :: resultlen
      integer, optional, intent(out) :: ierror
    end subroutine

    ! Deepest level shared by ranks(1:nranks) of comm (size(ranks) >= nranks).
    module subroutine HSPLIT_Comm_get_min_hlevel(comm, nranks, ranks, type, resultlen, ierror)
      type(MPI_Comm), intent(in) :: comm
      integer, intent(in) :: nranks
      integer, intent(in) :: ranks(:)
      character(len=*), intent(out) :: type
      integer, intent(out) :: resultlen
      integer, optional, intent(out) :: ierror
    end subroutine

    ! The version of the library linked at run time (HSPLIT_VERSION_* are the
    ! module's).
    module subroutine HSPLIT_Get_version(major, minor, patch, ierror)
      integer, intent(out) :: major, minor, patch
      integer, optional, intent(out) :: ierror
    end subroutine

    ! ---- the collectives' settings (submodule hsplit_f08_settings) ----
    ! Indices from 0, as in C. A string comes back blank padded or cut to
    ! the variable's length, as MPI_Comm_get_name does; its *_len argument
    ! gets the whole string's length, so that a cut shows (len > len(text)).

    ! The number of the collectives' settings (HSPLIT_COLL*). Local.
    module subroutine HSPLIT_Coll_setting_count(count, ierror)
      integer, intent(out) :: count
      integer, optional, intent(out) :: ierror
    end subroutine

    ! Setting index as declared: its name (the variable and the info key),
    ! default, the values it takes, what it does. Local.
    module subroutine HSPLIT_Coll_setting_describe(index, name, default_value, allowed, &
                                                   description, name_len, default_len, &
                                                   allowed_len, description_len, ierror)
      integer, intent(in) :: index
      character(len=*), optional, intent(out) :: name, default_value, allowed, description
      integer, optional, intent(out) :: name_len, default_len, allowed_len, description_len
      integer, optional, intent(out) :: ierror
    end subroutine

    ! The value setting index has for comm's collectives (blank: the
    ! default), where it comes from (HSPLIT_SOURCE_*), and whether it is well
    ! formed; MPI_COMM_NULL: the environment only. Local.
    module subroutine HSPLIT_Coll_setting_get(comm, index, value, value_len, source, valid, &
                                              ierror)
      type(MPI_Comm), intent(in) :: comm
      integer, intent(in) :: index
      character(len=*), intent(out) :: value
      integer, optional, intent(out) :: value_len, source
      logical, optional, intent(out) :: valid
      integer, optional, intent(out) :: ierror
    end subroutine

    ! The MPI error class of a library-specific error (HSPLIT_ERR_*).
    module subroutine HSPLIT_Error_class(hsplit_error, errorclass, ierror)
      integer, intent(in) :: hsplit_error
      integer, intent(out) :: errorclass
      integer, optional, intent(out) :: ierror
    end subroutine

    ! ---- hierarchical collectives (submodule hsplit_f08_coll) ----
    ! MPI's arguments and semantics. Buffers: any type, scalar or array of any
    ! rank; a non-contiguous array is copied in and out of a contiguous one.

    module subroutine HSPLIT_Bcast(buffer, count, datatype, root, comm, ierror)
      type(*), dimension(..) :: buffer
      integer, intent(in) :: count, root
      type(MPI_Datatype), intent(in) :: datatype
      type(MPI_Comm), intent(in) :: comm
      integer, optional, intent(out) :: ierror
    end subroutine

    module subroutine HSPLIT_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm, ierror)
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer, intent(in) :: count, root
      type(MPI_Datatype), intent(in) :: datatype
      type(MPI_Op), intent(in) :: op
      type(MPI_Comm), intent(in) :: comm
      integer, optional, intent(out) :: ierror
    end subroutine

    module subroutine HSPLIT_Allreduce(sendbuf, recvbuf, count, datatype, op, comm, ierror)
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer, intent(in) :: count
      type(MPI_Datatype), intent(in) :: datatype
      type(MPI_Op), intent(in) :: op
      type(MPI_Comm), intent(in) :: comm
      integer, optional, intent(out) :: ierror
    end subroutine

    module subroutine HSPLIT_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, &
                                    recvtype, root, comm, ierror)
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer, intent(in) :: sendcount, recvcount, root
      type(MPI_Datatype), intent(in) :: sendtype, recvtype
      type(MPI_Comm), intent(in) :: comm
      integer, optional, intent(out) :: ierror
    end subroutine

    module subroutine HSPLIT_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, &
                                     recvtype, root, comm, ierror)
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer, intent(in) :: sendcount, recvcount, root
      type(MPI_Datatype), intent(in) :: sendtype, recvtype
      type(MPI_Comm), intent(in) :: comm
      integer, optional, intent(out) :: ierror
    end subroutine

    module subroutine HSPLIT_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, &
                                       recvtype, comm, ierror)
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer, intent(in) :: sendcount, recvcount
      type(MPI_Datatype), intent(in) :: sendtype, recvtype
      type(MPI_Comm), intent(in) :: comm
      integer, optional, intent(out) :: ierror
    end subroutine

    module subroutine HSPLIT_Barrier(comm, ierror)
      type(MPI_Comm), intent(in) :: comm
      integer, optional, intent(out) :: ierror
    end subroutine

    ! The vector and all-to-all collectives and the scans: mpi_f08's
    ! arguments; count and displacement arrays are read only where MPI reads
    ! them (the root's recvcounts and displs, and so on), as assumed-size
    ! INTEGER arrays.

    module subroutine HSPLIT_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, &
                                     displs, recvtype, root, comm, ierror)
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer, intent(in) :: sendcount, root
      integer, intent(in) :: recvcounts(*), displs(*)
      type(MPI_Datatype), intent(in) :: sendtype, recvtype
      type(MPI_Comm), intent(in) :: comm
      integer, optional, intent(out) :: ierror
    end subroutine

    module subroutine HSPLIT_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, &
                                      recvcount, recvtype, root, comm, ierror)
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer, intent(in) :: sendcounts(*), displs(*)
      integer, intent(in) :: recvcount, root
      type(MPI_Datatype), intent(in) :: sendtype, recvtype
      type(MPI_Comm), intent(in) :: comm
      integer, optional, intent(out) :: ierror
    end subroutine

    module subroutine HSPLIT_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, &
                                        displs, recvtype, comm, ierror)
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer, intent(in) :: sendcount
      integer, intent(in) :: recvcounts(*), displs(*)
      type(MPI_Datatype), intent(in) :: sendtype, recvtype
      type(MPI_Comm), intent(in) :: comm
      integer, optional, intent(out) :: ierror
    end subroutine

    module subroutine HSPLIT_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, &
                                      recvtype, comm, ierror)
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer, intent(in) :: sendcount, recvcount
      type(MPI_Datatype), intent(in) :: sendtype, recvtype
      type(MPI_Comm), intent(in) :: comm
      integer, optional, intent(out) :: ierror
    end subroutine

    module subroutine HSPLIT_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, &
                                       recvcounts, rdispls, recvtype, comm, ierror)
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer, intent(in) :: sendcounts(*), sdispls(*), recvcounts(*), rdispls(*)
      type(MPI_Datatype), intent(in) :: sendtype, recvtype
      type(MPI_Comm), intent(in) :: comm
      integer, optional, intent(out) :: ierror
    end subroutine

    module subroutine HSPLIT_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, &
                                                  comm, ierror)
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer, intent(in) :: recvcount
      type(MPI_Datatype), intent(in) :: datatype
      type(MPI_Op), intent(in) :: op
      type(MPI_Comm), intent(in) :: comm
      integer, optional, intent(out) :: ierror
    end subroutine

    module subroutine HSPLIT_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, &
                                            ierror)
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer, intent(in) :: recvcounts(*)
      type(MPI_Datatype), intent(in) :: datatype
      type(MPI_Op), intent(in) :: op
      type(MPI_Comm), intent(in) :: comm
      integer, optional, intent(out) :: ierror
    end subroutine

    module subroutine HSPLIT_Scan(sendbuf, recvbuf, count, datatype, op, comm, ierror)
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer, intent(in) :: count
      type(MPI_Datatype), intent(in) :: datatype
      type(MPI_Op), intent(in) :: op
      type(MPI_Comm), intent(in) :: comm
      integer, optional, intent(out) :: ierror
    end subroutine

    module subroutine HSPLIT_Exscan(sendbuf, recvbuf, count, datatype, op, comm, ierror)
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer, intent(in) :: count
      type(MPI_Datatype), intent(in) :: datatype
      type(MPI_Op), intent(in) :: op
      type(MPI_Comm), intent(in) :: comm
      integer, optional, intent(out) :: ierror
    end subroutine
  end interface
end module hsplit_f08
