# SPDX-License-Identifier: BSD-3-Clause
"""The collective engine at scale under SimGrid SMPI (issue 17's sweep):
hsplit's schedules (HSPLIT_COLL_SCHEDULE) and auto mode against flat MPI
with SMPI's `ompi` and `mpich` collective selectors (what an Open MPI or an
MPICH user gets by default) and against the best of a few forced flat
algorithms, for bcast, reduce, allreduce, allgather, gather, scatter and
barrier from 8 B to 4 MiB.

  run       the simulations (one smpirun per machine, placement and mode,
            every collective and size of that mode in it), then report
  report    docs/data/simgrid-engine.{md,csv} and the section between the
            simgrid-engine markers of docs/results.md, from the runs made
            (runs not made are taken from the published CSV)
  estimate  the wall time the run would take, and nothing else
  targets   issue 17's target figures from a combined CSV (--data FILE):
            the report's logic alone, for tests

Modes (rows of the tables): `ompi` and `mpich` (flat with that selector,
and hsplit in auto mode over it: HSPLIT_COLL=auto, no schedule), `flat1`..
(the k-th forced SMPI algorithm of each collective: best flat is the fastest
of them and of the selectors), and one mode per schedule spec (the ompi
selector, HSPLIT_COLL=on, HSPLIT_COLL_SCHEDULE=SPEC). Until the engine
reads HSPLIT_COLL_SCHEDULE, every spec row is today's N-level tree.
"""
import argparse
import concurrent.futures
import csv
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from simgrid_experiments import (BUILD, DATA, PAPER_ENV, PAPER_MACHINES, ROOT,  # noqa: E402
                                 SCALE_MACHINES, SETUP_BCAST, fmt_size, make_platform,
                                 read_bench_csv, scale_env, smpirun, wall_of)
from simgrid_colls import MACHINE as EPYC16  # noqa: E402

RESULTS = os.path.join(ROOT, "docs", "results.md")
MARKERS = ("<!-- simgrid-engine:begin -->", "<!-- simgrid-engine:end -->")
COLLS = ["bcast", "reduce", "allreduce", "allgather", "gather", "scatter", "barrier"]
SIZES = [8, 128, 2048, 32768, 524288, 4194304]
# 16 times the size before it, up to 512 KiB (the estimate's steps)
SIZE_STEP = 16
# the collectives whose buffers hold one block per process (bench_coll's
# --max-blocks): every process of an allgather touches P x bytes, so their
# largest size keeps P x bytes under this (256 processes: 32 KiB, 2 GiB in
# all; 1024: 2 KiB)
BLOCK_COLLS = ("allgather", "gather", "scatter")
BLOCK_BYTES_PER_PROCESS = 8 << 20
SPECS = ["two:mpi", "all:mpi", "two:binomial", "all:binomial", "all:binary", "all:chain",
         "all:mpi,binomial", "all:mpi,ring", "ml", "ml:ring", "mlall", "mlnet", "ml:rab",
         "ml:rd"]
# the table's columns after two-level (two:mpi) and N-level (all:mpi)
OTHER_SPECS = [s for s in SPECS if s not in ("two:mpi", "all:mpi")]
SELECTORS = ["ompi", "mpich"]
# Forced flat algorithms (SMPI names). Ring-based ones are left out as in
# simgrid_experiments.py's scale (P steps of P messages: too slow to
# simulate at 1024 processes); SMPI 3.32's Rabenseifner reduce crashes at
# 1024 processes.
FLAT_ALGORITHMS = {
    "bcast": ["binomial_tree", "ompi_pipeline", "scatter_rdb_allgather"],
    "reduce": ["ompi_binomial", "ompi_pipeline", "ompi_binary"],
    "allreduce": ["rdb", "rab_rdb"],
    "allgather": ["rdb", "bruck"],
    "gather": ["ompi_binomial", "ompi_basic_linear"],
    "scatter": ["ompi_binomial", "ompi_basic_linear"],
    "barrier": ["ompi_recursivedoubling", "ompi_bruck", "ompi_tree"],
}
FLAT_RUNS = max(len(a) for a in FLAT_ALGORITHMS.values())
# auto mode measures one call of each candidate path (HSPLIT_COLL_TRIALS=1:
# the simulated clock is deterministic, and under SMPI a size class is
# measured once) before it chooses: at most plain MPI, the default tree and
# nine schedules for one collective (the allreduce from 16 KiB: 11 paths;
# the bcast from 64 KiB: 10), so the timed call comes after 12 warm-up calls
AUTO_WARMUP = 12
# a forced schedule makes its levels at its first call: one warm-up call
# (the ring across the nodes reaches its steady time after 4: NTW10E5's 32 KiB
# ml:ring reads 55.40 us after 1, 53.78 after 4 to 13; docs/results.md)
SPEC_WARMUP = 1
# Timed calls per cell. The simulated clock is deterministic and every
# timed call comes after the same calls (bench_coll --span: the allreduce of
# the call before, then a barrier), so one call says it all; MPI's and
# hsplit's time are the same when hsplit's call is MPI's (HSPLIT_COLL=off
# gives ratio 1.000). Before bench_coll made the call before the first timed
# one the same as for the others, MPI's first call read up to 4% faster
# (NTW10E5's barrier, 32 KiB reduce under mpich: docs/results.md).
ITERS = 1

