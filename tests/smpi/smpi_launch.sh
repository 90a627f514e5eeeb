#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mpiexec-like launcher for run_case.py under SimGrid SMPI:
#   smpi_launch.sh PLATFORM_PREFIX -n N program args...
# runs smpirun on PLATFORM_PREFIX.xml and .hosts with hsplit-platform's flags.
# smpirun splits the program's arguments at spaces: hsplit-info's --topology,
# --nodes and --bind (a synthetic topology has spaces) go through the
# environment variables they stand for.
set -e
prefix=$1
[ "$2" = "-n" ] || { echo "smpi_launch.sh: expected -n N after the platform" >&2; exit 2; }
np=$3
program=$4
shift 4
set -- "$@" --end-of-arguments
while [ "$1" != --end-of-arguments ]; do
    case $1 in
        --topology) export HSPLIT_TOPOLOGY="$2"; shift 2 ;;
        --nodes) export HSPLIT_NODES="$2"; shift 2 ;;
        --bind) export HSPLIT_BIND="$2"; shift 2 ;;
        *) set -- "$@" "$1"; shift ;;
    esac
done
shift
here=$(dirname "$0")
flags=$(python3 "$here/../../tools/hsplit-platform" --print-smpi-flags)
# shellcheck disable=SC2086
exec smpirun -np "$np" -platform "$prefix.xml" -hostfile "$prefix.hosts" $flags \
    --log=root.thresh:warning "$program" "$@"
