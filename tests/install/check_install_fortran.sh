#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install the build tree into a fresh prefix, then build a user's Fortran
# project against it with find_package(hsplit COMPONENTS Fortran) and with
# pkg-config (hsplit_f08), and run the programs.
# Usage: check_install_fortran.sh BUILD_DIR MPIFORT "MPIEXEC LINE"
set -euo pipefail
build=$1 mpifort=$2 mpiexec=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > /dev/null
cmake -S "$here/fortran" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DMPI_Fortran_COMPILER="$mpifort" > "$work/configure.log" ||
    { cat "$work/configure.log"; exit 1; }
cmake --build "$work/consumer" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
pcdir=$(dirname "$(find "$work/prefix" -name hsplit_f08.pc)")
flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs hsplit_f08)
$mpifort "$here/fortran/consumer.f90" $flags -Wl,-rpath,"$pcdir/.." -o "$work/consumer_pc"
export HSPLIT_TOPOLOGY="pack:2 [numa] l3:1 l2:2 core:2 pu:1" HSPLIT_NODES=2
for exe in "$work/consumer/consumer_f08" "$work/consumer/consumer_f08_static" \
           "$work/consumer_pc"; do
    $mpiexec -n 4 "$exe"
done
echo "3 passed, 0 failed"
