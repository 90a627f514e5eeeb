#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/coll-rules on the hand-made sweep of this folder: the exact rules
file (coll_rules_expected.txt, derived by hand: see below), and its errors.
Usage: test_coll_rules.py COLL_RULES_SCRIPT FIXTURE_DIR

What coll_rules_expected.txt says, and why (times in us, plain MPI: the
smallest mpi_us of the files and the plain run's hsplit_us):
  bcast 4 (class 4-7): plain 10, tree 5, shm 7: tree; bcast 16 (16-31):
    plain 9, tree 6, shm 8: tree; merged with the class between: 4-31 tree
  bcast 64 (64-127): plain 10, tree 20, shm 4; 256 (256-511): plain 12,
    tree 30, shm 5: shm, 64-511
  allreduce 4: plain 8, tree 9, shm 2: shm, 4-7
  allreduce 1024: tree's check is DIFF (left out); plain 48, shm 60: plain
  gather 32 (only in shm.csv): plain 5, shm 6: plain, 32-63
  scatter 8 (only in tree.csv): plain 5, tree 5: a tie goes to plain, 8-15
  barrier 0 (class 0): plain 3, tree 2, shm 2.5: tree, 0
  gatherv 64 (64-127): plain 10, tree 8: tree; 4096 (4096-8191): plain
    30, tree 40: plain (the classes between: two winners, left out)
  alltoall 100 and 120, one class (64-127): plain 40 + 36 = 76 against
    tree 30 + 50 = 80: plain (tree would win at 100 alone)
  reduce_scatter_block 16 bytes per process on 8: the library's size is
    the vector, 128 bytes (class 128-255): plain 20, tree 10: tree"""
import os
import subprocess
import sys

script, fixtures = sys.argv[1], sys.argv[2]
failed = 0


def run(*args):
    return subprocess.run([sys.executable, script, *args], cwd=fixtures, capture_output=True,
                          text=True)


def check(cond, what):
    global failed
    if not cond:
        failed += 1
        print(f"check failed: {what}", file=sys.stderr)


r = run("tree=coll_rules_tree.csv", "shm=coll_rules_shm.csv", "plain=coll_rules_plain.csv")
expected = open(os.path.join(fixtures, "coll_rules_expected.txt")).read()
check(r.returncode == 0 and r.stderr == "", f"exit {r.returncode}: {r.stderr}")
check(r.stdout == expected, "output differs:\n" + r.stdout)
rules = [line.split() for line in expected.splitlines() if not line.startswith("#")]
check(rules == [["bcast", "8", "*", "4-31", "tree"], ["bcast", "8", "*", "64-511", "shm"],
                ["allreduce", "8", "*", "4-7", "shm"],
                ["allreduce", "8", "*", "1024-2047", "plain"],
                ["gather", "8", "*", "32-63", "plain"], ["scatter", "8", "*", "8-15", "plain"],
                ["barrier", "8", "*", "0", "tree"], ["gatherv", "8", "*", "64-127", "tree"],
                ["gatherv", "8", "*", "4096-8191", "plain"],
                ["alltoall", "8", "*", "64-127", "plain"],
                ["reduce_scatter_block", "8", "*", "128-255", "tree"]],
      f"rules: {rules}")

# without the plain run: allreduce 1024 plain is 49 (mpi_us), still plain
r = run("shm=coll_rules_shm.csv", "tree=coll_rules_tree.csv")
check(r.returncode == 0 and "allreduce              8         *     1024-2047             plain"
      in r.stdout and "#   shm=coll_rules_shm.csv" in r.stdout.splitlines()[1], r.stdout)

# a schedule of the engine as a path (coll_rules_ml.csv, hand-made):
#   bcast 64 (64-127): shm 4, ml 3: ml; bcast 256 (256-511): shm 5, ml 6:
#     shm (the class between is no longer one winner's: two rules)
#   allreduce 1024: plain 48, shm 60, ml 30 (tree's check DIFF): ml
#   alltoall 64-127: plain 76, tree 80, ml 40 + 36 = 76: a tie, plain
r = run("tree=coll_rules_tree.csv", "shm=coll_rules_shm.csv", "plain=coll_rules_plain.csv",
        "ml=coll_rules_ml.csv")
lines = [line.split() for line in r.stdout.splitlines() if not line.startswith("#")]
check(r.returncode == 0 and "#   ml=coll_rules_ml.csv" in r.stdout.splitlines()[4], r.stdout)
for rule in (["bcast", "8", "*", "4-31", "tree"], ["bcast", "8", "*", "64-127", "ml"],
             ["bcast", "8", "*", "256-511", "shm"], ["allreduce", "8", "*", "1024-2047", "ml"],
             ["alltoall", "8", "*", "64-127", "plain"]):
    check(rule in lines, f"{rule} not in {lines}")
check(len(lines) == 12, f"{len(lines)} rules with ml, expected 12")  # the 11 above, bcast split in two

# errors: exit status 2 and a message, nothing on standard output
for args, what in [(["fast=coll_rules_tree.csv"], "expected PATH=FILE"),
                   (["all:tree=coll_rules_tree.csv"], "expected PATH=FILE"),
                   (["all+v1:mpi=coll_rules_tree.csv"], "expected PATH=FILE"),
                   (["ml=coll_rules_ml.csv", "ml=coll_rules_tree.csv"], "given twice"),
                   (["tree=coll_rules_tree.csv", "tree=coll_rules_shm.csv"], "given twice"),
                   ([], "no input"),
                   (["tree=missing.csv"], "missing.csv: No such file"),
                   (["tree=coll_rules_expected.txt"], "not a bench_coll --csv file")]:
    r = run(*args)
    check(r.returncode == 2 and what in r.stderr and r.stdout == "",
          f"{args}: exit {r.returncode}, stderr {r.stderr!r}")
print(f"coll-rules: {'ok' if failed == 0 else f'{failed} failed'}")
sys.exit(1 if failed else 0)