EPYC64, EPYC1024 = SCALE_MACHINES
NTW10E5 = PAPER_MACHINES[0]
# name, hardware, placements, largest size, extra hsplit-platform options,
# and the largest size of the default sweep per placement (none: not in it),
# chosen so that the default sweep's measured wall time stays within
# BUDGET_S: NTW10E5 to 4 MiB and EPYC64 block and cyclic to 128 B. With
# EPYC16 to 4 MiB and EPYC64T to 128 B too (90 runs) it had made 66 runs
# after 2:01 (docs/results.md); EPYC64T reads as EPYC64 block at 8 B and
# 128 B (median ratio 1.000 over its 65 published cells). --full runs every
# machine to its largest size.
MACHINES = [
    dict(EPYC16, placements=["block"], max_bytes=4 << 20, tool=[],
         default_max={}, sync_start=True),
    dict(EPYC64, placements=["block", "cyclic"], max_bytes=4 << 20, tool=[],
         default_max={"block": 128, "cyclic": 128}),
    dict(EPYC64, name="EPYC64T", placements=["block"], max_bytes=4 << 20,
         tool=["--oversubscription", "4"], default_max={}),
    dict(NTW10E5, placements=["block"], max_bytes=4 << 20, default_max={"block": 4 << 20},
         sync_start=True),
    dict(EPYC1024, placements=["block", "cyclic"], max_bytes=512 << 10, tool=[],
         default_max={}, sync_start=True),
]
# sync_start: bench_coll --sync-start (every process starts a timed call at
# one simulated instant, not as the barrier before lets it go), and SMPI's
# broadcast forced to SETUP_BCAST in the runs that time no bcast. At 2048
# processes the `ompi` selector's barrier leaves so much exit skew that
# every 32 KiB allreduce after it read 49.33 us (rab_rdb, the selector's
# own, ml:rab alike; 35.64 with the synchronized start), and its SMP-aware
# broadcasts cost the simulation P^2 messages per new communicator (runs of
# 24-41 minutes; 2 with the binomial tree). docs/results.md says both.
# EPYC16 and NTW10E5 use it too (their forced flat runs follow another
# barrier than the selector's, which biased best flat against the rest);
# EPYC64's published runs predate it (hours to make again).
DESCRIPTIONS = {
    "EPYC16": "16 nodes of 2x EPYC 7763, one rank per L3, 8 nodes per leaf switch",
    "EPYC64": "64 nodes of 2x EPYC 7763, one rank per L3, 16 nodes per leaf switch",
    "EPYC64T": "EPYC64 behind leaf switches with 4:1 oversubscribed uplinks",
    "NTW10E5": "the paper's 10 nodes of 2x Xeon E5-2680v3, one rank per core",
    "EPYC1024": "1024 nodes of 2x EPYC 7763, one rank per socket, 32 nodes per leaf switch",
}

# Wall-time model (estimate), for runs that have no log of the same sizes
# yet (estimate and run take a run's last measured wall time where there is
# one). Wall seconds of an EPYC16 run (256 processes) of each kind of mode:
# all its sizes from 8 B to 2 KiB, its 32 KiB size alone, and its 512 KiB
# size (times LARGE_GROWTH at 4 MiB), in the proportions first measured on
# the 2-core development machine, scaled so that 8 B..4 MiB gives the wall
# times of the runs of 2026-11-27 (2 at a time on 2 cores: ompi 140 s,
# mpich 482 s, a schedule about 55 s, a flat run up to 300 s). Above 32 KiB
# only bcast, reduce and allreduce run (the block collectives stop there).
# A machine scales them by P log2 P (the mpich mode by P^2) over EPYC16's:
# at 1024 processes that is far too little (setup grows faster), and
# EPYC64's first runs took up to 8 times the model's time.
EPYC16_SECONDS = {"ompi": (8.5, 25, 21), "mpich": (73, 218, 38), "flat": (15, 40, 25),
                  "spec": (5.5, 7.7, 8.3)}
