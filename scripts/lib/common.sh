# SPDX-License-Identifier: BSD-3-Clause
# Shared by scripts/test and scripts/demo: install what is missing (Debian 12,
# as root), and configure/build one tree per MPI.
set -euo pipefail

HSPLIT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# What every script needs (the library, hsplit-info, the mini-apps with Open
# MPI); each script names what it needs besides (hsplit_install_missing ARGS).
hsplit_packages=(gcc g++ gfortran make cmake pkg-config libhwloc-dev hwloc
                 openmpi-bin libopenmpi-dev libopenblas-dev)
# scripts/test: MPICH, python3 and valgrind for the tests, clang for the
# sanitizer tree and the fuzzers, SimGrid for the SMPI tests, and the real
# programs run under libhsplit_pmpi (tests/pmpi_apps.cmake)
hsplit_test_packages=(mpich libmpich-dev python3 valgrind clang libclang-rt-14-dev
                      libsimgrid-dev lammps lammps-examples hpcc python3-mpi4py python3-numpy)
# scripts/simgrid: the simulator and the plots
hsplit_simgrid_packages=(python3 libsimgrid-dev gnuplot-nox)

# hsplit_install_missing [PACKAGE...]: hsplit_packages and these
hsplit_install_missing() {
    if ! command -v dpkg-query > /dev/null || ! command -v apt-get > /dev/null; then
        echo "hsplit: not a Debian system: nothing is installed; a C compiler, CMake," \
             "pkg-config, hwloc >= 2.1 and an MPI must be on PATH (user guide, section 1)"
        return 0
    fi
    local missing=()
    for p in "${hsplit_packages[@]}" "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
            missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "hsplit: installing missing packages: ${missing[*]}"
    if [ "$(id -u)" -ne 0 ]; then
        echo "hsplit: run as root, or install them first: apt-get install ${missing[*]}" >&2
        return 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# The MPIs to build against: with MPICC set (an MPI of a module system, of
# another distribution...), that one alone ("custom": MPICC, MPIEXEC, and
# MPIFC for the Fortran module when set); otherwise Debian's Open MPI and
# MPICH.
hsplit_flavours() {
    if [ -n "${MPICC:-}" ]; then echo custom; else echo openmpi mpich; fi
}

# hsplit_build FLAVOUR(openmpi|mpich|custom) -> build tree in build/FLAVOUR
hsplit_build() {
    local flavour=$1 dir="$HSPLIT_ROOT/build/$1"
    local cc="mpicc.$flavour" fc="mpif90.$flavour" launcher
    launcher=$(command -v "mpiexec.$flavour" || true)
    if [ "$flavour" = custom ]; then
        cc=$MPICC
        fc=${MPIFC:-}
        launcher=$(command -v "${MPIEXEC:-mpiexec}" || true)
    fi
    [ -n "$launcher" ] || { echo "hsplit: no MPI launcher for $flavour (set MPIEXEC)" >&2; return 1; }
    local fortran=(-DMPI_Fortran_COMPILER="$fc")
    [ -n "$fc" ] || fortran=(-DHSPLIT_BUILD_FORTRAN=OFF)
    cmake -S "$HSPLIT_ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHSPLIT_WERROR=ON \
        -DMPI_C_COMPILER="$cc" "${fortran[@]}" \
        -DMPIEXEC_EXECUTABLE="$launcher" > "$dir.configure.log" 2>&1 ||
        { cat "$dir.configure.log"; return 1; }
    cmake --build "$dir" -j "$(nproc)"
}

# hsplit_build_smpi -> the SimGrid SMPI build tree in build/smpi, or in
# $HSPLIT_SMPI_BUILD (smpicc);
# returns 1 without smpicc.
hsplit_build_smpi() {
    local dir="${HSPLIT_SMPI_BUILD:-$HSPLIT_ROOT/build/smpi}"
    command -v smpicc > /dev/null || { echo "hsplit: smpicc not found (libsimgrid-dev)" >&2; return 1; }
    mkdir -p "$(dirname "$dir")"
    if [ ! -f "$dir/CMakeCache.txt" ]; then
        cmake -S "$HSPLIT_ROOT" -B "$dir" -DHSPLIT_SMPI=ON -DHSPLIT_WERROR=ON \
            -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$dir.configure.log" 2>&1 ||
            { cat "$dir.configure.log"; return 1; }
    fi
    cmake --build "$dir" -j "$(nproc)"
}

# hsplit_build_sanitize -> the Open MPI tree built with clang, with
# AddressSanitizer and UndefinedBehaviorSanitizer, in build/openmpi-asan (C
# only: the library, its unit tests and its MPI tests). The second compiler
# keeps the code portable; the sanitizers catch what valgrind does not (UB,
# overflows inside a heap block).
hsplit_build_sanitize() {
    local dir="$HSPLIT_ROOT/build/openmpi-asan"
    OMPI_CC=clang cmake -S "$HSPLIT_ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_C_COMPILER=clang \
        -DMPI_C_COMPILER=mpicc.openmpi -DMPIEXEC_EXECUTABLE="$(command -v mpiexec.openmpi)" \
        -DHSPLIT_SANITIZE=address,undefined -DHSPLIT_BUILD_FORTRAN=OFF -DHSPLIT_WERROR=ON \
        -DHSPLIT_BUILD_APPS=OFF -DHSPLIT_BUILD_BENCH=OFF > "$dir.configure.log" 2>&1 ||
        { cat "$dir.configure.log"; return 1; }
    cmake --build "$dir" -j "$(nproc)"
}
