! SPDX-License-Identifier: BSD-3-Clause
! Checks of a distributed product C = A B that do not use the code under test:
! - Freivalds: C x = A (B x) for a random x (entries in [1, 2)), each product
!   a distributed matrix-vector product summed over all processes with plain
!   MPI; compared row by row within a rounding bound;
! - exact: every process recomputes its own block of C with a serial triple
!   loop over elements regenerated from the seed, and compares bit for bit
!   (used up to N = 512: N**3 / P multiply-adds per process);
! - checksum: the sum of all elements of C, an exact integer, so that the
!   variants can be compared with each other and with an independent value.
module summa_verify
  use, intrinsic :: iso_fortran_env, only: int64, real64
  use mpi_f08
  use app_random, only: hash_unit
  use summa_grid, only: process_grid
  use summa_matrices, only: a_element, b_element
  implicit none
  private
  public :: freivalds_check, exact_check, checksum, EXACT_CHECK_MAX_N

  integer, parameter :: EXACT_CHECK_MAX_N = 512

contains

  ! True on every process when C x = A (B x) holds for a random x.
  logical function freivalds_check(seed, g, a, b, c, comm) result(ok)
    integer(int64), intent(in) :: seed
    type(process_grid), intent(in) :: g
    real(real64), intent(in) :: a(:, :), b(:, :), c(:, :)
    type(MPI_Comm), intent(in) :: comm
    real(real64), allocatable :: x(:), bx(:), abx(:), cx(:), bound(:)
    integer :: j
    allocate (x(g%n))
    do j = 1, g%n
      x(j) = 1 + hash_unit(seed, 3_int64, int(j - 1, int64), 0_int64)
    end do
    bx = local_product(g, b, x)
    call MPI_Allreduce(MPI_IN_PLACE, bx, g%n, MPI_DOUBLE_PRECISION, MPI_SUM, comm)
    abx = local_product(g, a, bx)
    cx = local_product(g, c, x)
    ! rounding bound of both sides: |A| (|B| |x|) times n ulps
    bound = local_product(g, abs(b), x)
    call MPI_Allreduce(MPI_IN_PLACE, bound, g%n, MPI_DOUBLE_PRECISION, MPI_SUM, comm)
    bound = local_product(g, abs(a), bound)
    call MPI_Allreduce(MPI_IN_PLACE, abx, g%n, MPI_DOUBLE_PRECISION, MPI_SUM, comm)
    call MPI_Allreduce(MPI_IN_PLACE, cx, g%n, MPI_DOUBLE_PRECISION, MPI_SUM, comm)
    call MPI_Allreduce(MPI_IN_PLACE, bound, g%n, MPI_DOUBLE_PRECISION, MPI_SUM, comm)
    ok = all(abs(cx - abx) <= 4 * (g%n + 2) * epsilon(1d0) * bound)
  end function freivalds_check

  ! This process's contribution to M v (a vector of all n rows, zero outside
  ! the local rows) for M distributed like A, B and C.
  function local_product(g, m, v) result(y)
    type(process_grid), intent(in) :: g
    real(real64), intent(in) :: m(:, :), v(:)
    real(real64), allocatable :: y(:)
    allocate (y(g%n))
    y = 0
    y(g%row0 + 1:g%row0 + g%mloc) = matmul(m(:g%mloc, :g%nloc), v(g%col0 + 1:g%col0 + g%nloc))
  end function local_product

  ! Number of elements of C, over all processes, that differ from the serial
  ! product of the regenerated rows of A and columns of B.
  integer(int64) function exact_check(seed, g, c, comm) result(wrong)
    integer(int64), intent(in) :: seed
    type(process_grid), intent(in) :: g
    real(real64), intent(in) :: c(:, :)
    type(MPI_Comm), intent(in) :: comm
    real(real64), allocatable :: arows(:, :), bcols(:, :), ref(:, :)
    integer :: i, j, k
    integer(int64) :: mine
    allocate (arows(g%mloc, g%n), bcols(g%n, g%nloc), ref(g%mloc, g%nloc))
    do k = 1, g%n
      do i = 1, g%mloc
        arows(i, k) = a_element(seed, g%row0 + i - 1, k - 1)
      end do
    end do
    do j = 1, g%nloc
      do k = 1, g%n
        bcols(k, j) = b_element(seed, k - 1, g%col0 + j - 1)
      end do
    end do
    ref = 0
    do j = 1, g%nloc
      do k = 1, g%n
        do i = 1, g%mloc
          ref(i, j) = ref(i, j) + arows(i, k) * bcols(k, j)
        end do
      end do
    end do
    ! equal values differ by exactly 0; a NaN fails the test
    mine = count(.not. (abs(ref - c(:g%mloc, :g%nloc)) <= 0), kind=int64)
    call MPI_Allreduce(mine, wrong, 1, MPI_INTEGER8, MPI_SUM, comm)
  end function exact_check

  ! Sum of all elements of C, at every process.
  real(real64) function checksum(g, c, comm) result(total)
    type(process_grid), intent(in) :: g
    real(real64), intent(in) :: c(:, :)
    type(MPI_Comm), intent(in) :: comm
    real(real64) :: mine
    mine = sum(c(:g%mloc, :g%nloc))
    call MPI_Allreduce(mine, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, comm)
  end function checksum

end module summa_verify
