# SPDX-License-Identifier: BSD-3-Clause
"""scripts/lib/simgrid_engine.py's runs of other sizes than the default
sweep's (run_tag: base@SIZES; run_colls: no block collective where no size
fits) and how the report merges them (collect): a
part adds its cells to the published ones of the same run, a cell made
again replaces only that cell, the newer of two parts wins, and other runs
keep their published rows. Hand-made published CSV and bench CSVs in a
temporary directory; no simulation.
Usage: test_simgrid_engine_parts.py SIMGRID_ENGINE_PY"""
import argparse
import csv
import importlib.util
import os
import sys
import tempfile

spec = importlib.util.spec_from_file_location("simgrid_engine", sys.argv[1])
engine = importlib.util.module_from_spec(spec)
spec.loader.exec_module(engine)
failures = []


def expect(what, got, want):
    if got != want:
        failures.append("%s: got %r, expected %r" % (what, got, want))


epyc64 = next(m for m in engine.MACHINES if m["name"] == "EPYC64")
epyc16 = next(m for m in engine.MACHINES if m["name"] == "EPYC16")
# the default sweep's sizes keep the base tag; any other list is a part
expect("EPYC64 block default", engine.run_tag("EPYC64-block-ompi", epyc64, "block", [8, 128]),
       "EPYC64-block-ompi")
expect("EPYC64 block 32K, 512K",
       engine.run_tag("EPYC64-block-ompi", epyc64, "block", [32768, 524288]),
       "EPYC64-block-ompi@32K-512K")
ntw10e5 = next(m for m in engine.MACHINES if m["name"] == "NTW10E5")
epyc64t = next(m for m in engine.MACHINES if m["name"] == "EPYC64T")
epyc1024 = next(m for m in engine.MACHINES if m["name"] == "EPYC1024")
everything = [8, 128, 2048, 32768, 524288, 4194304]
# the default sweep: NTW10E5 to 4 MiB, EPYC64 block and cyclic to 128 B
expect("NTW10E5 to 4M", engine.run_tag("NTW10E5-block-ml", ntw10e5, "block", everything),
       "NTW10E5-block-ml")
expect("default sizes", [engine.default_sizes(m, p) for m, p in
                         ((ntw10e5, "block"), (epyc64, "block"), (epyc64, "cyclic"),
                          (epyc64t, "block"), (epyc16, "block"), (epyc1024, "block"))],
       [everything, [8, 128], [8, 128], [], [], []])
expect("EPYC16 to 4M", engine.run_tag("EPYC16-block-ml", epyc16, "block", everything),
       "EPYC16-block-ml@8-128-2K-32K-512K-4M")
expect("EPYC16 8 B alone", engine.run_tag("EPYC16-block-ml", epyc16, "block", [8]),
       "EPYC16-block-ml@8")

# the block collectives (P blocks per process) run where a size fits 8 MiB
# per process: 32 KiB at 256 processes, not at 1024
expect("EPYC64 32K collectives", engine.run_colls(epyc64, "ompi", [32768]),
       ["bcast", "reduce", "allreduce", "barrier"])
expect("EPYC64 8, 32K max blocks", engine.max_blocks(epyc64, [8, 32768]), 8)
expect("EPYC16 32K collectives", engine.run_colls(epyc16, "ompi", [32768]), engine.COLLS)

BENCH = "collective,bytes,processes,iterations,mpi_us,hsplit_us,factor,check\n"
with tempfile.TemporaryDirectory() as top:
    data, out = os.path.join(top, "data"), os.path.join(top, "out")
    os.makedirs(data)
    os.makedirs(os.path.join(out, "engine"))
    engine.DATA = data
    published = [
        # EPYC64 block ompi: 8 B published; 32 KiB published, made again below
        ("EPYC64", "bcast", 8, "flat", "ompi", "", "10.0"),
        ("EPYC64", "bcast", 8, "auto", "ompi", "", "9.0"),
        ("EPYC64", "bcast", 32768, "flat", "ompi", "", "150.0"),
        ("EPYC64", "bcast", 32768, "auto", "ompi", "", "99.0"),
        # another run of the same machine: kept whatever the parts
        ("EPYC64", "bcast", 8, "flat", "forced", "binomial_tree", "8.0"),
    ]
    with open(os.path.join(data, "simgrid-engine.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(engine.CSV_FIELDS)
        for mach, coll, size, sched, sel, alg, us in published:
            w.writerow([mach, "block", 1024, coll, size, sched, sel, alg, us, "ok", ""])

    def part(tag, rows, mtime):
        path = os.path.join(out, "engine", tag + ".csv")
        with open(path, "w") as f:
            f.write("# a comment line, as bench_coll writes\n" + BENCH)
            for coll, size, mpi, hs in rows:
                f.write("%s,%d,1024,1,%s,%s,1.0,ok\n" % (coll, size, mpi, hs))
        with open(os.path.join(out, "engine", tag + ".log"), "w") as f:
            f.write("# command\n# wall %d.0 s, exit 0\n" % mtime)
        os.utime(path, (mtime, mtime))

    # an older part with 32 KiB and 512 KiB, a newer one with 512 KiB again
    part("EPYC64-block-ompi@32K-512K", [("bcast", 32768, "151.0", "35.0"),
                                         ("bcast", 524288, "441.0", "300.0")], 1000)
    part("EPYC64-block-ompi@512K", [("bcast", 524288, "441.0", "270.0")], 2000)
    args = argparse.Namespace(out=out, machines=None, placements=None, modes=None, sizes=None,
                              full=False, jobs=1, force=False)
    rows, walls = engine.collect(args)
    got = sorted((r["machine"], r["collective"], int(r["bytes"]), r["schedule"], r["selector"],
                  r["algorithm"], "%.1f" % float(r["us"])) for r in rows)
    want = sorted([
        ("EPYC64", "bcast", 8, "flat", "ompi", "", "10.0"),
        ("EPYC64", "bcast", 8, "auto", "ompi", "", "9.0"),
        ("EPYC64", "bcast", 8, "flat", "forced", "binomial_tree", "8.0"),
        ("EPYC64", "bcast", 32768, "flat", "ompi", "", "151.0"),
        ("EPYC64", "bcast", 32768, "auto", "ompi", "", "35.0"),
        ("EPYC64", "bcast", 524288, "flat", "ompi", "", "441.0"),
        ("EPYC64", "bcast", 524288, "auto", "ompi", "", "270.0"),
    ])
    expect("merged rows", got, want)
    expect("walls", sorted(w[3] for w in walls), [1000.0, 2000.0])

if failures:
    sys.exit("\n".join(failures))
print("simgrid_engine parts: run tags and merged rows as expected")
