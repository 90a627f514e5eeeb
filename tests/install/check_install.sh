#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install the build tree into a fresh prefix, then build a user's project
# against it with find_package(hsplit) and with pkg-config, and run both.
# Usage: check_install.sh BUILD_DIR MPICC "MPIEXEC LINE"
set -euo pipefail
build=$1 mpicc=$2 mpiexec=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > /dev/null
cmake -S "$here" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DMPI_C_COMPILER="$mpicc" > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/consumer" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
pcdir=$(dirname "$(find "$work/prefix" -name hsplit.pc)")
flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs hsplit)
$mpicc "$here/consumer.c" $flags -Wl,-rpath,"$pcdir/.." -o "$work/consumer_pc"
export HSPLIT_TOPOLOGY="pack:2 [numa] l3:1 l2:2 core:2 pu:1" HSPLIT_NODES=2
for exe in "$work/consumer/consumer" "$work/consumer/consumer_static" "$work/consumer_pc"; do
    LD_LIBRARY_PATH="$pcdir/..:${LD_LIBRARY_PATH:-}" $mpiexec -n 4 "$exe"
done
# libhsplit_pmpi: linked by CMake (hsplit::pmpi), linked by pkg-config
# (hsplit-pmpi), and preloaded into a program that does not link it; each
# run's MPI_Allreduce must take the hierarchy (the report's CSV row)
pflags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs hsplit-pmpi)
$mpicc "$here/consumer_pmpi.c" $pflags -Wl,-rpath,"$pcdir/.." -o "$work/consumer_pmpi_pc"
$mpicc "$here/consumer_pmpi.c" -o "$work/consumer_plain"
preload=$(ls "$pcdir"/../libhsplit_pmpi.so)
for run in "$work/consumer/consumer_pmpi" "$work/consumer_pmpi_pc" "preload $work/consumer_plain"; do
    set -- $run
    if [ "$1" = preload ]; then
        shift
        version=$(${mpiexec%% *} --version 2>&1 || true)
        case $version in
        *"Open MPI"* | *OpenRTE*) line="-x LD_PRELOAD=$preload" ;;
        *) line="-genv LD_PRELOAD $preload" ;;
        esac
    else
        line=
    fi
    HSPLIT_COLL=on HSPLIT_PMPI_REPORT=1 LD_LIBRARY_PATH="$pcdir/..:${LD_LIBRARY_PATH:-}" \
        $mpiexec -n 4 $line "$1" 2> "$work/report.txt" || { cat "$work/report.txt"; exit 1; }
    grep -q "^csv,allreduce,4,4,0," "$work/report.txt" ||
        { cat "$work/report.txt"; echo "$run: the allreduce did not take the hierarchy"; exit 1; }
done
"$work/prefix/bin/hsplit-info" > /dev/null # runs without LD_LIBRARY_PATH (singleton MPI)
echo "6 passed, 0 failed"
