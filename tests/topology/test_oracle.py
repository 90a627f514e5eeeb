#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Self-checks of the oracle (hsplit_expect.py) and of compare_hierarchy.py.

    python3 tests/topology/test_oracle.py

1. the paper's worked examples (sections 5.1 and 5.2) on its figure-1 node, with every
   expectation written out by hand from the paper text, plus a few more hand cases, and
   switch levels from tests/network/*.conf (the paper's NTW24E5 of section 7.4, three
   switch levels, a node next to child switches, a forest, switches in node order);
2. that the oracle's lstopo view of each tests/topology/xml/*.xml is what libhwloc's
   default load gives (via ctypes; skipped if libhwloc.so.15 cannot be loaded);
3. a one-line summary of the level names per step of every topology there (binding
   core, np = number of cores capped at 64, one node) for eyeballing.
Prints "N passed, M failed"; exits 1 on any failure.
"""
import ctypes
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean
import hsplit_expect as hx  # noqa: E402

TOPOLOGIES = os.environ.get("HSPLIT_TOPOLOGIES",
                            os.path.join(HERE, "xml"))
FIGURE1 = "pack:2 [numa] l3:1 l2:2 core:2 pu:1"

passed = failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL %s %s" % (name, detail))


def c(type_, index, num, ranks):
    return {"type": type_, "index": index, "num_comms": num, "ranks": ranks}


def run_expect(*args):
    p = subprocess.run([sys.executable, os.path.join(HERE, "hsplit_expect.py")] + list(args),
                       capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def check_expect(name, want, *args):
    rc, out, err = run_expect(*args)
    got = json.loads(out) if rc == 0 else None
    check(name, got == want, "rc=%d %s\n got  %s\n want %s" % (rc, err.strip(),
                                                                json.dumps(got), json.dumps(want)))


# ---- 1. the paper's section 5 (hand-written expectations) ----------------------------

# Section 5.1: 4 nodes x 8 cores, 32 processes, p_x on core i of node k, x = 8k + i.
PAPER_51 = {"nprocs": 32, "steps": [
    {"comms": [c("Machine", 0, 4, [0, 1, 2, 3, 4, 5, 6, 7]),
               c("Machine", 1, 4, [8, 9, 10, 11, 12, 13, 14, 15]),
               c("Machine", 2, 4, [16, 17, 18, 19, 20, 21, 22, 23]),
               c("Machine", 3, 4, [24, 25, 26, 27, 28, 29, 30, 31])],
     "roots_comms": [[0, 8, 16, 24]]},
    {"comms": [c("NUMANode", 0, 2, [0, 1, 2, 3]), c("NUMANode", 1, 2, [4, 5, 6, 7]),
               c("NUMANode", 0, 2, [8, 9, 10, 11]), c("NUMANode", 1, 2, [12, 13, 14, 15]),
               c("NUMANode", 0, 2, [16, 17, 18, 19]), c("NUMANode", 1, 2, [20, 21, 22, 23]),
               c("NUMANode", 0, 2, [24, 25, 26, 27]), c("NUMANode", 1, 2, [28, 29, 30, 31])],
     "roots_comms": [[0, 4], [8, 12], [16, 20], [24, 28]]},
    {"comms": [c("L2Cache", 0, 2, [0, 1]), c("L2Cache", 1, 2, [2, 3]),
               c("L2Cache", 0, 2, [4, 5]), c("L2Cache", 1, 2, [6, 7]),
               c("L2Cache", 0, 2, [8, 9]), c("L2Cache", 1, 2, [10, 11]),
               c("L2Cache", 0, 2, [12, 13]), c("L2Cache", 1, 2, [14, 15]),
               c("L2Cache", 0, 2, [16, 17]), c("L2Cache", 1, 2, [18, 19]),
               c("L2Cache", 0, 2, [20, 21]), c("L2Cache", 1, 2, [22, 23]),
               c("L2Cache", 0, 2, [24, 25]), c("L2Cache", 1, 2, [26, 27]),
               c("L2Cache", 0, 2, [28, 29]), c("L2Cache", 1, 2, [30, 31])],
     "roots_comms": [[0, 2], [4, 6], [8, 10], [12, 14], [16, 18], [20, 22], [24, 26],
                     [28, 30]]},
    {"comms": [c("Core", 0, 2, [0]), c("Core", 1, 2, [1]), c("Core", 0, 2, [2]),
               c("Core", 1, 2, [3]), c("Core", 0, 2, [4]), c("Core", 1, 2, [5]),
               c("Core", 0, 2, [6]), c("Core", 1, 2, [7]), c("Core", 0, 2, [8]),
               c("Core", 1, 2, [9]), c("Core", 0, 2, [10]), c("Core", 1, 2, [11]),
               c("Core", 0, 2, [12]), c("Core", 1, 2, [13]), c("Core", 0, 2, [14]),
               c("Core", 1, 2, [15]), c("Core", 0, 2, [16]), c("Core", 1, 2, [17]),
               c("Core", 0, 2, [18]), c("Core", 1, 2, [19]), c("Core", 0, 2, [20]),
               c("Core", 1, 2, [21]), c("Core", 0, 2, [22]), c("Core", 1, 2, [23]),
               c("Core", 0, 2, [24]), c("Core", 1, 2, [25]), c("Core", 0, 2, [26]),
               c("Core", 1, 2, [27]), c("Core", 0, 2, [28]), c("Core", 1, 2, [29]),
               c("Core", 0, 2, [30]), c("Core", 1, 2, [31])],
     "roots_comms": [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9], [10, 11], [12, 13], [14, 15],
                     [16, 17], [18, 19], [20, 21], [22, 23], [24, 25], [26, 27], [28, 29],
                     [30, 31]]},
]}  # step 5: nothing (bottom reached), so no fifth step

# Section 5.2: one node, 8 processes, non-uniform binding.
BIND_52 = "core:0;core:1;l2cache:1;l2cache:1;numanode:1;numanode:1;numanode:1;numanode:1"
PAPER_52 = {"nprocs": 8, "steps": [
    {"comms": [c("NUMANode", 0, 2, [0, 1, 2, 3]), c("NUMANode", 1, 2, [4, 5, 6, 7])],
     "roots_comms": [[0, 4]]},
    {"comms": [c("L2Cache", 0, 2, [0, 1]), c("L2Cache", 1, 2, [2, 3])],
     "roots_comms": [[0, 2]]},
    {"comms": [c("Core", 0, 2, [0]), c("Core", 1, 2, [1])],
     "roots_comms": [[0, 1]]},
]}  # step 4: nothing

# More hand cases on the same node.
# 16 processes, cyclic:2 -> node 0 = even ranks, node 1 = odd ranks; local rank = r//2;
# bind numanode wraps: even local ranks on NUMA node 0, odd ones on NUMA node 1.  Bound
# to a whole NUMA node, nobody goes below it (no step 3).
CYCLIC = {"nprocs": 16, "steps": [
    {"comms": [c("Machine", 0, 2, [0, 2, 4, 6, 8, 10, 12, 14]),
               c("Machine", 1, 2, [1, 3, 5, 7, 9, 11, 13, 15])],
     "roots_comms": [[0, 1]]},
    {"comms": [c("NUMANode", 0, 2, [0, 4, 8, 12]), c("NUMANode", 0, 2, [1, 5, 9, 13]),
               c("NUMANode", 1, 2, [2, 6, 10, 14]), c("NUMANode", 1, 2, [3, 7, 11, 15])],
     "roots_comms": [[0, 2], [1, 3]]},
]}
# Unbound processes never go below Machine: on 2 nodes only the node split remains...
UNBOUND_2NODES = {"nprocs": 4, "steps": [
    {"comms": [c("Machine", 0, 2, [0, 1]), c("Machine", 1, 2, [2, 3])],
     "roots_comms": [[0, 2]]}]}
# ...and on one node nothing at all.
UNBOUND_1NODE = {"nprocs": 4, "steps": []}
# Node list with gaps (nodes 5 and 2): index follows node order, not rank order; bound to
# PUs 0,1 (node 5: ranks 0,2) and PU 0 (node 2: rank 1).
NODELIST = {"nprocs": 3, "steps": [
    {"comms": [c("Machine", 1, 2, [0, 2]), c("Machine", 0, 2, [1])],
     "roots_comms": [[0, 1]]},
    {"comms": [c("Core", 0, 2, [0]), c("Core", 1, 2, [2])], "roots_comms": [[0, 2]]}]}
# Ranks bound to core 0, package 1, cores 4-5 (0x30) and core 5 (0x20).  Step 1 splits
# the Machine by package.  Step 2 (A = L3 #1): rank 1 is in no single L2 -> COMM_NULL;
# ranks 2, 3 share L2 #2, alone (num_comms 1).  Step 3 (A = L2 #2): rank 2 spans both
# cores -> COMM_NULL; rank 3 is on the second core but index counts present colours: 0.
MIXED = {"nprocs": 4, "steps": [
    {"comms": [c("NUMANode", 0, 2, [0]), c("NUMANode", 1, 2, [1, 2, 3])],
     "roots_comms": [[0, 1]]},
    {"comms": [c("L2Cache", 0, 1, [2, 3])], "roots_comms": [[2]]},
    {"comms": [c("Core", 0, 1, [3])], "roots_comms": [[3]]}]}

# ---- switch levels (HSPLIT_NETWORK), tests/network/*.conf ------------------------------
NETWORK_DIR = os.path.join(os.path.dirname(HERE), "network")
TINY = "core:2 pu:1"  # a node of two cores; one process bound per core

# Section 7.4's NTW24E5: 24 nodes under leaf switches of 12, 6, 4 and 2 nodes, one top
# switch; one process per node.  Step 1: one Switch communicator per leaf switch (the
# paper's level-1 roots communicator of 4 processes); step 2: one Machine communicator per
# node (the paper's level-2 roots communicators of 12, 6, 4 and 2 processes).  A process
# alone on its core goes no further.
SIZES_NTW24E5 = [12, 6, 4, 2]
FIRST_NTW24E5 = [0, 12, 18, 22]
PAPER_NTW24E5 = {"nprocs": 24, "steps": [
    {"comms": [c("Switch", i, 4, list(range(FIRST_NTW24E5[i],
                                             FIRST_NTW24E5[i] + SIZES_NTW24E5[i])))
               for i in range(4)],
     "roots_comms": [FIRST_NTW24E5]},
    {"comms": [c("Machine", r - FIRST_NTW24E5[i], SIZES_NTW24E5[i], [r])
               for i in range(4) for r in range(FIRST_NTW24E5[i],
                                                FIRST_NTW24E5[i] + SIZES_NTW24E5[i])],
     "roots_comms": [list(range(FIRST_NTW24E5[i], FIRST_NTW24E5[i] + SIZES_NTW24E5[i]))
                     for i in range(4)]},
]}
# three_level.conf, 8 nodes of 2 processes: core -> agg0 (edge0: nodes 0-1, edge1: 2-3),
# agg1 (edge2: nodes 4-6, edge3: node 7).  Edge3 holds one node: its two processes split
# by core at step 3, next to the Machine communicators of the other edges.
THREE_LEVEL = {"nprocs": 16, "steps": [
    {"comms": [c("Switch", 0, 2, list(range(0, 8))), c("Switch", 1, 2, list(range(8, 16)))],
     "roots_comms": [[0, 8]]},
    {"comms": [c("Switch", 0, 2, [0, 1, 2, 3]), c("Switch", 1, 2, [4, 5, 6, 7]),
               c("Switch", 0, 2, [8, 9, 10, 11, 12, 13]), c("Switch", 1, 2, [14, 15])],
     "roots_comms": [[0, 4], [8, 14]]},
    {"comms": [c("Machine", 0, 2, [0, 1]), c("Machine", 1, 2, [2, 3]),
               c("Machine", 0, 2, [4, 5]), c("Machine", 1, 2, [6, 7]),
               c("Machine", 0, 3, [8, 9]), c("Machine", 1, 3, [10, 11]),
               c("Machine", 2, 3, [12, 13]), c("Core", 0, 2, [14]), c("Core", 1, 2, [15])],
     "roots_comms": [[0, 2], [4, 6], [8, 10, 12], [14, 15]]},
    {"comms": [c("Core", i % 2, 2, [i]) for i in range(14)],
     "roots_comms": [[i, i + 1] for i in range(0, 14, 2)]},
]}
# mixed.conf, one process per node: node 0 hangs from the top switch next to switches a
# (nodes 1, 2) and b (-> c -> node 3); ordered by first node: node0, a, b.
MIXED_NETWORK = {"nprocs": 4, "steps": [
    {"comms": [c("Machine", 0, 3, [0]), c("Switch", 1, 3, [1, 2]), c("Switch", 2, 3, [3])],
     "roots_comms": [[0, 1, 3]]},
    {"comms": [c("Machine", 0, 2, [1]), c("Machine", 1, 2, [2])], "roots_comms": [[1, 2]]},
]}
# forest.conf: two trees without a common top; the second tree's single switch below its
# top adds no level.
FOREST = {"nprocs": 4, "steps": [
    {"comms": [c("Switch", 0, 2, [0, 1]), c("Switch", 1, 2, [2, 3])],
     "roots_comms": [[0, 2]]},
    {"comms": [c("Machine", 0, 2, [0]), c("Machine", 1, 2, [1]),
               c("Machine", 0, 2, [2]), c("Machine", 1, 2, [3])],
     "roots_comms": [[0, 1], [2, 3]]},
]}
# NTW24E5's file, six processes on nodes 22, 0, 12, 1, 18, 23: switches are ordered by
# their first node (leaf0, leaf1, leaf2, leaf3), not by rank.
NTW24E5_UNORDERED = {"nprocs": 6, "steps": [
    {"comms": [c("Switch", 3, 4, [0, 5]), c("Switch", 0, 4, [1, 3]), c("Switch", 1, 4, [2]),
               c("Switch", 2, 4, [4])],
     "roots_comms": [[0, 1, 2, 4]]},
    {"comms": [c("Machine", 0, 2, [0]), c("Machine", 0, 2, [1]), c("Machine", 1, 2, [3]),
               c("Machine", 1, 2, [5])],
     "roots_comms": [[0, 5], [1, 3]]},
]}


def test_network():
    conf = lambda name: os.path.join(NETWORK_DIR, name)  # noqa: E731
    check_expect("NTW24E5", PAPER_NTW24E5, "--topology", TINY, "--np", "24", "--nodes", "1",
                 "--network", conf("ntw24e5.conf"))
    check_expect("three switch levels", THREE_LEVEL, "--topology", TINY, "--np", "16",
                 "--nodes", "2", "--network", conf("three_level.conf"))
    check_expect("node on a switch with child switches", MIXED_NETWORK, "--topology", TINY,
                 "--np", "4", "--nodes", "1", "--network", conf("mixed.conf"))
    check_expect("forest", FOREST, "--topology", TINY, "--np", "4", "--nodes", "1",
                 "--network", conf("forest.conf"))
    check_expect("switches in node order", NTW24E5_UNORDERED, "--topology", TINY, "--np", "6",
                 "--nodes", "22,0,12,1,18,23", "--network", conf("ntw24e5.conf"))
    rc, _, err = run_expect("--topology", TINY, "--np", "26", "--nodes", "1", "--network",
                            conf("ntw24e5.conf"))
    check("a node in no switch is an error", rc == 2 and "node24" in err, "rc=%d %s" % (rc, err))
    check("hostlist", hx.expand_hostlist("n[01-03,7],m,r[1-2]x[8-9]") ==
          ["n01", "n02", "n03", "n7", "m", "r1x8", "r1x9", "r2x8", "r2x9"])


def test_paper(fig1):
    check_expect("paper 5.1", PAPER_51, "--topology", fig1, "--np", "32", "--nodes", "8",
                 "--bind", "core")
    check_expect("paper 5.1 default bind", PAPER_51, "--topology", fig1, "--np", "32",
                 "--nodes", "8")
    check_expect("paper 5.2", PAPER_52, "--topology", fig1, "--np", "8", "--bind", BIND_52)
    check_expect("paper 5.2 synthetic string", PAPER_52, "--topology", FIGURE1, "--np", "8",
                 "--bind", BIND_52.upper())
    check_expect("cyclic:2, bind numanode", CYCLIC, "--topology", fig1, "--np", "16",
                 "--nodes", "cyclic:2", "--bind", "numanode")
    check_expect("unbound, 2 nodes", UNBOUND_2NODES, "--topology", fig1, "--np", "4",
                 "--nodes", "2", "--bind", "none")
    check_expect("unbound, 1 node", UNBOUND_1NODE, "--topology", fig1, "--np", "4",
                 "--bind", "none")
    check_expect("node list", NODELIST, "--topology", fig1, "--np", "3", "--nodes", "5,2,5",
                 "--bind", "pu")
    check_expect("mixed binding", MIXED, "--topology", fig1, "--np", "4",
                 "--bind", "core:0;package:1;0x00000030;0x20")
    rc, _, err = run_expect("--topology", fig1, "--np", "3", "--bind", "core:0;core:1")
    check("too few bind items is an error", rc == 2, "rc=%d %s" % (rc, err))
    rc, _, err = run_expect("--topology", fig1, "--np", "2", "--bind", "die")
    check("missing bind type is an error", rc == 2, "rc=%d %s" % (rc, err))


def test_compare(fig1):
    tool = os.path.join(HERE, "compare_hierarchy.py")
    with tempfile.TemporaryDirectory() as d:
        exp, same, bad = (os.path.join(d, n) for n in ("e.json", "s.json", "b.json"))
        json.dump(PAPER_52, open(exp, "w"))
        open(same, "w").write(json.dumps(PAPER_52, indent=2))  # pretty == compact
        wrong = json.loads(json.dumps(PAPER_52))
        wrong["steps"][1]["comms"][1]["type"] = "L3Cache"
        json.dump(wrong, open(bad, "w"))
        r = subprocess.run([sys.executable, tool, exp, same], capture_output=True, text=True)
        check("compare equal", r.returncode == 0, r.stdout)
        r = subprocess.run([sys.executable, tool, exp, bad], capture_output=True, text=True)
        check("compare differs", r.returncode == 1 and "step 2, comms[1]" in r.stdout, r.stdout)
        del wrong["steps"][2]
        json.dump(wrong, open(bad, "w"))
        r = subprocess.run([sys.executable, tool, exp, bad], capture_output=True, text=True)
        check("compare missing step", r.returncode == 1, r.stdout)


# ---- 2. the lstopo view equals libhwloc's default load -------------------------------

def libhwloc_view(path):
    """(exported XML, [(type, nbobjs) per depth]) of hwloc's default load, or None."""
    try:
        h = ctypes.CDLL("libhwloc.so.15")
    except OSError:
        return None
    h.hwloc_obj_type_string.restype = ctypes.c_char_p
    h.hwloc_topology_export_xmlbuffer.argtypes = [
        ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_int),
        ctypes.c_ulong]
    topo = ctypes.c_void_p()
    assert h.hwloc_topology_init(ctypes.byref(topo)) == 0
    try:
        assert h.hwloc_topology_set_xml(topo, path.encode()) == 0
        assert h.hwloc_topology_load(topo) == 0
        buf, n = ctypes.c_char_p(), ctypes.c_int()
        assert h.hwloc_topology_export_xmlbuffer(topo, ctypes.byref(buf), ctypes.byref(n), 0) == 0
        xml = buf.value.decode()
        levels = [(h.hwloc_obj_type_string(h.hwloc_get_depth_type(topo, d)).decode(),
                   h.hwloc_get_nbobjs_by_depth(topo, d))
                  for d in range(h.hwloc_topology_get_depth(topo))]
        return xml, levels
    finally:
        h.hwloc_topology_destroy(topo)


def shape(obj):
    return (obj.type, obj.cpuset, [m.cpuset for m in obj.memory],
            [shape(ch) for ch in obj.children])


def test_loader(path, topo):
    name = os.path.basename(path)
    view = libhwloc_view(path)
    if view is None:
        print("skip libhwloc cross-check (libhwloc.so.15 not loadable)")
        return
    xml, levels = view
    check("%s: lstopo tree == libhwloc default tree" % name,
          shape(hx.build_tree(xml)) == shape(topo.root))
    # Each hwloc level, in depth order, must be the objects of that type at that tree
    # depth, so "i-th object of a type in logical order" and "deepest Group" agree.
    mine = []
    for d in range(max(o.depth for o in topo.normal) + 1):
        types = sorted(set(o.type for o in topo.normal if o.depth == d))
        mine += [(t, sum(1 for o in topo.normal if o.depth == d and o.type == t))
                 for t in types]
    check("%s: levels match hwloc" % name, mine == levels, "\n mine %s\n hwloc %s" % (mine, levels))
    # Logical order of each binding type (NUMA nodes included) as lstopo numbers it.
    for t in sorted(set(o.type for o in topo.normal) | {"NUMANode"}):
        opts = [a for a in hx.LSTOPO if a not in ("--of", "xml")]
        out = subprocess.run(opts + ["--input", path, "--only", t, "-c"], check=True,
                             capture_output=True, text=True).stdout.split("\n")
        rows = [(ln.split()[0], hx.parse_cpuset(ln.rsplit("cpuset=", 1)[1]))
                for ln in out if "cpuset=" in ln]
        if t == "Group":  # lstopo labels Group levels Group0, Group1, ...: keep the deepest
            level = [int(label.split("(")[0][5:]) for label, _ in rows]
            rows = [r for r, lv in zip(rows, level) if lv == max(level)]
        check("%s: logical order of %s" % (name, t),
              [cs for _, cs in rows] == [o.cpuset for o in topo.objects(t)])


# ---- 3. per-topology summaries --------------------------------------------------------

def summary(path, topo):
    np_ = min(len(topo.objects("Core")), 64)
    res = hx.compute(path, np_, None, "core", topo=topo)
    parts = []
    for s, step in enumerate(res["steps"], 1):
        counts = {}
        for cm in step["comms"]:
            counts[cm["type"]] = counts.get(cm["type"], 0) + 1
        parts.append("%d:%s" % (s, "+".join("%s x%d" % kv for kv in counts.items())))
    return "%-40s np=%-3d %s" % (os.path.basename(path), np_, " | ".join(parts))


def main():
    with tempfile.TemporaryDirectory() as d:
        fig1 = os.path.join(d, "figure1.xml")
        with open(fig1, "w") as f:  # the paper's figure-1 node
            subprocess.run(["lstopo-no-graphics", "--input", FIGURE1, "--of", "xml", "-"],
                           stdout=f, check=True)
        test_paper(fig1)
        test_compare(fig1)
    test_network()

    # 16amd64-8n2c-cpusets.xml has disallowed PUs 4 and 7-11: hwloc drops them by default
    path = os.path.join(TOPOLOGIES, "16amd64-8n2c-cpusets.xml")
    topo = hx.Topology(path)
    check("cpusets: only allowed PUs", topo.root.cpuset == 0xf06f
          and len(topo.objects("PU")) == 10, hx.format_cpuset(topo.root.cpuset))
    # Inputs the rules do not cover are refused (exit 2), not guessed: NUMA nodes L#3
    # and L#4 have no PU left (empty binding), PU 4 is disallowed, 3 nodes for 4 ranks.
    for args in (["--np", "4", "--bind", "numanode"], ["--np", "1", "--bind", "0x10"],
                 ["--np", "4", "--nodes", "0,1,1"]):
        rc, _, err = run_expect("--topology", path, *args)
        check("refused: %s" % " ".join(args), rc == 2, "rc=%d %s" % (rc, err))

    lines = []
    for path in sorted(glob.glob(os.path.join(TOPOLOGIES, "*.xml"))):
        topo = hx.Topology(path)
        test_loader(path, topo)
        lines.append(summary(path, topo))
    print("Level names per step (one node, bind core, np = cores, at most 64):")
    print("\n".join(lines))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
