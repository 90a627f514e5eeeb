# SPDX-License-Identifier: BSD-3-Clause
"""An HSPLIT_COLL_RULES file (user guide, section 8.5) from bench_coll --csv
files of runs with the paths forced: for each collective and size class, the
fastest of plain MPI and the forced paths.

Inputs: PATH=FILE arguments, PATH one of plain, tree, shm or a schedule of
the engine (user guide, section 8.6: two:mpi, all:binomial, ml, ...), each at
most once (tree: HSPLIT_COLL=on HSPLIT_COLL_SHM=off; shm: HSPLIT_COLL=on
HSPLIT_COLL_SHM=on; a schedule S: HSPLIT_COLL=on HSPLIT_COLL_SCHEDULE=S;
plain: HSPLIT_COLL=off, optional). Every run measures
MPI's own call too (mpi_us); plain MPI's time is the smallest mpi_us of the
files (and the plain run's hsplit_us), a forced path's its file's hsplit_us.
A row whose check is not "ok" does not count for its path. Ties go to plain
MPI, then tree, then shm, then the schedules in the order given.

bench_coll's bytes are per process; the size the library's choice sees is
the same except for reduce_scatter_block and reduce_scatter (the whole
vector: bytes x processes) and alltoallv (a process's sends: bytes x
processes), which are converted first (user guide, section 8.2).

Rules cover whole size classes (bytes in [2^(c-1), 2^c - 1], class 0: no
bytes), as auto mode decides per class: sizes measured in one class are
summed per path; consecutive measured classes with the same winner make one
rule, from the first class's lowest size to the last one's highest (the
classes between them included); classes between two different winners, and
sizes beyond the sweep, are left to auto mode's measurement. Processes: the
runs' count; depth: any."""
import csv
import re
import sys

# bench_coll's and the library's order of the collectives
KINDS = ["bcast", "reduce", "allreduce", "gather", "scatter", "allgather", "barrier",
         "gatherv", "scatterv", "allgatherv", "alltoall", "alltoallv",
         "reduce_scatter_block", "reduce_scatter", "scan", "exscan"]
PATHS = ["plain", "tree", "shm"]
SHAPE = "(mpi|flat|chain|binomial|binary)"
# the text form of coll_schedule.c (its number bounds: 2 <= K <= 2^20,
# 1 <= SEGMENT <= 2^30, at most 8 shapes)
SCHEDULE = re.compile(r"ml|(all|two)(\+v(?P<k>[0-9]+))?:%s(,%s){0,7}(/(?P<seg>[0-9]+))?" %
                      (SHAPE, SHAPE))


def is_schedule(text):
    m = SCHEDULE.fullmatch(text)
    if m is None:
        return False
    k, seg = m.group("k"), m.group("seg")
    if k is not None and not (k[0] != "0" and 2 <= int(k) <= 1 << 20):
        return False
    return seg is None or (seg[0] != "0" and 1 <= int(seg) <= 1 << 30)
COLUMNS = ["collective", "bytes", "processes", "mpi_us", "hsplit_us", "check"]
INT64_MAX = 2**63 - 1


class Error(Exception):
    pass


def size_class(nbytes):
    """0 for no bytes, else 1 + floor(log2(bytes)) (hsplit_size_class)."""
    return nbytes.bit_length() if nbytes > 0 else 0


def class_range(c):
    if c == 0:
        return 0, 0
    return 1 << (c - 1), (INT64_MAX if c == 63 else (1 << c) - 1)


def read_csv(path):
    """Comment lines ('#') first, then the CSV: (the comments, the rows)."""
    try:
        with open(path, newline="") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise Error(f"{path}: {e.strerror}")
    comments = [line[1:].strip() for line in lines if line.startswith("#")]
    body = [line for line in lines if not line.startswith("#") and line.strip()]
    reader = csv.DictReader(body)
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise Error(f"{path}: not a bench_coll --csv file (no column {', '.join(missing)})")
    rows = []
    for n, row in enumerate(reader, start=2):
        try:
            rows.append((row["collective"], int(row["bytes"]), int(row["processes"]),
                         float(row["mpi_us"]), float(row["hsplit_us"]),
                         row["check"].strip() == "ok"))
        except (TypeError, ValueError):
            raise Error(f"{path}: CSV line {n}: malformed row")
        if row["collective"] not in KINDS:
            raise Error(f"{path}: CSV line {n}: unknown collective {row['collective']!r}")
        if rows[-1][1] < 0:
            raise Error(f"{path}: CSV line {n}: negative bytes")
    return comments, rows


