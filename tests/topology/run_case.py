#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""One topology test: the hierarchy printed by `mpiexec -n N hsplit-info --json`
equals what the independent oracle (hsplit_expect.py) derives from the rules, or,
with --paper 51|52, the paper's hand-written example (test_oracle.py literals; ntw24e5: section 7.4's
cluster, one process per node, with --network tests/network/ntw24e5.conf).

    run_case.py --mpiexec "mpiexec --oversubscribe" --info PATH --np N
                --topology T [--nodes S] [--bind B] [--network F]
                [--paper 51|52|ntw24e5]
"""
import argparse
import json
import os
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_hierarchy  # noqa: E402
import test_oracle  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--info", required=True)
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--topology", required=True)
    ap.add_argument("--nodes")
    ap.add_argument("--bind")
    ap.add_argument("--network")
    ap.add_argument("--paper", choices=["51", "52", "ntw24e5"])
    a = ap.parse_args()

    options = ["--topology", a.topology]
    if a.nodes:
        options += ["--nodes", a.nodes]
    if a.bind:
        options += ["--bind", a.bind]
    if a.network:
        options += ["--network", a.network]
    if a.paper:
        expected = {"51": test_oracle.PAPER_51, "52": test_oracle.PAPER_52,
                    "ntw24e5": test_oracle.PAPER_NTW24E5}[a.paper]
    else:
        oracle = subprocess.run([sys.executable, os.path.join(HERE, "hsplit_expect.py"),
                                 "--np", str(a.np)] + options,
                                capture_output=True, text=True)
        if oracle.returncode != 0:
            print("oracle failed:", oracle.stderr)
            return 1
        expected = json.loads(oracle.stdout)
    cmd = shlex.split(a.mpiexec) + ["-n", str(a.np), a.info, "--json"] + options
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        print("hsplit-info failed:", run.returncode, run.stderr)
        return 1
    actual = json.loads(run.stdout)
    diff = compare_hierarchy.first_difference(expected, actual)
    if diff is not None:
        print("MISMATCH:", diff)
        print("1 failed")
        return 1
    nsteps = len(actual["steps"])
    print("hierarchy of %d processes, %d steps, equal to the expectation" % (a.np, nsteps))
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
