#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs an MPI program with libhsplit_pmpi preloaded (or not) and checks its
# own verdict ("N passed, 0 failed" with N > 0) and what the library's report
# (HSPLIT_PMPI_REPORT=1, on stderr) says.
# Usage: pmpi_c_check.sh FLAVOUR "MPIEXEC LINE" NP PRELOAD|none [CHECK...] -- PROGRAM [ARGS]
#   CHECK: hierarchy=a,b,...  rows present, every call served by the hierarchy
#          plain=a,b,...      rows present, no call served by the hierarchy
#          some=a,b,...       rows present with hierarchy > 0
#          balanced           every row: calls = hierarchy + plain
#          no-report          no report printed
#          says=TEXT          stderr contains TEXT
#          verdict=TEXT       stdout contains TEXT instead of the test totals
set -euo pipefail
flavour=$1 mpiexec=$2 np=$3 preload=$4
shift 4
checks=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do checks+=("$1"); shift; done
shift
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
launch=($mpiexec -n "$np")
if [ "$preload" != none ]; then
    if [ "$flavour" = openmpi ]; then launch+=(-x "LD_PRELOAD=$preload")
    else launch+=(-genv LD_PRELOAD "$preload"); fi
fi
status=0
"${launch[@]}" "$@" > "$out" 2> "$err" || status=$?
cat "$out"
cat "$err" >&2
fail() { echo "pmpi_c_check: $*" >&2; exit 1; }
verdict="passed, 0 failed"
for c in "${checks[@]}"; do case $c in verdict=*) verdict=${c#verdict=} ;; esac; done
[ $status -eq 0 ] || fail "the program exited with $status"
grep -q -- "$verdict" "$out" || fail "no \"$verdict\" in the program's output"
grep -q "^0 passed" "$out" && fail "the program checked nothing"
# csv,collective,calls,hierarchy,plain,bytes,time_s
row() { grep "^csv,$1," "$err" || true; }
for c in "${checks[@]}"; do
    case $c in
    hierarchy=*|plain=*|some=*)
        IFS=, read -r -a names <<< "${c#*=}"
        for name in "${names[@]}"; do
            line=$(row "$name")
            [ -n "$line" ] || fail "no report row for $name"
            IFS=, read -r _ _ calls hier plain _ <<< "$line"
            case $c in
            hierarchy=*) [ "$hier" = "$calls" ] && [ "$calls" -gt 0 ] ||
                             fail "$name: $hier of $calls calls took the hierarchy, expected all" ;;
            plain=*) [ "$hier" = 0 ] && [ "$plain" = "$calls" ] ||
                         fail "$name: $hier of $calls calls took the hierarchy, expected none" ;;
            some=*) [ "$hier" -gt 0 ] || fail "$name: no call took the hierarchy" ;;
            esac
        done ;;
    balanced)
        n=0
        while IFS=, read -r _ name calls hier plain _; do
            [ "$calls" = "$((hier + plain))" ] || fail "$name: $calls calls, $hier + $plain"
            n=$((n + 1))
        done < <(grep "^csv," "$err" | grep -v "^csv,collective,")
        [ $n -gt 0 ] || fail "no report rows" ;;
    no-report) grep -q "^csv," "$err" && fail "a report was printed" ;;
    says=*) grep -qF -- "${c#says=}" "$err" || fail "stderr does not say \"${c#says=}\"" ;;
    verdict=*) ;;
    *) fail "unknown check $c" ;;
    esac
done
echo "pmpi_c_check: all checks held"