LARGE_GROWTH = 4
# Plus the setup that P log2 P misses. Every communicator SMPI makes
# broadcasts its id at once; under a selector that broadcast is SMP-aware
# and first runs Comm::init_smp, two ring allgathers over all P members (one
# simulated host per process): P^2 messages. Measured here with a program
# that only makes communicators on EPYC64's platform (1024 processes, the
# `ompi` selector): 66.8 s of wall for MPI_COMM_WORLD's first broadcast,
# then 68.1 and 65.5 s for two MPI_Comm_dup, 8.3 s for a split into 64
# communicators of 16. A selector or schedule run pays it twice
# (the world, hsplit's base communicator); a flat run forces the binomial
# broadcast and does not.
SETUP_COMM_S = 67.0
SETUP_COMM_P = 1024
SETUP_COMMS = {"ompi": 2, "mpich": 2, "flat": 0, "spec": 2}
# what the sweep may take by default (issue 17: 2 hours on 2 cores)
BUDGET_S = 2 * 3600


def mode_names():
    return SELECTORS + ["flat%d" % (k + 1) for k in range(FLAT_RUNS)] + SPECS


def mode_kind(mode):
    if mode in SELECTORS:
        return mode
    return "flat" if mode.startswith("flat") else "spec"


def mode_tag(mode):
    return mode.replace(":", "-")


def processes(m):
    return m["nodes"] * m["per_node"]


def sizes_of(m, placement, args):
    """The sizes of a machine's runs: --sizes up to its largest, or the
    default sweep's (every size with --full, --machines or --sizes)."""
    if not (args.full or args.machines or args.sizes):
        return default_sizes(m, placement)
    return [s for s in (args.sizes or SIZES) if s <= m["max_bytes"]]


def default_sizes(m, placement):
    """The sizes of the default sweep's runs of a machine and placement."""
    return [s for s in SIZES if s <= m["default_max"].get(placement, 0)]


def run_tag(base, m, placement, sizes):
    """A run's file name: its base tag (machine-placement-mode) for the
    default sweep's sizes; a part of its own (base@8-128-32K) for other
    sizes, so that a run of larger sizes adds cells to the default sweep's
    instead of replacing them (collect merges the parts)."""
    if sizes == default_sizes(m, placement):
        return base
    return base + "@" + "-".join(fmt_size(x) for x in sizes)


def max_blocks(m, sizes):
    """The largest size of the block collectives (None: no size fits, they
    are left out of the run)."""
    fit = [s for s in sizes if s * processes(m) <= BLOCK_BYTES_PER_PROCESS]
    return max(fit) if fit else None


def run_colls(m, mode, sizes):
    """The collectives of a run: the mode's, less the block collectives
    where none of the sizes fits (1024 processes from 32 KiB: 32 MiB per
    process for an allgather)."""
    blocks = max_blocks(m, sizes) is not None
    return [c for c in colls_of(mode) if (blocks or c not in BLOCK_COLLS)
            and (not ONLY_COLLS or c in ONLY_COLLS)]


# --colls: the collectives of every run (empty: all of each mode's)
ONLY_COLLS = []
# schedules that serve the allreduce and the bcast only (the other
# collectives would run the default tree: the all:mpi run's times)
ML_LEVELS = ("mlall", "mlnet")
ML_LEVELS_COLLS = ["bcast", "allreduce"]


def colls_of(mode):
    if mode.split(":")[0] in ML_LEVELS:
        return list(ML_LEVELS_COLLS)
    if mode.startswith("flat"):
        k = int(mode[4:]) - 1
        return [c for c in COLLS if k < len(FLAT_ALGORITHMS[c])]
    return list(COLLS)


def runs(args):
    """(machine, placement, mode, tag) of every run asked for."""
    out = []
    for m in MACHINES:
        if args.machines and m["name"] not in args.machines:
            continue
        for placement in m["placements"]:
            if args.placements and placement not in args.placements:
                continue
            if not sizes_of(m, placement, args):
                continue
            # --modes may name other schedules: runs of their own, in the
            # CSV (the tables show the modes of mode_names)
            extra = [x for x in args.modes or [] if x not in mode_names()]
            for mode in mode_names() + extra:
                if args.modes and mode not in args.modes:
                    continue
                out.append((m, placement, mode, "%s-%s-%s" % (m["name"], placement,
                                                              mode_tag(mode))))
    return out


def estimate_s(m, mode, sizes):
    """Estimated wall seconds of one run (see EPYC16_SECONDS)."""
    small, at_32k, at_512k = EPYC16_SECONDS[mode_kind(mode)]
    p = processes(m)
    scale = (p / 256) ** 2 if mode == "mpich" else p * math.log2(p) / (256 * 8)
    total = small * len([x for x in sizes if x <= 2048]) / 3
    total += at_32k if 32768 in sizes else 0
    for x in sizes:
        if x > 32768:
            total += at_512k * LARGE_GROWTH ** round(math.log(x / 524288, SIZE_STEP))
    # calls per cell: the warm-up and check of both sides, then ITERS timed
    # ones of each (the model's times are of one)
    warmup = mode_setup(mode)[2]
    calls = (warmup + 1 + ITERS) / (warmup + 2)
    setup = SETUP_COMMS[mode_kind(mode)] * SETUP_COMM_S * (p / SETUP_COMM_P) ** 2
    return setup + total * scale * calls * len(colls_of(mode)) / len(COLLS)


