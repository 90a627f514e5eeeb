! SPDX-License-Identifier: BSD-3-Clause
! hsplit_f08 splits and queries: handles cross as their MPI_VAL, level names
! come back as C strings and are copied into the caller's CHARACTER variable.
submodule (hsplit_f08) hsplit_f08_comm
  use, intrinsic :: iso_c_binding, only: c_int, c_char, c_null_char
  use hsplit_f08_c
  use mpi_f08, only: MPI_COMM_NULL
  implicit none

contains

  ! The C string name into text, blank padded or truncated to len(text), as
  ! MPI_Comm_get_name does.
  subroutine copy_name(name, text)
    character(kind=c_char), intent(in) :: name(HSPLIT_MAX_HLEVEL_NAME)
    character(len=*), intent(out) :: text
    integer :: i
    text = ' '
    do i = 1, min(len(text), HSPLIT_MAX_HLEVEL_NAME)
      if (name(i) == c_null_char) exit
      text(i:i) = name(i)
    end do
  end subroutine

  module procedure HSPLIT_Comm_split_type
    integer(c_int) :: rc, c_newcomm
    rc = hsplit_f08_c_comm_split_type(comm%MPI_VAL, split_type, key, info%MPI_VAL, c_newcomm)
    newcomm%MPI_VAL = c_newcomm
    if (present(ierror)) ierror = rc
  end procedure

  module procedure HSPLIT_Comm_get_info
    integer(c_int) :: rc, c_info
    rc = hsplit_f08_c_comm_get_info(comm%MPI_VAL, c_info)
    info_used%MPI_VAL = c_info
    if (present(ierror)) ierror = rc
  end procedure

  module procedure HSPLIT_Comm_set_coll_info
    integer(c_int) :: rc
    rc = hsplit_f08_c_comm_set_coll_info(comm%MPI_VAL, info%MPI_VAL)
    if (present(ierror)) ierror = rc
  end procedure

  module procedure HSPLIT_Comm_hsplit_with_roots
    integer(c_int) :: rc, c_newcomm, c_rootscomm
    rc = hsplit_f08_c_comm_hsplit_with_roots(oldcomm%MPI_VAL, info%MPI_VAL, c_newcomm, &
                                             c_rootscomm)
    newcomm%MPI_VAL = c_newcomm
    rootscomm%MPI_VAL = c_rootscomm
    if (present(ierror)) ierror = rc
  end procedure

  module procedure HSPLIT_Comm_hsplit_all
    integer(c_int) :: rc, c_nlevels, capacity
    integer(c_int), allocatable :: c_newcomms(:), c_rootscomms(:)
    capacity = size(newcomms)
    if (present(rootscomms)) capacity = min(capacity, size(rootscomms))
    allocate (c_newcomms(max(capacity, 1)), c_rootscomms(max(capacity, 1)))
    rc = hsplit_f08_c_comm_hsplit_all(comm%MPI_VAL, info%MPI_VAL, maxlevels, c_nlevels, &
                                      capacity, c_newcomms, merge(1, 0, present(rootscomms)), &
                                      c_rootscomms)
    if (rc == 0) then
      nlevels = c_nlevels
      newcomms(1:maxlevels)%MPI_VAL = c_newcomms(1:maxlevels)
      if (present(rootscomms)) rootscomms(1:maxlevels)%MPI_VAL = c_rootscomms(1:maxlevels)
    else
      ! as in C: on error no communicator is left behind (intent(out) arrays
      ! would otherwise be undefined)
      newcomms(:) = MPI_COMM_NULL
      if (present(rootscomms)) rootscomms(:) = MPI_COMM_NULL
    end if
    if (present(ierror)) ierror = rc
  end procedure

  module procedure HSPLIT_Comm_get_hlevel_info
    integer(c_int) :: rc, c_num_comms, c_index, c_resultlen
    character(kind=c_char) :: name(HSPLIT_MAX_HLEVEL_NAME)
    rc = hsplit_f08_c_comm_get_hlevel_info(comm%MPI_VAL, c_num_comms, c_index, name, &
                                           c_resultlen)
    if (rc == 0) then
      num_comms = c_num_comms
      index = c_index
      resultlen = c_resultlen
      call copy_name(name, type)
    end if
    if (present(ierror)) ierror = rc
  end procedure

  module procedure HSPLIT_Comm_get_min_hlevel
    integer(c_int) :: rc, c_resultlen
    character(kind=c_char) :: name(HSPLIT_MAX_HLEVEL_NAME)
    rc = hsplit_f08_c_comm_get_min_hlevel(comm%MPI_VAL, nranks, size(ranks), ranks, name, &
                                          c_resultlen)
    if (rc == 0) then
      resultlen = c_resultlen
      call copy_name(name, type)
    end if
    if (present(ierror)) ierror = rc
  end procedure

  module procedure HSPLIT_Get_version
    integer(c_int) :: rc, c_major, c_minor, c_patch
    rc = hsplit_c_get_version(c_major, c_minor, c_patch)
    major = c_major
    minor = c_minor
    patch = c_patch
    if (present(ierror)) ierror = rc
  end procedure

  module procedure HSPLIT_Error_class
    integer(c_int) :: rc, c_errorclass
    rc = hsplit_f08_c_error_class(hsplit_error, c_errorclass)
    if (rc == 0) errorclass = c_errorclass
    if (present(ierror)) ierror = rc
  end procedure

end submodule hsplit_f08_comm
