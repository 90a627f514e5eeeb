#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""hsplit-platform's numa uplink: a NUMA node below the package (here on
each L3, as sub-NUMA clustering makes it; hsplit names that level NUMANode)
gets the numa link values, a package-wide NUMA node keeps the package ones.

    check_platform_numa.py PLATFORM_TOOL WORKDIR
"""
import os
import re
import subprocess
import sys

# topology -> uplink kinds of node 0's first package (router r0) and of its
# first child (r1)
CASES = [("pack:2 l3:2 [numa] core:2 pu:1", ("package", "numa")),
         ("pack:2 [numa] l3:2 core:2 pu:1", ("package", "l3"))]


def main():
    tool, work = sys.argv[1:3]
    os.makedirs(work, exist_ok=True)
    failed = 0
    for i, (topology, expected) in enumerate(CASES):
        platform = os.path.join(work, "numa%d.xml" % i)
        subprocess.run([sys.executable, tool, "--topology", topology, "--nodes", "1",
                        "--link", "numa=77ns,7GBps", "--link", "package=99ns,9GBps",
                        "--platform", platform, "--hostfile", platform + ".hosts"],
                       check=True, capture_output=True)
        with open(platform) as f:
            xml = f.read()
        links = dict(re.findall(r'<link id="n0r(\d+)_(\w+)"', xml))
        kinds = (links.get("0"), links.get("1"))
        ok = kinds == expected and (("numa" in expected) == ('latency="7.7e-08s"' in xml))
        print("%s: router uplinks %s, expected %s: %s" % (topology, kinds, expected,
                                                           "ok" if ok else "FAIL"))
        failed += not ok
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
