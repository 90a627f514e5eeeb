#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Markdown tables from the output directory of scripts/bench-pmpi."""
import csv
import os
import statistics
import sys

# the CSV reader and size labels of bench_coll's tables (apps/bench)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "apps", "bench"))
from coll_tables import load, size_label  # noqa: E402

MPI_NAMES = {"openmpi": "Open MPI", "mpich": "MPICH"}
CONFIGS = [("none", "no preload (MPI_X is PMPI_X: noise)"),
           ("off", "preload, HSPLIT_PMPI=off"),
           ("coll_off", "preload, HSPLIT_COLL=off (wrapper, then HSPLIT_X)"),
           ("report", "preload, HSPLIT_COLL=off, HSPLIT_PMPI_REPORT=1")]
CASES = [("barrier", "world"), ("bcast", "world"), ("allreduce", "world"),
         ("allreduce", "self")]
# A cell is beyond noise when every run's factor is on the same side of 1 by
# more than this much.
NOISE = 0.05


def overhead_table(d):
    data = load(f"{d}/overhead.csv")
    if not data:
        return
    by = {(r["mpi"], r["config"], r["collective"], r["comm"]): r for r in data}
    print("Nanoseconds MPI_X adds to PMPI_X per call: difference of the median blocks "
          "(median of the paired block differences); PMPI_X's own time below each MPI.\n")
    heads = [f"{c} ({m})" for c, m in CASES]
    print("| MPI | run | " + " | ".join(heads) + " |")
    print("|---|---|" + "---:|" * len(CASES))
    for mpi in MPI_NAMES:
        if not any(k[0] == mpi for k in by):
            continue
        for config, label in CONFIGS:
            cells = []
            for c, m in CASES:
                r = by.get((mpi, config, c, m))
                cells.append(f"{float(r['added_ns']):+.1f} ({float(r['paired_ns']):+.1f})"
                             if r else "")
            print(f"| {MPI_NAMES[mpi]} | {label} | " + " | ".join(cells) + " |")
        cells = []
        for c, m in CASES:
            r = by.get((mpi, "none", c, m))
            cells.append(f"{float(r['pmpi_ns']):.1f} ns" if r else "")
        print(f"| {MPI_NAMES[mpi]} | PMPI_X per call | " + " | ".join(cells) + " |")
    print()


def coll_table(d):
    data = load(f"{d}/coll.csv")
    if not data:
        return
    for mpi in MPI_NAMES:
        mine = [r for r in data if r["mpi"] == mpi]
        if not mine:
            continue
        runs = sorted({r["run"] for r in mine}, key=int)
        sizes = sorted({int(r["bytes"]) for r in mine if r["collective"] != "barrier"})
        colls = list(dict.fromkeys(r["collective"] for r in mine))
        factors = {}
        for r in mine:
            factors.setdefault((r["collective"], int(r["bytes"])), []).append(float(r["factor"]))
        print(f"{MPI_NAMES[mpi]}, 2 pinned processes: factor = MPI_ column (through the wrapper) "
              f"/ HSPLIT_ column, median of {len(runs)} runs; **bold**: every run "
              f"beyond {NOISE:.2f} on the same side of 1.\n")
        print("| collective | " + " | ".join(size_label(s) for s in sizes) + " |")
        print("|---|" + "---:|" * len(sizes))
        beyond, cells_total, all_medians, spreads = [], 0, [], []
        for c in colls:
            cells = []
            for s in ([0] if c == "barrier" else sizes):
                f = factors.get((c, s))
                if not f:
                    cells.append("")
                    continue
                m = statistics.median(f)
                all_medians.append(m)
                cells_total += 1
                spreads.append(max(f) - min(f))
                text = f"{m:.2f}"
                if min(f) > 1 + NOISE or max(f) < 1 - NOISE:
                    beyond.append(f"{c} {size_label(s)}")
                    text = f"**{text}**"
                cells.append(text)
            print(f"| {c} | " + " | ".join(cells) + " |")
        print(f"\nMedian of the {cells_total} cells' medians: "
              f"{statistics.median(all_medians):.3f}; median spread (largest - smallest "
              f"run) of a cell: {statistics.median(spreads):.3f}, largest: "
              f"{max(spreads):.2f}; beyond noise: "
              f"{', '.join(beyond) if beyond else 'none'}.\n")


def report_runs(d):
    """The bench_coll runs made with the report on: the median factor only."""
    for name in sorted(os.listdir(d)):
        if not (name.startswith("coll-") and name.endswith("-report.csv")):
            continue
        f = [float(r["factor"]) for r in load(f"{d}/{name}")]
        if f:
            print(f"With HSPLIT_PMPI_REPORT=1 ({name}): median factor of the {len(f)} cells "
                  f"{statistics.median(f):.3f} (smallest {min(f):.2f}, largest {max(f):.2f}).\n")


def emulated_table(d):
    for name in sorted(os.listdir(d)):
        if not (name.startswith("coll-openmpi-np") and name.endswith(".csv")) or \
                name.endswith("-report.csv"):
            continue
        data = load(f"{d}/{name}")
        if not data:
            continue
        f = [float(r["factor"]) for r in data]
        sizes = sorted({int(r["bytes"]) for r in data if r["collective"] != "barrier"})
        colls = list(dict.fromkeys(r["collective"] for r in data))
        by = {(r["collective"], int(r["bytes"])): r for r in data}
        print(f"Open MPI, emulated cluster, {data[0]['processes']} processes on 2 cores "
              f"({name}): factor MPI_ / HSPLIT_, one run.\n")
        print("| collective | " + " | ".join(size_label(s) for s in sizes) + " |")
        print("|---|" + "---:|" * len(sizes))
        for c in colls:
            cells = []
            for s in ([0] if c == "barrier" else sizes):
                r = by.get((c, s))
                cells.append(f"{float(r['factor']):.2f}" if r else "")
            print(f"| {c} | " + " | ".join(cells) + " |")
        print(f"\nMedian of the {len(f)} cells: {statistics.median(f):.3f}; within [0.90, 1.10]: "
              f"{sum(0.9 <= v <= 1.1 for v in f)}.\n")


def reports(d):
    for name in sorted(os.listdir(d)):
        if name.startswith("coll-") and name.endswith(".report"):
            with open(f"{d}/{name}") as f:
                text = [line for line in f if not line.startswith("csv,")]
            if text:
                print(f"HSPLIT_PMPI_REPORT=1 ({name}):\n\n```\n{''.join(text)}```\n")


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "build/bench-pmpi"
    overhead_table(d)
    coll_table(d)
    emulated_table(d)
    report_runs(d)
    reports(d)


if __name__ == "__main__":
    main()
