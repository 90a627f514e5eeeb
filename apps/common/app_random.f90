! SPDX-License-Identifier: BSD-3-Clause
! Counter-based pseudo-random numbers: a value is a pure function of
! (seed, stream, i, j), so every process generates its own part of a matrix or
! graph without communication and without any generator state, and a check can
! regenerate any element independently. Arithmetic stays below 2**48, so no
! integer overflow can occur; tests/apps/reference.py implements the same
! function in Python to derive expected results.
module app_random
  use, intrinsic :: iso_fortran_env, only: int64, real64
  implicit none
  private
  public :: hash_value, hash_unit, HASH_MODULUS

  integer(int64), parameter :: HASH_MODULUS = 2147483647_int64 ! 2**31 - 1

contains

  ! Two Park-Miller multiplications with xor-shifts: x in [0, 2**62) to
  ! a value in [0, 2**31).
  pure function mix(x) result(y)
    integer(int64), intent(in) :: x
    integer(int64) :: y
    y = modulo(x, HASH_MODULUS)
    y = modulo(y * 48271_int64 + 12345_int64, HASH_MODULUS)
    y = ieor(y, shiftr(y, 13))
    y = modulo(y * 69621_int64 + 1_int64, HASH_MODULUS)
    y = ieor(y, shiftr(y, 11))
  end function mix

  ! A value in [0, HASH_MODULUS) for (seed, stream, i, j); i, j >= 0.
  pure function hash_value(seed, stream, i, j) result(h)
    integer(int64), intent(in) :: seed, stream, i, j
    integer(int64) :: h
    h = mix(modulo(seed, HASH_MODULUS))
    h = mix(h + stream)
    h = mix(h + i)
    h = mix(h + j)
    h = modulo(h, HASH_MODULUS)
  end function hash_value

  ! The same as a real number in [0, 1).
  pure function hash_unit(seed, stream, i, j) result(u)
    integer(int64), intent(in) :: seed, stream, i, j
    real(real64) :: u
    u = real(hash_value(seed, stream, i, j), real64) / real(HASH_MODULUS, real64)
  end function hash_unit

end module app_random
