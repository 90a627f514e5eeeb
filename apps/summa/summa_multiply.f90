! SPDX-License-Identifier: BSD-3-Clause
! One SUMMA multiplication C = A B. Step by step along k, the panel made of
! columns k..k+w-1 of A (held by one grid column) is broadcast along every
! grid row, the panel made of the same rows of B (held by one grid row) along
! every grid column, and each process adds their product to its block of C.
! A panel never crosses a block boundary, so it has a single owner.
module summa_multiply_mod
  use, intrinsic :: iso_fortran_env, only: real64
  use mpi_f08, only: MPI_Wtime
  use app_parallel, only: phase_times
  use summa_grid, only: process_grid
  use summa_panels, only: summa_variant, line_bcast
  use summa_blas, only: dgemm
  implicit none
  private
  public :: summa_multiply

contains

  ! c = a b with variant v and panels of at most width columns; apanel and
  ! bpanel hold at least mloc x width and width x nloc elements. Adds the
  ! broadcast time to t%comm, the copies and products to t%comp.
  subroutine summa_multiply(v, g, width, a, b, c, apanel, bpanel, t)
    type(summa_variant), intent(in) :: v
    type(process_grid), intent(in) :: g
    integer, intent(in) :: width
    real(real64), intent(in) :: a(:, :), b(:, :)
    real(real64), contiguous, intent(out) :: c(:, :)
    real(real64), contiguous, intent(inout) :: apanel(:), bpanel(:)
    type(phase_times), intent(inout) :: t
    integer :: k, kend, w, ocol, orow, first, j
    real(real64) :: t0, t1, t2
    c = 0
    k = 0
    do while (k < g%n)
      ocol = g%cols%owner(k)
      orow = g%rows%owner(k)
      kend = min(k + width, g%cols%first(ocol) + g%cols%length(ocol), &
                 g%rows%first(orow) + g%rows%length(orow))
      w = kend - k
      t0 = MPI_Wtime()
      if (g%mycol == ocol) then
        first = k - g%col0 + 1
        apanel(1:g%mloc * w) = reshape(a(:, first:first + w - 1), [g%mloc * w])
      end if
      if (g%myrow == orow) then
        first = k - g%row0 + 1
        do j = 1, g%nloc
          bpanel((j - 1) * w + 1:j * w) = b(first:first + w - 1, j)
        end do
      end if
      t1 = MPI_Wtime()
      call line_bcast(v, v%row, apanel(1:g%mloc * w), g%mloc * w, ocol)
      call line_bcast(v, v%col, bpanel(1:w * g%nloc), w * g%nloc, orow)
      t2 = MPI_Wtime()
      if (g%mloc > 0 .and. g%nloc > 0) &
        call dgemm('N', 'N', g%mloc, g%nloc, w, 1d0, apanel, g%mloc, bpanel, w, 1d0, c, g%mloc)
      t%comp = t%comp + (t1 - t0) + (MPI_Wtime() - t2)
      t%comm = t%comm + (t2 - t1)
      k = kend
    end do
  end subroutine summa_multiply

end module summa_multiply_mod
