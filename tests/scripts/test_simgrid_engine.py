# SPDX-License-Identifier: BSD-3-Clause
"""scripts/lib/simgrid_engine.py's target figures (issue 17) on a hand-made
combined CSV: the output must be the hand-computed lines of
simgrid_engine_expected.txt.
Usage: test_simgrid_engine.py SIMGRID_ENGINE_PY FIXTURE_DIR"""
import os
import subprocess
import sys

script, fixtures = sys.argv[1], sys.argv[2]
got = subprocess.run([sys.executable, script, "targets", "--data",
                      os.path.join(fixtures, "simgrid_engine_fixture.csv")],
                     capture_output=True, text=True)
if got.returncode != 0:
    sys.exit("simgrid_engine.py targets failed:\n" + got.stderr)
with open(os.path.join(fixtures, "simgrid_engine_expected.txt")) as f:
    expected = [line.rstrip("\n") for line in f if not line.startswith("#")]
lines = got.stdout.splitlines()
if lines != expected:
    for i in range(max(len(lines), len(expected))):
        a = expected[i] if i < len(expected) else "(none)"
        b = lines[i] if i < len(lines) else "(none)"
        if a != b:
            print("line %d: expected %s\n         got      %s" % (i + 1, a, b))
    sys.exit(1)
print("simgrid_engine targets: %d lines as expected" % len(lines))
