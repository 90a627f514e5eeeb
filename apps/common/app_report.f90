! SPDX-License-Identifier: BSD-3-Clause
! Result tables of the mini-apps: rows given as comma-separated values, printed
! as an aligned Markdown table (readable on a terminal, pasteable into
! docs/results.md) and written as CSV.
module app_report
  implicit none
  private
  public :: report_table, layout_text

  type :: text_cell
    character(:), allocatable :: s
  end type text_cell

  type :: text_row
    type(text_cell), allocatable :: cells(:)
  end type text_row

  type :: report_table
    type(text_row), allocatable :: rows(:) ! rows(1) is the header
    integer :: nrows = 0
  contains
    procedure :: add_row
    procedure :: print_markdown
    procedure :: write_csv
  end type report_table

contains

  ! Appends a row (the first one added is the header); fields separated by commas.
  subroutine add_row(this, csv_line)
    class(report_table), intent(inout) :: this
    character(*), intent(in) :: csv_line
    type(text_row), allocatable :: grown(:)
    integer :: nfields, i, start, stop_at
    if (.not. allocated(this%rows)) allocate (this%rows(8))
    if (this%nrows == size(this%rows)) then
      allocate (grown(2 * size(this%rows)))
      grown(:this%nrows) = this%rows(:this%nrows)
      call move_alloc(grown, this%rows)
    end if
    this%nrows = this%nrows + 1
    nfields = count_fields(csv_line)
    allocate (this%rows(this%nrows)%cells(nfields))
    start = 1
    do i = 1, nfields
      stop_at = index(csv_line(start:), ',')
      if (stop_at == 0) then
        stop_at = len(csv_line) + 1
      else
        stop_at = start + stop_at - 1
      end if
      this%rows(this%nrows)%cells(i)%s = trim(adjustl(csv_line(start:stop_at - 1)))
      start = stop_at + 1
    end do
  end subroutine add_row

  pure integer function count_fields(csv_line)
    character(*), intent(in) :: csv_line
    integer :: i
    count_fields = 1
    do i = 1, len(csv_line)
      if (csv_line(i:i) == ',') count_fields = count_fields + 1
    end do
  end function count_fields

  ! Markdown table with padded columns: first column left-aligned, others right.
  subroutine print_markdown(this, unit)
    class(report_table), intent(in) :: this
    integer, intent(in) :: unit
    integer, allocatable :: width(:)
    integer :: ncols, r, c
    character(:), allocatable :: line, cell
    if (this%nrows == 0) return
    ncols = size(this%rows(1)%cells)
    allocate (width(ncols))
    width = 3
    do r = 1, this%nrows
      do c = 1, min(ncols, size(this%rows(r)%cells))
        width(c) = max(width(c), len(this%rows(r)%cells(c)%s))
      end do
    end do
    do r = 1, this%nrows
      line = '|'
      do c = 1, ncols
        cell = ''
        if (c <= size(this%rows(r)%cells)) cell = this%rows(r)%cells(c)%s
        if (c == 1) then
          line = line // ' ' // cell // repeat(' ', width(c) - len(cell)) // ' |'
        else
          line = line // ' ' // repeat(' ', width(c) - len(cell)) // cell // ' |'
        end if
      end do
      write (unit, '(a)') line
      if (r == 1) then
        line = '|'
        do c = 1, ncols
          if (c == 1) then
            line = line // ' ' // repeat('-', width(c)) // ' |'
          else
            line = line // ' ' // repeat('-', width(c) - 1) // ': |'
          end if
        end do
        write (unit, '(a)') line
      end if
    end do
  end subroutine print_markdown

  ! The rows as CSV (header first). Fields never contain commas.
  subroutine write_csv(this, unit)
    class(report_table), intent(in) :: this
    integer, intent(in) :: unit
    integer :: r, c
    character(:), allocatable :: line
    do r = 1, this%nrows
      line = ''
      do c = 1, size(this%rows(r)%cells)
        if (c > 1) line = line // ','
        line = line // this%rows(r)%cells(c)%s
      end do
      write (unit, '(a)') line
    end do
  end subroutine write_csv

  ! The emulation and collective-selection variables in effect, for the
  ! header of a result, or "real machine".
  function layout_text() result(s)
    character(:), allocatable :: s
    character(len=*), parameter :: names(11) = [character(len=24) :: &
      'HSPLIT_TOPOLOGY', 'HSPLIT_NODES', 'HSPLIT_BIND', 'HSPLIT_NETWORK', 'HSPLIT_COLL', &
      'HSPLIT_COLL_SEGMENT_SIZE', 'HSPLIT_COLL_MIN_PROCS', 'HSPLIT_COLL_MIN_BYTES', &
      'HSPLIT_COLL_MAX_BYTES', 'HSPLIT_COLL_TRIALS', 'HSPLIT_COLL_RSAG_BYTES']
    character(:), allocatable :: value
    integer :: i, length, stat
    s = ''
    do i = 1, size(names)
      call get_environment_variable(trim(names(i)), length=length, status=stat)
      if (stat /= 0 .or. length == 0) cycle
      allocate (character(length) :: value)
      call get_environment_variable(trim(names(i)), value)
      if (len(s) > 0) s = s // ' '
      s = s // trim(names(i)) // '="' // value // '"'
      deallocate (value)
    end do
    if (len(s) == 0) s = 'real machine'
  end function layout_text

end module app_report
