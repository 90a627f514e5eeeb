! SPDX-License-Identifier: BSD-3-Clause
! Helpers of test_f08_coll_more: block layouts out of rank order with gaps,
! labels with numbers, and the non-commutative operation of the scans and
! reduce-scatters (2x2 integer matrices multiplied modulo a prime) with the
! products it must give, computed here without MPI.
module coll_more_util
  use, intrinsic :: iso_c_binding, only: c_int, c_ptr, c_f_pointer
  use mpi_f08
  use test_util_f08, only: check
  implicit none
  private
  public :: reversed_displs, str, mat_prime, mat_type_create, mat_product, mat_of, mat_chain

  ! The prime of the matrix products: every entry < mat_prime, every sum of
  ! two products fits in 64 bits.
  integer, parameter :: mat_prime = 10007

contains

  ! Displacements (in elements, from 0) of blocks of counts(0:) laid out in
  ! reverse rank order, with gap elements before each block; total gets the
  ! length of the whole buffer (trailing gap included).
  subroutine reversed_displs(counts, gap, displs, total)
    integer, intent(in) :: counts(0:), gap
    integer, intent(out) :: displs(0:), total
    integer :: p
    total = gap
    do p = size(counts) - 1, 0, -1
      displs(p) = total
      total = total + counts(p) + gap
    end do
  end subroutine

  function str(i) result(s)
    integer, intent(in) :: i
    character(len=:), allocatable :: s
    character(len=16) :: buf
    write (buf, '(i0)') i
    s = trim(buf)
  end function

  ! One matrix is 4 INTEGERs in column-major order.
  subroutine mat_type_create(mat_type)
    type(MPI_Datatype), intent(out) :: mat_type
    call MPI_Type_contiguous(4, MPI_INTEGER, mat_type)
    call MPI_Type_commit(mat_type)
  end subroutine

  pure function mat_times(a, b) result(c)
    integer(c_int), intent(in) :: a(2, 2), b(2, 2)
    integer(c_int) :: c(2, 2)
    c = int(modulo(matmul(int(a, 8), int(b, 8)), int(mat_prime, 8)), c_int)
  end function

  ! The matrix that process p contributes as element j: entries differ
  ! with p and j so that products in another order give other results.
  pure function mat_of(p, j) result(m)
    integer, intent(in) :: p, j
    integer :: m(2, 2)
    m = reshape([modulo(7 * p + 3 * j + 1, mat_prime), modulo(p * p + j + 2, mat_prime), &
                 modulo(3 * p + j * j, mat_prime), modulo(p + 5 * j + 3, mat_prime)], [2, 2])
  end function

  ! mat_of(first, j) x mat_of(first+1, j) x ... x mat_of(last, j), in this
  ! order (descending when first > last), modulo mat_prime.
  pure function mat_chain(first, last, j) result(m)
    integer, intent(in) :: first, last, j
    integer :: m(2, 2), p, step
    step = merge(1, -1, last >= first)
    m = mat_of(first, j)
    do p = first + step, last, step
      m = mat_times(m, mat_of(p, j))
    end do
  end function

  ! inoutvec = invec x inoutvec, matrix by matrix: invec holds the lower
  ! ranks' part, so a rank-order result is the product in rank order.
  subroutine mat_product(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer(c_int), pointer :: a(:, :, :), b(:, :, :)
    integer :: nbytes, i
    call MPI_Type_size(datatype, nbytes)
    call check(nbytes == 16, 'mat_product called with another datatype')
    call c_f_pointer(invec, a, [2, 2, len])
    call c_f_pointer(inoutvec, b, [2, 2, len])
    do i = 1, len
      b(:, :, i) = mat_times(a(:, :, i), b(:, :, i))
    end do
  end subroutine
end module coll_more_util
