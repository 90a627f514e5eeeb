#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# check_subproject.sh SOURCE_DIR MPICC: hsplit added with add_subdirectory to a
# user's project configures without its tests, benchmarks and apps, and the
# user's program builds against hsplit::hsplit.
set -eu
src=$1 mpicc=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake -S "$here/subproject" -B "$work/build" -DHSPLIT_SOURCE_DIR="$src" \
      -DMPI_C_COMPILER="$mpicc" -DHSPLIT_BUILD_FORTRAN=OFF > "$work/configure.log" 2>&1 ||
    { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" -j 2 --target consumer > "$work/build.log" 2>&1 ||
    { cat "$work/build.log"; exit 1; }
[ -x "$work/build/consumer" ] || { echo "consumer not built"; exit 1; }
[ ! -d "$work/build/hsplit/tests" ] || { echo "hsplit's tests were configured"; exit 1; }
echo "subproject: libraries only, consumer built"
