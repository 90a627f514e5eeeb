#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Auto mode's measured choice, on a simulated clock: runs test_sim_auto
under smpirun twice, with HSPLIT_COLL=on (the hierarchy at every call) and in
auto mode, and checks that for every collective and size auto mode is within
10% of the faster of plain MPI and the default tree (auto mode also
measures the engine's schedules: it may be faster than both). Simulated times are
deterministic: the plain MPI times of both runs must be equal (to the
simulator's rounding of 1 ns per event: within 0.01%).

    check_auto_choice.py SMPIRUN NP PLATFORM HOSTFILE FLAGS PROGRAM SIZE...
    (FLAGS: smpirun's options, one argument separated by spaces)
"""
import os
import subprocess
import sys


def run(cmd, mode):
    env = dict(os.environ, HSPLIT_COLL=mode)
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("HSPLIT_COLL=%s: smpirun failed (%d):\n%s" % (mode, done.returncode,
                                                             done.stderr[-3000:]))
    out = done.stdout
    rows = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[1].isdigit():
            rows[(f[0], int(f[1]))] = (float(f[2]), float(f[3]))
    return rows


def main():
    smpirun, np, platform, hosts, flags, program = sys.argv[1:7]
    sizes = sys.argv[7:]
    cmd = [smpirun, "-np", np, "-platform", platform, "-hostfile", hosts] + flags.split() + \
        ["--log=root.thresh:warning", program] + sizes
    on, auto = run(cmd, "on"), run(cmd, "auto")
    failed = 0
    if not on or set(on) != set(auto):
        print("missing rows: on %d, auto %d" % (len(on), len(auto)))
        failed += 1
    print("%-10s %9s %12s %12s %12s %9s" % ("collective", "bytes", "plain_us", "hier_us",
                                             "auto_us", "auto/best"))
    for key in sorted(on, key=lambda k: (k[1], k[0])):
        if key not in auto:
            continue
        plain, hier = on[key]
        plain_again, chosen = auto[key]
        best = min(plain, hier)
        ok = chosen <= 1.1 * best and abs(plain - plain_again) <= 0.01 + 1e-4 * plain
        failed += not ok
        print("%-10s %9d %12.3f %12.3f %12.3f %9.3f %s" % (key[0], key[1], plain, hier, chosen,
                                                          chosen / best, "ok" if ok else "FAILED"))
        if not ok:
            print("  plain MPI in the auto run: %.3f us" % plain_again)
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
