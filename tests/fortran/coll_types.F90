! SPDX-License-Identifier: BSD-3-Clause
! The collectives on buffers of rank 0 to 3 (coll_by_rank.inc), once for each
! element type: INTEGER, REAL(8), COMPLEX and the derived type pair_t.
#define ELEM integer
module coll_integer
  use mpi_f08
  use hsplit_f08
  use test_util_f08
  implicit none
  private
  public :: run_by_rank
contains
  elemental ELEM function make(v)
    integer, intent(in) :: v
    make = v
  end function
#include "coll_by_rank.inc"
end module coll_integer
#undef ELEM

#define ELEM real(8)
module coll_real8
  use mpi_f08
  use hsplit_f08
  use test_util_f08
  implicit none
  private
  public :: run_by_rank
contains
  ! v / 4: not always an integer, exactly representable, linear in v
  elemental ELEM function make(v)
    integer, intent(in) :: v
    make = 0.25d0 * v
  end function
#include "coll_by_rank.inc"
end module coll_real8
#undef ELEM

#define ELEM complex
module coll_complex
  use mpi_f08
  use hsplit_f08
  use test_util_f08
  implicit none
  private
  public :: run_by_rank
contains
  elemental ELEM function make(v)
    integer, intent(in) :: v
    make = cmplx(v, -2 * v)
  end function
#include "coll_by_rank.inc"
end module coll_complex
#undef ELEM

#define ELEM type(pair_t)
module coll_derived
  use mpi_f08
  use hsplit_f08
  use test_util_f08
  use coll_pair
  implicit none
  private
  public :: run_by_rank
contains
  elemental ELEM function make(v)
    integer, intent(in) :: v
    make = pair_make(v)
  end function
#include "coll_by_rank.inc"
end module coll_derived
#undef ELEM
