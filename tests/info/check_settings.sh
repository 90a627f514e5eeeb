#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# check_settings.sh "MPIEXEC LINE" HSPLIT_INFO: hsplit-info --settings against
# what this script sets and expects (the names and defaults from the user
# guide's table, section 8.2): two variables shown with their values from
# the environment, every setting listed, a malformed value flagged (exit
# status 1, no crash), and the CSV form.
mpiexec=$1 info=$2
out=$(mktemp) status=0
trap 'rm -f "$out"' EXIT
fail() { echo "FAIL: $*"; status=1; }

names="HSPLIT_COLL HSPLIT_COLL_SEGMENT_SIZE HSPLIT_COLL_MIN_PROCS HSPLIT_COLL_MIN_BYTES
HSPLIT_COLL_MAX_BYTES HSPLIT_COLL_RSAG_BYTES HSPLIT_COLL_TRIALS HSPLIT_COLL_REPORT
HSPLIT_COLL_SHM HSPLIT_COLL_SHM_BYTES HSPLIT_COLL_SHM_FANOUT HSPLIT_COLL_RULES
HSPLIT_COLL_SCHEDULE HSPLIT_COLL_SCHEDULES"
for v in $names; do unset "$v"; done

# two variables set, the others at their defaults
HSPLIT_COLL_MIN_PROCS=7 HSPLIT_COLL_SHM=off $mpiexec -n 2 "$info" --settings >"$out" 2>&1 ||
    fail "exit status $? with valid settings"
grep -Eq '^HSPLIT_COLL_MIN_PROCS +7 +environment +4$' "$out" || fail "HSPLIT_COLL_MIN_PROCS line"
grep -Eq '^HSPLIT_COLL_SHM +off +environment +auto$' "$out" || fail "HSPLIT_COLL_SHM line"
grep -Eq '^HSPLIT_COLL_TRIALS +3 +default +3$' "$out" || fail "HSPLIT_COLL_TRIALS line"
grep -q MALFORMED "$out" && fail "MALFORMED with valid settings"
for v in $names; do
    [ "$(grep -Ec "^$v " "$out")" = 1 ] || fail "$v not in the table once"
    [ "$(grep -Ec "^$v\$" "$out")" = 1 ] || fail "$v not described once"
done
# one table from one process: fourteen rows
[ "$(grep -Ec '^HSPLIT_COLL[A-Z_]* ' "$out")" = 14 ] || fail "not fourteen rows"

# a malformed value: shown, flagged, exit status 1
HSPLIT_COLL_TRIALS=9 $mpiexec -n 1 "$info" --settings >"$out" 2>&1
[ $? = 1 ] || fail "exit status not 1 with HSPLIT_COLL_TRIALS=9"
grep -Eq '^HSPLIT_COLL_TRIALS +9 +environment +3 +MALFORMED$' "$out" ||
    fail "HSPLIT_COLL_TRIALS=9 not flagged in the table"
grep -q 'MALFORMED: "9" is not an integer from 0 to 5' "$out" ||
    fail "HSPLIT_COLL_TRIALS=9 not explained"
[ "$(grep -c MALFORMED "$out")" = 2 ] || fail "another setting flagged"

# CSV: a header and one row per setting
HSPLIT_COLL_SEGMENT_SIZE= HSPLIT_COLL_REPORT=x $mpiexec -n 1 "$info" --settings --csv >"$out" 2>&1
[ $? = 1 ] || fail "CSV: exit status not 1 with HSPLIT_COLL_REPORT=x"
head -n 1 "$out" | grep -qx 'name,value,source,valid,default,allowed,description' ||
    fail "CSV header"
grep -q '^"HSPLIT_COLL_SEGMENT_SIZE","",environment,1,"unset",' "$out" || fail "CSV empty value"
grep -q '^"HSPLIT_COLL_REPORT","x",environment,0,"0","0 or 1",' "$out" || fail "CSV malformed"
grep -q '^"HSPLIT_COLL_MIN_BYTES","0",default,1,"0",' "$out" || fail "CSV default"
[ "$(grep -c '^"HSPLIT_COLL' "$out")" = 14 ] || fail "CSV: not fourteen rows"

# --csv alone is a bad option
$mpiexec -n 1 "$info" --csv >"$out" 2>&1
[ $? = 2 ] || fail "--csv without --settings: exit status not 2"

[ $status = 0 ] && echo "hsplit-info --settings: all checks passed"
exit $status
