#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Independent oracle: the hierarchy `mpiexec -n N hsplit-info --json` must print.

    hsplit_expect.py --topology XML_OR_SYNTHETIC --np N [--nodes SPEC] [--bind SPEC]
                     [--network TOPOLOGY_CONF]

Derived only from the written rules (shared/DESIGN.md "Split semantics", "Emulation",
"hsplit-info"; paper sections 3.2-3.3 and 5; the user guide's switch levels), never
from the C code, so that it can catch the C code's bugs.  Python 3 standard library plus lstopo-no-graphics (hwloc).

Exit status: 0 and the JSON on stdout; 2 (message on stderr) for bad input or for a
configuration the rules leave undefined (empty binding, too few binding items, ...).
"""
import argparse
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

# lstopo keeps I/O, Misc, instruction caches and memory-side caches by default; the
# library uses hwloc's default filters, which drop all four.  Groups: hwloc's default
# KEEP_STRUCTURE is also lstopo's (same output with --filter group:structure).
# Disallowed PUs/NUMA nodes: hwloc drops them by default, and so does lstopo without
# --disallowed.  test_oracle.py checks this view against libhwloc's own default load.
LSTOPO = ["lstopo-no-graphics", "--no-io", "--no-icaches", "--filter", "misc:none",
          "--filter", "memcache:none", "--of", "xml"]

BIND_TYPES = {t.lower(): t for t in ("Machine", "Package", "Die", "Group", "NUMANode",
              "L1Cache", "L2Cache", "L3Cache", "L4Cache", "L5Cache", "Core", "PU")}


class Undefined(Exception):
    """Input the rules do not define an answer for."""


class Obj:
    def __init__(self, type_, cpuset, parent):
        self.type, self.cpuset, self.parent = type_, cpuset, parent
        self.children = []   # normal children, hwloc logical order
        self.memory = []     # attached NUMA nodes ("memory children")
        self.depth = 0 if parent is None else parent.depth + 1  # normal ancestors


def parse_cpuset(text):
    """hwloc bitmap string '0x0000ffff,0xffffffff' (32-bit words, most significant
    first) -> int.  hwloc writes zero words as empty ('0x00000001,,0x0'); a plain
    '0xf0' is one word."""
    text = text.strip().lower()
    if "f...f" in text:
        raise Undefined("infinite cpuset %r" % text)
    value = 0
    for word in text.split(","):
        value = (value << 32) | (int(word, 16) if word else 0)
    return value


def format_cpuset(value):
    words = []
    while True:
        words.append("0x%08x" % (value & 0xffffffff))
        value >>= 32
        if not value:
            return ",".join(reversed(words))


def lstopo_xml(source):
    """hwloc's view of an XML file or synthetic string, as XML text."""
    fmt = "xml" if os.path.isfile(source) else "synthetic"
    if fmt == "synthetic" and source.lower().endswith(".xml"):
        raise Undefined("no such file: %s" % source)
    return subprocess.run(LSTOPO + ["--if", fmt, "--input", source, "-"], check=True,
                          capture_output=True, text=True).stdout


def build_tree(xml_text):
    """Parse hwloc 2.0 XML; NUMA nodes become memory children, the rest normal ones."""
    root_el = ET.fromstring(xml_text).find("object")

    def walk(el, parent):
        obj = Obj(el.get("type"), parse_cpuset(el.get("cpuset", "0x0")), parent)
        for child in el.findall("object"):
            ctype = child.get("type")
            if ctype == "NUMANode":
                obj.memory.append(Obj(ctype, parse_cpuset(child.get("cpuset", "0x0")), obj))
            elif ctype in BIND_TYPES.values():
                obj.children.append(walk(child, obj))
            else:  # the loader's filters must have removed I/O, Misc, L1i, MemCache
                raise Undefined("unexpected %s object after filtering" % ctype)
        return obj

    return walk(root_el, None)


class Topology:
    def __init__(self, source):
        self.root = build_tree(lstopo_xml(source))
        self.normal, self.numa = [], []   # depth-first = logical order

        def dfs(obj):
            self.normal.append(obj)
            self.numa.extend(obj.memory)  # memory children listed before the subtrees
            for c in obj.children:
                dfs(c)
        dfs(self.root)

    def objects(self, type_name):
        """Objects of a type in logical order; Group: only the deepest Group depth."""
        if type_name == "NUMANode":
            return self.numa
        objs = [o for o in self.normal if o.type == type_name]
        if type_name == "Group" and objs:
            deepest = max(o.depth for o in objs)
            objs = [o for o in objs if o.depth == deepest]
        return objs

    def covering(self, cpuset):
        """Deepest normal object whose cpuset contains cpuset (a non-empty subset of the
        root's).  Children are disjoint, so at most one contains it."""
        obj = self.root
        while True:
            inner = [c for c in obj.children if cpuset & ~c.cpuset == 0]
            if not inner:
                return obj
            obj = inner[0]


def level_name(x):
    """Highest normal object with X's cpuset; NUMANode if a NUMA node is attached to it
    (a NUMA node counts as just above its object); the root is always Machine."""
    y = x
    while y.parent is not None and y.parent.cpuset == x.cpuset:
        y = y.parent
    if y.parent is None:
        return "Machine"
    return "NUMANode" if y.memory else y.type


# ---- emulation inputs --------------------------------------------------------------

def parse_nodes(spec, n):
    """HSPLIT_NODES -> node index of each world rank (default: all on node 0)."""
    if spec is None:
        return [0] * n
    spec = spec.strip()
    if spec.lower().startswith("cyclic:"):
        count = int(spec.split(":", 1)[1])
        if count <= 0:
            raise Undefined("cyclic:%d" % count)
        return [r % count for r in range(n)]
    if "," not in spec:
        k = int(spec)
        if k <= 0 and n > 1:  # (with one rank, "0" may also be a one-entry list)
            raise Undefined("block size %d" % k)
        return [r // max(k, 1) for r in range(n)]
    nodes = [int(x) for x in spec.split(",")]
    if len(nodes) != n or min(nodes) < 0:
        raise Undefined("node list has %d entries for %d ranks" % (len(nodes), n))
    return nodes


def bind_type(topo, name):
    if name.lower() not in BIND_TYPES:
        raise Undefined("unknown object type %r" % name)
    objs = topo.objects(BIND_TYPES[name.lower()])
    if not objs:
        raise Undefined("no %s object in the topology" % name)
    return objs


def bindings_for(topo, spec, nlocal):
    """Cpusets of local ranks 0..nlocal-1 of one node under HSPLIT_BIND."""
    spec = (spec or "core").strip()
    if spec.lower() == "none":
        return [topo.root.cpuset] * nlocal
    if ":" not in spec and ";" not in spec and not spec.lower().startswith("0x"):
        objs = bind_type(topo, spec)
        return [objs[i % len(objs)].cpuset for i in range(nlocal)]
    items = [s.strip() for s in spec.split(";")]
    if len(items) < nlocal:
        raise Undefined("%d binding items for %d local ranks" % (len(items), nlocal))
    sets = []
    for item in items[:nlocal]:
        if item.lower().startswith("0x"):
            sets.append(parse_cpuset(item))
        else:
            name, index = item.split(":")
            objs = bind_type(topo, name)
            if not 0 <= int(index) < len(objs):
                raise Undefined("%s out of range (%d objects)" % (item, len(objs)))
            sets.append(objs[int(index)].cpuset)
    return sets


def world_bindings(topo, nodes, bind_spec):
    """Binding of each world rank; local rank = position among its node's ranks."""
    local = []
    seen = {}
    for node in nodes:
        local.append(seen.get(node, 0))
        seen[node] = local[-1] + 1
    per_local = bindings_for(topo, bind_spec, max(seen.values()))
    binds = [per_local[i] for i in local]
    for r, b in enumerate(binds):  # hwloc never reports such bindings: no rule for them
        if b == 0:
            raise Undefined("rank %d has an empty binding" % r)
        if b & ~topo.root.cpuset:
            raise Undefined("rank %d is bound outside the node's (allowed) cpuset %s"
                            % (r, format_cpuset(topo.root.cpuset)))
    return binds


# ---- the network: Slurm topology.conf -------------------------------------------------

def expand_hostlist(expr):
    """Slurm hostlist 'n[01-03,7],m' -> ['n01', 'n02', 'n03', 'n7', 'm']: names split at
    commas outside brackets; each bracket group a list of numbers or lo-hi ranges padded
    to the width of lo; several groups combine, the leftmost slowest."""
    names, depth, start = [], 0, 0
    for i, ch in enumerate(expr + ","):
        depth += (ch == "[") - (ch == "]")
        if ch == "," and depth == 0:
            names.extend(expand_name(expr[start:i]))
            start = i + 1
    return names


def expand_name(name):
    if not name:
        raise Undefined("empty name in a hostlist")
    if "[" not in name:
        return [name]
    head, rest = name.split("[", 1)
    inside, tail = rest.split("]", 1)
    values = []
    for piece in inside.split(","):
        lo, _, hi = piece.partition("-")
        hi = hi or lo
        if not (lo.isdigit() and hi.isdigit()) or int(hi) < int(lo):
            raise Undefined("bad range %r" % piece)
        values += [str(v).zfill(len(lo)) for v in range(int(lo), int(hi) + 1)]
    tails = expand_name(tail) if tail else [""]
    return [head + v + t for v in values for t in tails]


def read_network(path):
    """topology.conf -> ({node name: [switch names from the top down]}, number of top
    switches).  Only the tree (SwitchName lines) is read; '#' starts a comment."""
    parent, nodes_of = {}, {}
    with open(path) as f:
        for line in f:
            fields = line.split("#", 1)[0].split()
            if not fields:
                continue
            keys = {}
            for field in fields:
                k, _, v = field.partition("=")
                keys[k.lower()] = v
            name = keys["switchname"]
            nodes_of[name] = expand_hostlist(keys["nodes"]) if "nodes" in keys else []
            for child in expand_hostlist(keys["switches"]) if "switches" in keys else []:
                parent[child] = name
    paths = {}
    for switch, nodes in nodes_of.items():
        chain = [switch]
        while chain[0] in parent:
            chain.insert(0, parent[chain[0]])
        for n in nodes:
            paths[n] = chain
    return paths, sum(1 for s in nodes_of if s not in parent)


def common_prefix(a, b):
    k = 0
    while k < len(a) and k < len(b) and a[k] == b[k]:
        k += 1
    return k


def network_children(comm, nodes, paths):
    """Several nodes under a switch tree: each rank's child of the deepest switch common
    to all its nodes (a switch name, or None when its node hangs from that switch)."""
    own = {r: paths["node%d" % nodes[r]] for r in comm}
    depth = min(common_prefix(own[comm[0]], p) for p in own.values())
    return {r: own[r][depth] if len(own[r]) > depth else None for r in comm}


# ---- the split -----------------------------------------------------------------------

def split(topo, comm, nodes, binds, paths=None):
    """One hsplit_with_roots of comm (world ranks in rank order).
    Returns ([(type, index, num_comms, ranks)], roots or None)."""
    present = sorted(set(nodes[r] for r in comm))
    if len(present) > 1 and paths is not None:
        # several nodes under a switch tree: the children of the deepest common switch,
        # a child switch (Switch) or a node hanging from it (Machine), ordered by their
        # first node
        child = network_children(comm, nodes, paths)
        key = {r: ("Switch", child[r]) if child[r] else ("Machine", nodes[r]) for r in comm}
        first = {}
        for r in comm:
            first[key[r]] = min(first.get(key[r], nodes[r]), nodes[r])
        kinds = sorted(set(key.values()), key=first.get)
        groups = [[r for r in comm if key[r] == k] for k in kinds]
        names = [k[0] for k in kinds]
    elif len(present) > 1:  # several nodes: one Machine communicator per node
        groups = [[r for r in comm if nodes[r] == nd] for nd in present]
        names = ["Machine"] * len(groups)
    else:
        union = 0
        for r in comm:
            union |= binds[r]
        a = topo.covering(union)
        colour = {}
        for r in comm:  # colour = the child of A holding the binding, else COMM_NULL
            for i, child in enumerate(a.children):
                if binds[r] & ~child.cpuset == 0:
                    colour[r] = i
                    break
        used = sorted(set(colour.values()))
        groups = [[r for r in comm if colour.get(r) == c] for c in used]
        names = [level_name(a.children[c]) for c in used]
    new = [(names[i], i, len(groups), g) for i, g in enumerate(groups)]
    if not new:
        return [], None
    pos = {r: i for i, r in enumerate(comm)}
    roots = sorted((g[0] for g in groups), key=pos.get)  # ordered by rank in comm
    return new, roots


def expect(topo, nprocs, nodes, binds, paths=None):
    steps, comms = [], [list(range(nprocs))]
    while True:
        made, roots_comms = [], []
        for comm in comms:
            new, roots = split(topo, comm, nodes, binds, paths)
            made.extend(new)
            if roots is not None:
                roots_comms.append(roots)
        if not made:
            break
        made.sort(key=lambda c: c[3][0])
        steps.append({"comms": [{"type": t, "index": i, "num_comms": n, "ranks": g}
                                for t, i, n, g in made],
                      "roots_comms": sorted(roots_comms)})
        comms = [c[3] for c in made]
    return {"nprocs": nprocs, "steps": steps}


def compute(topology, nprocs, nodes_spec=None, bind_spec=None, topo=None, network=None):
    """Library entry point for tests: the expected hsplit-info JSON object."""
    topo = topo or Topology(topology)
    nodes = parse_nodes(nodes_spec, nprocs)
    paths = None
    if network is not None:
        paths, _ = read_network(network)
        missing = sorted(set("node%d" % n for n in nodes) - set(paths))
        if missing:
            raise Undefined("%s is in no switch of %s" % (missing[0], network))
    return expect(topo, nprocs, nodes, world_bindings(topo, nodes, bind_spec), paths)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--topology", required=True, help="hwloc XML file or synthetic string")
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--nodes", help="HSPLIT_NODES: K, cyclic:N, or a comma list")
    ap.add_argument("--bind", help="HSPLIT_BIND (default core)")
    ap.add_argument("--network", help="HSPLIT_NETWORK: a Slurm topology.conf")
    args = ap.parse_args()
    if args.np <= 0:
        ap.error("--np must be positive")
    try:
        result = compute(args.topology, args.np, args.nodes, args.bind, network=args.network)
    except (Undefined, ValueError) as e:
        print("hsplit_expect: %s" % e, file=sys.stderr)
        sys.exit(2)
    except subprocess.CalledProcessError as e:
        print("hsplit_expect: lstopo failed: %s" % e.stderr.strip(), file=sys.stderr)
        sys.exit(2)
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
