#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tables of scripts/bench-shm's coll.csv: per MPI and configuration, the
factor MPI time / hsplit time (> 1: hsplit faster) of each collective and
size, the median over the runs, and the times of the first run."""
import csv
import os
import statistics
import sys
from collections import defaultdict

# the size labels of bench_coll's tables (apps/bench)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "apps", "bench"))
from coll_tables import size_label  # noqa: E402

NAMES = {"shm": "2 pinned processes, HSPLIT_COLL=on HSPLIT_COLL_SHM=on",
         "auto": "2 pinned processes, auto mode (HSPLIT_COLL_MIN_PROCS=2)",
         "rules": "2 pinned processes, auto mode with the rules scripts/coll-rules wrote from "
                  "run 1 of the forced runs (HSPLIT_COLL_RULES)"}
MPIS = {"openmpi": "Open MPI", "mpich": "MPICH"}


def main(path):
    factors = defaultdict(list)
    times = {}
    order_c, order_b = [], defaultdict(list)
    for row in csv.DictReader(open(path)):
        key = (row["mpi"], row["config"])
        c, b = row["collective"], int(row["bytes"])
        if c not in order_c:
            order_c.append(c)
        if b not in order_b[key]:
            order_b[key].append(b)
        factors[key + (c, b)].append(float(row["factor"]))
        if row["run"] == "1":
            times[key + (c, b)] = (row["mpi_us"], row["hsplit_us"])
    for key in dict.fromkeys(k[:2] for k in factors):
        mpi, config = key
        sizes = sorted(order_b[key])
        name = NAMES.get(config, config.replace("np", "") + " (emulated cluster, oversubscribed)")
        runs = max(len(v) for k, v in factors.items() if k[:2] == key)
        print(f"\n{MPIS.get(mpi, mpi)}, {name}: factor = MPI / hsplit, median of {runs} run(s)\n")
        print("| collective | " + " | ".join(size_label(b) for b in sizes) + " |")
        print("|---|" + "---:|" * len(sizes))
        for c in order_c:
            cells = []
            for b in sizes:
                v = factors.get(key + (c, b))
                cells.append(f"{statistics.median(v):.2f}" if v else "")
            if any(cells):
                print(f"| {c} | " + " | ".join(cells) + " |")
        print(f"\nTimes of run 1 (us, MPI / hsplit):\n")
        print("| collective | " + " | ".join(size_label(b) for b in sizes) + " |")
        print("|---|" + "---:|" * len(sizes))
        for c in order_c:
            cells = [("%s / %s" % times[key + (c, b)]) if key + (c, b) in times else ""
                     for b in sizes]
            if any(cells):
                print(f"| {c} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