def measured_s(out, tag, sizes):
    """The wall seconds of the run's last log if it ran these sizes, and ran
    to its end; else None."""
    try:
        with open(os.path.join(out, tag + ".log")) as f:
            words = f.readline().split()
    except OSError:
        return None
    if "--sizes" not in words or words[words.index("--sizes") + 1] != ",".join(
            str(x) for x in sizes):
        return None
    wall = wall_of(out, tag)
    return wall if wall == wall else None


def expected_s(out, m, mode, tag, sizes):
    """What a run will take: its last measured wall time where there is one
    for the same sizes, else the estimate (the model is a guide: in the
    default sweep of 2026-11-28 its 54 runs took 2:21:02 against the model's
    2:12:34, each run 0.27 to 3.6 times what it said)."""
    wall = measured_s(out, tag, sizes)
    return wall if wall is not None else estimate_s(m, mode, sizes)


def fmt_duration(s):
    s = int(round(s))
    return "%d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60)


def platform_env(m, placement, out):
    """Platform file, hostfile and hsplit's emulation settings of a machine."""
    name = "%s-%s" % (m["name"], placement)
    if "tool" not in m:  # the paper's machine, as simgrid_experiments.py's paper
        platform, hostfile = make_platform(out, name, m["topology"], m["nodes"], m["preset"])
        return platform, hostfile, dict(HSPLIT_TOPOLOGY=m["topology"],
                                        HSPLIT_NODES=str(m["per_node"]))
    conf = os.path.join(out, name + ".conf")
    platform, hostfile = make_platform(
        out, name, m["topology"], m["nodes"], "epyc7763-hdr",
        ["--nodes-per-switch", str(m["per_switch"]), "--host-per", m["host_per"],
         "--placement", placement, "--topology-conf", conf] + m["tool"])
    env = {k: v for k, v in scale_env(m, placement, "nlevel", conf).items()
           if k not in PAPER_ENV}
    return platform, hostfile, env


def mode_setup(mode):
    """(smpirun --cfg settings, environment, warm-up calls) of a mode."""
    cfg = ["contexts/guard-size:0"]
    if mode in SELECTORS:
        return (cfg + ["smpi/coll-selector:" + mode],
                {"HSPLIT_COLL": "auto", "HSPLIT_COLL_TRIALS": "1"}, AUTO_WARMUP)
    if mode.startswith("flat"):
        k = int(mode[4:]) - 1
        cfg += ["smpi/%s:%s" % (c, FLAT_ALGORITHMS[c][k]) for c in colls_of(mode)]
        if "bcast" not in colls_of(mode):  # the broadcasts that make communicators
            cfg.append("smpi/bcast:" + SETUP_BCAST)
        return cfg, {"HSPLIT_COLL": "off"}, 0
    return (cfg + ["smpi/coll-selector:ompi"],
            {"HSPLIT_COLL": "on", "HSPLIT_COLL_SCHEDULE": mode}, SPEC_WARMUP)


def run_one(out, bench, job, force):
    """One simulation of the sweep (a thread of run's pool): (path, wall)."""
    m, placement, mode, tag, sizes, (platform, hostfile, env) = job
    cfg, mode_env, warmup = mode_setup(mode)
    colls = run_colls(m, mode, sizes)
    harness = ["--span"]
    if m.get("sync_start"):
        harness.append("--sync-start")
        if "bcast" not in colls and not any(c.startswith("smpi/bcast:") for c in cfg):
            cfg.append("smpi/bcast:" + SETUP_BCAST)
    program = [bench, "--coll", ",".join(colls),
               "--sizes", ",".join(str(x) for x in sizes),
               "--max-blocks", str(max_blocks(m, sizes) or min(sizes)), "--iters", str(ITERS),
               "--warmup", str(warmup)] + harness
    return smpirun(out, tag, processes(m), platform, hostfile, dict(env, **mode_env), cfg,
                   program, force, privatize=False, echo=False)


def makespan(seconds, jobs):
    """Wall time of runs of these lengths on `jobs` workers, longest first
    to the least loaded (the order run takes them in)."""
    load = [0.0] * max(1, jobs)
    for x in sorted(seconds, reverse=True):
        load[load.index(min(load))] += x
    return max(load)


