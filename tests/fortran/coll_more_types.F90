! SPDX-License-Identifier: BSD-3-Clause
! The nine collectives of coll_more_by_type.inc, once for INTEGER and once
! for REAL(8) (exact: every value is a quarter of a small integer).
#define ELEM integer
module coll_more_integer
  use mpi_f08
  use hsplit_f08
  use test_util_f08
  use coll_more_util, only: reversed_displs, str
  implicit none
  private
  public :: run_by_type
contains
  elemental ELEM function make(v)
    integer, intent(in) :: v
    make = v
  end function
#include "coll_more_by_type.inc"
end module coll_more_integer
#undef ELEM

#define ELEM real(8)
module coll_more_real8
  use mpi_f08
  use hsplit_f08
  use test_util_f08
  use coll_more_util, only: reversed_displs, str
  implicit none
  private
  public :: run_by_type
contains
  elemental ELEM function make(v)
    integer, intent(in) :: v
    make = 0.25d0 * v
  end function
#include "coll_more_by_type.inc"
end module coll_more_real8
#undef ELEM
