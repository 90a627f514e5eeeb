! SPDX-License-Identifier: BSD-3-Clause
! How each SUMMA variant broadcasts a panel along a grid line (a grid row for
! panels of A, a grid column for panels of B):
! - simple: one MPI_Bcast over the whole line;
! - xgroups (Quintin, Hasanov, Lastovetsky): the line is cut into groups of
!   consecutive processes (the grid divided into R x C groups cuts each row
!   into C groups and each column into R); the panel goes first to the
!   processes at the root's position in every group, then inside each group;
! - topological: HSPLIT_Bcast over the whole line, which follows the hardware
!   hierarchy of the line's processes, with no configuration.
module summa_panels
  use mpi_f08
  use hsplit_f08, only: HSPLIT_Bcast
  use summa_grid, only: process_grid
  use summa_options, only: VARIANT_SIMPLE, VARIANT_XGROUPS, VARIANT_TOPOLOGICAL, VARIANT_NAMES
  implicit none
  private
  public :: line_comms, summa_variant, variant_create, variant_free, line_bcast

  ! One grid line as a variant sees it.
  type :: line_comms
    type(MPI_Comm) :: line                       ! the whole row or column
    type(MPI_Comm) :: across = MPI_COMM_NULL     ! xgroups: my position in every group
    type(MPI_Comm) :: within = MPI_COMM_NULL     ! xgroups: my group
    integer :: span = 0                          ! xgroups: processes per group on the line
  end type line_comms

  type :: summa_variant
    integer :: kind = VARIANT_SIMPLE
    integer :: group_rows = 0, group_cols = 0    ! xgroups: R x C groups
    character(:), allocatable :: name, groups
    type(line_comms) :: row, col
  end type summa_variant

contains

  ! A variant on grid g; for xgroups, gr x gc groups (gr | pr, gc | pc).
  subroutine variant_create(kind, gr, gc, g, v)
    integer, intent(in) :: kind, gr, gc
    type(process_grid), intent(in) :: g
    type(summa_variant), intent(out) :: v
    character(len=32) :: label
    v%kind = kind
    v%name = trim(VARIANT_NAMES(kind))
    v%groups = '-'
    v%row%line = g%row
    v%col%line = g%col
    if (kind == VARIANT_XGROUPS) then
      v%group_rows = gr
      v%group_cols = gc
      write (label, '(i0,a,i0)') gr, 'x', gc
      v%groups = trim(label)
      v%name = v%name // '-' // v%groups
      call cut_line(v%row, g%mycol, g%pc / gc)
      call cut_line(v%col, g%myrow, g%pr / gr)
    end if
  end subroutine variant_create

  ! Groups of span consecutive processes on a line where I am at position pos.
  subroutine cut_line(lc, pos, span)
    type(line_comms), intent(inout) :: lc
    integer, intent(in) :: pos, span
    lc%span = span
    call MPI_Comm_split(lc%line, mod(pos, span), pos, lc%across)
    call MPI_Comm_split(lc%line, pos / span, pos, lc%within)
  end subroutine cut_line

  subroutine variant_free(v)
    type(summa_variant), intent(inout) :: v
    if (v%kind == VARIANT_XGROUPS) then
      call MPI_Comm_free(v%row%across)
      call MPI_Comm_free(v%row%within)
      call MPI_Comm_free(v%col%across)
      call MPI_Comm_free(v%col%within)
    end if
  end subroutine variant_free

  ! Broadcast count doubles of buf from position root of the line.
  subroutine line_bcast(v, lc, buf, count, root)
    type(summa_variant), intent(in) :: v
    type(line_comms), intent(in) :: lc
    real(kind(1d0)), contiguous, intent(inout) :: buf(:)
    integer, intent(in) :: count, root
    integer :: pos
    select case (v%kind)
    case (VARIANT_XGROUPS)
      call MPI_Comm_rank(lc%line, pos)
      if (mod(pos, lc%span) == mod(root, lc%span)) &
        call MPI_Bcast(buf, count, MPI_DOUBLE_PRECISION, root / lc%span, lc%across)
      call MPI_Bcast(buf, count, MPI_DOUBLE_PRECISION, mod(root, lc%span), lc%within)
    case (VARIANT_TOPOLOGICAL)
      call HSPLIT_Bcast(buf, count, MPI_DOUBLE_PRECISION, root, lc%line)
    case default
      call MPI_Bcast(buf, count, MPI_DOUBLE_PRECISION, root, lc%line)
    end select
  end subroutine line_bcast

end module summa_panels
