! SPDX-License-Identifier: BSD-3-Clause
! Command line of hsplit-asp; parsed identically on every process.
module asp_options
  use, intrinsic :: iso_fortran_env, only: int64, real64
  use app_text, only: argument, parse_int, parse_real, lower, str
  implicit none
  private
  public :: asp_config, parse_command_line, usage_text, &
            VARIANT_FLAT, VARIANT_HIER, VARIANT_NAMES, &
            VERIFY_AUTO, VERIFY_SERIAL, VERIFY_DIJKSTRA, VERIFY_NONE

  integer, parameter :: VARIANT_FLAT = 1, VARIANT_HIER = 2
  character(len=4), parameter :: VARIANT_NAMES(2) = [character(len=4) :: 'flat', 'hier']
  integer, parameter :: VERIFY_AUTO = 0, VERIFY_SERIAL = 1, VERIFY_DIJKSTRA = 2, VERIFY_NONE = 3

  type :: asp_config
    integer :: n = 0                     ! nodes of the random graph; 0: default
    real(real64) :: density = 0.1_real64 ! probability of each arc i -> j, i /= j
    integer(int64) :: wmin = 1, wmax = 100
    integer(int64) :: seed = 1
    character(:), allocatable :: graph   ! DIMACS file instead of a random graph
    integer :: iterations = -1           ! Floyd-Warshall steps; -1: all
    logical :: run(2) = .true.
    integer :: reps = 1
    integer :: warmup = 1                ! rounds of warm-up broadcasts (every rank root once)
    integer :: verify = VERIFY_AUTO
    integer :: sources = 4               ! Dijkstra check: sampled sources
    character(:), allocatable :: csv, dump
    logical :: corrupt = .false.         ! change one distance before the checks
    logical :: help = .false.
  end type asp_config

