! SPDX-License-Identifier: BSD-3-Clause
! The 2D process grid of SUMMA: pr x pc processes from MPI_Dims_create, rank
! r at grid row r / pc and column mod(r, pc); matrix rows in contiguous blocks
! over the grid rows, matrix columns over the grid columns (block sizes differ
! by at most one, so any order N >= max(pr, pc) works).
module summa_grid
  use mpi_f08
  implicit none
  private
  public :: block_layout, process_grid, grid_dims, grid_create, grid_free

  ! n indices in p contiguous blocks, the first mod(n, p) one longer.
  type :: block_layout
    integer :: n = 0, p = 1
  contains
    procedure :: first => block_first
    procedure :: length => block_length
    procedure :: owner => block_owner
  end type block_layout

  type :: process_grid
    integer :: nprocs, rank, pr, pc, myrow, mycol
    integer :: n                   ! matrix order
    type(block_layout) :: rows     ! matrix rows over the grid rows
    type(block_layout) :: cols     ! matrix columns over the grid columns
    integer :: mloc, nloc          ! local block: mloc rows x nloc columns
    integer :: row0, col0          ! global (0-based) index of the block's first row, column
    type(MPI_Comm) :: row          ! my grid row, ranked by grid column
    type(MPI_Comm) :: col          ! my grid column, ranked by grid row
  end type process_grid

contains

  ! 0-based first index of block q.
  pure integer function block_first(this, q)
    class(block_layout), intent(in) :: this
    integer, intent(in) :: q
    block_first = q * (this%n / this%p) + min(q, mod(this%n, this%p))
  end function block_first

  pure integer function block_length(this, q)
    class(block_layout), intent(in) :: this
    integer, intent(in) :: q
    block_length = this%n / this%p
    if (q < mod(this%n, this%p)) block_length = block_length + 1
  end function block_length

  ! The block holding the 0-based index g.
  pure integer function block_owner(this, g)
    class(block_layout), intent(in) :: this
    integer, intent(in) :: g
    integer :: base, rem
    base = this%n / this%p
    rem = mod(this%n, this%p)
    if (g < rem * (base + 1)) then
      block_owner = g / (base + 1)
    else
      block_owner = rem + (g - rem * (base + 1)) / base
    end if
  end function block_owner

  ! The grid shape for nprocs processes: pr >= pc, as balanced as possible.
  subroutine grid_dims(nprocs, pr, pc)
    integer, intent(in) :: nprocs
    integer, intent(out) :: pr, pc
    integer :: dims(2)
    dims = 0
    call MPI_Dims_create(nprocs, 2, dims)
    pr = dims(1)
    pc = dims(2)
  end subroutine grid_dims

  ! The grid of comm's processes for matrices of order n (n >= max(pr, pc)).
  subroutine grid_create(comm, n, g)
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: n
    type(process_grid), intent(out) :: g
    call MPI_Comm_size(comm, g%nprocs)
    call MPI_Comm_rank(comm, g%rank)
    call grid_dims(g%nprocs, g%pr, g%pc)
    g%myrow = g%rank / g%pc
    g%mycol = mod(g%rank, g%pc)
    g%n = n
    g%rows = block_layout(n, g%pr)
    g%cols = block_layout(n, g%pc)
    g%mloc = g%rows%length(g%myrow)
    g%nloc = g%cols%length(g%mycol)
    g%row0 = g%rows%first(g%myrow)
    g%col0 = g%cols%first(g%mycol)
    call MPI_Comm_split(comm, g%myrow, g%mycol, g%row)
    call MPI_Comm_split(comm, g%mycol, g%myrow, g%col)
  end subroutine grid_create

  subroutine grid_free(g)
    type(process_grid), intent(inout) :: g
    call MPI_Comm_free(g%row)
    call MPI_Comm_free(g%col)
  end subroutine grid_free

end module summa_grid
