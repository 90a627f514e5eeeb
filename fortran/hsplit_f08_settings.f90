! SPDX-License-Identifier: BSD-3-Clause
! hsplit_f08 settings: the collectives' settings declared by the library
! (HSPLIT_Coll_setting_*). Strings come back from C NUL-terminated into a
! buffer one character longer than the caller's variable, which gets them
! blank padded or cut.
submodule (hsplit_f08) hsplit_f08_settings
  use, intrinsic :: iso_c_binding, only: c_int, c_char, c_ptr, c_loc, c_null_ptr, c_null_char
  use hsplit_f08_c
  implicit none

  ! One string of HSPLIT_Coll_setting_describe: a buffer for the caller's
  ! variable (room for its characters and the NUL) and C's length.
  type :: c_string
    character(kind=c_char), allocatable :: text(:)
    integer(c_int) :: len = 0
  end type

contains

  ! The buffer's NUL-terminated string into text, blank padded or cut.
  subroutine copy_out(buffer, text)
    character(kind=c_char), intent(in) :: buffer(:)
    character(len=*), intent(out) :: text
    integer :: i
    text = ' '
    do i = 1, min(len(text), size(buffer))
      if (buffer(i) == c_null_char) exit
      text(i:i) = buffer(i)
    end do
  end subroutine

  ! A buffer for a variable of n characters.
  subroutine make(s, n)
    type(c_string), target, intent(inout) :: s
    integer, intent(in) :: n
    allocate (s%text(n + 1))
    s%len = n + 1
  end subroutine

  type(c_ptr) function text_of(s, wanted)
    type(c_string), target, intent(in) :: s
    logical, intent(in) :: wanted
    text_of = c_null_ptr
    if (wanted) text_of = c_loc(s%text)
  end function

  type(c_ptr) function len_of(s, wanted)
    type(c_string), target, intent(in) :: s
    logical, intent(in) :: wanted
    len_of = c_null_ptr
    if (wanted) len_of = c_loc(s%len)
  end function

  module procedure HSPLIT_Coll_setting_count
    integer(c_int) :: rc, c_count
    rc = hsplit_c_coll_setting_count(c_count)
    if (rc == 0) count = c_count
    if (present(ierror)) ierror = rc
  end procedure

  module procedure HSPLIT_Coll_setting_describe
    integer(c_int) :: rc
    type(c_string), target :: s(4)
    logical :: wanted(4)
    integer :: k
    ! a length alone is asked with a buffer of no character (C: *len 1)
    wanted = [present(name) .or. present(name_len), &
              present(default_value) .or. present(default_len), &
              present(allowed) .or. present(allowed_len), &
              present(description) .or. present(description_len)]
    if (present(name)) call make(s(1), len(name))
    if (present(default_value)) call make(s(2), len(default_value))
    if (present(allowed)) call make(s(3), len(allowed))
    if (present(description)) call make(s(4), len(description))
    do k = 1, 4
      if (wanted(k) .and. .not. allocated(s(k)%text)) call make(s(k), 0)
    end do
    rc = hsplit_c_coll_setting_describe(index, text_of(s(1), wanted(1)), len_of(s(1), wanted(1)), &
                                        text_of(s(2), wanted(2)), len_of(s(2), wanted(2)), &
                                        text_of(s(3), wanted(3)), len_of(s(3), wanted(3)), &
                                        text_of(s(4), wanted(4)), len_of(s(4), wanted(4)))
    if (rc == 0) then
      ! C's lengths count the NUL
      if (present(name)) call copy_out(s(1)%text, name)
      if (present(default_value)) call copy_out(s(2)%text, default_value)
      if (present(allowed)) call copy_out(s(3)%text, allowed)
      if (present(description)) call copy_out(s(4)%text, description)
      if (present(name_len)) name_len = s(1)%len - 1
      if (present(default_len)) default_len = s(2)%len - 1
      if (present(allowed_len)) allowed_len = s(3)%len - 1
      if (present(description_len)) description_len = s(4)%len - 1
    end if
    if (present(ierror)) ierror = rc
  end procedure

  module procedure HSPLIT_Coll_setting_get
    integer(c_int) :: rc, c_len, c_source, c_valid
    character(kind=c_char) :: buffer(len(value) + 1)
    c_len = len(value) + 1
    rc = hsplit_f08_c_coll_setting_get(comm%MPI_VAL, index, buffer, c_len, c_source, c_valid)
    if (rc == 0) then
      call copy_out(buffer, value)
      if (present(value_len)) value_len = c_len - 1
      if (present(source)) source = c_source
      if (present(valid)) valid = c_valid /= 0
    end if
    if (present(ierror)) ierror = rc
  end procedure

end submodule hsplit_f08_settings
