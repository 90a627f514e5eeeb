! SPDX-License-Identifier: BSD-3-Clause
! Command line and configuration file of hsplit-summa. Parsing is local and
! identical on every process (same arguments everywhere); the configuration
! file is read by rank 0 only and its group list broadcast (summa_main).
module summa_options
  use, intrinsic :: iso_fortran_env, only: int64
  use app_text, only: argument, parse_int, read_line, lower, str
  implicit none
  private
  public :: summa_config, parse_command_line, read_groups_file, parse_groups, usage_text, &
            VARIANT_SIMPLE, VARIANT_XGROUPS, VARIANT_TOPOLOGICAL, VARIANT_NAMES

  integer, parameter :: VARIANT_SIMPLE = 1, VARIANT_XGROUPS = 2, VARIANT_TOPOLOGICAL = 3
  character(len=11), parameter :: VARIANT_NAMES(3) = [character(len=11) :: &
                                   'simple', 'xgroups', 'topological']

  type :: summa_config
    integer :: n = 0             ! matrix order; 0: from block, else the default
    integer :: block = 0         ! rows of the longer grid side's blocks
    integer :: panel = 64        ! panel width
    integer :: reps = 3          ! timed repetitions of each variant
    integer :: warmup = 1        ! untimed multiplications of each variant first
    integer(int64) :: seed = 1
    logical :: run(3) = .true.   ! which variants run
    character(:), allocatable :: groups    ! xgroups group list, as given
    character(:), allocatable :: config    ! configuration file
    character(:), allocatable :: csv       ! CSV output file
    logical :: corrupt = .false. ! change one element of C before the checks
    logical :: help = .false.
  end type summa_config

