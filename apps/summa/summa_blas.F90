! SPDX-License-Identifier: BSD-3-Clause
! The BLAS routine SUMMA calls, with an explicit interface (assumed-size
! arrays, so panels of any shape are passed as their element sequence), and
! one BLAS thread per MPI process: the processes already occupy the cores.
module summa_blas
#ifdef HSPLIT_OPENBLAS
  use, intrinsic :: iso_c_binding, only: c_int
#endif
  implicit none
  private
  public :: dgemm, blas_one_thread_per_process

  interface
    subroutine dgemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
      character, intent(in) :: transa, transb
      integer, intent(in) :: m, n, k, lda, ldb, ldc
      double precision, intent(in) :: alpha, beta
      double precision, intent(in) :: a(*), b(*)
      double precision, intent(inout) :: c(*)
    end subroutine dgemm
#ifdef HSPLIT_OPENBLAS
    subroutine openblas_set_num_threads(nthreads) bind(c, name='openblas_set_num_threads')
      import :: c_int
      integer(c_int), value :: nthreads
    end subroutine openblas_set_num_threads
#endif
  end interface

contains

  ! OpenBLAS starts one thread per core in every process unless told
  ! otherwise; OPENBLAS_NUM_THREADS, when set, wins.
  subroutine blas_one_thread_per_process()
#ifdef HSPLIT_OPENBLAS
    integer :: length, status
    call get_environment_variable('OPENBLAS_NUM_THREADS', length=length, status=status)
    if (status /= 0) call openblas_set_num_threads(1_c_int)
#endif
  end subroutine blas_one_thread_per_process

end module summa_blas
