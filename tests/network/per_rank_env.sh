#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# per_rank_env.sh 'VAR=v0|v1|...' ['VAR2=...'] -- COMMAND [ARGS...]
# Runs COMMAND with each VAR set to the value of this process's MPI_COMM_WORLD
# rank (the launcher's OMPI_COMM_WORLD_RANK or PMI_RANK), the list repeating
# when it is shorter than the job; an empty value unsets VAR. Lets a test give
# every process its own environment, as Slurm does with SLURM_TOPOLOGY_ADDR.
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-}}
if [ -z "$rank" ]; then
    echo "per_rank_env.sh: no rank in the environment (OMPI_COMM_WORLD_RANK, PMI_RANK)" >&2
    exit 2
fi
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    var=${1%%=*}
    list=${1#*=}
    count=$(printf '%s\n' "$list" | awk -F'|' '{ print NF }')
    value=$(printf '%s\n' "$list" | awk -F'|' -v i=$((rank % count + 1)) '{ print $i }')
    if [ -n "$value" ]; then
        export "$var=$value"
    else
        unset "$var"
    fi
    shift
done
if [ "${1:-}" != "--" ]; then
    echo "usage: per_rank_env.sh 'VAR=v0|v1|...' ... -- COMMAND [ARGS...]" >&2
    exit 2
fi
shift
exec "$@"
