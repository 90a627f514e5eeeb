! SPDX-License-Identifier: BSD-3-Clause
! Reader of the DIMACS shortest-path format (9th DIMACS Implementation
! Challenge, ".gr" files):
!   c any comment
!   p sp NODES ARCS        once, before the arcs
!   a TAIL HEAD WEIGHT     ARCS times; nodes numbered 1..NODES
! Blank lines are allowed. Weights are integers in 0..MAX_WEIGHT, so that no
! path of the all-pairs problem can overflow 64-bit distances. Anything else
! (a bad line, a node beyond NODES, fewer or more arcs than announced) is an
! error "FILE:LINE: reason"; the reader never stops the program.
module dimacs_reader
  use, intrinsic :: iso_fortran_env, only: int64
  use app_text, only: parse_int, split_fields, read_line, str
  implicit none
  private
  public :: dimacs_graph, read_dimacs, MAX_WEIGHT

  integer(int64), parameter :: MAX_WEIGHT = 2147483647_int64

  type :: dimacs_graph
    integer :: n = 0                     ! nodes
    integer :: narcs = 0                 ! arcs
    integer, allocatable :: tail(:), head(:)   ! 1-based, as in the file
    integer(int64), allocatable :: weight(:)
  end type dimacs_graph

contains

  ! Reads path into g; err is empty on success, else "path:line: reason".
  subroutine read_dimacs(path, g, err)
    character(*), intent(in) :: path
    type(dimacs_graph), intent(out) :: g
    character(:), allocatable, intent(out) :: err
    character(:), allocatable :: line
    integer, allocatable :: starts(:), ends(:)
    integer :: unit, ios, lineno, problem_line, nfields, got
    err = ''
    open (newunit=unit, file=path, status='old', action='read', iostat=ios)
    if (ios /= 0) then
      err = path // ': cannot open the graph file'
      return
    end if
    lineno = 0
    problem_line = 0
    got = 0
    do
      call read_line(unit, line, ios)
      if (ios /= 0) exit
      lineno = lineno + 1
      call split_fields(line, starts, ends, nfields)
      if (nfields == 0) cycle
      select case (line(starts(1):ends(1)))
      case ('c')
        cycle
      case ('p')
        if (problem_line > 0) then
          call fail('a second problem line (the first is line ' // &
                    str(int(problem_line, int64)) // ')')
        else
          call problem()
          problem_line = lineno
        end if
      case ('a')
        if (problem_line == 0) then
          call fail('arc before the problem line "p sp NODES ARCS"')
        else if (got == g%narcs) then
          call fail('more arcs than the ' // str(int(g%narcs, int64)) // &
                    ' announced on line ' // str(int(problem_line, int64)))
        else
          call arc()
        end if
      case default
        call fail('unknown line type "' // line(starts(1):ends(1)) // &
                  '" (expected c, p or a)')
      end select
      if (len(err) > 0) exit
    end do
    if (len(err) == 0 .and. ios > 0) then
      lineno = lineno + 1
      call fail('read error')
    end if
    if (len(err) == 0) then
      if (problem_line == 0) then
        call fail('no problem line "p sp NODES ARCS"')
      else if (got < g%narcs) then
        call fail('the file ends after ' // str(int(got, int64)) // ' of the ' // &
                  str(int(g%narcs, int64)) // ' arcs announced on line ' // &
                  str(int(problem_line, int64)) // ' (truncated file?)')
      end if
    end if
    close (unit)
    if (len(err) > 0) then
      if (allocated(g%tail)) deallocate (g%tail, g%head, g%weight)
      g%n = 0
      g%narcs = 0
    end if

  contains

    subroutine fail(reason)
      character(*), intent(in) :: reason
      err = path // ':' // str(int(max(lineno, 1), int64)) // ': ' // reason
    end subroutine fail

    ! "p sp NODES ARCS"
    subroutine problem()
      integer(int64) :: nodes, arcs
      logical :: ok_n, ok_m
      integer :: stat
      if (nfields /= 4) then
        call fail('expected "p sp NODES ARCS", found ' // str(int(nfields, int64)) // ' fields')
        return
      end if
      if (line(starts(2):ends(2)) /= 'sp') then
        call fail('problem type "' // line(starts(2):ends(2)) // '" is not "sp"')
        return
      end if
      call parse_int(line(starts(3):ends(3)), nodes, ok_n)
      call parse_int(line(starts(4):ends(4)), arcs, ok_m)
      if (.not. ok_n .or. nodes < 1 .or. nodes > huge(g%n)) then
        call fail('node count "' // line(starts(3):ends(3)) // &
                  '" is not an integer in 1..' // str(int(huge(g%n), int64)))
      else if (.not. ok_m .or. arcs < 0 .or. arcs > huge(g%narcs)) then
        call fail('arc count "' // line(starts(4):ends(4)) // &
                  '" is not an integer in 0..' // str(int(huge(g%narcs), int64)))
      else
        g%n = int(nodes)
        g%narcs = int(arcs)
        allocate (g%tail(g%narcs), g%head(g%narcs), g%weight(g%narcs), stat=stat)
        if (stat /= 0) call fail('cannot allocate memory for ' // str(arcs) // ' arcs')
      end if
    end subroutine problem

    ! "a TAIL HEAD WEIGHT"
    subroutine arc()
      integer(int64) :: tail, head, weight
      if (nfields /= 4) then
        call fail('expected "a TAIL HEAD WEIGHT", found ' // str(int(nfields, int64)) // ' fields')
        return
      end if
      if (.not. node(line(starts(2):ends(2)), 'tail', tail)) return
      if (.not. node(line(starts(3):ends(3)), 'head', head)) return
      if (.not. weight_value(line(starts(4):ends(4)), weight)) return
      got = got + 1
      g%tail(got) = int(tail)
      g%head(got) = int(head)
      g%weight(got) = weight
    end subroutine arc

    logical function node(text, what, value)
      character(*), intent(in) :: text, what
      integer(int64), intent(out) :: value
      logical :: ok
      call parse_int(text, value, ok)
      node = .false.
      if (.not. ok) then
        call fail(what // ' node "' // text // '" is not an integer')
      else if (value < 1) then
        call fail(what // ' node ' // text // ' is not a node: nodes are numbered from 1')
      else if (value > g%n) then
        call fail(what // ' node ' // text // ' is beyond the ' // str(int(g%n, int64)) // &
                  ' nodes of the problem line')
      else
        node = .true.
      end if
    end function node

    logical function weight_value(text, value)
      character(*), intent(in) :: text
      integer(int64), intent(out) :: value
      logical :: ok
      call parse_int(text, value, ok)
      weight_value = .false.
      if (.not. ok) then
        call fail('weight "' // text // '" is not an integer')
      else if (value < 0) then
        call fail('weight ' // text // ' is negative')
      else if (value > MAX_WEIGHT) then
        call fail('weight ' // text // ' exceeds ' // str(MAX_WEIGHT))
      else
        weight_value = .true.
      end if
    end function weight_value

  end subroutine read_dimacs

end module dimacs_reader
