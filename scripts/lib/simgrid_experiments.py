#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The simulated experiments of docs/results.md, run with SimGrid's SMPI on
the SMPI build (build/smpi, made by scripts/simgrid build).

  paper   the paper's section 7.2 (figures 5-10) at full size: for each
          broadcast and reduce algorithm of the paper, forced on every level
          (smpirun --cfg=smpi/bcast:NAME), the enhancement factor of
          HSPLIT_Bcast / HSPLIT_Reduce over MPI_Bcast / MPI_Reduce on
          NTW10E5 (240 processes), SMP12E5 (96) and SMP20E7 (160)
  scale   64 and 1024 nodes of 2x EPYC 7763 in a two-level switch tree:
          hsplit's N-level hierarchy against the two-level one and against
          the best flat algorithm, for bcast, reduce, allreduce and the ASP
          and SUMMA communication patterns
  report  tables (markdown), CSV and plots from the runs already made

Each run's output (bench CSV and log) goes to --out (default
build/smpi/experiments); a run whose CSV exists is not run again (--force
reruns). Tables, combined CSV and plots go to docs/data and docs/img.
"""
import argparse
import csv
import os
import shlex
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# the SMPI build tree: HSPLIT_SMPI_BUILD, or build/smpi (scripts/simgrid build)
BUILD = os.environ.get("HSPLIT_SMPI_BUILD") or os.path.join(ROOT, "build", "smpi")
PLATFORM_TOOL = os.path.join(ROOT, "tools", "hsplit-platform")
XML = os.path.join(ROOT, "tests", "topology", "xml")
DATA = os.path.join(ROOT, "docs", "data")
IMG = os.path.join(ROOT, "docs", "img")

# ---- the paper's section 7.2 ----

# The paper's machines (its table 1). The SGI machines' blades (pairs of
# sockets, which the paper's hwloc grouped by NUMA distance: 3 levels) are
# hwloc Groups of a synthetic topology.
PAPER_MACHINES = [
    dict(name="NTW10E5", nodes=10, per_node=24, preset="haswell-qdr",
         topology=os.path.join(XML, "Intel-Haswell-2xXeon-E5-2680v3.xml"),
         paper={"bcast": 21, "reduce": 39}),
    dict(name="SMP12E5", nodes=1, per_node=96, preset="ivybridge-numalink6",
         topology="group:6 pack:2 [numa] l3:1 core:8 pu:2",
         paper={"bcast": 22, "reduce": 8}),
    dict(name="SMP20E7", nodes=1, per_node=160, preset="westmere-numalink5",
         topology="group:10 pack:2 [numa] l3:1 core:8 pu:1",
         paper={"bcast": 11, "reduce": 11}),
]

# The paper's Open MPI algorithms (coll_tuned) and SMPI's implementation of
# each (docs/results.md explains the two that are not Open MPI's own code).
# SMPI 3.32 aborts when its own split binary (ompi_split_bintree) or binary
# tree (NTSB) broadcast is forced: SMPI broadcasts with the forced algorithm
# inside every new communicator, the hierarchy's one-process ones included,
# and its ompi_split_bintree's small-message fallback sends to a rank that
# never receives. Those two run in bench_coll_ompi_bcast instead, whose
# MPI_Bcast (apps/bench/ompi_bcast_shim.c) is Open MPI's algorithm, chosen
# by HSPLIT_SIM_BCAST; SMPI's own broadcast stays SETUP_BCAST.
PAPER_ALGORITHMS = {
    "bcast": [("Linear", "flattree"), ("Chain", "NTSL"), ("Pipeline", "ompi_pipeline"),
              ("Split Binary", "shim_split_binary"), ("Binary", "shim_binary"),
              ("Binomial", "binomial_tree")],
    "reduce": [("Linear", "ompi_basic_linear"), ("Chain", "ompi_chain"),
               ("Pipeline", "ompi_pipeline"), ("Binary", "ompi_binary"),
               ("Binomial", "ompi_binomial"), ("In-order Binary", "ompi_in_order_binary")],
}
# shim_NAME: HSPLIT_SIM_BCAST=NAME in bench_coll_ompi_bcast
SHIM_PREFIX = "shim_"

# No pipelining inside hsplit: the paper's hierarchical version is a plain
# loop over the levels calling the forced MPI collective once per level.
# HSPLIT_COLL=on: the hierarchical side always takes the hierarchy (auto
# mode would send calls where plain MPI measures faster to plain MPI).
PAPER_ENV = {"HSPLIT_COLL": "on", "HSPLIT_COLL_SEGMENT_SIZE": str(64 << 20)}

# Where a run forces no broadcast (the reduce runs), the broadcasts that
# make communicators (SMPI's own, inside MPI_Comm_split and MPI_Comm_dup)
# and hsplit's setup use the binomial tree: SMPI's Open MPI selection may
# pick an SMP-aware broadcast whose setup costs O(P^2) simulated messages
# per new communicator. No timed call is a broadcast there.
SETUP_BCAST = "binomial_tree"


def smpi_flags():
    return subprocess.run([sys.executable, PLATFORM_TOOL, "--print-smpi-flags"], check=True,
                          capture_output=True, text=True).stdout.split()


def make_platform(out, name, topology, nodes, preset, extra=()):
    platform = os.path.join(out, name + ".xml")
    hostfile = os.path.join(out, name + ".hosts")
    if not os.path.exists(platform):
        subprocess.run([sys.executable, PLATFORM_TOOL, "--topology", topology, "--nodes",
                        str(nodes), "--preset", preset, "--platform", platform, "--hostfile",
                        hostfile] + list(extra), check=True)
    return platform, hostfile


def smpirun(out, tag, np, platform, hostfile, env, cfg, program, force=False, privatize=True,
            echo=True):
    """Run one simulation; its CSV is out/tag.csv, its log out/tag.log (whose
    first line is the command; echo: print it too). Returns (csv path, wall
    seconds) or (csv path, None) when it was there."""
    csv_path = os.path.join(out, tag + ".csv")
    log_path = os.path.join(out, tag + ".log")
    if os.path.exists(csv_path) and not force:
        return csv_path, None
    cmd = ["smpirun", "-np", str(np), "-platform", platform, "-hostfile", hostfile]
    if not privatize:
        cmd.append("-no-privatize")
    cmd += smpi_flags() + ["--log=root.thresh:warning"] + ["--cfg=" + c for c in cfg]
    cmd += program + ["--csv", csv_path + ".part"]
    run_env = dict(os.environ, **env)
    run_env.pop("HSPLIT_SMPI_BUILD", None)  # bench_coll prints every HSPLIT_* variable
    shown = " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in env.items())
    if echo:
        print("[%s] %s %s" % (tag, shown, " ".join(shlex.quote(c) for c in cmd)), flush=True)
    start = time.time()
    with open(log_path, "w") as log:
        log.write("# %s %s\n" % (shown, " ".join(shlex.quote(c) for c in cmd)))
        log.flush()
        rc = subprocess.run(cmd, env=run_env, stdout=log, stderr=subprocess.STDOUT).returncode
    wall = time.time() - start
    with open(log_path, "a") as log:
        log.write("# wall %.1f s, exit %d\n" % (wall, rc))
    if rc != 0:  # reported, and left out of the tables; the others go on
        if echo:
            print("simulation %s failed (exit %d): see %s" % (tag, rc, log_path), flush=True)
        return None, None
    os.rename(csv_path + ".part", csv_path)
    return csv_path, wall


def read_bench_csv(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def wall_of(out, tag):
    try:
        with open(os.path.join(out, tag + ".log")) as f:
            for line in f:
                if line.startswith("# wall "):
                    return float(line.split()[2])
    except OSError:
        pass
    return float("nan")


def published_rows(name, key_fields):
    """The rows of docs/data/NAME (the published combined CSV) by run:
    {tuple of key_fields: [row dict, ...]}. Runs whose bench CSV is not in
    --out (a fresh checkout has none) are reported from these, so that a
    report after running a few simulations keeps the others."""
    runs = {}
    try:
        with open(os.path.join(DATA, name), newline="") as f:
            for r in csv.DictReader(f):
                runs.setdefault(tuple(r[k] for k in key_fields), []).append(r)
    except OSError:
        pass
    return runs


def published_paper_walls():
    """Wall seconds of each run in the published docs/data/simgrid-paper72.md
    (its tables' last column): {(machine, collective, smpi_name): s}."""
    walls, machine, coll = {}, None, None
    try:
        with open(os.path.join(DATA, "simgrid-paper72.md")) as f:
            for line in f:
                if line.startswith("#### "):
                    machine, coll = line[5:].split(",")[0], line.split(",")[1].strip()
                elif line.startswith("| ") and "(`" in line:
                    name = line.split("(`")[1].split("`)")[0]
                    cell = line.rstrip().rstrip("|").split("|")[-1].strip()
                    try:
                        walls[(machine, coll, name)] = float(cell)
                    except ValueError:
                        pass
    except OSError:
        pass
    return walls


def wall_cell(w):
    return "" if w != w else "%.1f" % w


def run_paper(args):
    out = os.path.join(args.out, "paper72")
    os.makedirs(out, exist_ok=True)
    bench = os.path.join(BUILD, "apps", "bench", "bench_coll")
    for m in PAPER_MACHINES:
        if args.machines and m["name"] not in args.machines.split(","):
            continue
        platform, hostfile = make_platform(out, m["name"], m["topology"], m["nodes"],
                                           m["preset"])
        env = dict(PAPER_ENV, HSPLIT_TOPOLOGY=m["topology"], HSPLIT_NODES=str(m["per_node"]))
        np = m["nodes"] * m["per_node"]
        for coll, algorithms in PAPER_ALGORITHMS.items():
            for _, smpi_name in algorithms:
                if args.algorithms and smpi_name not in args.algorithms.split(","):
                    continue
                tag = "%s-%s-%s" % (m["name"], coll, smpi_name)
                program = [bench, "--coll", coll, "--iters", "1", "--warmup", "0",
                           "--step", str(args.step)]
                run_env = env
                if smpi_name.startswith(SHIM_PREFIX):
                    program[0] = bench + "_ompi_bcast"
                    run_env = dict(env, HSPLIT_SIM_BCAST=smpi_name[len(SHIM_PREFIX):])
                    cfg = ["smpi/bcast:" + SETUP_BCAST]
                else:
                    cfg = ["smpi/%s:%s" % (coll, smpi_name)]
                    if coll != "bcast":
                        cfg.append("smpi/bcast:" + SETUP_BCAST)
                _, wall = smpirun(out, tag, np, platform, hostfile, run_env, cfg, program,
                                  args.force)
                if wall is not None:
                    print("[%s] %.1f s" % (tag, wall), flush=True)
    if not args.no_report:
        report_paper(args)


def fmt_size(b):
    b = int(b)
    if b >= 1 << 20:
        return "%dM" % (b >> 20)
    if b >= 1 << 10:
        return "%dK" % (b >> 10)
    return str(b)


def gnuplot(script):
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def report_paper(args):
    out = os.path.join(args.out, "paper72")
    os.makedirs(DATA, exist_ok=True)
    os.makedirs(IMG, exist_ok=True)
    combined = os.path.join(DATA, "simgrid-paper72.csv")
    published = published_rows("simgrid-paper72.csv",
                               ("machine", "collective", "smpi_algorithm"))
    published_walls = published_paper_walls()
    rows, lines = [], []
    maxima = {}
    for m in PAPER_MACHINES:
        for coll, algorithms in PAPER_ALGORITHMS.items():
            table, sizes = [], None
            for paper_name, smpi_name in algorithms:
                tag = "%s-%s-%s" % (m["name"], coll, smpi_name)
                path = os.path.join(out, tag + ".csv")
                key = (m["name"], coll, smpi_name)
                if os.path.exists(path):
                    data, wall = read_bench_csv(path), wall_of(out, tag)
                elif key in published:
                    data = [dict(r, mpi_us=r["flat_us"]) for r in published[key]]
                    wall = float(data[0].get("wall_s") or published_walls.get(key, "nan"))
                else:
                    continue
                sizes = [r["bytes"] for r in data]
                for r in data:
                    rows.append([m["name"], coll, paper_name, smpi_name, r["bytes"],
                                 r["processes"], r["mpi_us"], r["hsplit_us"], r["factor"],
                                 r["check"], wall_cell(wall)])
                factors = [float(r["factor"]) for r in data]
                best = max(range(len(factors)), key=lambda i: factors[i])
                checks = "ok" if all(r["check"] == "ok" for r in data) else "DIFF"
                table.append((paper_name, smpi_name, factors, best, checks, wall))
                key = (m["name"], coll)
                if key not in maxima or factors[best] > maxima[key][0]:
                    maxima[key] = (factors[best], paper_name, sizes[best])
            if not table:
                continue
            shown = [i for i, s in enumerate(sizes) if int(s) in
                     (4, 64, 1024, 16384, 262144, 4194304)]
            lines.append("#### %s, %s, %d processes\n" % (m["name"], coll,
                                                             m["nodes"] * m["per_node"]))
            lines.append("| algorithm (SMPI name) | " +
                         " | ".join(fmt_size(sizes[i]) for i in shown) +
                         " | max (at size) | check | wall s |")
            lines.append("|---|" + "---:|" * len(shown) + "---:|---|---:|")
            for paper_name, smpi_name, factors, best, checks, wall in table:
                lines.append("| %s (`%s`) | %s | **%.1f** (%s) | %s | %.0f |" % (
                    paper_name, smpi_name, " | ".join("%.2f" % factors[i] for i in shown),
                    factors[best], fmt_size(sizes[best]), checks, wall))
            lines.append("")
            plot_paper(out, m, coll, table, sizes)
    with open(combined, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["machine", "collective", "algorithm", "smpi_algorithm", "bytes",
                    "processes", "flat_us", "hsplit_us", "factor", "check", "wall_s"])
        w.writerows(rows)
    summary = ["| machine | collective | simulated max (algorithm, size) | paper max |",
               "|---|---|---:|---:|"]
    for m in PAPER_MACHINES:
        for coll in PAPER_ALGORITHMS:
            if (m["name"], coll) in maxima:
                f, a, s = maxima[(m["name"], coll)]
                summary.append("| %s | %s | %.1fx (%s, %s) | %dx |" % (
                    m["name"], coll, f, a, fmt_size(s), m["paper"][coll]))
    md = os.path.join(DATA, "simgrid-paper72.md")
    with open(md, "w") as f:
        f.write("\n".join(summary) + "\n\n" + "\n".join(lines))
    print("wrote %s, %s and plots in %s" % (combined, md, IMG))


def plot_paper(out, m, coll, table, sizes):
    os.makedirs(out, exist_ok=True)
    dat = os.path.join(out, "%s-%s.dat" % (m["name"], coll))
    with open(dat, "w") as f:
        for i, s in enumerate(sizes):
            f.write("%s %s\n" % (s, " ".join("%.4f" % t[2][i] for t in table)))
    png = os.path.join(IMG, "sim-paper72-%s-%s.png" % (m["name"].lower(), coll))
    plots = ", ".join('"%s" using 1:%d with linespoints title "%s"' % (dat, i + 2, t[0])
                      for i, t in enumerate(table))
    gnuplot("""set terminal pngcairo size 800,480 font ",11"
set output "%s"
set title "%s: hierarchical %s / flat %s (simulated, %d processes)"
set logscale x 2
set xtics ("4" 4, "64" 64, "1K" 1024, "16K" 16384, "256K" 262144, "4M" 4194304)
set xlabel "message size (bytes)"
set ylabel "enhancement factor"
set key top left
set grid
set yrange [0:*]
plot %s, 1 with lines dashtype 2 lc rgb "gray" notitle
""" % (png, m["name"], coll, coll, m["nodes"] * m["per_node"], plots))


# ---- at scale: 2x EPYC 7763 nodes in a two-level switch tree ----

# Each node is described at the granularity of its ranks (hwloc synthetic
# topologies): one rank per L3 (CCD, 8 cores: the hybrid MPI + threads
# layout usual on these nodes) on 64 nodes, one rank per socket on 1024
# nodes. 16 and 32 nodes per leaf switch.
SCALE_MACHINES = [
    dict(name="EPYC64", nodes=64, per_switch=16, topology="pack:2 [numa] l3:8 pu:1",
         host_per="l3cache", bind="l3cache", per_node=16),
    dict(name="EPYC1024", nodes=1024, per_switch=32, topology="pack:2 [numa] pu:1",
         host_per="package", bind="package", per_node=2),
]
# Flat algorithms tried for each collective (the same forced on every level
# of the hierarchies); "best flat" is the fastest of them at each size.
# Ring-based algorithms (scatter_LR_allgather, ompi_ring_segmented, lr) are
# left out: P steps of P concurrent messages each make them too slow to
# simulate at these sizes on a small machine. SMPI 3.32's Rabenseifner
# reduce (rab) crashes at 1024 processes (segmentation fault at 8 bytes).
SCALE_ALGORITHMS = {
    "bcast": ["binomial_tree", "ompi_pipeline", "scatter_rdb_allgather"],
    "reduce": ["ompi_binomial", "ompi_pipeline", "ompi_binary"],
    "allreduce": ["rdb", "rab_rdb"],
}
SCALE_PATTERN_BCASTS = ["binomial_tree", "ompi_pipeline"]
# N-level: switches, node, package, L3; two-level: node and inter-node (HAN's
# shape: unbound processes stop at the node level, no switches).
SCALE_MODES = ["nlevel", "twolevel"]
SCALE_PLACEMENTS = ["block", "cyclic"]


def scale_env(m, placement, mode, conf):
    env = dict(PAPER_ENV, HSPLIT_TOPOLOGY=m["topology"])
    env["HSPLIT_NODES"] = (str(m["per_node"]) if placement == "block"
                           else "cyclic:%d" % m["nodes"])
    if mode == "nlevel":
        env["HSPLIT_BIND"] = m["bind"]
        env["HSPLIT_NETWORK"] = conf
    else:
        env["HSPLIT_BIND"] = "none"
    return env


def scale_runs(args):
    """(machine, placement, kind, name, mode, tag) of every run."""
    runs = []
    for m in SCALE_MACHINES:
        if args.machines and m["name"] not in args.machines.split(","):
            continue
        for placement in SCALE_PLACEMENTS:
            if args.placements and placement not in args.placements.split(","):
                continue
            for mode in SCALE_MODES:
                for coll, algorithms in SCALE_ALGORITHMS.items():
                    for alg in algorithms:
                        runs.append((m, placement, coll, alg, mode, "%s-%s-%s-%s-%s" % (
                            m["name"], placement, coll, alg, mode)))
                for alg in SCALE_PATTERN_BCASTS:
                    runs.append((m, placement, "patterns", alg, mode, "%s-%s-patterns-%s-%s" % (
                        m["name"], placement, alg, mode)))
    return runs


def run_scale(args):
    out = os.path.join(args.out, "scale")
    os.makedirs(out, exist_ok=True)
    bin_dir = os.path.join(BUILD, "apps", "bench")
    for m, placement, kind, alg, mode, tag in scale_runs(args):
        name = "%s-%s" % (m["name"], placement)
        platform, hostfile = make_platform(
            out, name, m["topology"], m["nodes"], "epyc7763-hdr",
            ["--nodes-per-switch", str(m["per_switch"]), "--host-per", m["host_per"],
             "--placement", placement, "--topology-conf", os.path.join(out, name + ".conf")])
        env = scale_env(m, placement, mode, os.path.join(out, name + ".conf"))
        np = m["nodes"] * m["per_node"]
        # a forced broadcast everywhere: see SETUP_BCAST
        cfg = ["contexts/guard-size:0"]
        if kind == "patterns":
            cfg.append("smpi/bcast:" + alg)
            program = [os.path.join(bin_dir, "bench_patterns"), "--n", "16384", "--steps", "8",
                       "--block", "64", "--span"]
        else:
            cfg.append("smpi/%s:%s" % (kind, alg))
            if kind != "bcast":
                cfg.append("smpi/bcast:" + SETUP_BCAST)
            program = [os.path.join(bin_dir, "bench_coll"), "--coll", kind, "--min", "8",
                       "--max", str(args.scale_max), "--step", "16", "--iters", "1",
                       "--warmup", "0", "--span"]
        _, wall = smpirun(out, tag, np, platform, hostfile, env, cfg, program, args.force,
                          privatize=False)
        if wall is not None:
            print("[%s] %.1f s" % (tag, wall), flush=True)
    if not args.no_report:
        report_scale(args)


def report_scale(args):
    out = os.path.join(args.out, "scale")
    os.makedirs(DATA, exist_ok=True)
    os.makedirs(IMG, exist_ok=True)
    # published runs by (machine, placement, collective or "patterns", algorithm, hierarchy)
    published = {}
    for r in sum(published_rows("simgrid-scale.csv", ()).values(), []):
        kind = "patterns" if r["collective"] in ("asp", "summa") else r["collective"]
        published.setdefault((r["machine"], r["placement"], kind, r["algorithm"],
                              r["hierarchy"]), []).append(r)
    rows, walls = [], []  # walls: (tag, seconds or nan) of every run reported
    # best[(machine, placement, coll, bytes)] -> {"flat": (t, alg), "nlevel": ..., ...}
    best = {}
    for m, placement, kind, alg, mode, tag in scale_runs(args):
        path = os.path.join(out, tag + ".csv")
        key = (m["name"], placement, kind, alg, mode)
        if os.path.exists(path):
            wall = wall_of(out, tag)
            data = []
            for r in read_bench_csv(path):
                data.append(dict(collective=r.get("collective") or r["pattern"],
                                 bytes=r.get("bytes") or r["max_bytes"], processes=r["processes"],
                                 flat_us=r["mpi_us"], hsplit_us=r["hsplit_us"], check=r["check"]))
        elif key in published:
            data = published[key]
            wall = float(data[0].get("wall_s") or "nan")
        else:
            continue
        walls.append((tag, wall))
        for r in data:
            coll, size = r["collective"], int(r["bytes"])
            rows.append([m["name"], m["nodes"], r["processes"], placement, coll, alg, mode,
                         size, r["flat_us"], r["hsplit_us"], r["check"], wall_cell(wall)])
            key2 = (m["name"], placement, coll, size)
            entry = best.setdefault(key2, {})
            for label, t in (("flat", float(r["flat_us"])), (mode, float(r["hsplit_us"]))):
                if label not in entry or t < entry[label][0]:
                    entry[label] = (t, alg)
    with open(os.path.join(DATA, "simgrid-scale.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["machine", "nodes", "processes", "placement", "collective", "algorithm",
                    "hierarchy", "bytes", "flat_us", "hsplit_us", "check", "wall_s"])
        w.writerows(rows)
    lines = []
    order = ["bcast", "reduce", "allreduce", "asp", "summa"]
    for m in SCALE_MACHINES:
        for placement in SCALE_PLACEMENTS:
            keys = sorted(k for k in best if k[0] == m["name"] and k[1] == placement)
            if not keys:
                continue
            lines.append("#### %s: %d nodes, %d processes, %s placement\n" % (
                m["name"], m["nodes"], m["nodes"] * m["per_node"], placement))
            lines.append("| collective | bytes | best flat us (algorithm) | two-level us "
                         "(algorithm) | N-level us (algorithm) | flat / N-level | "
                         "two-level / N-level |")
            lines.append("|---|---:|---:|---:|---:|---:|---:|")
            for k in sorted(keys, key=lambda k: (order.index(k[2]), k[3])):
                e = best[k]
                if not all(x in e for x in ("flat", "twolevel", "nlevel")):
                    continue
                f, t, n = e["flat"], e["twolevel"], e["nlevel"]
                lines.append("| %s | %s | %.1f (%s) | %.1f (%s) | %.1f (%s) | **%.2f** | %.2f |" % (
                    k[2], fmt_size(k[3]), f[0], f[1], t[0], t[1], n[0], n[1], f[0] / n[0],
                    t[0] / n[0]))
            lines.append("")
    known = [(t, w) for t, w in walls if w == w]
    if known:
        lines.append("Simulation wall time: %d runs%s, %.0f s in all; per machine: %s. The "
                     "wall time of each run is the wall_s column of simgrid-scale.csv.\n" % (
            len(known), "" if len(known) == len(walls) else
            " (of %d; the others' wall time was not recorded)" % len(walls),
            sum(w for _, w in known), ", ".join(
                "%s %.0f s (longest run %.0f s)" % (
                    m["name"], sum(w for t, w in known if t.startswith(m["name"] + "-")),
                    max([w for t, w in known if t.startswith(m["name"] + "-")] or [0]))
                for m in SCALE_MACHINES)))
    else:
        lines.append(published_wall_summary())
    with open(os.path.join(DATA, "simgrid-scale.md"), "w") as f:
        f.write("\n".join(lines))
    plot_scale(out, best)
    print("wrote %s, %s and plots sim-scale-*.png in %s" % (
        os.path.join(DATA, "simgrid-scale.md"), os.path.join(DATA, "simgrid-scale.csv"), IMG))


def published_wall_summary():
    """The wall-time line of the published simgrid-scale.md, kept when every
    run comes from the published CSV (runs made before the CSV had wall_s)."""
    try:
        with open(os.path.join(DATA, "simgrid-scale.md")) as f:
            for line in f:
                if line.startswith("Simulation wall time:"):
                    return line.rstrip("\n") + "\n"
    except OSError:
        pass
    return ""


SCALE_SERIES = [("EPYC64", "block", "#1f77b4"), ("EPYC64", "cyclic", "#2ca02c"),
                ("EPYC1024", "block", "#d62728"), ("EPYC1024", "cyclic", "#9467bd")]


def plot_scale(out, best):
    """docs/img/sim-scale-COLL.png: best flat / N-level (solid) and two-level /
    N-level (dashed) against the message size, one colour per machine and
    placement."""
    os.makedirs(out, exist_ok=True)
    for coll in ("bcast", "reduce", "allreduce"):
        plots, top = [], 8
        for machine, placement, colour in SCALE_SERIES:
            sizes = sorted(k[3] for k, e in best.items() if k[:3] == (machine, placement, coll)
                           and all(x in e for x in ("flat", "twolevel", "nlevel")))
            if not sizes:
                continue
            top = max(top, sizes[-1])
            dat = os.path.join(out, "%s-%s-%s.dat" % (machine, placement, coll))
            with open(dat, "w") as f:
                for size in sizes:
                    e = best[(machine, placement, coll, size)]
                    f.write("%d %.4f %.4f\n" % (size, e["flat"][0] / e["nlevel"][0],
                                                  e["twolevel"][0] / e["nlevel"][0]))
            procs = {m["name"]: m["nodes"] * m["per_node"] for m in SCALE_MACHINES}[machine]
            label = "%s %s (%d)" % (machine, placement, procs)
            plots.append('"%s" using 1:2 with linespoints lw 2 lc rgb "%s" title "flat / N-level, %s"'
                         % (dat, colour, label))
            plots.append('"%s" using 1:3 with linespoints dashtype 2 lc rgb "%s" '
                         'title "two-level / N-level, %s"' % (dat, colour, label))
        if not plots:
            continue
        png = os.path.join(IMG, "sim-scale-%s.png" % coll)
        gnuplot("""set terminal pngcairo size 800,600 font ",11"
set output "%s"
set title "%s at scale: time of best flat and two-level over N-level (simulated)"
set logscale x 2
set xrange [6:%d]
set xtics ("8" 8, "128" 128, "2K" 2048, "32K" 32768, "512K" 524288)
set xlabel "message size (bytes)" offset 0,0.5
set ylabel "time ratio (> 1: N-level faster)"
set key below maxcols 2 spacing 1.1 font ",9"
set grid
set yrange [0:*]
plot %s, 1 with lines dashtype 3 lc rgb "gray" notitle
""" % (png, coll, int(top * 1.4), ", ".join(plots)))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("what", choices=["paper", "scale", "report", "report-scale"])
    p.add_argument("--out", default=os.path.join(BUILD, "experiments"))
    p.add_argument("--force", action="store_true", help="rerun simulations already made")
    p.add_argument("--step", type=int, default=2, choices=[2, 4],
                   help="paper: message sizes grow by this factor (default 2)")
    p.add_argument("--scale-max", type=int, default=32768,
                   help="scale: largest message (sizes 8 B, x16, up to this)")
    p.add_argument("--machines", help="only these machines (comma-separated; paper: NTW10E5,"
                   "SMP12E5,SMP20E7, scale: EPYC64,EPYC1024); report: all")
    p.add_argument("--algorithms", help="paper: only these SMPI names (comma-separated, as in "
                   "the tables, e.g. shim_binary,shim_split_binary)")
    p.add_argument("--placements", help="scale: only these (comma-separated: block,cyclic)")
    p.add_argument("--no-report", action="store_true",
                   help="paper, scale: run only (several at once: report afterwards)")
    args = p.parse_args()
    if args.what == "paper":
        run_paper(args)
    elif args.what == "report":
        report_paper(args)
    elif args.what == "report-scale":
        report_scale(args)
    else:
        run_scale(args)


if __name__ == "__main__":
    main()
