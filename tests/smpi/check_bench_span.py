#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench_coll --span on a simulated clock times every call after the same
calls: with HSPLIT_COLL=off, hsplit's call is MPI's own, so both columns of
every row must be the same time. On the paper's NTW10E5 (240 processes) the
first timed call, MPI's, once came right after the warm-up and its barrier
read 13.77 us against 14.36.

    check_bench_span.py SMPIRUN PLATFORM HOSTFILE FLAGS BENCH_COLL
    (FLAGS: smpirun's options, one argument separated by spaces)
"""
import csv
import os
import subprocess
import sys
import tempfile


def main():
    smpirun, platform, hosts, flags, bench = sys.argv[1:6]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "off.csv")
        cmd = [smpirun, "-np", "240", "-platform", platform, "-hostfile", hosts] + \
            flags.split() + ["--log=root.thresh:warning", bench, "--coll", "reduce,barrier",
                             "--sizes", "8,32768", "--iters", "1", "--warmup", "1", "--span",
                             "--csv", path]
        done = subprocess.run(cmd, env=dict(os.environ, HSPLIT_COLL="off"),
                              capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit("smpirun failed (%d):\n%s" % (done.returncode,
                                                   (done.stdout + done.stderr)[-3000:]))
        with open(path) as f:
            rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    failed = 0 if len(rows) == 3 else 1
    print("%d rows (expected 3: reduce 8 and 32768, barrier)" % len(rows))
    for r in rows:
        ok = r["mpi_us"] == r["hsplit_us"] and r["check"] == "ok"
        failed += not ok
        print("%s %s: MPI %s us, hsplit (MPI's call) %s us: %s" % (
            r["collective"], r["bytes"], r["mpi_us"], r["hsplit_us"], "ok" if ok else "FAILED"))
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
