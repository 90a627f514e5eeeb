#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""compare_hierarchy.py EXPECTED.json ACTUAL.json

Exit 0 when both files parse to equal hsplit-info JSON objects; otherwise print the
first differing step / communicator / roots communicator and exit 1 (2: unreadable).
"""
import json
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print("compare_hierarchy: cannot read %s: %s" % (path, e), file=sys.stderr)
        sys.exit(2)


def first_difference(exp, act):
    """A readable description of the first difference, or None when equal."""
    if exp == act:
        return None
    if not isinstance(act, dict) or set(act) != {"nprocs", "steps"}:
        return "top level: expected keys ['nprocs', 'steps'], got %s" % (
            sorted(act) if isinstance(act, dict) else type(act).__name__)
    if exp["nprocs"] != act["nprocs"]:
        return "nprocs: expected %s, got %s" % (exp["nprocs"], act["nprocs"])
    esteps, asteps = exp["steps"], act["steps"]
    for s in range(max(len(esteps), len(asteps))):
        where = "step %d" % (s + 1)
        if s >= len(asteps):
            return "%s: missing in actual (expected %d steps, got %d)\n  expected: %s" % (
                where, len(esteps), len(asteps), json.dumps(esteps[s]))
        if s >= len(esteps):
            return "%s: unexpected in actual (expected %d steps, got %d)\n  actual:   %s" % (
                where, len(esteps), len(asteps), json.dumps(asteps[s]))
        e, a = esteps[s], asteps[s]
        if e == a:
            continue
        if not isinstance(a, dict) or set(a) != {"comms", "roots_comms"}:
            return "%s: expected keys ['comms', 'roots_comms'], got %s" % (where, json.dumps(a))
        for key in ("comms", "roots_comms"):
            el, al = e[key], a[key]
            for i in range(max(len(el), len(al))):
                if i >= len(el) or i >= len(al) or el[i] != al[i]:
                    ei = json.dumps(el[i]) if i < len(el) else "(none)"
                    ai = json.dumps(al[i]) if i < len(al) else "(none)"
                    return ("%s, %s[%d] (expected %d entries, got %d)\n"
                            "  expected: %s\n  actual:   %s" % (where, key, i, len(el),
                                                             len(al), ei, ai))
    return "objects differ (unrecognised shape)"


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    try:
        diff = first_difference(load(sys.argv[1]), load(sys.argv[2]))
    except (KeyError, TypeError):
        diff = "objects differ (actual does not have the hsplit-info shape)"
    if diff is None:
        sys.exit(0)
    print("hierarchy mismatch: %s\n  (expected: %s, actual: %s)" % (diff, sys.argv[1],
                                                                   sys.argv[2]))
    sys.exit(1)


if __name__ == "__main__":
    main()
