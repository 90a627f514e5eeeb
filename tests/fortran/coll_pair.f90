! SPDX-License-Identifier: BSD-3-Clause
! The derived type of the Fortran collective tests: an INTEGER and a REAL(8)
! (with padding between them), its MPI datatype, and user-defined operations
! written in Fortran: a commutative sum and a non-commutative "first/last".
module coll_pair
  use, intrinsic :: iso_c_binding, only: c_int, c_double, c_ptr, c_f_pointer
  use mpi_f08
  use test_util_f08, only: check
  implicit none
  private
  public :: pair_t, operator(==), pair_make, pair_type_create, pair_sum, pair_first_last

  type, bind(C) :: pair_t
    integer(c_int) :: i
    real(c_double) :: d
  end type

  interface operator(==)
    module procedure pair_equal
  end interface

contains

  elemental logical function pair_equal(a, b)
    type(pair_t), intent(in) :: a, b
    pair_equal = a%i == b%i .and. a%d == b%d
  end function

  ! The element standing for the integer v.
  elemental type(pair_t) function pair_make(v)
    integer, intent(in) :: v
    pair_make = pair_t(v, 0.5d0 * v)
  end function

  ! MPI datatype of pair_t: a struct resized to the Fortran storage size.
  subroutine pair_type_create(pair_type)
    type(MPI_Datatype), intent(out) :: pair_type
    type(pair_t) :: sample(2)
    type(MPI_Datatype) :: struct
    integer(MPI_ADDRESS_KIND) :: base, addr(2), extent
    call MPI_Get_address(sample(1), base)
    call MPI_Get_address(sample(1)%i, addr(1))
    call MPI_Get_address(sample(1)%d, addr(2))
    call MPI_Get_address(sample(2), extent)
    call MPI_Type_create_struct(2, [1, 1], addr - base, [MPI_INTEGER, MPI_DOUBLE_PRECISION], &
                                struct)
    call MPI_Type_create_resized(struct, 0_MPI_ADDRESS_KIND, extent - base, pair_type)
    call MPI_Type_commit(pair_type)
    call MPI_Type_free(struct)
  end subroutine

  ! inoutvec = invec + inoutvec, field by field (commutative).
  subroutine pair_sum(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    type(pair_t), pointer :: a(:), b(:)
    integer :: nbytes
    call MPI_Type_size(datatype, nbytes)
    call check(nbytes == 12, 'pair_sum called with another datatype')
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b%i = a%i + b%i
    b%d = a%d + b%d
  end subroutine

  ! inoutvec = invec o inoutvec with (a o b) = (a%i, b%d): associative, not
  ! commutative. Over processes 0..n-1 in order: (x0%i, x(n-1)%d).
  subroutine pair_first_last(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    type(pair_t), pointer :: a(:), b(:)
    integer :: nbytes
    call MPI_Type_size(datatype, nbytes)
    call check(nbytes == 12, 'pair_first_last called with another datatype')
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b%i = a%i
  end subroutine
end module coll_pair
