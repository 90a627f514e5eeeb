#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# check_symbols.sh LIBRARY API_REFERENCE: every symbol libhsplit.so exports is
# public API: its name starts with HSPLIT_ or hsplit_ and is documented in the
# API reference (a heading, a declaration, or in backquotes).
lib=$1 doc=$2
symbols=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }' | sort -u)
[ -n "$symbols" ] || { echo "no exported symbols in $lib" >&2; exit 1; }
status=0
for s in $symbols; do
    case $s in
        HSPLIT_*|hsplit_*) ;;
        *) echo "exported but not hsplit's: $s"; status=1; continue ;;
    esac
    grep -q -e "^## $s\$" -e "\`$s\`" -e "\[$s\]" -e "int $s(" "$doc" ||
        { echo "exported but not documented in $(basename "$doc"): $s"; status=1; }
done
count=$(echo "$symbols" | wc -l)
[ $status -eq 0 ] && echo "$count exported symbols, all public and documented"
exit $status
