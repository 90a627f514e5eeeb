#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Markdown tables from the CSV files of scripts/bench-coll (one directory)."""
import csv
import os
import sys

BCAST_ALGS = {1: "linear", 2: "chain", 3: "pipeline", 4: "split binary", 5: "binary",
              6: "binomial"}
REDUCE_ALGS = {1: "linear", 2: "chain", 3: "pipeline", 4: "binary", 5: "binomial",
               6: "in-order binary", 7: "rabenseifner"}


def load(path):
    """Rows of one bench_coll CSV (comment lines skipped), or [] if absent."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def size_label(b):
    b = int(b)
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= scale:
            return f"{b // scale} {unit}"
    return f"{b} B"


def modes_table(d):
    auto, on = load(f"{d}/auto.csv"), load(f"{d}/on.csv")
    if not auto:
        return
    on_by = {(r["collective"], r["bytes"]): r for r in on}
    print("| collective | bytes | MPI us | auto us | auto factor | hierarchy us "
          "| hierarchy factor |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    worst = None
    for r in auto:
        o = on_by.get((r["collective"], r["bytes"]))
        f = float(r["factor"])
        worst = f if worst is None or f < worst else worst
        print(f"| {r['collective']} | {size_label(r['bytes'])} | {float(r['mpi_us']):.1f} "
              f"| {float(r['hsplit_us']):.1f} | {f:.2f} "
              f"| {float(o['hsplit_us']) if o else float('nan'):.1f} "
              f"| {float(o['factor']) if o else float('nan'):.2f} |")
    print(f"\nLowest auto factor: {worst:.2f}\n")


def forced_table(d, coll, algs):
    runs = {a: load(f"{d}/{coll}_alg{a}.csv") for a in algs}
    runs = {a: r for a, r in runs.items() if r}
    if not runs:
        return
    sizes = [r["bytes"] for r in next(iter(runs.values()))]
    print("| bytes | " + " | ".join(algs[a] for a in runs) + " |")
    print("|---:|" + "---:|" * len(runs))
    best = {a: 0.0 for a in runs}
    for i, b in enumerate(sizes):
        cells = []
        for a, rows in runs.items():
            f = float(rows[i]["factor"])
            best[a] = max(best[a], f)
            cells.append(f"{f:.2f}")
        print(f"| {size_label(b)} | " + " | ".join(cells) + " |")
    print("| **max** | " + " | ".join(f"**{best[a]:.2f}**" for a in runs) + " |\n")


def han_table(d):
    rows = []
    for c in ("bcast", "reduce", "allreduce"):
        rows += load(f"{d}/han_{c}.csv")
    if not rows:
        return
    print("| collective | bytes | HAN us | hsplit us | factor HAN / hsplit |")
    print("|---|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['collective']} | {size_label(r['bytes'])} | {float(r['mpi_us']):.1f} "
              f"| {float(r['hsplit_us']):.1f} | {float(r['factor']):.2f} |")
    print()


def main():
    d = sys.argv[1]
    print("### Plain MPI against hsplit (auto mode, and always the hierarchy)\n")
    modes_table(d)
    print("### Enhancement factor, bcast, one tuned algorithm on every level\n")
    forced_table(d, "bcast", BCAST_ALGS)
    print("### Enhancement factor, reduce, one tuned algorithm on every level\n")
    forced_table(d, "reduce", REDUCE_ALGS)
    print("### Open MPI's HAN against hsplit (auto mode)\n")
    if os.path.exists(f"{d}/han_world.txt"):
        with open(f"{d}/han_world.txt") as f:
            said = f.read().strip()
        print("HAN on MPI_COMM_WORLD: " + (f"`{said}`" if said else "accepted (no refusal logged)")
              + "\n")
    han_table(d)


if __name__ == "__main__":
    main()
