#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# pmpi_lammps, pmpi_hpcc, pmpi_mpi4py: a real program, unmodified, run three
# times on an emulated cluster (2 nodes of 2 processes, each node
# "pack:2 core:2 pu:1"):
#   plain  without libhsplit_pmpi: the reference results; HSPLIT_PMPI_REPORT=1
#          is set and no report may appear (nothing else prints one);
#   on     preloaded, HSPLIT_COLL=on: the results equal the reference, and the
#          report says the hierarchy served every collective the program is
#          known to use (hierarchy > 0);
#   auto   preloaded, HSPLIT_COLL unset (auto mode): the results equal the
#          reference, and each row's calls equal hierarchy + plain and equal
#          the on run's calls and bytes (the same program, the same calls),
#          except the rows a program calls a number of times that depends on
#          its timings (timed), which must only add up.
# The program's own checks must pass in every run.
#
# usage: apps_run.sh lammps|hpcc|mpi4py PMPI_LIBRARY LAUNCHER...
#   LAUNCHER: the MPI launcher and its options for 4 processes, e.g.
#   mpiexec.openmpi -n 4 --oversubscribe
# Exit status 77 (CTest's SKIP_RETURN_CODE) when the program is not installed
# or is not built against the MPI of libhsplit_pmpi.
set -euo pipefail

app=$1 pmpi_library=$2
shift 2
launcher=("$@")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
emulation=(HSPLIT_NODES=2 "HSPLIT_TOPOLOGY=pack:2 core:2 pu:1")

work=
timed=() # report rows whose call counts vary from run to run (see hpcc)
# a failed run's files stay for a look
fail() { echo "apps_run.sh $app: FAIL: $*${work:+ (files kept in $work)}" >&2; work=; exit 1; }
skip() { echo "apps_run.sh $app: SKIP: $*" >&2; exit 77; }

# ---- the programs: how each runs, its own checks, its comparable results ----
# app_command DIR: set cmd (the program and its arguments), in DIR
# app_checks DIR: the program's own verdicts, or fail
# app_results DIR: the results to compare, on stdout
# uses: the collectives the program is known to call (report rows)

case $app in
lammps)
    melt=${HSPLIT_LAMMPS_MELT:-/usr/share/lammps/examples/melt/in.melt}
    program=$(command -v lmp || true)
    [ -n "$program" ] || skip "lmp not found (Debian: apt-get install lammps)"
    [ -r "$melt" ] || skip "$melt not found (Debian: apt-get install lammps-examples)"
    uses=(bcast reduce allreduce barrier scan)
    app_command() { cmd=("$program" -in "$melt" -log "$1/log.lammps" -screen none); }
    # The thermo rows expected, from the input: one every "thermo" steps up
    # to "run", step 0 included.
    thermo_every=$(awk '$1 == "thermo" {print $2}' "$melt")
    run_steps=$(awk '$1 == "run" {print $2}' "$melt")
    app_results() {
        # the thermo table (without the timing line after it) and the
        # neighbour-list statistics (sums over the processes)
        sed -n '/^ *Step /,/^Loop time/p' "$1/log.lammps" | grep -v '^Loop time' || true
        grep -E '^(Total # of neighbors|Ave neighs/atom|Neighbor list builds|Dangerous builds)' \
            "$1/log.lammps" || true
    }
    app_checks() {
        local steps expected
        grep -Eq '^ *Step +Temp +E_pair +E_mol +TotEng +Press *$' "$1/log.lammps" ||
            fail "$1/log.lammps: no thermo header"
        steps=$(sed -n '/^ *Step /,/^Loop time/p' "$1/log.lammps" |
            awk 'NR > 1 && $1 ~ /^[0-9]+$/ && NF == 6 {printf "%s ", $1}')
        expected=$(seq -s ' ' 0 "$thermo_every" "$run_steps")
        [ "$steps" = "$expected " ] || fail "$1: thermo steps '$steps', expected '$expected '"
    }
    ;;
