#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Runs one mini-app command and checks its results (a CTest driver).

    check_app.py [checks...] -- mpiexec -n P hsplit-summa|hsplit-asp [args...]

The driver appends `--csv FILE` (and `--dump PREFIX` with --expect-dump) to the
command, then asserts:
  - the exit status: 0 (default), 1 with --expect-fail (a check of the app
    reported FAIL), 2 with --expect-error REGEX (and REGEX in the output);
  - every variant reported PASS (or, with --expect-fail, FAIL);
  - --variants a,b,...: exactly these variants, in this order;
  - every variant produced the same result (summa: checksum of C; asp: sum of
    the finite distances and number of unreachable pairs);
  - --summa-checksum N SEED: that result equals the sum of the elements of A B
    computed here (reference.py);
  - --asp-random N DENSITY LO HI SEED ITERATIONS: that result equals the one of
    reference.py's Floyd-Warshall on the same random graph;
  - --expect-dump FILE: every variant's distance dump equals FILE.
"""
import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference  # noqa: E402


def fail(message):
    print("check_app: FAILED: " + message)
    sys.exit(1)


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        fail("usage: check_app.py [checks] -- command")
    split = argv.index("--")
    parser = argparse.ArgumentParser()
    parser.add_argument("--expect-fail", action="store_true")
    parser.add_argument("--expect-error")
    parser.add_argument("--variants")
    parser.add_argument("--summa-checksum", nargs=2, type=int, metavar=("N", "SEED"))
    parser.add_argument("--asp-random", nargs=6,
                        metavar=("N", "DENSITY", "LO", "HI", "SEED", "ITERATIONS"))
    parser.add_argument("--expect-dump")
    parser.add_argument("--timeout", type=float, default=450)
    opts = parser.parse_args(argv[:split])
    command = argv[split + 1:]

    with tempfile.TemporaryDirectory() as tmp:
        csv_path = os.path.join(tmp, "results.csv")
        dump_prefix = os.path.join(tmp, "dist")
        full = command + ["--csv", csv_path]
        if opts.expect_dump:
            full += ["--dump", dump_prefix]
        print("$ " + " ".join(full), flush=True)
        proc = subprocess.run(full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=opts.timeout)
        print(proc.stdout)

        if opts.expect_error:
            if proc.returncode != 2:
                fail(f"exit status {proc.returncode}, expected 2 (bad input)")
            if not re.search(opts.expect_error, proc.stdout, re.MULTILINE):
                fail(f"no match for {opts.expect_error!r} in the output")
            print("check_app: expected error reported")
            return
        expected_rc = 1 if opts.expect_fail else 0
        if proc.returncode != expected_rc:
            fail(f"exit status {proc.returncode}, expected {expected_rc}")
        if not os.path.exists(csv_path):
            fail("no CSV written")
        with open(csv_path) as f:
            rows = list(csv.DictReader(f))
        if not rows:
            fail("empty CSV")
        names = [r["variant"] for r in rows]
        if opts.variants and names != opts.variants.split(","):
            fail(f"variants {names}, expected {opts.variants.split(',')}")
        verdict = "FAIL" if opts.expect_fail else "PASS"
        for r in rows:
            if r["check"] != verdict:
                fail(f"variant {r['variant']}: check {r['check']}, expected {verdict}")
        if opts.expect_fail:
            print("check_app: the checks caught the corrupted result")
            return

        if "checksum" in rows[0]:
            results = {r["variant"]: (int(r["checksum"]),) for r in rows}
        else:
            results = {r["variant"]: (int(r["dist_sum"]), int(r["unreachable"])) for r in rows}
        if len(set(results.values())) != 1:
            fail(f"variants disagree: {results}")
        result = next(iter(results.values()))

        if opts.summa_checksum:
            n, seed = opts.summa_checksum
            want = (reference.summa_checksum(n, seed),)
            if result != want:
                fail(f"checksum {result[0]}, reference {want[0]}")
        if opts.asp_random:
            n, density, lo, hi, seed, iterations = opts.asp_random
            graph = reference.random_graph(int(n), float(density), int(lo), int(hi), int(seed))
            want = reference.distance_summary(reference.floyd_warshall(graph, int(iterations)))
            if result != want:
                fail(f"(distance sum, unreachable) {result}, reference {want}")
        if opts.expect_dump:
            with open(opts.expect_dump) as f:
                want = f.read().split()
            for name in names:
                path = f"{dump_prefix}-{name}.txt"
                if not os.path.exists(path):
                    fail(f"no dump for {name}")
                with open(path) as f:
                    got = f.read().split()
                if got != want:
                    fail(f"{name}: distances {got} differ from {opts.expect_dump}: {want}")
        print(f"check_app: {len(rows)} variants PASS with the same result {result}")


if __name__ == "__main__":
    main()