def run(args):
    out = os.path.join(args.out, "engine")
    os.makedirs(out, exist_ok=True)
    bench = os.path.join(BUILD, "apps", "bench", "bench_coll")
    todo = runs(args)
    platforms = {}  # made once per machine and placement, before any thread
    jobs = []
    for m, placement, mode, tag in todo:
        key = (m["name"], placement)
        if key not in platforms:
            platforms[key] = platform_env(m, placement, out)
        sizes = sizes_of(m, placement, args)
        jobs.append((m, placement, mode, run_tag(tag, m, placement, sizes), sizes,
                     platforms[key]))
    left = [j for j in jobs if args.force or not os.path.exists(os.path.join(out, j[3] + ".csv"))]
    # the longest first, so that the last runs to end are short ones: by the
    # wall time of the run's last log where there is one (the model misses
    # single slow runs: EPYC16's all:mpi at 4 MiB took 32 minutes)
    expect = {j[3]: expected_s(out, j[0], j[2], j[3], j[4]) for j in left}
    left.sort(key=lambda j: -expect[j[3]])
    print("engine sweep: %d runs, %d to make on %d workers, estimated %s of wall time "
          "(budget %s)" % (len(todo), len(left), args.jobs, fmt_duration(
              makespan(list(expect.values()), args.jobs)),
              fmt_duration(BUDGET_S)), flush=True)
    for j in jobs:
        if j not in left:
            print("%s %s %s: made before (%.0f s)" % (j[0]["name"], j[1], j[2], wall_of(out, j[3])))
    start, spent, done = time.time(), 0.0, 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(run_one, out, bench, j, args.force): j for j in left}
        for f in concurrent.futures.as_completed(futures):
            m, placement, mode, tag, sizes, _ = futures[f]
            path, wall = f.result()
            done += 1
            head = "[%d/%d] %s %s %s" % (done, len(left), m["name"], placement, mode)
            if path is None:
                print("%s failed: see %s" % (head, os.path.join(out, tag + ".log")), flush=True)
                continue
            spent += wall
            print("%s: %.0f s (estimated %.0f s; %s of runs, %s elapsed)" % (
                head, wall, estimate_s(m, mode, sizes), fmt_duration(spent),
                fmt_duration(time.time() - start)), flush=True)
    report(args)


# ---- report ----

CSV_FIELDS = ["machine", "placement", "processes", "collective", "bytes", "schedule",
              "selector", "algorithm", "us", "check", "wall_s"]


def rows_of_run(m, placement, mode, data, wall):
    """The combined CSV's rows of one run's bench CSV: schedule flat or auto or
    a spec; selector ompi, mpich or forced (algorithm: the SMPI name)."""
    rows = []
    for r in data:
        coll, size = r["collective"], int(r["bytes"])
        base = dict(machine=m["name"], placement=placement, processes=r["processes"],
                    collective=coll, bytes=size, check=r["check"],
                    wall_s="" if wall != wall else "%.1f" % wall)
        if mode in SELECTORS:
            rows.append(dict(base, schedule="flat", selector=mode, algorithm="",
                             us=r["mpi_us"]))
            rows.append(dict(base, schedule="auto", selector=mode, algorithm="",
                             us=r["hsplit_us"]))
        elif mode.startswith("flat"):
            alg = FLAT_ALGORITHMS[coll][int(mode[4:]) - 1]
            rows.append(dict(base, schedule="flat", selector="forced", algorithm=alg,
                             us=r["mpi_us"]))
        else:
            rows.append(dict(base, schedule=mode, selector="ompi", algorithm="",
                             us=r["hsplit_us"]))
    return rows