hpcc)
    program=$(command -v hpcc || true)
    [ -n "$program" ] || skip "hpcc not found (Debian: apt-get install hpcc)"
    uses=(bcast reduce allreduce gather barrier alltoall)
    # HPCC's allreduce count depends on its timings: two runs with the
    # preload made 2473 and 2465 calls (11968 and 11936 bytes) on a loaded
    # machine, whatever the path
    timed=(allreduce)
    # apps_hpccinf.txt: Debian's example with N=500, NB=50 (seconds). Its two
    # title lines must stay short: with a title line of 83 characters,
    # HPCC's PTRANS misreads its own input lines ("Failed to allocate
    # 116957149156320257 doubles"), runs 0 tests and still says Success=1.
    app_command() { cp "$here/apps_hpccinf.txt" "$1/hpccinf.txt"; cmd=("$program"); }
    # Values every correct run reproduces exactly: HPL's norms, PTRANS's
    # residual, the error counts, the FFT's error. Not the timings, nor
    # StarDGEMM's residual (its matrices differ from run to run, with or
    # without the preload), nor HPL's residual ||Ax-b|| and its scaled form:
    # they vary from run to run on a loaded machine without the preload too
    # (four runs of plain MPI beside other jobs: HPL_RnormI 1.67e-13,
    # 1.41e-13, 1.67e-13, 1.41e-13), so they count by HPL's verdict, which
    # app_checks requires in every run. Nor MPIRandomAccess's executed
    # updates: its runs are bounded in time, so the count depends on the
    # machine's load (one preloaded run against plain MPI: 164436 and 524288
    # updates, the LCG and the other variant swapped); its errors are
    # compared.
    app_results() {
        grep -E '^(HPL_(Anorm1|AnormI|Xnorm1|XnormI|BnormI|N|NB|nprow|npcol)|PTRANS_(residual|n|nb)|MPIRandomAccess(_LCG)?_(N|Errors)|RandomAccess(_LCG)?_N|MPIFFT_(N|maxErr|Procs)|FFT_N|STREAM_VectorSize|CommWorldProcs|Success)=' \
            "$1/hpccoutf.txt" || true
        grep -E '^Found [0-9]+ errors|^Node\(s\) with error|^max\(\|x-x0\|\)' \
            "$1/hpccoutf.txt" || true
    }
    app_checks() {
        local out=$1/hpccoutf.txt section
        [ -r "$out" ] || fail "no $out"
        # every phase ran to its end
        for section in MPIRandomAccess StarRandomAccess SingleRandomAccess MPIRandomAccess_LCG \
            StarRandomAccess_LCG SingleRandomAccess_LCG PTRANS StarDGEMM SingleDGEMM \
            StarSTREAM SingleSTREAM MPIFFT StarFFT SingleFFT LatencyBandwidth HPL Summary; do
            grep -qx "Begin of $section section." "$out" || fail "$out: phase $section did not run"
            grep -qx "End of $section section." "$out" || fail "$out: phase $section did not end"
        done
        # HPCC's verdicts. Success=1 alone is not enough (see above).
        grep -qx 'Success=1' "$out" || fail "$out: Success is not 1"
        grep -Eq '^ +1 tests completed and passed residual checks,$' "$out" ||
            fail "$out: HPL did not pass its residual check"
        grep -Eq '^ +0 tests completed and failed residual checks,$' "$out" ||
            fail "$out: HPL failed its residual check"
        grep -Eq '^\|\|Ax-b\|\|.* PASSED$' "$out" || fail "$out: HPL residual not PASSED"
        grep -Eq '^ +5 tests completed and passed residual checks\.$' "$out" ||
            fail "$out: PTRANS did not pass its 5 tests"
        grep -Eq '^ +0 tests completed and failed residual checks\.$' "$out" ||
            fail "$out: PTRANS failed a test"
        [ "$(grep -c '^Found 0 errors in [0-9]* locations (passed)\.$' "$out")" -eq 4 ] ||
            fail "$out: RandomAccess verification (4 x 'Found 0 errors') failed"
        grep -q '^Solution Validates' "$out" || fail "$out: STREAM did not validate"
        ! grep -Eq 'FAILED|Failed|^Node\(s\) with error [1-9]' "$out" || fail "$out: a failure line"
    }
    ;;
mpi4py)
    python=${HSPLIT_APPS_PYTHON:-/usr/bin/python3}
    [ -x "$python" ] || skip "$python not found"
    # the extension module that links the MPI library (imported without
    # MPI_Init, which a singleton would start here)
    program=$("$python" -c 'import mpi4py, numpy; mpi4py.rc.initialize = False
import mpi4py.MPI; print(mpi4py.MPI.__file__)' 2> /dev/null) ||
        skip "$python cannot import mpi4py and numpy (Debian: apt-get install python3-mpi4py python3-numpy)"
    uses=(bcast reduce allreduce gather scatter allgather barrier gatherv)
    app_command() { cmd=("$python" "$here/apps_mpi4py.py"); }
    app_results() { cat "$1/stdout"; }
    app_checks() {
        grep -Eqx 'mpi4py: [1-9][0-9]* results checked, 0 failures, 4 processes' "$1/stdout" ||
            fail "$1/stdout: the script's checks did not pass"
    }
    ;;
*)
    echo "usage: apps_run.sh lammps|hpcc|mpi4py PMPI_LIBRARY LAUNCHER..." >&2
    exit 2
    ;;
esac

