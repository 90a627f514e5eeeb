! SPDX-License-Identifier: BSD-3-Clause
! hsplit-summa: SUMMA matrix multiplication C = A B with three ways of
! broadcasting the panels (simple, xgroups, topological; see summa_panels),
! all run in one execution on the same matrices, repetitions interleaved.
! Prints, per variant, the total, communication and computation times
! (average and maximum over processes, per multiplication), GFLOP/s, the
! checksum of C and the verdict of the checks (summa_verify), as a table and
! optionally CSV. Exit status: 0 all PASS, 1 a check failed, 2 bad usage.
program hsplit_summa
  use, intrinsic :: iso_fortran_env, only: int64, real64, output_unit, error_unit
  use mpi_f08
  use app_text, only: str, fstr
  use app_report, only: report_table, layout_text
  use app_parallel, only: phase_times, summarize_times
  use summa_options
  use summa_grid, only: process_grid, grid_dims, grid_create, grid_free
  use summa_panels, only: summa_variant, variant_create, variant_free
  use summa_matrices, only: fill_local_blocks
  use summa_multiply_mod, only: summa_multiply
  use summa_verify, only: freivalds_check, exact_check, checksum, EXACT_CHECK_MAX_N
  use summa_blas, only: blas_one_thread_per_process
  implicit none

  integer, parameter :: DEFAULT_N = 1024
  type(summa_config) :: cfg
  type(process_grid) :: g
  type(summa_variant), allocatable :: variants(:)
  type(phase_times), allocatable :: times(:)
  character(len=4), allocatable :: verdict(:)
  real(real64), allocatable :: sums(:)
  real(real64), allocatable :: a(:, :), b(:, :), c(:, :), apanel(:), bpanel(:)
  integer, allocatable :: shapes(:, :)
  character(:), allocatable :: err, groups
  integer :: rank, nprocs, pr, pc, n, nvariants, v, rep, status
  logical :: all_pass

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  call blas_one_thread_per_process()
  status = 0

  call parse_command_line(cfg, err)
  if (len(err) == 0 .and. cfg%help) then
    if (rank == 0) write (output_unit, '(a)') usage_text()
    call finish(0)
  end if
  call grid_dims(nprocs, pr, pc)
  n = DEFAULT_N
  if (cfg%n > 0) n = cfg%n
  if (cfg%block > 0) n = cfg%block * max(pr, pc)
  if (len(err) == 0 .and. n < max(pr, pc)) &
    err = 'the order ' // str(int(n, int64)) // ' is smaller than the ' // &
          str(int(pr, int64)) // ' x ' // str(int(pc, int64)) // ' process grid'
  if (len(err) == 0 .and. cfg%run(VARIANT_XGROUPS)) call choose_groups()
  if (len(err) > 0) then
    if (rank == 0) write (error_unit, '(a)') 'hsplit-summa: ' // err // new_line('a') // &
                                             'hsplit-summa: see hsplit-summa --help'
    call finish(2)
  end if

  call grid_create(MPI_COMM_WORLD, n, g)
  call make_variants()
  allocate (a(g%mloc, g%nloc), b(g%mloc, g%nloc), c(g%mloc, g%nloc))
  allocate (apanel(g%mloc * cfg%panel), bpanel(cfg%panel * g%nloc))
  call fill_local_blocks(cfg%seed, g, a, b)
  if (rank == 0) call print_header()

  allocate (times(nvariants), verdict(nvariants), sums(nvariants))
  block
    type(phase_times) :: scratch
    do v = 1, nvariants
      do rep = 1, cfg%warmup
        call summa_multiply(variants(v), g, cfg%panel, a, b, c, apanel, bpanel, scratch)
      end do
    end do
  end block
  do rep = 1, cfg%reps
    do v = 1, nvariants
      call timed_multiply(variants(v), times(v))
      if (rep == cfg%reps) call verify(v)
    end do
  end do
  call report()

  do v = 1, nvariants
    call variant_free(variants(v))
  end do
  call grid_free(g)
  all_pass = all(verdict == 'PASS')
  call finish(merge(0, 1, all_pass))

