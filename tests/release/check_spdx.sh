#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# check_spdx.sh SOURCE_DIR: every source file of the project (C, Fortran,
# CMake, shell, Python, Gnuplot) carries the SPDX licence identifier in its
# first three lines.
root=$1
status=0
count=0
for f in $(cd "$root" && find c fortran tests apps tools scripts cmake .ci CMakeLists.txt \
               -type f \( -name '*.c' -o -name '*.h' -o -name '*.f90' -o -name '*.F90' \
               -o -name '*.inc' -o -name '*.in' -o -name '*.cmake' -o -name 'CMakeLists.txt' \
               -o -name '*.sh' -o -name '*.py' -o -name '*.gp' -o -name '*.supp' \
               -o -perm -u+x \) ! -path '*/xml/*' ! -name '*.xml' ! -name '*.gr' \
               ! -name '*.conf' ! -name '*.expected' | sort); do
    count=$((count + 1))
    head -n 3 "$root/$f" | grep -q 'SPDX-License-Identifier: BSD-3-Clause' ||
        { echo "no SPDX-License-Identifier line: $f"; status=1; }
done
[ $status -eq 0 ] && echo "$count source files, each with its SPDX line"
exit $status
