#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench_coll --sizes: exactly the sizes listed, in order, the block
collectives bounded by --max-blocks, barrier once; and a usage error (exit 2)
for every malformed list or a list mixed with the series' options.
Usage: test_bench_coll_sizes.py BENCH_COLL MPIEXEC [MPIEXEC_ARGS...]
(MPIEXEC_ARGS end with the process-count flag's value: 2 processes)"""
import csv
import os
import subprocess
import sys
import tempfile

bench, mpiexec = sys.argv[1], sys.argv[2:]
failed = 0


def check(cond, what):
    global failed
    if not cond:
        failed += 1
    print("%s: %s" % ("ok" if cond else "FAILED", what))


with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "sizes.csv")
    done = subprocess.run(mpiexec + [bench, "--coll", "bcast,allgather,barrier", "--sizes",
                                     "8,100,3000", "--max-blocks", "100", "--iters", "2",
                                     "--warmup", "0", "--csv", path],
                          capture_output=True, text=True)
    check(done.returncode == 0, "bench_coll --sizes 8,100,3000 exits 0 (%d: %s)" % (
        done.returncode, done.stderr[-500:]))
    rows = []
    if os.path.exists(path):
        with open(path) as f:
            rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    got = [(r["collective"], int(r["bytes"])) for r in rows]
    # bcast at every listed size; allgather up to --max-blocks; barrier once
    want = [("bcast", 8), ("bcast", 100), ("bcast", 3000), ("allgather", 8),
            ("allgather", 100), ("barrier", 0)]
    check(got == want, "rows %s" % got)
    check(rows and all(r["check"] == "ok" and r["iterations"] == "2" for r in rows),
          "every row checked ok, 2 iterations")

# one launch per case: the kinds of mistake (not a number, not growing, an
# empty item, mixed with the series, a sign or a space before a number,
# beyond 1 GiB, beyond a long)
for bad in (["--sizes", "8,x"], ["--sizes", "100,100"], ["--sizes", "8,"],
            ["--sizes", "8,100", "--step", "2"], ["--sizes", "8,+100"], ["--sizes", " 8"],
            ["--sizes", "8,1073741825"], ["--sizes", "8,99999999999999999999999"]):
    done = subprocess.run(mpiexec + [bench, "--coll", "bcast"] + bad, capture_output=True,
                          text=True)
    check(done.returncode == 2 and "usage: bench_coll" in done.stderr,
          "%s: usage error (exit %d)" % (" ".join(bad), done.returncode))
print("%d failed" % failed)
sys.exit(1 if failed else 0)