contains

  function usage_text() result(s)
    character(:), allocatable :: s
    character(len=1), parameter :: nl = new_line('a')
    s = 'usage: hsplit-asp [--n N] [--density P] [--weights LO:HI] [--seed S]' // nl // &
        '                  [--graph FILE.gr] [--iterations K] [--variants LIST]' // nl // &
        '                  [--reps R] [--warmup W] [--verify MODE] [--sources S]' // nl // &
        '                  [--csv FILE] [--dump PREFIX] [--corrupt]' // nl // &
        '  --n N            nodes of the random graph (default 1024)' // nl // &
        '  --density P      probability of each arc (default 0.1)' // nl // &
        '  --weights LO:HI  integer arc weights, 0 <= LO <= HI (default 1:100)' // nl // &
        '  --seed S         seed of the random graph (default 1)' // nl // &
        '  --graph FILE     read a DIMACS shortest-path file (p sp N M / a u v w)' // nl // &
        '  --iterations K   run the first K of the N steps (default all)' // nl // &
        '  --variants L     comma list of flat, hier (default both)' // nl // &
        '  --reps R         timed runs per variant, interleaved (default 1)' // nl // &
        '  --warmup W       untimed rounds of N-element broadcasts, every process' // nl // &
        '                   root once per round (default 1)' // nl // &
        '  --verify MODE    auto (serial Floyd-Warshall up to N = 1024, else' // nl // &
        '                   Dijkstra), serial, dijkstra or none' // nl // &
        '  --sources S      sources sampled by the Dijkstra check (default 4)' // nl // &
        '  --csv FILE       also write the results as CSV' // nl // &
        '  --dump PREFIX    write each variant''s distances to PREFIX-VARIANT.txt' // nl // &
        '  --corrupt        change the distance from node 1 to node N before the' // nl // &
        '                   checks (tests the checks)'
  end function usage_text

  subroutine parse_command_line(cfg, err)
    type(asp_config), intent(out) :: cfg
    character(:), allocatable, intent(out) :: err
    character(:), allocatable :: opt, val
    integer :: i, nargs
    ! the options that take a value (the select case below)
    character(len=*), parameter :: options(13) = [character(len=12) :: '--n', '--density', &
        '--weights', '--seed', '--graph', '--iterations', '--variants', '--reps', '--warmup', &
        '--verify', '--sources', '--csv', '--dump']
    err = ''
    val = ''
    nargs = command_argument_count()
    i = 1
    do while (i <= nargs)
      opt = argument(i)
      if (opt == '--help' .or. opt == '-h' .or. opt == '--corrupt') then
        if (opt == '--corrupt') then
          cfg%corrupt = .true.
        else
          cfg%help = .true.
        end if
        i = i + 1
        cycle
      end if
      ! an unknown option is reported as such, even as the last argument
      if (.not. any(opt == options)) then
        err = 'unknown option "' // opt // '" (--help lists the options)'
        if (opt(1:min(2, len(opt))) /= '--') err = 'unknown argument "' // opt // '"'
        return
      end if
      if (i == nargs) then
        err = 'option ' // opt // ' needs a value'
        return
      end if
      val = argument(i + 1)
      select case (opt)
      case ('--n')
        cfg%n = int(int_in(val, 1_int64, int(huge(1), int64)))
      case ('--density')
        call density_value(val)
      case ('--weights')
        call weight_range(val)
      case ('--seed')
        cfg%seed = int_in(val, -huge(1_int64), huge(1_int64))
      case ('--graph')
        cfg%graph = val
      case ('--iterations')
        cfg%iterations = int(int_in(val, 0_int64, int(huge(1), int64)))
      case ('--variants')
        call variant_list(val)
      case ('--reps')
        cfg%reps = int(int_in(val, 1_int64, int(huge(1), int64)))
      case ('--warmup')
        cfg%warmup = int(int_in(val, 0_int64, int(huge(1), int64)))
      case ('--verify')
        select case (lower(val))
        case ('auto')
          cfg%verify = VERIFY_AUTO
        case ('serial')
          cfg%verify = VERIFY_SERIAL
        case ('dijkstra')
          cfg%verify = VERIFY_DIJKSTRA
        case ('none')
          cfg%verify = VERIFY_NONE
        case default
          err = 'option --verify takes auto, serial, dijkstra or none, not "' // val // '"'
        end select
      case ('--sources')
        cfg%sources = int(int_in(val, 1_int64, int(huge(1), int64)))
      case ('--csv')
        cfg%csv = val
      case ('--dump')
        cfg%dump = val
      case default
        err = 'unknown option "' // opt // '"'
      end select
      if (len(err) > 0) return
      i = i + 2
    end do
    if (allocated(cfg%graph) .and. cfg%n > 0) err = '--n and --graph exclude each other'
  contains
    integer(int64) function int_in(text, lo, hi) result(value)
      character(*), intent(in) :: text
      integer(int64), intent(in) :: lo, hi
      logical :: ok
      call parse_int(text, value, ok)
      if (.not. ok .or. value < lo .or. value > hi) then
        err = 'option ' // opt // ' needs an integer from ' // str(lo) // ' to ' // str(hi) // &
              ', not "' // text // '"'
        value = lo
      end if
    end function int_in
    subroutine density_value(text)
      character(*), intent(in) :: text
      logical :: ok
      call parse_real(text, cfg%density, ok)
      if (.not. ok .or. .not. (cfg%density >= 0 .and. cfg%density <= 1)) &
        err = 'option --density needs a number in [0, 1], not "' // text // '"'
    end subroutine density_value
    subroutine weight_range(text)
      character(*), intent(in) :: text
      integer :: colon
      logical :: ok_lo, ok_hi
      colon = index(text, ':')
      ok_lo = .false.
      ok_hi = .false.
      if (colon > 0) then
        call parse_int(text(:colon - 1), cfg%wmin, ok_lo)
        call parse_int(text(colon + 1:), cfg%wmax, ok_hi)
      end if
      if (.not. (ok_lo .and. ok_hi) .or. cfg%wmin < 0 .or. cfg%wmax < cfg%wmin .or. &
          cfg%wmax > 2147483647_int64) &
        err = 'option --weights needs LO:HI with 0 <= LO <= HI <= 2147483647, not "' // &
              text // '"'
    end subroutine weight_range
    subroutine variant_list(text)
      character(*), intent(in) :: text
      character(:), allocatable :: item
      integer :: start, comma
      cfg%run = .false.
      start = 1
      do
        comma = index(text(start:), ',')
        if (comma == 0) then
          item = lower(trim(adjustl(text(start:))))
        else
          item = lower(trim(adjustl(text(start:start + comma - 2))))
        end if
        select case (item)
        case ('flat')
          cfg%run(VARIANT_FLAT) = .true.
        case ('hier')
          cfg%run(VARIANT_HIER) = .true.
        case default
          err = 'unknown variant "' // item // '" (flat, hier)'
          return
        end select
        if (comma == 0) exit
        start = start + comma
      end do
    end subroutine variant_list
  end subroutine parse_command_line

end module asp_options