# The program must use the MPI library libhsplit_pmpi was built against
# (Debian builds all three against Open MPI).
[ -r "$pmpi_library" ] || fail "no $pmpi_library"
mpi_of() { ldd "$1" | awk '/libmpi(ch)?\.so/ {print $1; exit}'; }
[ "$(mpi_of "$program")" = "$(mpi_of "$pmpi_library")" ] ||
    skip "$program uses '$(mpi_of "$program")', libhsplit_pmpi '$(mpi_of "$pmpi_library")'"

work=$(mktemp -d "${TMPDIR:-/tmp}/hsplit-pmpi-$app.XXXXXX")
trap '[ -z "$work" ] || rm -rf "$work"' EXIT

# run MODE: the program in $work/MODE; stdout, stderr and the status there
run() {
    local mode=$1 dir=$work/$1 env_args
    mkdir "$dir"
    case $mode in
    plain) env_args=(-u LD_PRELOAD -u HSPLIT_COLL HSPLIT_PMPI_REPORT=1) ;;
    on) env_args=(-u HSPLIT_PMPI "LD_PRELOAD=$pmpi_library" HSPLIT_PMPI_REPORT=1 HSPLIT_COLL=on
                  "${emulation[@]}") ;;
    auto) env_args=(-u HSPLIT_PMPI -u HSPLIT_COLL "LD_PRELOAD=$pmpi_library" HSPLIT_PMPI_REPORT=1
                    "${emulation[@]}") ;;
    esac
    app_command "$dir"
    local start=$SECONDS status=0
    # env after the launcher: the preload reaches the program, not mpiexec
    (cd "$dir" && "${launcher[@]}" env "${env_args[@]}" OPENBLAS_NUM_THREADS=1 "${cmd[@]}" \
        > "$dir/stdout" 2> "$dir/stderr") || status=$?
    echo "apps_run.sh $app: $mode run: status $status, $((SECONDS - start)) s"
    if [ "$status" -ne 0 ]; then
        tail -n 20 "$dir/stdout" "$dir/stderr" >&2
        fail "$mode run exited with status $status"
    fi
    app_checks "$dir"
    app_results "$dir" > "$dir/results"
    [ -s "$dir/results" ] || fail "$mode run: no results"
}

# csv_row DIR ROW: "calls hierarchy plain bytes" of the report's row, or nothing
csv_row() { awk -F, -v row="$2" '$1 == "csv" && $2 == row {print $3, $4, $5, $6}' "$1/stderr"; }

# OPENBLAS_NUM_THREADS=1 (in run): HPCC's BLAS threads would oversubscribe
# the processes further, and their scheduling changes HPL's last digits from
# run to run, with or without the preload.
run plain
grep -q '^csv,' "$work/plain/stderr" && fail "a report without libhsplit_pmpi"

for mode in on auto; do
    run "$mode"
    dir=$work/$mode
    if ! diff -u "$work/plain/results" "$dir/results" > "$dir/results.diff"; then
        cat "$dir/results.diff" >&2
        fail "results with the preload (HSPLIT_COLL=$mode) differ from plain MPI's"
    fi
    grep -q '^hsplit PMPI report: 4 processes' "$dir/stderr" || fail "$mode run: no report"
    sed -n '/^hsplit PMPI report/,/^csv,collective/p' "$dir/stderr" | grep -v '^csv,'
    rows=$(awk -F, '$1 == "csv" && $2 != "collective" {print $2}' "$dir/stderr")
    [ -n "$rows" ] || fail "$mode run: an empty report"
    for row in $rows; do
        read -r calls hierarchy plain bytes <<< "$(csv_row "$dir" "$row")"
        [ "$calls" -eq $((hierarchy + plain)) ] ||
            fail "$mode run: $row: calls $calls != hierarchy $hierarchy + plain $plain"
        if [ "$mode" = auto ] && [[ " ${timed[*]} " != *" $row "* ]]; then
            [ "$calls $bytes" = "$(csv_row "$work/on" "$row" | awk '{print $1, $4}')" ] ||
                fail "$row: calls and bytes in auto mode ($calls $bytes) differ from HSPLIT_COLL=on's"
        fi
    done
    if [ "$mode" = on ]; then
        for row in "${uses[@]}"; do
            read -r calls hierarchy plain bytes <<< "$(csv_row "$dir" "$row")"
            [ "${hierarchy:-0}" -gt 0 ] ||
                fail "HSPLIT_COLL=on: $row: hierarchy ${hierarchy:-0} (calls ${calls:-0}), expected > 0"
        done
    else
        [ "$rows" = "$(awk -F, '$1 == "csv" && $2 != "collective" {print $2}' "$work/on/stderr")" ] ||
            fail "auto mode's report has other rows than HSPLIT_COLL=on's"
    fi
done
echo "apps_run.sh $app: PASS: results equal with and without libhsplit_pmpi" \
    "(HSPLIT_COLL=on and auto); hierarchy > 0 under on for: ${uses[*]}"
