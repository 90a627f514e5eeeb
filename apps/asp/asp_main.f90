! SPDX-License-Identifier: BSD-3-Clause
! hsplit-asp: all-pairs shortest paths by parallel Floyd-Warshall (ASP) with a
! flat (MPI_Bcast) and a hierarchical (HSPLIT_Bcast) row broadcast, both run
! in one execution on the same graph, repetitions interleaved. Prints, per
! variant, the total, communication and computation times (average and
! maximum over processes, per run), the iteration count, the sum of the
! finite distances, the number of unreachable pairs and the verdict of the
! check (asp_verify), as a table and optionally CSV.
! Exit status: 0 all PASS, 1 a check failed, 2 bad usage or input.
program hsplit_asp
  use, intrinsic :: iso_fortran_env, only: int64, real64, output_unit, error_unit
  use mpi_f08
  use app_text, only: str, fstr
  use app_report, only: report_table, layout_text
  use app_parallel, only: phase_times, summarize_times, sleeping_barrier, all_true
  use dimacs_reader, only: read_dimacs
  use asp_options
  use asp_graph, only: graph_source, ASP_INF, local_rows, fill_rows, share_arcs, count_arcs
  use asp_floyd, only: floyd_warshall_steps, row_bcast
  use asp_verify, only: serial_reference, dijkstra_reference, sampled_sources, gather_rows, &
                        sampled_rows_match, distance_summary
  implicit none

  integer, parameter :: DEFAULT_N = 1024, SERIAL_CHECK_MAX_N = 1024
  type(asp_config) :: cfg
  type(graph_source) :: src
  type(MPI_Comm) :: comm
  integer, allocatable :: variants(:), sources(:)
  type(phase_times), allocatable :: times(:)
  character(len=4), allocatable :: verdict(:)
  integer(int64), allocatable :: dist_sum(:), unreachable(:)
  integer(int64), allocatable :: d0(:, :), d(:, :), row(:), ref(:, :)
  character(:), allocatable :: err
  integer :: rank, nprocs, n, nloc, iterations, verify_mode, v, rep, status, stat
  integer(int64) :: narcs

  call MPI_Init()
  call MPI_Comm_dup(MPI_COMM_WORLD, comm)
  call MPI_Comm_rank(comm, rank)
  call MPI_Comm_size(comm, nprocs)
  status = 0

  call parse_command_line(cfg, err)
  if (len(err) == 0 .and. cfg%help) then
    if (rank == 0) write (output_unit, '(a)') usage_text()
    call finish(0)
  end if
  if (len(err) == 0) call load_graph()
  if (len(err) == 0) then
    n = src%n
    iterations = n
    if (cfg%iterations >= 0) iterations = cfg%iterations
    if (iterations > n) err = '--iterations ' // str(int(iterations, int64)) // &
                              ' exceeds the ' // str(int(n, int64)) // ' nodes'
  end if
  if (len(err) > 0) then
    if (rank == 0) write (error_unit, '(a)') 'hsplit-asp: ' // err
    if (rank == 0 .and. .not. src%from_file) &
      write (error_unit, '(a)') 'hsplit-asp: see hsplit-asp --help'
    call finish(2)
  end if

  nloc = local_rows(n, rank, nprocs)
  allocate (d0(n, nloc), d(n, nloc), row(n), stat=stat)
  if (.not. all_true(stat == 0, comm)) then
    if (rank == 0) write (error_unit, '(a)') 'hsplit-asp: cannot allocate the ' // &
      str(int(n, int64)) // ' x ' // str(int(n, int64)) // ' distance matrix'
    call finish(2)
  end if
  call fill_rows(src, rank, nprocs, d0)
  call MPI_Allreduce(count_arcs(d0), narcs, 1, MPI_INTEGER8, MPI_SUM, comm)
  verify_mode = cfg%verify
  if (verify_mode == VERIFY_AUTO) verify_mode = merge(VERIFY_SERIAL, VERIFY_DIJKSTRA, &
                                                      n <= SERIAL_CHECK_MAX_N)
  if (rank == 0) call print_header()
  call compute_reference()

  variants = pack([VARIANT_FLAT, VARIANT_HIER], cfg%run)
  allocate (times(size(variants)), verdict(size(variants)), dist_sum(size(variants)), &
            unreachable(size(variants)))
  do v = 1, size(variants)
    call warm_up(variants(v))
  end do
  do rep = 1, cfg%reps
    do v = 1, size(variants)
      d = d0
      call MPI_Barrier(comm)
      block
        real(real64) :: t0
        t0 = MPI_Wtime()
        call floyd_warshall_steps(variants(v), d, iterations, row, comm, times(v))
        times(v)%total = times(v)%total + (MPI_Wtime() - t0)
      end block
      if (rep == cfg%reps) call verify(v)
    end do
  end do
  call report()
  call MPI_Comm_free(comm)
  call finish(merge(1, 0, any(verdict == 'FAIL')))