def read_combined(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def mode_of_row(r):
    """The mode (run) a combined CSV row comes from (rows_of_run's inverse)."""
    if r["schedule"] in ("flat", "auto") and r["selector"] in SELECTORS:
        return r["selector"]
    if r["schedule"] == "flat":
        algs = FLAT_ALGORITHMS.get(r["collective"], [])
        return "flat%d" % (algs.index(r["algorithm"]) + 1) if r["algorithm"] in algs else None
    return r["schedule"]


def parts_of(out, base):
    """The CSV files of a run's parts (run_tag), oldest first."""
    try:
        names = [x for x in os.listdir(out) if x.endswith(".csv") and
                 (x == base + ".csv" or x.startswith(base + "@"))]
    except OSError:
        return []
    paths = [os.path.join(out, x) for x in names]
    return sorted(paths, key=os.path.getmtime)


def cell_key(r):
    return (r["machine"], r["placement"], mode_of_row(r), r["collective"], int(r["bytes"]))


def collect(args):
    """Rows of every run: from its bench CSVs where made (the parts of a
    run, oldest first: a cell made again takes the newer time), else from
    the published docs/data/simgrid-engine.csv (cell by cell: a cell made
    again replaces that cell's published rows only); and the wall seconds
    per part (made here, or published)."""
    out = os.path.join(args.out, "engine")
    try:
        published = read_combined(os.path.join(DATA, "simgrid-engine.csv"))
    except OSError:
        published = []
    made, walls = {}, []
    every = argparse.Namespace(**dict(vars(args), full=True))  # runs made beyond the default
    for m, placement, mode, base in runs(every):
        for path in parts_of(out, base):
            tag = os.path.basename(path)[:-len(".csv")]
            wall = wall_of(out, tag)
            for r in rows_of_run(m, placement, mode, read_bench_csv(path), wall):
                made[cell_key(r) + (r["schedule"], r["selector"], r["algorithm"])] = r
            walls.append((m["name"], placement, mode, wall))
    cells_made = {k[:5] for k in made}
    kept = [r for r in published if cell_key(r) not in cells_made]
    # the published runs' parts that still give cells: each part's rows
    # carry its wall seconds (a clean checkout has no logs of them)
    parts = {(r["machine"], r["placement"], mode_of_row(r), float(r["wall_s"]))
             for r in kept if r["wall_s"]}
    return list(made.values()) + kept, walls + sorted(parts)


def cells_of(rows):
    """{(machine, placement, coll, bytes): {label: (us, algorithm)}}; labels:
    ompi, mpich (flat), best_flat, each spec, auto (ompi), auto_mpich."""
    cells = {}
    for r in rows:
        key = (r["machine"], r["placement"], r["collective"], int(r["bytes"]))
        cell = cells.setdefault(key, {})
        us = float(r["us"])
        if r["schedule"] == "flat":
            if r["selector"] in SELECTORS:
                cell[r["selector"]] = (us, r["selector"])
            alg = r["algorithm"] or r["selector"]
            if "best_flat" not in cell or us < cell["best_flat"][0]:
                cell["best_flat"] = (us, alg)
        elif r["schedule"] == "auto":
            cell["auto" if r["selector"] == "ompi" else "auto_mpich"] = (us, "")
        else:
            cell[r["schedule"]] = (us, "")
        if r["check"] not in ("ok", "-", ""):
            cell["diff"] = True
    return cells


def best_of(cell, labels):
    times = [cell[x][0] for x in labels if x in cell]
    return min(times) if times else None


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


TARGET_COLLS = ("bcast", "reduce", "allreduce", "allgather")
LARGE = 32768


def targets(cells):
    """Issue 17's target figures per platform (machine, placement):
    [(platform, name, value, goal, where)], value None where no cell has the
    data. Ratios are old time / new time (> 1: the second is faster)."""
    platforms = sorted({k[:2] for k in cells})
    result = []
    for plat in platforms:
        mine = {k[2:]: c for k, c in cells.items() if k[:2] == plat}
        for sel, auto in (("ompi", "auto"), ("mpich", "auto_mpich")):
            ratios = [(c[sel][0] / c[auto][0], k) for k, c in mine.items()
                      if sel in c and auto in c and c[auto][0] > 0]
            low = min(ratios) if ratios else None
            result.append((plat, "min %s / auto" % sel, low and low[0], 0.98,
                           low and "%s %s" % (low[1][0], fmt_size(low[1][1]))))
        for sel, auto in (("ompi", "auto"), ("mpich", "auto_mpich")):
            ratios = [c[sel][0] / c[auto][0] for k, c in mine.items()
                      if k[0] in TARGET_COLLS and k[1] >= LARGE and sel in c and auto in c
                      and c[auto][0] > 0]
            result.append((plat, "geomean %s / auto; bcast reduce allreduce allgather "
                           ">= 32 KiB" % sel, geomean(ratios), 1.5, "%d cells" % len(ratios)))
        ratios = []
        for k, c in mine.items():
            hier = best_of(c, SPECS)
            if k[0] == "allreduce" and k[1] >= LARGE and hier and "best_flat" in c:
                ratios.append((c["best_flat"][0] / hier, k))
        low = min(ratios) if ratios else None
        result.append((plat, "min allreduce best flat / best hierarchical >= 32 KiB",
                       low and low[0], 1.0, low and fmt_size(low[1][1])))
        # every level: the all: trees and the multi-leader over every level
        # (mlnet: the node and the switches, every level above the node)
        nlevel = [s for s in SPECS if s.startswith("all:") or s in ML_LEVELS]
        twolevel = [s for s in SPECS if s.startswith("two:")]
        ratios = []
        for k, c in mine.items():
            n, t = best_of(c, nlevel), best_of(c, twolevel)
            if n and t:
                ratios.append((t / n, k))
        low = min(ratios) if ratios else None
        result.append((plat, "min two-level / N-level", low and low[0], 1.0,
                       low and "%s %s" % (low[1][0], fmt_size(low[1][1]))))
        large = [r for r, k in ratios if k[1] >= LARGE]
        result.append((plat, "geomean two-level / N-level >= 32 KiB", geomean(large), 1.2,
                       "%d cells" % len(large)))
        # the same with pruning: the N-level hierarchy may use two of its levels
        # (the reading: two-level is one of its choices)
        ratios = []
        for k, c in mine.items():
            n, t = best_of(c, nlevel + twolevel), best_of(c, twolevel)
            if n and t:
                ratios.append((t / n, k))
        low = min(ratios) if ratios else None
        result.append((plat, "min two-level / N-level with pruning", low and low[0], 1.0,
                       low and "%s %s" % (low[1][0], fmt_size(low[1][1]))))
        large = [r for r, k in ratios if k[1] >= LARGE]
        result.append((plat, "geomean two-level / N-level with pruning >= 32 KiB",
                       geomean(large), 1.2, "%d cells" % len(large)))
    return result


def target_lines(figures):
    lines = ["| platform | figure | value | goal | where | |", "|---|---|---:|---:|---|---|"]
    for plat, name, value, goal, where in figures:
        if value is None:
            lines.append("| %s %s | %s | n/a | >= %.2f | no data | - |" % (
                plat[0], plat[1], name, goal))
        else:
            lines.append("| %s %s | %s | %.3f | >= %.2f | %s | %s |" % (
                plat[0], plat[1], name, value, goal, where,
                "met" if value >= goal else "**missed**"))
    return lines


def table_lines(cells, walls):
    lines = []
    order = {m["name"]: i for i, m in enumerate(MACHINES)}
    platforms = sorted({k[:2] for k in cells}, key=lambda p: (order.get(p[0], 99), p[1]))
    for plat in platforms:
        m = next((x for x in MACHINES if x["name"] == plat[0]), None)
        keys = sorted((k for k in cells if k[:2] == plat),
                      key=lambda k: (COLLS.index(k[2]) if k[2] in COLLS else 99, k[3]))
        lines.append("#### %s, %s placement%s\n" % (
            plat[0], plat[1], "" if not m else ": %s, %d processes" % (
                DESCRIPTIONS[m["name"]], processes(m))))
        lines.append("| collective | bytes | ompi us | mpich us | best flat us (alg) | "
                     "two-level (two:mpi) | N-level (all:mpi) | " + " | ".join(OTHER_SPECS) +
                     " | auto | ompi / auto | mpich / auto |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|" + "---:|" * len(OTHER_SPECS) +
                     "---:|---:|---:|")

        def us(c, label):
            return "%.1f" % c[label][0] if label in c else "-"

        def ratio(c, a, b):
            return "%.2f" % (c[a][0] / c[b][0]) if a in c and b in c and c[b][0] > 0 else "-"

        for k in keys:
            c = cells[k]
            flat = "%.1f (%s)" % c["best_flat"] if "best_flat" in c else "-"
            lines.append("| %s%s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                k[2], " (DIFF)" if c.get("diff") else "", fmt_size(k[3]), us(c, "ompi"),
                us(c, "mpich"), flat, us(c, "two:mpi"), us(c, "all:mpi"),
                " | ".join(us(c, s) for s in OTHER_SPECS), us(c, "auto"), ratio(c, "ompi", "auto"),
                ratio(c, "mpich", "auto_mpich")))
        mine = [w for w in walls if w[:2] == plat and w[3] == w[3]]
        if mine:
            lines.append("\nSimulation wall time: %d runs, %.0f s (%s); longest %s, %.0f s.\n"
                         % (len(mine), sum(w[3] for w in mine),
                            fmt_duration(sum(w[3] for w in mine)),
                            max(mine, key=lambda w: w[3])[2], max(w[3] for w in mine)))
        else:
            lines.append("")
    return lines


