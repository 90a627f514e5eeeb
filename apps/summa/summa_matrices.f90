! SPDX-License-Identifier: BSD-3-Clause
! The input matrices: A(i, j) and B(i, j) are small integers (-8..8) drawn
! from the counter-based hash of (seed, i, j), stored as doubles. Every
! product and partial sum of C = A B is then an integer far below 2**53, so
! it is exact whatever the summation order: the distributed product, BLAS and
! a serial loop must agree bit for bit.
module summa_matrices
  use, intrinsic :: iso_fortran_env, only: int64, real64
  use app_random, only: hash_value
  use summa_grid, only: process_grid
  implicit none
  private
  public :: a_element, b_element, fill_local_blocks

contains

  ! Element (i, j) of A, 0-based global indices.
  elemental real(real64) function a_element(seed, i, j)
    integer(int64), intent(in) :: seed
    integer, intent(in) :: i, j
    a_element = real(mod(hash_value(seed, 1_int64, int(i, int64), int(j, int64)), 17_int64) - 8, &
                     real64)
  end function a_element

  elemental real(real64) function b_element(seed, i, j)
    integer(int64), intent(in) :: seed
    integer, intent(in) :: i, j
    b_element = real(mod(hash_value(seed, 2_int64, int(i, int64), int(j, int64)), 17_int64) - 8, &
                     real64)
  end function b_element

  ! This process's blocks of A and B.
  subroutine fill_local_blocks(seed, g, a, b)
    integer(int64), intent(in) :: seed
    type(process_grid), intent(in) :: g
    real(real64), intent(out) :: a(:, :), b(:, :)
    integer :: i, j
    do j = 1, g%nloc
      do i = 1, g%mloc
        a(i, j) = a_element(seed, g%row0 + i - 1, g%col0 + j - 1)
        b(i, j) = b_element(seed, g%row0 + i - 1, g%col0 + j - 1)
      end do
    end do
  end subroutine fill_local_blocks

end module summa_matrices
