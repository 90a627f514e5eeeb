! SPDX-License-Identifier: BSD-3-Clause
! HSPLIT_Coll_setting_count, _describe and _get from Fortran. Run on two
! processes with HSPLIT_COLL_MIN_PROCS=7 and HSPLIT_COLL_SHM_FANOUT=1 (below
! its smallest value, 2) in the environment and no other HSPLIT_COLL*
! variable. The names, defaults and values expected are written here from
! the user guide's table (section 8.2), not taken from the library. Strings
! come back blank padded or cut to the variable, their *_len the whole
! length; a bad index is MPI_ERR_ARG (MPI_ERRORS_RETURN on MPI_COMM_WORLD,
! whose handler the settings' errors without a communicator go to).
program test_f08_settings
  use mpi_f08
  use hsplit_f08
  use test_util_f08
  implicit none
  integer, parameter :: nsettings = 14
  character(len=24), parameter :: names(nsettings) = [character(len=24) :: &
       'HSPLIT_COLL', 'HSPLIT_COLL_SEGMENT_SIZE', 'HSPLIT_COLL_MIN_PROCS', &
       'HSPLIT_COLL_MIN_BYTES', 'HSPLIT_COLL_MAX_BYTES', 'HSPLIT_COLL_RSAG_BYTES', &
       'HSPLIT_COLL_TRIALS', 'HSPLIT_COLL_REPORT', 'HSPLIT_COLL_SHM', &
       'HSPLIT_COLL_SHM_BYTES', 'HSPLIT_COLL_SHM_FANOUT', 'HSPLIT_COLL_RULES', &
       'HSPLIT_COLL_SCHEDULE', 'HSPLIT_COLL_SCHEDULES']
  integer :: count, i, n, ierror, cls, source
  character(len=40) :: name
  character(len=4) :: short
  character(len=16) :: value
  character(len=:), allocatable :: description
  type(MPI_Comm) :: comm
  type(MPI_Info) :: info

  call MPI_Init()
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)

  call HSPLIT_Coll_setting_count(count, ierror)
  call check_int(ierror, MPI_SUCCESS, 'count ierror')
  call check_int(count, nsettings, 'count')
  do i = 0, nsettings - 1
    call HSPLIT_Coll_setting_describe(i, name=name, name_len=n, ierror=ierror)
    call check_int(ierror, MPI_SUCCESS, 'describe ierror')
    call check_str(name, names(i + 1)//repeat(' ', len(name) - len(names(i + 1))), 'name')
    call check_int(n, len_trim(names(i + 1)), 'name_len')
  end do

  ! defaults, from the guide's table
  call describe_default('HSPLIT_COLL', 'auto')
  call describe_default('HSPLIT_COLL_MIN_PROCS', '4')
  call describe_default('HSPLIT_COLL_TRIALS', '3')
  call describe_default('HSPLIT_COLL_SHM_FANOUT', '16')
  call describe_default('HSPLIT_COLL_SCHEDULES', 'auto')

  ! a short variable: cut, and the length says so
  call HSPLIT_Coll_setting_describe(index_of('HSPLIT_COLL_SEGMENT_SIZE'), name=short, &
                                    name_len=n)
  call check_str(short, 'HSPL', 'short name')
  call check_int(n, 24, 'short name_len')
  ! a length alone, then a variable of that length: the whole text, no blank
  call HSPLIT_Coll_setting_describe(index_of('HSPLIT_COLL_TRIALS'), description_len=n)
  call check(n > 20, 'description_len alone')
  allocate (character(len=n) :: description)
  call HSPLIT_Coll_setting_describe(index_of('HSPLIT_COLL_TRIALS'), description=description)
  call check_int(len_trim(description), n, 'description fills its variable')
  call check(index(description, 'trials') > 0 .or. index(description, 'calls') > 0, &
             'the description of HSPLIT_COLL_TRIALS: ' // description)

  ! values: the environment, the default, a malformed one
  call check_value(MPI_COMM_NULL, 'HSPLIT_COLL_MIN_PROCS', '7', HSPLIT_SOURCE_ENVIRONMENT, &
                   .true., 'null')
  call check_value(MPI_COMM_NULL, 'HSPLIT_COLL_TRIALS', '3', HSPLIT_SOURCE_DEFAULT, .true., &
                   'null')
  call check_value(MPI_COMM_NULL, 'HSPLIT_COLL_SHM_FANOUT', '1', HSPLIT_SOURCE_ENVIRONMENT, &
                   .false., 'null')
  ! a communicator's hint wins over the variable and the default
  call MPI_Comm_dup(MPI_COMM_WORLD, comm)
  call MPI_Info_create(info)
  call MPI_Info_set(info, 'HSPLIT_COLL_MIN_PROCS', '2')
  call MPI_Info_set(info, 'HSPLIT_COLL_TRIALS', '1')
  call HSPLIT_Comm_set_coll_info(comm, info, ierror)
  call check_int(ierror, MPI_SUCCESS, 'set_coll_info')
  call check_value(comm, 'HSPLIT_COLL_MIN_PROCS', '2', HSPLIT_SOURCE_SET_COLL_INFO, .true., &
                   'hint')
  call check_value(comm, 'HSPLIT_COLL_TRIALS', '1', HSPLIT_SOURCE_SET_COLL_INFO, .true., 'hint')
  call check_value(comm, 'HSPLIT_COLL_REPORT', '0', HSPLIT_SOURCE_DEFAULT, .true., 'hint')
  call MPI_Info_free(info)
  call MPI_Comm_free(comm)

  ! bad indices
  call HSPLIT_Coll_setting_describe(-1, name=name, ierror=ierror)
  call MPI_Error_class(ierror, cls)
  call check_int(cls, MPI_ERR_ARG, 'describe(-1)')
  call HSPLIT_Coll_setting_describe(nsettings, name=name, ierror=ierror)
  call MPI_Error_class(ierror, cls)
  call check_int(cls, MPI_ERR_ARG, 'describe(count)')
  value = 'untouched'
  call HSPLIT_Coll_setting_get(MPI_COMM_WORLD, nsettings, value, source=source, ierror=ierror)
  call MPI_Error_class(ierror, cls)
  call check_int(cls, MPI_ERR_ARG, 'get(count)')
  call check_str(value, 'untouched       ', 'get(count) leaves value')

  call test_finish()

contains

  integer function index_of(wanted)
    character(len=*), intent(in) :: wanted
    integer :: k
    index_of = -1
    do k = 1, nsettings
      if (names(k) == wanted) index_of = k - 1
    end do
  end function

  subroutine describe_default(setting, expected)
    character(len=*), intent(in) :: setting, expected
    character(len=32) :: got
    integer :: got_len, rc
    call HSPLIT_Coll_setting_describe(index_of(setting), default_value=got, &
                                      default_len=got_len, ierror=rc)
    call check_int(rc, MPI_SUCCESS, setting // ' default ierror')
    call check_str(trim(got), expected, setting // ' default')
    call check_int(got_len, len(expected), setting // ' default_len')
  end subroutine

  subroutine check_value(c, setting, expected, expected_source, expected_valid, what)
    type(MPI_Comm), intent(in) :: c
    character(len=*), intent(in) :: setting, expected, what
    integer, intent(in) :: expected_source
    logical, intent(in) :: expected_valid
    character(len=16) :: got
    integer :: got_len, got_source, rc
    logical :: got_valid
    call HSPLIT_Coll_setting_get(c, index_of(setting), got, value_len=got_len, &
                                 source=got_source, valid=got_valid, ierror=rc)
    call check_int(rc, MPI_SUCCESS, what // ': ' // setting // ' ierror')
    call check_str(trim(got), expected, what // ': ' // setting)
    call check_int(got_len, len(expected), what // ': ' // setting // ' value_len')
    call check_int(got_source, expected_source, what // ': ' // setting // ' source')
    call check(got_valid .eqv. expected_valid, what // ': ' // setting // ' valid')
  end subroutine

end program test_f08_settings
