#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The collective engine at scale on a simulated clock (deterministic): on
16 EPYC nodes (256 processes) under two leaf switches,

- the multi-leader allreduce (HSPLIT_COLL_SCHEDULE=ml) is faster than reduce
  then broadcast over the levels (all:mpi, without the default tree's own
  reduce-scatter/allgather: HSPLIT_COLL_RSAG_BYTES=-1) at 512 KiB;
- for bcast and allreduce at 32 KiB, auto mode (one trial per path) is
  within 2% of the fastest of plain MPI, the default tree and every
  schedule it measures for that collective, each forced in a run of its own,
  with SMPI's `ompi` selector; and for the allreduce with its `mpich`
  selector, whose setup in a communicator's first collective the trials
  must not count (auto took ml:rd's 29.41 us there, mlall's 28.50 the
  fastest);
- every call starts at one instant of the simulated clock (bench_coll
  --sync-start, as auto mode's trials do under SMPI);
- every result equals MPI's own (bench_coll's check).

    check_engine_choice.py SMPIRUN PLATFORM HOSTFILE FLAGS BENCH_COLL
    (FLAGS: smpirun's options, one argument separated by spaces; the
    HSPLIT_TOPOLOGY, _NODES, _BIND and _NETWORK of the platform in the
    environment)
"""
import csv
import os
import subprocess
import sys
import tempfile

# HSPLIT_COLL_SCHEDULES=auto's candidates that serve bcast or allreduce at
# 32 KiB (user guide 8.6)
# the library's candidates and the collectives auto mode measures each for
# (coll_engine.c; bcast from 32 KiB for all:binary): each forced run makes
# those only
CANDIDATES = {"two:mpi": "bcast,allreduce", "all:binomial": "bcast,allreduce",
              "all:mpi,binomial": "allreduce", "all:binary": "bcast", "ml": "bcast,allreduce",
              "ml:ring": "bcast,allreduce", "mlall": "bcast,allreduce", "mlnet": "bcast,allreduce",
              "ml:rab": "allreduce", "ml:rd": "allreduce"}


def run(base, env, colls, size, warmup, tmp, tag):
    path = os.path.join(tmp, tag + ".csv")
    cmd = base + ["--coll", colls, "--min", str(size), "--max", str(size), "--iters", "1",
                  "--warmup", str(warmup), "--span", "--sync-start", "--csv", path]
    done = subprocess.run(cmd, env=dict(os.environ, **env), capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("%s: smpirun failed (%d):\n%s" % (tag, done.returncode,
                                                   (done.stdout + done.stderr)[-3000:]))
    rows = {}
    with open(path) as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            rows[r["collective"]] = (float(r["mpi_us"]), float(r["hsplit_us"]), r["check"])
    return rows


def check_choice(base, colls, tmp, selector):
    """Auto mode against every path it measures, forced one by one, at 32
    KiB, under SMPI's selector of that name: the failures."""
    failed, tag = 0, selector + "_"
    wanted = set(colls.split(","))
    forced = {"plain": run(base, {"HSPLIT_COLL": "off"}, colls, 32768, 1, tmp, tag + "plain"),
              "tree": run(base, {"HSPLIT_COLL": "on"}, colls, 32768, 1, tmp, tag + "tree")}
    for spec, serves in CANDIDATES.items():
        these = ",".join(c for c in serves.split(",") if c in wanted)
        if these:
            forced[spec] = run(base, {"HSPLIT_COLL": "on", "HSPLIT_COLL_SCHEDULE": spec},
                               these, 32768, 1, tmp, tag + spec.replace(":", "_"))
    auto = run(base, {"HSPLIT_COLL": "auto", "HSPLIT_COLL_TRIALS": "1",
                      "HSPLIT_COLL_MIN_PROCS": "1"}, colls, 32768, 12, tmp, tag + "auto")
    for coll in colls.split(","):
        times = {name: rows[coll][1] for name, rows in forced.items() if coll in rows}
        best = min(times, key=times.get)
        chosen = auto[coll][1]
        checks = all(rows[coll][2] == "ok" for rows in forced.values() if coll in rows) and \
            auto[coll][2] == "ok"
        ok = chosen <= 1.02 * times[best] and checks
        failed += not ok
        print("%s, %s 32 KiB: auto %.2f us, fastest %s %.2f us (%s): %s" % (
            selector, coll, chosen, best, times[best],
            ", ".join("%s %.2f" % kv for kv in sorted(times.items())),
            "ok" if ok else "FAILED"))
    return failed


def main():
    smpirun, platform, hosts, flags, bench = sys.argv[1:6]
    base = [smpirun, "-np", "256", "-platform", platform, "-hostfile", hosts] + \
        flags.split() + ["--log=root.thresh:warning"]
    ompi = base + ["--cfg=smpi/coll-selector:ompi", bench]
    # the broadcasts that make communicators by binomial tree, as the engine
    # sweep's runs with a synchronized start have them (scripts/lib/
    # simgrid_engine.py): the `mpich` selector's own would do SMPI's setup
    # of each new communicator before any allreduce
    mpich = base + ["--cfg=smpi/coll-selector:mpich", "--cfg=smpi/bcast:binomial_tree", bench]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        on = {"HSPLIT_COLL": "on", "HSPLIT_COLL_RSAG_BYTES": "-1"}
        ml = run(ompi, dict(on, HSPLIT_COLL_SCHEDULE="ml"), "allreduce", 524288, 1, tmp, "ml")
        rb = run(ompi, dict(on, HSPLIT_COLL_SCHEDULE="all:mpi"), "allreduce", 524288, 1, tmp,
                 "reduce_bcast")
        t_ml, t_rb = ml["allreduce"][1], rb["allreduce"][1]
        ok = t_ml < t_rb and ml["allreduce"][2] == "ok" and rb["allreduce"][2] == "ok"
        failed += not ok
        print("allreduce 512 KiB: ml %.1f us, reduce + bcast %.1f us: %s" %
              (t_ml, t_rb, "ok" if ok else "FAILED"))
        failed += check_choice(ompi, "bcast,allreduce", tmp, "ompi")
        failed += check_choice(mpich, "allreduce", tmp, "mpich")
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
