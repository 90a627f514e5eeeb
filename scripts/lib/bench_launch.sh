# SPDX-License-Identifier: BSD-3-Clause
# Launching the benchmarks on 2 pinned processes or an emulated cluster, for
# scripts/bench-pmpi and scripts/bench-shm (sourced; $out is the output
# directory, file descriptor 3 where the commands are printed).
# launch FLAVOUR NP PIN(0|1) [VAR=VALUE...] -- PROGRAM [ARGS...]: the
# variables go to the processes only (never to mpiexec itself), by the
# launcher's own option; the command is printed on stderr.
launch() {
    local f=$1 n=$2 pin=$3; shift 3
    local cmd=("mpiexec.$f" -n "$n")
    if [ "$f" = openmpi ]; then
        [ "$pin" = 1 ] && cmd+=(--bind-to core)
        [ "$n" -gt 2 ] && cmd+=(--oversubscribe)
    else
        [ "$pin" = 1 ] && cmd+=(-bind-to core)
    fi
    while [ "$1" != "--" ]; do
        if [ "$f" = openmpi ]; then cmd+=(-x "$1"); else cmd+=(-genv "${1%%=*}" "${1#*=}"); fi
        shift
    done
    shift
    cmd+=("$@")
    { printf '+'; printf ' %q' "${cmd[@]}"; echo; } | tee -a "$out/commands.txt" >&3
    # what the script's own environment holds must not leak in (Open MPI's
    # local processes inherit mpiexec's environment): no preload, no HSPLIT_*
    local clean=(-u LD_PRELOAD) v
    for v in $(compgen -e); do
        [[ $v == HSPLIT_* ]] && clean+=(-u "$v")
    done
    env "${clean[@]}" "${cmd[@]}"
}

load() { echo "load: $(uptime | sed 's/.*load average/load average/')" | tee -a "$out/commands.txt" >&2; }

