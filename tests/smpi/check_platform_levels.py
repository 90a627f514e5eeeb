#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""hsplit-platform's links, measured through SMPI: a 2-node platform of the
paper's figure-1 machine (package > L2 > core) with round link values, and
bench_pingpong between core 0 of node 0 and a core at each level. Expected,
from the values alone: the one-way time of 4 bytes grows by twice the uplink
latency of each level crossed (up and down), and the time of 4 MiB, less
that of 4 bytes, is 4 MiB over the slowest link of the path (to 1%; the
latencies to the few nanoseconds the simulator rounds events to).

    check_platform_levels.py PLATFORM_TOOL BENCH_PINGPONG WORKDIR
"""
import os
import subprocess
import sys

TOPOLOGY = "pack:2 [numa] l3:1 l2:2 core:2 pu:1"
LINKS = {"core": (0.10e-6, 10e9), "l2": (0.02e-6, 40e9), "package": (0.10e-6, 40e9),
         "node": (0.50e-6, 5e9)}
BIG = 4 << 20
# peer of n0c0 -> uplinks crossed on each side
PEERS = [("n0c1", ["core"]), ("n0c2", ["core", "l2"]), ("n0c4", ["core", "l2", "package"]),
         ("n1c0", ["core", "l2", "package", "node"])]


def main():
    tool, bench, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    platform, hosts = os.path.join(work, "levels.xml"), os.path.join(work, "levels.hosts")
    links = sum((["--link", "%s=%gus,%gBps" % (k, lat * 1e6, bw)]
                 for k, (lat, bw) in LINKS.items()), [])
    subprocess.run([sys.executable, tool, "--topology", TOPOLOGY, "--nodes", "2",
                    "--platform", platform, "--hostfile", hosts] + links, check=True)
    flags = subprocess.run([sys.executable, tool, "--print-smpi-flags"], check=True,
                           capture_output=True, text=True).stdout.split()
    failed, small = 0, {}
    for peer, crossed in PEERS:
        pair = os.path.join(work, "pair.hosts")
        with open(pair, "w") as f:
            f.write("n0c0\n%s\n" % peer)
        out = subprocess.run(["smpirun", "-np", "2", "-platform", platform, "-hostfile", pair]
                             + flags + ["--log=root.thresh:warning", bench, "--reps", "1",
                                        "--max", str(BIG)],
                             check=True, capture_output=True, text=True).stdout
        times = {int(l.split()[0]): float(l.split()[1]) * 1e-6 for l in out.splitlines()
                 if l.strip() and l.split()[0].isdigit()}
        small[peer] = times[4]
        slowest = min(LINKS[k][1] for k in crossed)
        got_bw, want_bw = BIG / (times[BIG] - times[4]), slowest
        ok = abs(got_bw - want_bw) <= 0.01 * want_bw
        failed += not ok
        print("%s: 4 B %.4f us, %d B over %.3f GB/s (expected %.3f) %s" % (
            peer, times[4] * 1e6, BIG, got_bw / 1e9, want_bw / 1e9, "ok" if ok else "FAILED"))
    for (a, ca), (b, cb) in zip(PEERS, PEERS[1:]):
        extra = 2 * sum(LINKS[k][0] for k in cb if k not in ca)
        got = small[b] - small[a]
        ok = abs(got - extra) <= 5e-9  # smpirun's surf/precision: 1 ns per event
        failed += not ok
        print("%s -> %s: +%.4f us (expected +%.4f) %s" % (a, b, got * 1e6, extra * 1e6,
                                                          "ok" if ok else "FAILED"))
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
