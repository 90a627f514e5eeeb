# SPDX-License-Identifier: BSD-3-Clause
"""The v-variants, alltoall(v), reduce-scatters and scans under SimGrid SMPI:
bench_coll on a simulated cluster, flat MPI against hsplit, with SMPI's
`ompi` and `mpich` collective selectors (what an Open MPI or an MPICH user
gets by default) and hsplit in auto mode and with the hierarchy forced.

Cluster: 16 nodes of 2x EPYC 7763 (one rank per L3, 16 ranks per node, 256
ranks) under two leaf switches, the EPYC preset of tools/hsplit-platform.
The alltoalls and the scans run on 8 such nodes with one rank per two L3s (8
ranks per node, 64 ranks) under two leaf switches: at 256 ranks a 2 KiB
alltoall (65,280 messages) did not finish in 7 minutes of simulation, nor did
the first scan run in 6.
Auto mode measures 3 calls of each path before it chooses: those runs make 8
untimed warm-up calls first (--warmup 8; scatterv and alltoallv learn a new
size in the call that takes the hierarchy, so their measurement of a size
starts one call later), so that the timed call is the chosen path; the simulated clock is deterministic, one timed call says all.

  python3 scripts/lib/simgrid_colls.py run      the simulations (about 40 min)
  python3 scripts/lib/simgrid_colls.py report   docs/data/simgrid-colls.csv
                                                and a markdown table
"""
import argparse
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from simgrid_experiments import BUILD, DATA, fmt_size, make_platform, read_bench_csv, smpirun  # noqa: E402

MACHINE = dict(name="EPYC16", nodes=16, per_switch=8, topology="pack:2 [numa] l3:8 pu:1",
               host_per="l3cache", bind="l3cache", per_node=16)
SMALL_MACHINE = dict(name="EPYC8", nodes=8, per_switch=4, topology="pack:2 [numa] l3:4 pu:1",
                     host_per="l3cache", bind="l3cache", per_node=8)
SMALL_COLLS = ["alltoall", "alltoallv", "scan", "exscan"]
COLLS = ["gatherv", "scatterv", "allgatherv", "alltoall", "alltoallv", "reduce_scatter_block",
         "reduce_scatter", "scan", "exscan"]
# the reduce-scatters' vector is size x block bytes on every process, reduced
# for real by the simulator: at 256 processes, blocks up to 2 KiB (32 KiB took
# a quarter of an hour of simulation per run)
MAX_BYTES_OF = {"reduce_scatter_block": 2048, "reduce_scatter": 2048}
SELECTORS = ["ompi", "mpich"]
MODES = ["auto", "on"]
MAX_BYTES = 32768


def machine_of(coll):
    return SMALL_MACHINE if coll in SMALL_COLLS else MACHINE


def runs():
    for coll in COLLS:
        m = machine_of(coll)
        for selector in SELECTORS:
            for mode in MODES:
                yield coll, selector, mode, "%s-%s-%s-%s" % (m["name"], coll, selector, mode)


def run(args):
    out = os.path.join(args.out, "colls")
    os.makedirs(out, exist_ok=True)
    bench = os.path.join(BUILD, "apps", "bench", "bench_coll")
    for coll, selector, mode, tag in runs():
        m = machine_of(coll)
        conf = os.path.join(out, m["name"] + ".conf")
        platform, hostfile = make_platform(
            out, m["name"], m["topology"], m["nodes"], "epyc7763-hdr",
            ["--nodes-per-switch", str(m["per_switch"]), "--host-per", m["host_per"],
             "--placement", "block", "--topology-conf", conf])
        np = m["nodes"] * m["per_node"]
        env = dict(HSPLIT_TOPOLOGY=m["topology"], HSPLIT_NODES=str(m["per_node"]),
                   HSPLIT_BIND=m["bind"], HSPLIT_NETWORK=conf)
        warmup = "8"
        if mode == "on":
            env["HSPLIT_COLL"] = "on"
            warmup = "0"
        cfg = ["contexts/guard-size:0", "smpi/coll-selector:" + selector]
        top = MAX_BYTES_OF.get(coll, MAX_BYTES)
        program = [bench, "--coll", coll, "--min", "8", "--max", str(top), "--step", "16",
                   "--iters", "1", "--warmup", warmup, "--span"]
        _, wall = smpirun(out, tag, np, platform, hostfile, env, cfg, program, args.force,
                          privatize=False)
        if wall is not None:
            print("[%s] %.1f s" % (tag, wall), flush=True)


def report(args):
    out = os.path.join(args.out, "colls")
    cells = {}  # (coll, bytes) -> {(selector, mode): (flat_us, hsplit_us, check)}
    for coll, selector, mode, tag in runs():
        path = os.path.join(out, tag + ".csv")
        if not os.path.exists(path):
            continue
        for r in read_bench_csv(path):
            key = (r["collective"], int(r["bytes"]))
            cells.setdefault(key, {})[(selector, mode)] = (
                float(r["mpi_us"]), float(r["hsplit_us"]), r["check"])
    os.makedirs(DATA, exist_ok=True)
    with open(os.path.join(DATA, "simgrid-colls.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["machine", "processes", "collective", "bytes", "selector", "mode",
                    "flat_us", "hsplit_us", "factor", "check"])
        sizes = {c: machine_of(c)["nodes"] * machine_of(c)["per_node"] for c in COLLS}
        for (coll, size), by in sorted(cells.items(), key=lambda kv: (COLLS.index(kv[0][0]),
                                                                      kv[0][1])):
            for (selector, mode), (flat, hier, check) in sorted(by.items()):
                w.writerow([machine_of(coll)["name"], sizes[coll], coll, size,
                            selector, mode, "%.3f" % flat, "%.3f" % hier,
                            "%.3f" % (flat / hier if hier > 0 else 0), check])
    print("| collective | processes | bytes | ompi flat (us) | auto | on | mpich flat (us) | auto "
          "| on |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")

    def factor(by, selector, mode):
        if (selector, mode) not in by:
            return "-"
        flat, hier, check = by[(selector, mode)]
        mark = "" if check in ("ok", "-") else " " + check
        return "%.2fx%s" % (flat / hier, mark) if hier > 0 else "-"

    sizes = {c: machine_of(c)["nodes"] * machine_of(c)["per_node"] for c in COLLS}
    for (coll, size), by in sorted(cells.items(), key=lambda kv: (COLLS.index(kv[0][0]),
                                                                  kv[0][1])):
        flat = {s: by.get((s, "auto"), by.get((s, "on"), (0, 0, "")))[0] for s in SELECTORS}
        print("| %s | %d | %s | %.1f | %s | %s | %.1f | %s | %s |" % (
            coll, sizes[coll], fmt_size(size), flat["ompi"], factor(by, "ompi", "auto"),
            factor(by, "ompi", "on"), flat["mpich"], factor(by, "mpich", "auto"),
            factor(by, "mpich", "on")))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("what", choices=["run", "report"])
    p.add_argument("--out", default=os.path.join(BUILD, "experiments"))
    p.add_argument("--force", action="store_true", help="rerun simulations already made")
    args = p.parse_args()
    if args.what == "run":
        run(args)
    report(args)


if __name__ == "__main__":
    main()