contains

  function usage_text() result(s)
    character(:), allocatable :: s
    character(len=1), parameter :: nl = new_line('a')
    s = 'usage: hsplit-summa [--n N | --block B] [--panel W] [--variants LIST]' // nl // &
        '                    [--groups LIST] [--config FILE] [--reps R] [--warmup W]' // nl // &
        '                    [--seed S] [--csv FILE] [--corrupt]' // nl // &
        '  --n N          matrix order (default 1024)' // nl // &
        '  --block B      order = B x the longer side of the process grid' // nl // &
        '  --panel W      panel width of each SUMMA step (default 64)' // nl // &
        '  --variants L   comma list of simple, xgroups, topological (default all)' // nl // &
        '  --groups L     xgroups group counts, each G or RxC (default: every' // nl // &
        '                 count the grid allows between 1 and the process count)' // nl // &
        '  --config FILE  xgroups configuration file: lines "groups = LIST", # comments' // nl // &
        '  --reps R       timed repetitions per variant, interleaved (default 3)' // nl // &
        '  --warmup W     untimed multiplications per variant first (default 1)' // nl // &
        '  --seed S       seed of the matrices (default 1)' // nl // &
        '  --csv FILE     also write the results as CSV' // nl // &
        '  --corrupt      add 1 to one element of C before the checks (tests the checks)'
  end function usage_text

  ! Reads the command line; err is empty on success.
  subroutine parse_command_line(cfg, err)
    type(summa_config), intent(out) :: cfg
    character(:), allocatable, intent(out) :: err
    character(:), allocatable :: opt, val
    integer :: i, nargs
    ! the options that take a value (the select case below)
    character(len=*), parameter :: options(10) = [character(len=10) :: '--n', '--block', &
        '--panel', '--reps', '--warmup', '--seed', '--variants', '--groups', '--config', '--csv']
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
        call positive(val, cfg%n)
      case ('--block')
        call positive(val, cfg%block)
      case ('--panel')
        call positive(val, cfg%panel)
      case ('--reps')
        call positive(val, cfg%reps)
      case ('--warmup')
        call non_negative(val, cfg%warmup)
      case ('--seed')
        call seed_value(val)
      case ('--variants')
        call variant_list(val)
      case ('--groups')
        cfg%groups = val
      case ('--config')
        cfg%config = val
      case ('--csv')
        cfg%csv = val
      case default
        err = 'unknown option "' // opt // '"'
      end select
      if (len(err) > 0) return
      i = i + 2
    end do
    if (cfg%n > 0 .and. cfg%block > 0) err = '--n and --block exclude each other'
  contains
    subroutine positive(text, value)
      character(*), intent(in) :: text
      integer, intent(out) :: value
      integer(int64) :: v
      logical :: ok
      call parse_int(text, v, ok)
      if (.not. ok .or. v < 1 .or. v > huge(value)) then
        err = 'option ' // opt // ' needs an integer from 1 to 2147483647, not "' // text // '"'
        value = 0
      else
        value = int(v)
      end if
    end subroutine positive
    subroutine non_negative(text, value)
      character(*), intent(in) :: text
      integer, intent(out) :: value
      integer(int64) :: v
      logical :: ok
      call parse_int(text, v, ok)
      if (.not. ok .or. v < 0 .or. v > huge(value)) then
        err = 'option ' // opt // ' needs an integer from 0 to 2147483647, not "' // text // '"'
        value = 0
      else
        value = int(v)
      end if
    end subroutine non_negative
    subroutine seed_value(text)
      character(*), intent(in) :: text
      logical :: ok
      call parse_int(text, cfg%seed, ok)
      if (.not. ok) err = 'option --seed needs an integer, not "' // text // '"'
    end subroutine seed_value
    subroutine variant_list(text)
      character(*), intent(in) :: text
      character(:), allocatable :: item
      integer :: start, comma, v
      logical :: known
      cfg%run = .false.
      start = 1
      do
        comma = index(text(start:), ',')
        if (comma == 0) then
          item = lower(trim(adjustl(text(start:))))
        else
          item = lower(trim(adjustl(text(start:start + comma - 2))))
        end if
        known = .false.
        do v = 1, size(VARIANT_NAMES)
          if (item == trim(VARIANT_NAMES(v))) then
            cfg%run(v) = .true.
            known = .true.
          end if
        end do
        if (.not. known) then
          err = 'unknown variant "' // item // '" (simple, xgroups, topological)'
          return
        end if
        if (comma == 0) exit
        start = start + comma
      end do
    end subroutine variant_list
  end subroutine parse_command_line

  ! The group shapes (group rows x group columns) of a list such as "4,2x2"
  ! on a pr x pc grid. A count G takes the factorization whose groups are the
  ! most square, then whose grid of groups is; RxC is taken as given. err
  ! names the first item that does not divide the grid.
  subroutine parse_groups(text, pr, pc, shapes, err)
    character(*), intent(in) :: text
    integer, intent(in) :: pr, pc
    integer, allocatable, intent(out) :: shapes(:, :)
    character(:), allocatable, intent(out) :: err
    character(:), allocatable :: item
    integer :: start, comma, nitems, x, gr, gc
    integer(int64) :: a, b
    logical :: ok_a, ok_b
    err = ''
    allocate (shapes(2, 0))
    start = 1
    nitems = 0
    do
      comma = index(text(start:), ',')
      if (comma == 0) then
        item = lower(trim(adjustl(text(start:))))
      else
        item = lower(trim(adjustl(text(start:start + comma - 2))))
      end if
      x = index(item, 'x')
      if (x > 0) then
        call parse_int(item(:x - 1), a, ok_a)
        call parse_int(item(x + 1:), b, ok_b)
        if (.not. (ok_a .and. ok_b) .or. a < 1 .or. b < 1) then
          err = 'group shape "' // item // '" is not R x C with positive integers R and C'
          return
        end if
        if (a > pr .or. b > pc .or. mod(int(pr, int64), a) /= 0 .or. &
            mod(int(pc, int64), b) /= 0) then
          err = 'group shape "' // item // '" does not divide the ' // &
                str(int(pr, int64)) // ' x ' // str(int(pc, int64)) // ' process grid'
          return
        end if
        gr = int(a)
        gc = int(b)
      else
        call parse_int(item, a, ok_a)
        if (.not. ok_a .or. a < 1) then
          err = 'group count "' // item // '" is not a positive integer or R x C'
          return
        end if
        call best_shape(int(min(a, int(huge(gr), int64))), pr, pc, gr, gc)
        if (gr == 0) then
          err = str(a) // ' groups cannot divide the ' // str(int(pr, int64)) // ' x ' // &
                str(int(pc, int64)) // ' process grid (R x C groups, R dividing ' // &
                str(int(pr, int64)) // ', C dividing ' // str(int(pc, int64)) // ')'
          return
        end if
      end if
      nitems = nitems + 1
      shapes = reshape([shapes, gr, gc], [2, nitems])
      if (comma == 0) exit
      start = start + comma
    end do
  end subroutine parse_groups

  ! The factorization count = gr x gc with gr | pr and gc | pc whose groups
  ! ((pr/gr) x (pc/gc) processes) are closest to square, ties broken by the
  ! grid of groups closest to square; gr = 0 when there is none.
  subroutine best_shape(ngroups, pr, pc, gr, gc)
    integer, intent(in) :: ngroups, pr, pc
    integer, intent(out) :: gr, gc
    integer :: r, c
    real :: score(2), best(2)
    gr = 0
    gc = 0
    best = huge(1.0)
    do r = 1, pr
      if (mod(pr, r) /= 0 .or. mod(ngroups, r) /= 0) cycle
      c = ngroups / r
      if (mod(pc, c) /= 0) cycle
      score = [abs(log(real(pr / r) / real(pc / c))), abs(log(real(r) / real(c)))]
      if (score(1) < best(1) - 1e-6 .or. &
          (abs(score(1) - best(1)) <= 1e-6 .and. score(2) < best(2) - 1e-6)) then
        best = score
        gr = r
        gc = c
      end if
    end do
  end subroutine best_shape

  ! The group list of a configuration file: "groups = LIST" lines (the last
  ! one counts), blank lines and # comments. err is "FILE:LINE: reason".
  subroutine read_groups_file(path, groups, err)
    character(*), intent(in) :: path
    character(:), allocatable, intent(out) :: groups, err
    character(:), allocatable :: line, key
    integer :: unit, ios, lineno, eq, hash
    err = ''
    groups = ''
    open (newunit=unit, file=path, status='old', action='read', iostat=ios)
    if (ios /= 0) then
      err = path // ': cannot open the configuration file'
      return
    end if
    lineno = 0
    do
      call read_line(unit, line, ios)
      if (ios /= 0) exit
      lineno = lineno + 1
      hash = index(line, '#')
      if (hash > 0) line = line(:hash - 1)
      if (len_trim(line) == 0) cycle
      eq = index(line, '=')
      if (eq == 0) then
        err = path // ':' // str(int(lineno, int64)) // ': expected "key = value"'
        exit
      end if
      key = lower(trim(adjustl(line(:eq - 1))))
      if (key /= 'groups') then
        err = path // ':' // str(int(lineno, int64)) // ': unknown key "' // key // &
              '" (the only key is "groups")'
        exit
      end if
      groups = trim(adjustl(line(eq + 1:)))
      if (len(groups) == 0) then
        err = path // ':' // str(int(lineno, int64)) // ': empty group list'
        exit
      end if
    end do
    if (len(err) == 0 .and. ios > 0) &
      err = path // ':' // str(int(lineno + 1, int64)) // ': read error'
    if (len(err) == 0 .and. len(groups) == 0) &
      err = path // ': no "groups = LIST" line'
    close (unit)
  end subroutine read_groups_file

end module summa_options