def library_bytes(coll, nbytes, procs):
    """The size the library's size class comes from, for bench_coll's bytes."""
    if coll in ("reduce_scatter_block", "reduce_scatter", "alltoallv"):
        return nbytes * procs
    return nbytes


def parse_args(args):
    inputs = []
    for a in args:
        path, eq, file = a.partition("=")
        if not eq or (path not in PATHS and not is_schedule(path)) or not file:
            raise Error(f"{a!r}: expected PATH=FILE, PATH one of {', '.join(PATHS)} or a "
                        "schedule such as two:mpi")
        if any(p == path for p, _ in inputs):
            raise Error(f"{path}= given twice")
        inputs.append((path, file))
    if not inputs:
        raise Error("no input: give tree=FILE, shm=FILE or SCHEDULE=FILE (and plain=FILE)")
    return inputs


def winners(inputs, data):
    """{collective: (processes, {size class: path})}."""
    order = PATHS + [p for p, _ in inputs if p not in PATHS]
    # times[(collective, class)][path]: per size, the best time of each path
    per_size = {}
    procs = {}
    for path, file in inputs:
        for coll, nbytes, np, mpi, hsplit, ok in data[file][1]:
            if procs.setdefault(coll, np) != np:
                raise Error(f"{file}: {coll} on {np} processes, another file on "
                            f"{procs[coll]}: give runs of one process count")
            t = per_size.setdefault((coll, nbytes), {})
            t["plain"] = min(t.get("plain", mpi), mpi)
            if ok:
                t[path] = min(t.get(path, hsplit), hsplit)
    # per class, the sum over its sizes of each path measured at every one
    sums = {}
    for (coll, nbytes), t in sorted(per_size.items()):
        key = (coll, size_class(library_bytes(coll, nbytes, procs[coll])))
        if key not in sums:
            sums[key] = dict(t)
        else:
            s = sums[key]
            sums[key] = {p: s[p] + t[p] for p in order if p in s and p in t}
    result = {}
    for (coll, c), s in sums.items():
        best = min((p for p in order if p in s), key=lambda p: (s[p], order.index(p)))
        result.setdefault(coll, (procs[coll], {}))[1][c] = best
    return result


def rules_text(args):
    inputs = parse_args(args)
    data = {file: read_csv(file) for _, file in inputs}
    out = ["# HSPLIT_COLL_RULES file (hsplit user guide, section 8.5), written by "
           "scripts/coll-rules from"]
    for path, file in inputs:
        mpi = [c for c in data[file][0] if c.startswith("MPI:")]
        out.append(f"#   {path}={file}" + (f" ({mpi[0]})" if mpi else ""))
    out.append("# per collective and size class: the fastest of plain MPI (mpi_us) and the "
               "forced paths (hsplit_us)")
    out.append(f"# {'collective':<20} {'processes':<9} {'depth':<5} {'bytes':<21} path")
    found = winners(inputs, data)
    for coll in KINDS:
        if coll not in found:
            continue
        procs, classes = found[coll]
        run = []  # consecutive measured classes of one winner
        for c in sorted(classes) + [None]:
            if run and (c is None or classes[c] != classes[run[0]]):
                low, high = class_range(run[0])[0], class_range(run[-1])[1]
                rng = str(low) if low == high else f"{low}-{high}"
                out.append(f"{coll:<22} {procs:<9} {'*':<5} {rng:<21} {classes[run[0]]}")
                run = []
            if c is not None:
                run.append(c)
    return "\n".join(out) + "\n"


def main(argv):
    try:
        sys.stdout.write(rules_text(argv[1:]))
    except Error as e:
        sys.stderr.write(f"coll-rules: {e}\n")
        sys.stderr.write("usage: coll-rules tree=FILE.csv shm=FILE.csv [SCHEDULE=FILE.csv ...] "
                         "[plain=FILE.csv] > rules.txt\n")
        return 2
    return 0
