#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench_coll --span on a simulated clock times every call after the same
calls: with HSPLIT_COLL=off, hsplit's call is MPI's own, so both columns of
every row must be the same time. On the paper's NTW10E5 (240 processes) the
first timed call, MPI's, once came right after the warm-up and its barrier
read 13.77 us against 14.36.

bench_coll --span --sync-start starts every process's timed call at one
simulated instant, so the barrier before it no longer counts: a 32 KiB
allreduce (rdb) must read the same time after a linear barrier (whose
root releases the processes one by one) and after recursive doubling, and
less than the linear barrier's time without it (its exit skew, which
--sync-start removes). --sync-start without --span is refused.

    check_bench_span.py SMPIRUN PLATFORM HOSTFILE FLAGS BENCH_COLL
    (FLAGS: smpirun's options, one argument separated by spaces)
"""
import csv
import os
import subprocess
import sys
import tempfile


def bench(smpirun, platform, hosts, flags, bench_coll, tmp, tag, cfg, args):
    """The rows of one bench_coll run under HSPLIT_COLL=off."""
    path = os.path.join(tmp, tag + ".csv")
    cmd = [smpirun, "-np", "240", "-platform", platform, "-hostfile", hosts] + \
        flags.split() + ["--log=root.thresh:warning"] + cfg + [bench_coll] + args + \
        ["--csv", path]
    done = subprocess.run(cmd, env=dict(os.environ, HSPLIT_COLL="off"),
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("%s: smpirun failed (%d):\n%s" % (tag, done.returncode,
                                                    (done.stdout + done.stderr)[-3000:]))
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def main():
    smpirun, platform, hosts, flags, bench_coll = sys.argv[1:6]
    with tempfile.TemporaryDirectory() as tmp:
        def run(*a):
            return bench(smpirun, platform, hosts, flags, bench_coll, tmp, *a)

        rows = run("off", [], ["--coll", "reduce,barrier", "--sizes", "8,32768", "--iters", "1",
                               "--warmup", "1", "--span"])
        allreduce = {}
        for barrier in ("ompi_basic_linear", "ompi_recursivedoubling"):
            for sync in ([], ["--sync-start"]):
                got = run(barrier + "".join(sync),
                          ["--cfg=smpi/allreduce:rdb", "--cfg=smpi/barrier:" + barrier],
                          ["--coll", "allreduce", "--sizes", "32768", "--iters", "1",
                           "--warmup", "1", "--span"] + sync)
                allreduce[barrier, bool(sync)] = got[0]
        refused = subprocess.run([smpirun, "-np", "2", "-platform", platform, "-hostfile", hosts]
                                 + flags.split() + ["--log=root.thresh:warning", bench_coll,
                                                    "--sync-start"],
                                 env=dict(os.environ, HSPLIT_COLL="off"),
                                 capture_output=True, text=True).returncode != 0
    failed = 0 if len(rows) == 3 else 1
    print("%d rows (expected 3: reduce 8 and 32768, barrier)" % len(rows))
    for r in rows:
        ok = r["mpi_us"] == r["hsplit_us"] and r["check"] == "ok"
        failed += not ok
        print("%s %s: MPI %s us, hsplit (MPI's call) %s us: %s" % (
            r["collective"], r["bytes"], r["mpi_us"], r["hsplit_us"], "ok" if ok else "FAILED"))
    for (barrier, sync), r in sorted(allreduce.items()):
        # a process wakes from its sleep up to 1 ns off the instant
        ok = (abs(float(r["mpi_us"]) - float(r["hsplit_us"])) <= 0.002 if sync
              else r["mpi_us"] == r["hsplit_us"]) and r["check"] == "ok"
        failed += not ok
        print("allreduce 32768 after %s%s: %s us: %s" % (
            barrier, ", --sync-start" if sync else "", r["mpi_us"], "ok" if ok else "FAILED"))
    t = {k: float(r["mpi_us"]) for k, r in allreduce.items()}
    same = abs(t["ompi_basic_linear", True] - t["ompi_recursivedoubling", True]) <= 0.002
    skew = t["ompi_basic_linear", False] > t["ompi_basic_linear", True]
    failed += (not same) + (not skew) + (not refused)
    print("--sync-start: the same time after either barrier: %s" % ("ok" if same else "FAILED"))
    print("without it, the linear barrier's skew adds to the call: %s" % (
        "ok" if skew else "FAILED"))
    print("--sync-start without --span refused: %s" % ("ok" if refused else "FAILED"))
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
