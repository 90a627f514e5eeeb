#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Runs one of the Fortran programs fortran_* with libhsplit_pmpi preloaded
# and HSPLIT_PMPI_REPORT=1, and checks that the library took every call:
# the program's own checks pass (exit status 0), and the report on standard
# error has exactly the rows of fortran_checks.inc's calls, each call made
# once per process (allreduce twice) and served by the hierarchy (the
# environment gives HSPLIT_COLL=on and 2 emulated nodes), with the bytes of
# its counts (4-byte MPI_INTEGER), except comm_split_type
# (MPI_COMM_TYPE_SHARED: forwarded to the MPI, plain).
# usage: fortran_check.sh FLAVOR LIBRARY NP PROGRAM MPIEXEC [ARGS...]
#   FLAVOR openmpi or mpich (how the launcher passes LD_PRELOAD to the
#   processes only, not to itself); MPIEXEC ARGS the launcher and its
#   options, the process count included.
set -u
flavor=$1 library=$2 np=$3 program=$4
shift 4
case $flavor in
  openmpi) preload="-x LD_PRELOAD=$library" ;;
  mpich) preload="-genv LD_PRELOAD $library" ;;
  *) echo "fortran_check.sh: unknown MPI flavour $flavor" >&2; exit 2 ;;
esac

err=$(mktemp) || exit 2
trap 'rm -f "$err"' EXIT
# $preload unquoted: the launcher's option words
"$@" $preload "$program" 2>"$err"
status=$?
cat "$err" >&2
if [ "$status" -ne 0 ]; then
  echo "FAIL: the program exited with status $status" >&2
  exit 1
fi

n=$np
# collective calls-per-process bytes-summed-over-the-processes
expected="bcast 1 $((12 * n))
reduce 1 $((8 * n))
allreduce 2 $((12 * n))
gather 1 $((4 * n))
scatter 1 $((4 * n))
allgather 1 $((8 * n))
barrier 1 0
gatherv 1 $((2 * n * (n + 1)))
scatterv 1 $((2 * n * (n + 1)))
allgatherv 1 $((2 * n * (n + 1)))
alltoall 1 $((4 * n * n))
alltoallv 1 $((2 * n * n * (n + 1)))
reduce_scatter_block 1 $((8 * n * n))
reduce_scatter 1 $((2 * n * n * (n + 1)))
scan 1 $((4 * n))
exscan 1 $((4 * n))"

fail=0
rows=$(grep -c '^csv,[a-z_]*,[0-9]' "$err")
if [ "$rows" -ne 17 ]; then
  echo "FAIL: the report has $rows rows, expected 17 (16 collectives and comm_split_type)" >&2
  fail=1
fi
echo "$expected" | while read -r name per bytes; do
  calls=$((per * n))
  line=$(grep "^csv,$name," "$err")
  if [ "$line" = "" ]; then
    echo "FAIL: no report row for $name" >&2
    exit 1
  fi
  got=$(echo "$line" | cut -d, -f3-6)
  if [ "$got" != "$calls,$calls,0,$bytes" ]; then
    echo "FAIL: $name: calls,hierarchy,plain,bytes = $got, expected $calls,$calls,0,$bytes" >&2
    exit 1
  fi
done || fail=1
got=$(grep '^csv,comm_split_type,' "$err" | cut -d, -f3-6)
if [ "$got" != "$n,0,$n,0" ]; then
  echo "FAIL: comm_split_type: calls,hierarchy,plain,bytes = $got, expected $n,0,$n,0" >&2
  fail=1
fi
[ "$fail" -eq 0 ] && echo "the report shows every call taken by libhsplit_pmpi" >&2
exit "$fail"
