! SPDX-License-Identifier: BSD-3-Clause
! Text helpers shared by the mini-apps: command-line arguments, strict number
! parsing (a typo must be an error, not a silently truncated value), splitting
! lines into blank-separated tokens, reading lines of any length, and number
! formatting for tables.
module app_text
  use, intrinsic :: iso_fortran_env, only: int64, real64, iostat_end, iostat_eor
  implicit none
  private
  public :: argument, parse_int, parse_real, split_fields, read_line, &
            str, fstr, lower

contains

  ! Command-line argument i (1-based) at its full length.
  function argument(i) result(s)
    integer, intent(in) :: i
    character(:), allocatable :: s
    integer :: n
    call get_command_argument(i, length=n)
    allocate (character(n) :: s)
    if (n > 0) call get_command_argument(i, s)
  end function argument

  ! An optionally signed decimal integer, nothing else; ok is false on any
  ! other character, an empty text or a value outside int64.
  subroutine parse_int(text, value, ok)
    character(*), intent(in) :: text
    integer(int64), intent(out) :: value
    logical, intent(out) :: ok
    integer :: i, first, digit
    logical :: negative
    value = 0
    ok = .false.
    if (len(text) == 0) return
    negative = text(1:1) == '-'
    first = 1
    if (text(1:1) == '-' .or. text(1:1) == '+') first = 2
    if (first > len(text)) return
    do i = first, len(text)
      digit = iachar(text(i:i)) - iachar('0')
      if (digit < 0 .or. digit > 9) return
      ! accumulate negatively so that -huge-1 is reachable and overflow detectable
      if (value < (-huge(value) - 1 + digit) / 10) return
      value = value * 10 - digit
    end do
    if (.not. negative) then
      if (value == -huge(value) - 1) return
      value = -value
    end if
    ok = .true.
  end subroutine parse_int

  ! A decimal real number (digits, one optional sign, point and exponent).
  subroutine parse_real(text, value, ok)
    character(*), intent(in) :: text
    real(real64), intent(out) :: value
    logical, intent(out) :: ok
    integer :: i, ios
    logical :: digits
    value = 0
    ok = .false.
    digits = .false.
    if (len(text) == 0) return
    do i = 1, len(text)
      select case (text(i:i))
      case ('0':'9')
        digits = .true.
      case ('+', '-', '.', 'e', 'E')
      case default
        return
      end select
    end do
    if (.not. digits) return
    read (text, *, iostat=ios) value
    ok = ios == 0
  end subroutine parse_real

  ! Start and end positions of the blank- or tab-separated fields of line.
  subroutine split_fields(line, starts, ends, nfields)
    character(*), intent(in) :: line
    integer, allocatable, intent(out) :: starts(:), ends(:)
    integer, intent(out) :: nfields
    integer :: i
    logical :: inside, blank
    allocate (starts(len(line) / 2 + 1), ends(len(line) / 2 + 1))
    nfields = 0
    inside = .false.
    do i = 1, len(line)
      blank = line(i:i) == ' ' .or. line(i:i) == achar(9) .or. line(i:i) == achar(13)
      if (.not. blank .and. .not. inside) then
        nfields = nfields + 1
        starts(nfields) = i
        inside = .true.
      else if (blank .and. inside) then
        ends(nfields) = i - 1
        inside = .false.
      end if
    end do
    if (inside) ends(nfields) = len(line)
  end subroutine split_fields

  ! The next line of a formatted sequential unit, whatever its length.
  ! iostat: 0, iostat_end at the end of the file, or the error code.
  subroutine read_line(unit, line, iostat)
    integer, intent(in) :: unit
    character(:), allocatable, intent(out) :: line
    integer, intent(out) :: iostat
    character(len=512) :: chunk
    integer :: got
    line = ''
    do
      read (unit, '(a)', advance='no', size=got, iostat=iostat) chunk
      line = line // chunk(:got)
      if (iostat == iostat_eor) then
        iostat = 0
        return
      end if
      if (iostat == iostat_end .and. len(line) > 0) then
        iostat = 0 ! last line without a newline
        return
      end if
      if (iostat /= 0) return
    end do
  end subroutine read_line

  ! An integer as text, no blanks.
  function str(i) result(s)
    integer(int64), intent(in) :: i
    character(:), allocatable :: s
    character(len=24) :: buf
    write (buf, '(i0)') i
    s = trim(buf)
  end function str

  ! A real as text with the given number of decimals, no blanks.
  function fstr(x, decimals) result(s)
    real(real64), intent(in) :: x
    integer, intent(in) :: decimals
    character(:), allocatable :: s
    character(len=40) :: buf, fmt
    write (fmt, '(a,i0,a)') '(f0.', decimals, ')'
    write (buf, fmt) x
    s = trim(adjustl(buf))
    if (s(1:1) == '.') s = '0' // s
    if (len(s) > 1) then
      if (s(1:2) == '-.') s = '-0' // s(2:)
    end if
  end function fstr

  ! ASCII lower case.
  function lower(text) result(s)
    character(*), intent(in) :: text
    character(len(text)) :: s
    integer :: i, c
    s = text
    do i = 1, len(s)
      c = iachar(s(i:i))
      if (c >= iachar('A') .and. c <= iachar('Z')) s(i:i) = achar(c + 32)
    end do
  end function lower

end module app_text