contains

  ! The random graph, or the DIMACS file read by rank 0 and shared.
  subroutine load_graph()
    integer :: length
    character(:), allocatable :: file_err
    if (.not. allocated(cfg%graph)) then
      src%n = DEFAULT_N
      if (cfg%n > 0) src%n = cfg%n
      src%density = cfg%density
      src%wmin = cfg%wmin
      src%wmax = cfg%wmax
      src%seed = cfg%seed
      return
    end if
    src%from_file = .true.
    file_err = ''
    if (rank == 0) call read_dimacs(cfg%graph, src%file, file_err)
    length = len(file_err)
    call MPI_Bcast(length, 1, MPI_INTEGER, 0, comm)
    if (length > 0) then
      err = file_err
      if (rank /= 0) err = 'bad graph file' ! only rank 0 prints
      return
    end if
    call share_arcs(src, comm)
  end subroutine load_graph

  ! Rank 0 computes the reference distances while the others sleep.
  subroutine compute_reference()
    if (verify_mode == VERIFY_DIJKSTRA) sources = sampled_sources(n, cfg%sources, cfg%seed)
    if (rank == 0) then
      select case (verify_mode)
      case (VERIFY_SERIAL)
        call serial_reference(src, iterations, ref)
      case (VERIFY_DIJKSTRA)
        call dijkstra_reference(src, iterations, sources, ref)
      end select
    end if
    if (.not. allocated(ref)) allocate (ref(0, 0)) ! only rank 0 holds the reference
    call sleeping_barrier(comm)
  end subroutine compute_reference

  ! Every process root of one n-element broadcast per round: MPI's and
  ! hsplit's setup (the hierarchy) out of the timed runs.
  subroutine warm_up(variant)
    integer, intent(in) :: variant
    integer :: round, root
    row = 0
    do round = 1, cfg%warmup
      do root = 0, nprocs - 1
        call row_bcast(variant, row, n, root, comm)
      end do
    end do
  end subroutine warm_up

  subroutine verify(k)
    integer, intent(in) :: k
    integer(int64), allocatable :: all_rows(:, :)
    logical :: ok
    if (cfg%corrupt .and. rank == 0) then ! row 0 is always checked
      if (d(n, 1) == ASP_INF .or. d(n, 1) == 0) then
        d(n, 1) = 1
      else
        d(n, 1) = d(n, 1) - 1
      end if
    end if
    call distance_summary(d, comm, dist_sum(k), unreachable(k))
    if (verify_mode == VERIFY_SERIAL .or. allocated(cfg%dump)) call gather_rows(d, n, comm, all_rows)
    select case (verify_mode)
    case (VERIFY_SERIAL)
      if (rank == 0) ok = all(all_rows == ref)
      call MPI_Bcast(ok, 1, MPI_LOGICAL, 0, comm)
      verdict(k) = merge('PASS', 'FAIL', ok)
    case (VERIFY_DIJKSTRA)
      ok = sampled_rows_match(d, sources, ref, comm)
      verdict(k) = merge('PASS', 'FAIL', ok)
    case default
      verdict(k) = 'none'
    end select
    if (allocated(cfg%dump) .and. rank == 0) &
      call dump(cfg%dump // '-' // trim(VARIANT_NAMES(variants(k))) // '.txt', all_rows)
  end subroutine verify

  ! The distances as text: N, then one line per row, "inf" for no path.
  subroutine dump(path, all_rows)
    character(*), intent(in) :: path
    integer(int64), intent(in) :: all_rows(:, :)
    integer :: unit, ios, i, j
    character(:), allocatable :: line
    open (newunit=unit, file=path, status='replace', action='write', iostat=ios)
    if (ios /= 0) then
      write (error_unit, '(a)') 'hsplit-asp: cannot write ' // path
      status = 2
      return
    end if
    write (unit, '(i0)') n
    do i = 1, n
      line = ''
      do j = 1, n
        if (j > 1) line = line // ' '
        if (all_rows(j, i) == ASP_INF) then
          line = line // 'inf'
        else
          line = line // str(all_rows(j, i))
        end if
      end do
      write (unit, '(a)') line
    end do
    close (unit)
  end subroutine dump

  subroutine print_header()
    character(:), allocatable :: graph, check
    if (src%from_file) then
      graph = 'DIMACS file ' // cfg%graph
    else
      graph = 'random graph, density ' // fstr(src%density, 3) // ', weights ' // &
              str(src%wmin) // ':' // str(src%wmax) // ', seed ' // str(src%seed)
    end if
    select case (verify_mode)
    case (VERIFY_SERIAL)
      check = 'serial Floyd-Warshall on rank 0, all rows'
    case (VERIFY_DIJKSTRA)
      check = 'Dijkstra on rank 0 from ' // str(int(min(cfg%sources, n), int64)) // ' sampled sources'
    case default
      check = 'none'
    end select
    write (output_unit, '(a)') 'hsplit-asp: ' // str(int(nprocs, int64)) // ' processes, ' // &
      graph // ', N = ' // str(int(n, int64)) // ', ' // str(narcs) // ' arcs, ' // &
      str(int(iterations, int64)) // ' iterations, ' // str(int(cfg%reps, int64)) // &
      ' repetitions (+' // str(int(cfg%warmup, int64)) // ' warm-up broadcast rounds)'
    write (output_unit, '(a)') 'settings: ' // layout_text()
    write (output_unit, '(a)') 'checks: ' // check
  end subroutine print_header

  subroutine report()
    type(report_table) :: table
    real(real64) :: avg(3), most(3)
    integer :: k, unit, ios
    if (rank == 0) call table%add_row('variant,procs,N,arcs,iterations,reps,' // &
      'total_avg_ms,total_max_ms,comm_avg_ms,comm_max_ms,comp_avg_ms,comp_max_ms,' // &
      'comm_share,dist_sum,unreachable,check')
    do k = 1, size(variants)
      call summarize_times(times(k), cfg%reps, comm, avg, most)
      if (rank /= 0) cycle
      call table%add_row(trim(VARIANT_NAMES(variants(k))) // ',' // &
        str(int(nprocs, int64)) // ',' // str(int(n, int64)) // ',' // str(narcs) // ',' // &
        str(int(iterations, int64)) // ',' // str(int(cfg%reps, int64)) // ',' // &
        fstr(1d3 * avg(1), 3) // ',' // fstr(1d3 * most(1), 3) // ',' // &
        fstr(1d3 * avg(2), 3) // ',' // fstr(1d3 * most(2), 3) // ',' // &
        fstr(1d3 * avg(3), 3) // ',' // fstr(1d3 * most(3), 3) // ',' // &
        fstr(avg(2) / max(avg(1), tiny(1d0)), 2) // ',' // &
        str(dist_sum(k)) // ',' // str(unreachable(k)) // ',' // verdict(k))
    end do
    if (rank /= 0) return
    write (output_unit, '(a)') ''
    call table%print_markdown(output_unit)
    if (allocated(cfg%csv)) then
      open (newunit=unit, file=cfg%csv, status='replace', action='write', iostat=ios)
      if (ios /= 0) then
        write (error_unit, '(a)') 'hsplit-asp: cannot write ' // cfg%csv
        status = 2
      else
        call table%write_csv(unit)
        close (unit)
      end if
    end if
  end subroutine report

  subroutine finish(code)
    integer, intent(in) :: code
    integer :: final_code
    final_code = max(code, status)
    call MPI_Finalize()
    if (final_code /= 0) stop final_code, quiet=.true.
    stop
  end subroutine finish

end program hsplit_asp