contains

  ! The xgroups shapes, from --groups, the configuration file (read by rank 0)
  ! or, by default, every group count strictly between 1 and the process count.
  subroutine choose_groups()
    integer :: length, ngroups
    character(:), allocatable :: file_err
    character(len=16) :: item
    if (allocated(cfg%groups)) then
      groups = cfg%groups
    else if (allocated(cfg%config)) then
      file_err = ''
      if (rank == 0) call read_groups_file(cfg%config, groups, file_err)
      length = len(file_err)
      call MPI_Bcast(length, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
      if (length > 0) then
        err = file_err
        if (rank /= 0) err = 'bad configuration file' ! only rank 0 prints
        return
      end if
      if (rank == 0) length = len(groups)
      call MPI_Bcast(length, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
      if (rank /= 0) allocate (character(length) :: groups)
      call MPI_Bcast(groups, length, MPI_CHARACTER, 0, MPI_COMM_WORLD)
    else
      groups = ''
      do ngroups = 2, nprocs - 1
        if (mod(nprocs, ngroups) /= 0) cycle
        call parse_groups(str(int(ngroups, int64)), pr, pc, shapes, file_err)
        if (len(file_err) > 0) cycle
        write (item, '(i0)') ngroups
        if (len(groups) > 0) groups = groups // ','
        groups = groups // trim(item)
      end do
      if (len(groups) == 0) groups = '1'
    end if
    call parse_groups(groups, pr, pc, shapes, err)
    if (len(err) > 0) err = 'xgroups: ' // err
  end subroutine choose_groups

  subroutine make_variants()
    integer :: k, s
    nvariants = count(cfg%run([VARIANT_SIMPLE, VARIANT_TOPOLOGICAL]))
    if (cfg%run(VARIANT_XGROUPS)) nvariants = nvariants + size(shapes, 2)
    allocate (variants(nvariants))
    k = 0
    if (cfg%run(VARIANT_SIMPLE)) then
      k = k + 1
      call variant_create(VARIANT_SIMPLE, 0, 0, g, variants(k))
    end if
    if (cfg%run(VARIANT_XGROUPS)) then
      do s = 1, size(shapes, 2)
        k = k + 1
        call variant_create(VARIANT_XGROUPS, shapes(1, s), shapes(2, s), g, variants(k))
      end do
    end if
    if (cfg%run(VARIANT_TOPOLOGICAL)) then
      k = k + 1
      call variant_create(VARIANT_TOPOLOGICAL, 0, 0, g, variants(k))
    end if
  end subroutine make_variants

  ! One multiplication between barriers; its own wall time is the total.
  subroutine timed_multiply(var, t)
    type(summa_variant), intent(in) :: var
    type(phase_times), intent(inout) :: t
    real(real64) :: t0
    call MPI_Barrier(MPI_COMM_WORLD)
    t0 = MPI_Wtime()
    call summa_multiply(var, g, cfg%panel, a, b, c, apanel, bpanel, t)
    t%total = t%total + (MPI_Wtime() - t0)
  end subroutine timed_multiply

  subroutine verify(k)
    integer, intent(in) :: k
    logical :: ok
    integer :: i0, j0
    if (cfg%corrupt) then
      i0 = n / 2
      j0 = n / 3
      if (g%rows%owner(i0) == g%myrow .and. g%cols%owner(j0) == g%mycol) &
        c(i0 - g%row0 + 1, j0 - g%col0 + 1) = c(i0 - g%row0 + 1, j0 - g%col0 + 1) + 1
    end if
    ok = freivalds_check(cfg%seed, g, a, b, c, MPI_COMM_WORLD)
    if (n <= EXACT_CHECK_MAX_N) ok = exact_check(cfg%seed, g, c, MPI_COMM_WORLD) == 0 .and. ok
    verdict(k) = merge('PASS', 'FAIL', ok)
    sums(k) = checksum(g, c, MPI_COMM_WORLD)
  end subroutine verify

  subroutine print_header()
    character(:), allocatable :: checks
    checks = 'Freivalds'
    if (n <= EXACT_CHECK_MAX_N) checks = checks // ' and exact comparison with a serial product'
    write (output_unit, '(a)') 'hsplit-summa: ' // str(int(nprocs, int64)) // ' processes, grid ' // &
      str(int(pr, int64)) // ' x ' // str(int(pc, int64)) // ', N = ' // str(int(n, int64)) // &
      ', panel ' // str(int(cfg%panel, int64)) // ', ' // str(int(cfg%reps, int64)) // &
      ' repetitions (+' // str(int(cfg%warmup, int64)) // ' warm-up), seed ' // str(cfg%seed)
    write (output_unit, '(a)') 'settings: ' // layout_text()
    write (output_unit, '(a)') 'checks: ' // checks
  end subroutine print_header

  subroutine report()
    type(report_table) :: table
    real(real64) :: avg(3), most(3), flops
    integer :: k, unit, ios
    character(:), allocatable :: grid_text
    grid_text = str(int(pr, int64)) // 'x' // str(int(pc, int64))
    if (rank == 0) call table%add_row('variant,groups,procs,grid,N,panel,reps,' // &
      'total_avg_ms,total_max_ms,comm_avg_ms,comm_max_ms,comp_avg_ms,comp_max_ms,' // &
      'comm_share,gflops,checksum,check')
    flops = 2 * real(n, real64)**3
    do k = 1, nvariants
      call summarize_times(times(k), cfg%reps, MPI_COMM_WORLD, avg, most)
      if (rank /= 0) cycle
      call table%add_row(variants(k)%name // ',' // variants(k)%groups // ',' // &
        str(int(nprocs, int64)) // ',' // grid_text // ',' // str(int(n, int64)) // ',' // &
        str(int(cfg%panel, int64)) // ',' // str(int(cfg%reps, int64)) // ',' // &
        fstr(1d3 * avg(1), 3) // ',' // fstr(1d3 * most(1), 3) // ',' // &
        fstr(1d3 * avg(2), 3) // ',' // fstr(1d3 * most(2), 3) // ',' // &
        fstr(1d3 * avg(3), 3) // ',' // fstr(1d3 * most(3), 3) // ',' // &
        fstr(avg(2) / max(avg(1), tiny(1d0)), 2) // ',' // &
        fstr(flops / max(most(1), tiny(1d0)) / 1d9, 2) // ',' // &
        str(nint(sums(k), int64)) // ',' // verdict(k))
    end do
    if (rank /= 0) return
    write (output_unit, '(a)') ''
    call table%print_markdown(output_unit)
    if (allocated(cfg%csv)) then
      open (newunit=unit, file=cfg%csv, status='replace', action='write', iostat=ios)
      if (ios /= 0) then
        write (error_unit, '(a)') 'hsplit-summa: cannot write ' // cfg%csv
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

end program hsplit_summa