def write_results_section(fragment):
    """Put the fragment between the markers of docs/results.md."""
    with open(RESULTS) as f:
        text = f.read()
    if MARKERS[0] not in text or MARKERS[1] not in text:
        sys.exit("simgrid_engine: markers %s %s missing in %s" % (MARKERS + (RESULTS,)))
    head, rest = text.split(MARKERS[0], 1)
    _, tail = rest.split(MARKERS[1], 1)
    with open(RESULTS, "w") as f:
        f.write(head + MARKERS[0] + "\n" + fragment + MARKERS[1] + tail)


def report(args):
    rows, walls = collect(args)
    if not rows:
        print("simgrid_engine: no runs made and none published")
        return
    os.makedirs(DATA, exist_ok=True)
    order = {m["name"]: i for i, m in enumerate(MACHINES)}
    rows.sort(key=lambda r: (order.get(r["machine"], 99), r["placement"],
                             COLLS.index(r["collective"]), int(r["bytes"]), r["schedule"],
                             r["selector"], r["algorithm"]))
    with open(os.path.join(DATA, "simgrid-engine.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, CSV_FIELDS, lineterminator="\n", extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    cells = cells_of(rows)
    fragment = "\n".join(table_lines(cells, walls) +
                         ["#### Issue 17's targets\n"] + target_lines(targets(cells))) + "\n"
    with open(os.path.join(DATA, "simgrid-engine.md"), "w") as f:
        f.write(fragment)
    if not args.no_results:
        write_results_section(fragment)
    print("wrote %s, %s%s" % (os.path.join(DATA, "simgrid-engine.md"),
                              os.path.join(DATA, "simgrid-engine.csv"),
                              "" if args.no_results else " and " + RESULTS))


def estimate(args):
    """Per machine and in all: the runs' last measured wall times where they
    ran the same sizes, else the model's."""
    out = os.path.join(args.out, "engine")
    each, by, measured = [], {}, 0
    for m, placement, mode, base in runs(args):
        sizes = sizes_of(m, placement, args)
        tag = run_tag(base, m, placement, sizes)
        x = expected_s(out, m, mode, tag, sizes)
        measured += measured_s(out, tag, sizes) is not None
        each.append(x)
        key = "%s %s" % (m["name"], placement)
        by[key] = by.get(key, 0.0) + x
    for key, s in by.items():
        print("%-16s %s" % (key, fmt_duration(s)))
    print("%-16s %s of runs, %s of wall time on %d workers (budget %s); %d of %d runs "
          "by their last wall time, the others by the model" % (
              "all", fmt_duration(sum(each)), fmt_duration(makespan(each, args.jobs)),
              args.jobs, fmt_duration(BUDGET_S), measured, len(each)))


SHAPES = ("mpi", "flat", "chain", "binomial", "binary", "rd", "ring", "rab")


def parse_modes(text):
    """Modes separated by commas, where a schedule's own commas separate its
    shapes: a word that is a shape (all:mpi,ring) continues the schedule
    before it."""
    modes = []
    for word in text.split(","):
        if modes and ":" in modes[-1] and word.split("/")[0] in SHAPES:
            modes[-1] += "," + word
        else:
            modes.append(word)
    return modes


def parse_size(text):
    text = text.strip().upper().rstrip("B")
    factor = {"K": 1 << 10, "M": 1 << 20}.get(text[-1:], 1)
    value = int(text[:-1] if factor > 1 else text) * factor
    if value not in SIZES:
        raise argparse.ArgumentTypeError("sizes: each one of 8,128,2K,32K,512K,4M")
    return value


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("what", choices=["run", "report", "estimate", "targets"])
    p.add_argument("--out", default=os.path.join(BUILD, "experiments"))
    p.add_argument("--force", action="store_true", help="rerun simulations already made")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="simulations at a time (default: one per core; each is one process)")
    p.add_argument("--machines", type=lambda s: s.split(","),
                   help="only these (comma-separated: %s)" % ",".join(
                       m["name"] for m in MACHINES))
    p.add_argument("--placements", type=lambda s: s.split(","), help="block,cyclic")
    p.add_argument("--modes", type=parse_modes,
                   help="only these modes (%s), or other schedules (their runs go to the "
                   "CSV, not the tables)" % ",".join(mode_names()))
    p.add_argument("--sizes", type=lambda s: sorted(parse_size(x) for x in s.split(",")),
                   help="message sizes (from 8,128,2K,32K,512K,4M; a machine's largest "
                   "still applies); bench_coll runs the series from the smallest to the "
                   "largest, the tables show these")
    p.add_argument("--colls", type=lambda s: s.split(","),
                   help="only these collectives in each run (from %s); the other cells keep "
                   "their published times" % ",".join(COLLS))
    p.add_argument("--full", action="store_true",
                   help="every machine and placement to its largest size (issue 17's whole "
                   "sweep, far beyond 2 hours here: see estimate --full)")
    p.add_argument("--no-results", action="store_true",
                   help="report: leave docs/results.md as it is")
    p.add_argument("--data", help="targets: the combined CSV to read")
    args = p.parse_args()
    if args.colls:
        bad = [c for c in args.colls if c not in COLLS]
        if bad:
            p.error("unknown collective %s (from %s)" % (",".join(bad), ",".join(COLLS)))
        ONLY_COLLS[:] = args.colls
    if args.what == "targets":
        for plat, name, value, goal, where in targets(cells_of(read_combined(args.data))):
            print("%s,%s,%s,%s,%s" % (plat[0], plat[1], name,
                                      "n/a" if value is None else "%.4f" % value,
                                      "n/a" if value is None else
                                      "met" if value >= goal else "missed"))
    elif args.what == "run":
        run(args)
    elif args.what == "estimate":
        estimate(args)
    else:
        report(args)


if __name__ == "__main__":
    main()
